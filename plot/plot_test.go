package plot

import (
	"bytes"
	"strings"
	"testing"
)

func TestDistributions(t *testing.T) {
	d := &Distributions{Title: "t", XLabel: "x", Series: []Series{{Label: "a", Values: []float64{1, 2, 2, 3}}, {Label: "b"}}}
	for _, format := range Formats {
		var b bytes.Buffer
		if err := d.Write(&b, format); err != nil || b.Len() == 0 {
			t.Errorf("%s: %d bytes, %v", format, b.Len(), err)
		}
	}
	var b bytes.Buffer
	if err := d.Write(&b, "gif"); err == nil {
		t.Error("gif accepted")
	}
	empty := &Distributions{Series: []Series{{Label: "a"}}}
	if err := empty.Write(&b, "svg"); err == nil || !strings.Contains(err.Error(), "no values") {
		t.Errorf("no values: %v", err)
	}
}

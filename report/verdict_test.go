package report

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestRegionsVerdictOnTop: the verdict a regions result carries opens the
// section, as a sentence; a file written before verdicts shows none.
func TestRegionsVerdictOnTop(t *testing.T) {
	data, err := os.ReadFile("testdata/regions-ft64.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	doc["verdict"] = "verdict: the most congested region is high, mean 32.00 % (max 57.50 %) over 32 cables, in window 500"
	withVerdict, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		data []byte
		want string
	}{
		{withVerdict, `<section id="regions">
<h2>Congestion regions over time</h2>
<p class="answer">The most congested region is high, mean 32.00 % (max 57.50 %) over 32 cables, in window 500</p>`},
		{data, `<section id="regions">
<h2>Congestion regions over time</h2>
<p>5 windows`},
	} {
		in, err := Load([]string{writeTemp(t, "regions.json", string(tc.data))})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := Write(&b, in, Options{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("the regions section does not start with %q", tc.want)
		}
	}
}

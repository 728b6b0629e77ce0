package metrics

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestHotTextPeakFlows: the text lists a cable's peak flows, at most
// maxTextPeakFlows of them, and says how many more CSV and JSON carry.
func TestHotTextPeakFlows(t *testing.T) {
	h := HotCable{Rank: 1, From: "S0", FromPort: 1, To: "H0", ToPort: 1, MeanPeak: 40, MaxLoad: 40, MaxRun: 2, MaxLevel: 3, DistinctFlows: 90}
	for i := range 40 {
		h.PeakFlows = append(h.PeakFlows, HotFlow{Level: 3, SrcRank: int32(i + 1), DstRank: 0, SrcHost: fmt.Sprintf("H%d", i+1), DstHost: "H0", Run: 2, Runs: 1})
	}
	var b bytes.Buffer
	if err := WriteHotText(&b, []HotCable{h}, 5); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"1. S0:1 -> H0:1: 90 flows over 5 runs; at its peak (load 40, run 2, level 3):\n  rank 1 -> 0 (H1 -> H0)\n",
		"  rank 32 -> 0 (H32 -> H0)\n  … and 8 more (every flow: --hot-csv, --format json)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "rank 33 ") {
		t.Errorf("text lists more than %d peak flows:\n%s", maxTextPeakFlows, out)
	}
	b.Reset()
	if err := WriteHotCSV(&b, []HotCable{h}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), ",peak,2,3,"); n != 40 {
		t.Errorf("CSV: %d peak rows, want 40:\n%s", n, b.String())
	}
}

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

// TestHotVerdict computes the verdict from hand-given cables: the first
// (rank 1) is named with its peak and its first flows.
func TestHotVerdict(t *testing.T) {
	flow := func(src, dst int32) HotFlow {
		return HotFlow{SrcRank: src, DstRank: dst, SrcHost: fmt.Sprintf("n%d", src), DstHost: fmt.Sprintf("n%d", dst)}
	}
	one := HotCable{Rank: 1, From: "leaf1", FromPort: 3, To: "spine2", ToPort: 1, MeanPeak: 2.25, MaxLoad: 1, MaxRun: 4, MaxLevel: 2,
		PeakFlows: []HotFlow{flow(0, 9)}}
	many := HotCable{Rank: 1, From: "S0", To: "H0", MeanPeak: 6, MaxLoad: 6, MaxRun: 0, MaxLevel: 1,
		PeakFlows: []HotFlow{flow(1, 0), flow(2, 0), flow(3, 0), flow(4, 0), flow(5, 0), flow(6, 0)}}
	for _, tc := range []struct {
		name string
		hot  []HotCable
		runs int
		want string
	}{
		{"none", []HotCable{}, 10, "No cable carried a route: nothing is hot."},
		{"one flow", []HotCable{one, many}, 1,
			"The hottest cable is leaf1:3 -> spine2:1, carrying 1 flow at once in level 2 of run 4 (its peak load averages 2.25 over 1 run); its flows: rank 0 -> 9 (n0 -> n9)."},
		{"more flows than named", []HotCable{many}, 100,
			"The hottest cable is S0 -> H0, carrying 6 flows at once in level 1 of run 0 (its peak load averages 6 over 100 runs); " +
				"its flows: rank 1 -> 0 (n1 -> n0), rank 2 -> 0 (n2 -> n0), rank 3 -> 0 (n3 -> n0), rank 4 -> 0 (n4 -> n0) and 2 more."},
	} {
		if got := HotVerdict(tc.hot, tc.runs); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

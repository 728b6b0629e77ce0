package regions

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestVerdictWhereAndWhen computes the verdict from hand-given windows on
// ft16: a region on S1_2 -> S0_1 (a spine, level 2, into a leaf, level 1)
// at time 10, grown by S0_1 -> H5 at 20 (its worst, mean 30 %), gone at
// 30; a negligible region elsewhere; one isolated hot cable at 30.
func TestVerdictWhereAndWhen(t *testing.T) {
	f := loadDot(t, "ft16.dot")
	spine, host, other := linkOf(t, f, "S1_2", "S0_1"), linkOf(t, f, "S0_1", "H5"), linkOf(t, f, "S0_3", "H12")
	r := &Result{f: f, Params: Params{ThetaP: 4, ThetaR: 4, Sigma: 1, Delta: 2},
		Windows: []WindowRegions{
			{Time: 10, Regions: []Region{{Cables: []int32{spine}, Mean: 20, Max: 20}, {Cables: []int32{other}, Mean: 1, Max: 1}}, Track: []int{1, 2}, Growth: []int{0, 0}},
			{Time: 20, Regions: []Region{{Cables: []int32{spine, host}, Mean: 30, Max: 40}}, Track: []int{1}, Growth: []int{1}},
			{Time: 30, Dropped: []int32{host}, DroppedStall: []float64{7.5}},
		},
		Tracks: []Track{{ID: 1, FirstTime: 10, LastTime: 20, Windows: 2, FirstSize: 1, LastSize: 2, MaxSize: 2}, {ID: 2, FirstTime: 10, LastTime: 10, Windows: 1, MaxSize: 1}},
	}
	want := "verdict: the most congested region is high, mean 30.00 % (max 40.00 %) over 2 cables, in window 20 at switches S0_1 S1_2 (levels 1, 2), hosts H5; " +
		"its track 1 started in window 10, peaked in window 20 and lasted to window 20 (2 windows, up to 2 cables); " +
		"1 cable at ≥ 5 % stall (up to 7.50 %) lies in no region in 1 window (regions smaller than σ 1: look at them one by one) " +
		"(exact for these stall values; the regions depend on θp 4, θr 4, σ 1, δ 2)."
	if got := r.Verdict(); got != want {
		t.Errorf("verdict\n got %s\nwant %s", got, want)
	}
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Verdict string `json:"verdict"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil || doc.Verdict != want {
		t.Errorf("JSON verdict %q (%v)", doc.Verdict, err)
	}
	empty := &Result{Params: Params{ThetaP: 4, ThetaR: 4, Sigma: 1, Delta: 2}, Windows: []WindowRegions{{Time: 5}}}
	if got := empty.Verdict(); got != "verdict: no region in any window; every cable at ≥ 5 % stall is in a region (exact for these stall values; the regions depend on θp 4, θr 4, σ 1, δ 2)." {
		t.Errorf("no region: %s", got)
	}
}

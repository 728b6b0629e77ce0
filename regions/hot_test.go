package regions

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// σ scaled with the fabric, Monet's 20 for 82 944 cables: hand computed
// 20·√(n/82 944), rounded, at least 1.
func TestScaledSigma(t *testing.T) {
	for _, tc := range []struct{ cables, sigma int }{
		{64, 1},        // ft16: 0.556
		{466, 1},       // 1.4991
		{467, 2},       // 1.5007
		{24576, 11},    // the 4096-host 16-ary 3-tree: 10.887
		{82944, 20},    // Monet's torus
		{165888, 28},   // twice Monet's: 28.28
		{1, 1}, {0, 1}, // nothing smaller than one cable
	} {
		if got := ScaledSigma(tc.cables); got != tc.sigma {
			t.Errorf("ScaledSigma(%d) = %d, want %d", tc.cables, got, tc.sigma)
		}
	}
	p := DefaultParams(Hops)
	if p.Sigma != SigmaAuto || p.Resolve(64).Sigma != 1 || MonetParams().Resolve(64).Sigma != 20 {
		t.Errorf("defaults %+v resolve to σ %d on 64 cables; Monet's %d", p, p.Resolve(64).Sigma, MonetParams().Resolve(64).Sigma)
	}
}

// The stall CSV's congestion tree towards H0 on the 16-host tree (64
// cables): at 60 S0_0 -> H0 at 40 %; at 120 S0_0 -> H0 at 42 % and the four
// spines' cables into S0_0 at 30, 31, 29.5, 30.5 %. The hot cables must
// show, by default and with Monet's σ 20.
func TestHotCablesNeverHidden(t *testing.T) {
	f := loadDot(t, "ft16.dot")
	fh, err := os.Open(filepath.Join(fixtures, "ft16-stalls.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	s, err := ReadCSV(fh, "ft16-stalls.csv", f)
	if err != nil {
		t.Fatal(err)
	}
	root := linkOf(t, f, "S0_0", "H0")
	spines := []int32{linkOf(t, f, "S1_0", "S0_0"), linkOf(t, f, "S1_1", "S0_0"), linkOf(t, f, "S1_2", "S0_0"), linkOf(t, f, "S1_3", "S0_0")}
	slices.Sort(spines)

	// The default: σ 1 on 64 cables. At 60 the hot cable is a high region
	// of its own; at 120 it is again (42 is 11.75 points from the spines'
	// mean 30.25, more than θr 4), and the spines' four cables (within θp
	// 4 of each other) are a high region of mean (30+31+29.5+30.5)/4.
	res, err := ExtractFabric(f, "ft16", nil, DefaultParams(Hops), s, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Params.Sigma != 1 {
		t.Errorf("σ %d on 64 cables, want 1", res.Params.Sigma)
	}
	find := func(w WindowRegions, cables []int32) *Region {
		for i := range w.Regions {
			if slices.Equal(w.Regions[i].Cables, cables) {
				return &w.Regions[i]
			}
		}
		return nil
	}
	if r := find(res.Windows[0], []int32{root}); r == nil || r.Mean != 40 || r.Severity() != High {
		t.Errorf("window 60: %+v, want a high region of S0_0 -> H0 alone", res.Windows[0].Regions)
	}
	if r := find(res.Windows[1], []int32{root}); r == nil || r.Mean != 42 {
		t.Errorf("window 120: %+v, want S0_0 -> H0 alone at 42 %%", res.Windows[1].Regions)
	}
	if r := find(res.Windows[1], spines); r == nil || math.Abs(r.Mean-30.25) > 1e-9 || r.Severity() != High {
		t.Errorf("window 120: %+v, want the spines' cables at 30.25 %%", res.Windows[1].Regions)
	}
	for _, w := range res.Windows {
		if len(w.Dropped) != 0 {
			t.Errorf("window %g: %d cables dropped with σ 1", w.Time, len(w.Dropped))
		}
	}

	// Monet's σ 20: the hot cables form regions smaller than σ whose only
	// neighbour is the cold rest (mean below 5 %); they are not merged into
	// it (Monet's stage 3 did: one negligible region of mean 0.65 %), and
	// stage 4 drops them into the list of isolated hot cables.
	res, err = ExtractFabric(f, "ft16", nil, MonetParams(), s, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		hot []int32
		max float64
	}{{[]int32{root}, 40}, {append([]int32{root}, spines...), 42}} {
		w := res.Windows[i]
		var hot []int32
		for _, h := range w.Hot() {
			hot = append(hot, h.Cable)
		}
		slices.Sort(hot)
		slices.Sort(want.hot)
		if !slices.Equal(hot, want.hot) || w.droppedMax() != want.max || len(w.Dropped) != len(want.hot) {
			t.Errorf("window %g: isolated hot %v (dropped %d, max %v), want %v (max %v)", w.Time, hot, len(w.Dropped), w.droppedMax(), want.hot, want.max)
		}
		for _, r := range w.Regions {
			if r.Severity() == Negligible && r.Max >= LowStall {
				t.Errorf("window %g: a hot cable (%.2f %%) hidden in a negligible region of %d cables", w.Time, r.Max, len(r.Cables))
			}
		}
	}
}

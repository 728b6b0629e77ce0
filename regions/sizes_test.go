package regions

import (
	"strings"
	"testing"
)

// TestL1Count checks the count of integer vectors of L1 norm at most r
// against hand counts and against l1Offsets (which leaves out the zero
// vector): in 1-D 2r+1; in 2-D 2r²+2r+1 (1, 5, 13, 25); in 3-D 1, 7, 25,
// 63.
func TestL1Count(t *testing.T) {
	for _, c := range []struct {
		D, r int
		want float64
	}{{1, 0, 1}, {1, 3, 7}, {2, 1, 5}, {2, 2, 13}, {2, 3, 25}, {3, 1, 7}, {3, 2, 25}, {3, 3, 63}} {
		if got := l1Count(c.D, c.r); got != c.want {
			t.Errorf("l1Count(%d, %d) = %g, want %g", c.D, c.r, got, c.want)
		}
	}
	for D := 1; D <= 4; D++ {
		for r := range 7 {
			if got, want := l1Count(D, r), float64(len(l1Offsets(D, r))+1); got != want {
				t.Errorf("l1Count(%d, %d) = %g, l1Offsets has %g", D, r, got, want)
			}
		}
	}
}

// TestParamsBounds checks the limits of the user's sizes: δ and the
// smoothing rounds used to run in time linear in them (2^63−1 never
// ended).
func TestParamsBounds(t *testing.T) {
	for _, c := range []struct {
		p    Params
		want string
	}{
		{Params{ThetaP: 4, ThetaR: 4, Delta: 1 << 62}, "want 0 to 64 hops"},
		{Params{ThetaP: 4, ThetaR: 4, Delta: 65}, "δ 65: want 0 to 64 hops"},
		{Params{ThetaP: 4, ThetaR: 4, Delta: -1}, "δ -1"},
		{Params{ThetaP: 4, ThetaR: 4, Delta: 2, Smooth: 1e9}, "smoothing rounds 1000000000: want 0 to 100"},
		{Params{ThetaP: 4, ThetaR: 4, Delta: 2, Sigma: -3}, "σ -3"},
	} {
		if err := c.p.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: Check() = %v; want %q", c.p, err, c.want)
		}
	}
	for _, ok := range []Params{{ThetaP: 4, ThetaR: 4, Delta: MaxDelta, Smooth: MaxSmooth}, MonetParams()} {
		if err := ok.Check(); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
	if _, err := Synthetic("torus", ReadLinks, MonetParams(), MaxSamples+1, 1, nil); err == nil || !strings.Contains(err.Error(), "want 1 to 1000") {
		t.Errorf("Synthetic(%d samples) = %v", MaxSamples+1, err)
	}
}

// TestGridGraphWork checks that a δ whose L1 neighbourhoods would take
// more than maxL1Checks is refused before the work, naming the largest δ
// that fits: on the synthetic torus benchmark's grid (41 472 cable
// points in 3-D), l1Count(3, 2δ)·41472 ≤ 10^8 up to δ = 5 (l1Count(3, 10)
// = 1561, l1Count(3, 12) = 2625: 6.5e7 and 1.09e8).
func TestGridGraphWork(t *testing.T) {
	if l1Count(3, 10) != 1561 || l1Count(3, 12) != 2625 {
		t.Fatalf("l1Count(3, 10), l1Count(3, 12) = %g, %g", l1Count(3, 10), l1Count(3, 12))
	}
	p := MonetParams()
	p.Delta = 6
	_, err := Synthetic("torus", ReadLinks, p, 1, 1, nil)
	if err == nil || !strings.Contains(err.Error(), "the largest δ that fits is 5") {
		t.Fatalf("δ 6 on the torus benchmark: %v", err)
	}
}

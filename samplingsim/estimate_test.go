package samplingsim

import (
	"math"
	"testing"

	"orcs/lft"
	"orcs/rng"
)

// mixedTraffic is a hot spot to host 0 plus random pairs: paths of every
// length, congested and uncongested links.
func mixedTraffic(f *lft.Fabric, seed uint64) []Message {
	r := rng.New(seed, 0)
	H := f.NumHosts()
	msgs := hotSpotPlan(f, 10)
	for range 4 * H {
		s, d := r.IntN(H), r.IntN(H-1)
		if d >= s {
			d++
		}
		msgs = append(msgs, Message{Src: int32(s), Dst: int32(d), Bytes: 8 * 4096})
	}
	return msgs
}

// TestEstimatesMatchTruth compares every sampled link's estimate with the
// ground truth. For the reservoir scheme Var[W] = Σ N_i(l_i−1) ≤ N(L−1)
// and Var[Ŵ] ≤ M(L−1) (§3.3); for the one-bit schemes with the route
// restriction Q_d = N_d, so Var[W] = Σ N_i l_i² − N ≤ N·L², and the
// congested count has Var[Ŵ] ≤ (QC_d + M_d)·L², where QC_d counts the
// packets with a congested sample whose route crosses d and M_d those
// congested at d (§5.3). Each estimate must lie
// within 5 standard deviations of the truth.
func TestEstimatesMatchTruth(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	const L = 5 // hops counted on the longest route (switches crossed)
	msgs := mixedTraffic(f, 3)
	for _, c := range []struct {
		scheme string
		tag    float64
		varN   float64 // variance bound per packet
		prob   bool    // congested variance bound from QC_d
	}{
		{"reservoir", 1, L - 1, false},
		{"reservoir", 0.5, 2 * L, false}, // half the packets, estimates doubled
		{"onebit", 1, L * L, true},
		{"onereservoir", 1, L * L, true},
	} {
		cfg := DefaultConfig()
		cfg.Scheme, cfg.TagFraction = c.scheme, c.tag
		cfg.FalsePositiveConfidence = 0
		r := mustRun(t, f, cfg, planOf(f, msgs...))
		est := r.Estimates(AllJobs, -1)
		checked := 0
		for l := range f.Links {
			tr := r.TruthOf(-1, int32(l))
			e := est[l]
			if !r.Sampled(int32(l)) {
				if e.W != 0 {
					t.Errorf("%s: host link %s has an estimate", c.scheme, f.LinkName(int32(l)))
				}
				continue
			}
			n, m := float64(tr.Packets), float64(tr.Congested)
			if d := math.Abs(e.Packets - n); d > 5*math.Sqrt(c.varN*n)+1e-9 {
				t.Errorf("%s tag %g: %s: estimate %.0f packets, truth %.0f", c.scheme, c.tag, f.LinkName(int32(l)), e.Packets, n)
			}
			cv := c.varN * m
			if c.prob {
				cv = L * L * (float64(e.QC) + m)
			}
			{
				if d := math.Abs(e.Congested - m); d > 5*math.Sqrt(cv)+1e-9 {
					t.Errorf("%s tag %g: %s: estimate %.0f congested packets, truth %.0f", c.scheme, c.tag, f.LinkName(int32(l)), e.Congested, m)
				}
			}
			if n > 0 {
				checked++
			}
		}
		if checked < 100 {
			t.Errorf("%s: only %d links carried traffic", c.scheme, checked)
		}
	}
}

// TestNoSampling: without tagged packets there are no estimates, but the
// truth is the same.
func TestNoSampling(t *testing.T) {
	f := fabric(t, "kary:k=4,n=2")
	msgs := mixedTraffic(f, 4)
	base := mustRun(t, f, DefaultConfig(), planOf(f, msgs...))
	for _, edit := range []func(*Config){
		func(c *Config) { c.Scheme = "none" },
		func(c *Config) { c.TagFraction = 0 },
	} {
		cfg := DefaultConfig()
		edit(&cfg)
		r := mustRun(t, f, cfg, planOf(f, msgs...))
		for l, e := range r.Estimates(AllJobs, -1) {
			if e.W != 0 || e.C != 0 {
				t.Fatalf("estimate on link %d without sampling", l)
			}
			if r.TruthOf(-1, int32(l)) != base.TruthOf(-1, int32(l)) {
				t.Fatalf("truth of link %d changed without sampling", l)
			}
		}
	}
}

// TestWindows checks that windows partition the run: per-window truth and
// estimates add up to the totals of a run without windows, busy time
// included, and that the hot spot's congestion is visible in each window.
func TestWindows(t *testing.T) {
	f := fabric(t, "kary:k=4,n=2")
	msgs := mixedTraffic(f, 5)
	cfg := DefaultConfig()
	one := mustRun(t, f, cfg, planOf(f, msgs...))
	cfg.Window = 3 * Microsecond
	many := mustRun(t, f, cfg, planOf(f, msgs...))
	if many.Windows() < 5 {
		t.Fatalf("only %d windows of 3 µs in a %s run", many.Windows(), FormatTime(many.End))
	}
	e1 := one.Estimates(AllJobs, -1)
	eAll := many.Estimates(AllJobs, -1)
	for l := range f.Links {
		a, b := one.TruthOf(-1, int32(l)), many.TruthOf(-1, int32(l))
		if a != b {
			t.Errorf("link %s: truth %+v in one window, %+v summed over windows", f.LinkName(int32(l)), a, b)
		}
		var w, c int64
		for i := range many.Windows() {
			e := many.Estimates(AllJobs, i)[l]
			w += e.W
			c += e.C
			if from, to := many.WindowSpan(i); many.TruthOf(i, int32(l)).Busy > to-from {
				t.Errorf("link %d busy %d ps in a window of %d ps", l, many.TruthOf(i, int32(l)).Busy, to-from)
			}
		}
		if w != eAll[l].W || c != eAll[l].C || w != e1[l].W {
			t.Errorf("link %d: windows sum to W=%d C=%d, all windows W=%d C=%d, one window W=%d", l, w, c, eAll[l].W, eAll[l].C, e1[l].W)
		}
	}
}

// TestThresholdInSimulation: with one-bit headers and receivers that must
// consider every switch link, the false-positive threshold hides almost all
// links that carried nothing and keeps the busy ones; with the exact route
// restriction nothing is hidden.
func TestThresholdInSimulation(t *testing.T) {
	f := fabric(t, "kary:k=4,n=2")
	msgs := hotSpotPlan(f, 60)
	for _, restrict := range []string{"all", "route"} {
		cfg := DefaultConfig()
		cfg.Scheme, cfg.Restrict = "onebit", restrict
		r := mustRun(t, f, cfg, planOf(f, msgs...))
		est := r.Estimates(AllJobs, -1)
		idle, shown, busyHidden := 0, 0, 0
		for l := range f.Links {
			if !r.Sampled(int32(l)) {
				continue
			}
			tr := r.TruthOf(-1, int32(l))
			switch {
			case tr.Packets == 0:
				idle++
				if est[l].Packets > 0 {
					shown++
				}
			case tr.Packets >= 400 && est[l].Packets == 0:
				busyHidden++
			}
			if restrict == "route" && est[l].Hidden {
				t.Errorf("route restriction hid link %s", f.LinkName(int32(l)))
			}
		}
		if restrict == "all" && (idle < 10 || float64(shown) > 0.05*float64(idle)) {
			t.Errorf("%d of %d idle links shown", shown, idle)
		}
		if busyHidden > 0 {
			t.Errorf("%s: %d links with ≥ 400 packets hidden", restrict, busyHidden)
		}
		t.Logf("%s: %d of %d idle links shown", restrict, shown, idle)
	}
}

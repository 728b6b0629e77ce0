package samplingsim

import (
	"math"
	"slices"
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

// varianceProbe wraps a sampling scheme in a run and adds up, for every
// link d, the variance that each tagged packet's sample adds to the
// receivers' weighted count W_d and congested count C_d. A packet whose
// path has l sampled hops, g of them congested, contributes (thesis §3.3,
// §5.3, §5.7; n = 1 if it crossed d, m = 1 if it was congested at d):
//
//	reservoir (Alg. 3–4), d on its path:   W: l·Bernoulli(1/l), Var = l − 1
//	                      d congested:     C: g·Bernoulli(1/g), Var = g − 1
//	onebit (Alg. 6–7), d a candidate:      W: ±l, E = n, Var = l² − n
//	                   (if g > 0)          C: ±g, E = m, Var = g² − m
//	onereservoir (Alg. 8–9), d a candidate: W: ±l, Var = l² − n
//	                                        C: ±l if the sampled hop was
//	                                        congested (probability g/l),
//	                                        E = m, Var = l·g − m
//
// Summed over packets these are the thesis's Var[W] = Σ N_i(l_i − 1) and
// Var[W_d] = Σ Q_l·l² − N (and their congested analogues). They hold given
// the paths and congestion marks, which is what the ground truth records.
type varianceProbe struct {
	hops       map[int32][]bool // congestion marks of a packet's hops so far, by packet slot
	links      map[int32][]int32
	varW, varC []float64 // by link
	maxHops    int       // the longest path received, in sampled hops
}

// runProbed is Run with a variance probe around the configured scheme.
func runProbed(t *testing.T, f *lft.Fabric, cfg Config, p *Plan) (*Result, *varianceProbe) {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	s, err := setUp(f, cfg, p) // checks the plan
	if err != nil {
		t.Fatal(err)
	}
	vp := &varianceProbe{hops: map[int32][]bool{}, links: map[int32][]int32{},
		varW: make([]float64, len(f.Links)), varC: make([]float64, len(f.Links))}
	sc := *s.scheme
	hop, receive := sc.hop, sc.receive
	sc.hop = func(h *header, e *hopEnv) {
		vp.hops[e.pid] = append(vp.hops[e.pid], e.congested)
		vp.links[e.pid] = append(vp.links[e.pid], e.link)
		hop(h, e)
	}
	sc.receive = func(h *header, e *recvEnv) {
		vp.received(sc.name, e)
		receive(h, e)
	}
	s.scheme = &sc
	if err := s.run(); err != nil {
		t.Fatal(err)
	}
	return s.result(0), vp
}

// received adds the variance of one received packet's sample.
func (vp *varianceProbe) received(scheme string, e *recvEnv) {
	marks, path := vp.hops[e.pid], vp.links[e.pid]
	delete(vp.hops, e.pid)
	delete(vp.links, e.pid)
	vp.maxHops = max(vp.maxHops, len(marks))
	l, g := float64(len(marks)), 0.0
	congAt := map[int32]bool{}
	for i, c := range marks {
		if c {
			g++
			congAt[path[i]] = true
		}
	}
	if l == 0 {
		return
	}
	b2f := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	switch scheme {
	case "reservoir":
		for _, d := range path {
			vp.varW[d] += l - 1
			if congAt[d] {
				vp.varC[d] += g - 1
			}
		}
	case "onebit", "onereservoir":
		for _, d := range e.cands {
			n, m := b2f(slices.Contains(path, d)), b2f(congAt[d])
			vp.varW[d] += l*l - n
			switch {
			case scheme == "onereservoir":
				vp.varC[d] += l*g - m
			case g > 0:
				vp.varC[d] += g*g - m
			}
		}
	}
}

// TestEstimatesMatchTruth compares every sampled link's estimates with the
// ground truth, each within 4.5 standard deviations of the variance the
// link's packets give it (see varianceProbe), plus one step L/p.
//
// With a tagging fraction p each packet carries a header with probability
// p and estimates are W/p and C/p. Given the tagged packets T the estimate
// has variance Σ_{i∈T} v_i/p², v_i the packet's variance above; tagging adds
// Var[N_{T,d}/p] = N_d·(1−p)/p (each of the N_d packets counts 1/p with
// probability p), and M_d·(1−p)/p for the congested count. So
//
//	Var[Packets_d]   = Σ_{i∈T} v_i^W/p² + N_d(1−p)/p
//	Var[Congested_d] = Σ_{i∈T} v_i^C/p² + M_d(1−p)/p
//
// (for p = 1 and the reservoir scheme: N_d·(l−1) on a single path, §3.3).
//
// The tolerance is 4.5·sd + L/p, L the longest path in hops: an estimate
// is a sum of steps of up to L/p, and on links with few packets (tens) its
// distribution is lumpy and skewed, so the normal tail alone is too
// narrow; one step is the rounding allowance. A link with variance 0 (its
// packets took one-hop paths or were congested at one hop only) must be
// exact. There are 3200 checks (5 runs × 320 sampled links × 2 estimates);
// at 4.5 standard deviations a normal tail gives 6.8e-6 per check. Over
// seeds 1–100 (traffic and sampling) the largest deviation net of the step
// was 4.33 sd; without the step 4.5 sd alone failed for about one seed in
// 40. Zeroing a congested count fails by 6 sd (onebit) and 14 sd
// (reservoir) on the hot link.
func TestEstimatesMatchTruth(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	msgs := mixedTraffic(f, 3)
	const z = 4.5
	for _, c := range []struct {
		scheme string
		tag    float64
	}{
		{"reservoir", 1},
		{"reservoir", 0.5},
		{"onebit", 1},
		{"onebit", 0.5},
		{"onereservoir", 1},
	} {
		cfg := DefaultConfig()
		cfg.Scheme, cfg.TagFraction = c.scheme, c.tag
		cfg.FalsePositiveConfidence = 0
		r, vp := runProbed(t, f, cfg, planOf(f, msgs...))
		est := r.Estimates(AllJobs, -1)
		p := c.tag
		checked, congested, worstW, worstC := 0, 0, 0.0, 0.0
		step := float64(vp.maxHops) / p
		check := func(what string, l int, got, truth, variance float64) float64 {
			sd, tol := math.Sqrt(variance), 0.0
			if sd > 0 {
				tol = z*sd + step
			}
			if d := math.Abs(got - truth); d > tol+1e-9 {
				t.Errorf("%s tag %g: %s: estimate %.1f %s, truth %.0f, sd %.1f: off by %.1f sd",
					c.scheme, p, f.LinkName(int32(l)), got, what, truth, sd, d/sd)
			}
			if sd == 0 {
				return 0
			}
			return math.Abs(got-truth) / sd
		}
		for l := range f.Links {
			tr := r.TruthOf(-1, int32(l))
			e := est[l]
			if !r.Sampled(int32(l)) {
				if e.W != 0 || e.C != 0 {
					t.Errorf("%s: host link %s has an estimate", c.scheme, f.LinkName(int32(l)))
				}
				continue
			}
			n, m := float64(tr.Packets), float64(tr.Congested)
			worstW = max(worstW, check("packets", l, e.Packets, n, vp.varW[l]/(p*p)+n*(1-p)/p))
			worstC = max(worstC, check("congested packets", l, e.Congested, m, vp.varC[l]/(p*p)+m*(1-p)/p))
			if n > 0 {
				checked++
			}
			if m > 0 {
				congested++
			}
		}
		t.Logf("%s tag %g: %d links with traffic, %d with congestion; largest deviations %.2f sd (packets), %.2f sd (congested)",
			c.scheme, p, checked, congested, worstW, worstC)
		if vp.maxHops != 5 {
			t.Errorf("%s: longest path %d hops, want 5 (leaf, middle, top, middle, leaf)", c.scheme, vp.maxHops)
		}
		if checked < 100 || congested < 20 {
			t.Errorf("%s: only %d links carried traffic, %d congestion", c.scheme, checked, congested)
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

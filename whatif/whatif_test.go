package whatif

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"orcs/analyze"
	"orcs/gen"
	"orcs/lft"
	"orcs/opensm"
	"orcs/patterns"
)

// tools skips the test when the OpenSM tools are missing.
func tools(t *testing.T) *opensm.Tools {
	t.Helper()
	tl, err := opensm.FindTools()
	if err != nil {
		t.Skipf("OpenSM tools: %v", err)
	}
	return tl
}

// runGen runs the failure specs on a generated fabric with one engine.
func runGen(t *testing.T, spec, engine string, fail []string, sim analyze.Config) *File {
	t.Helper()
	n, err := gen.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	in := &opensm.Input{Fabric: n.Fabric, Name: "gen:" + spec, Network: n, RealPorts: true}
	plan, err := NewPlan(in.Fabric, true)
	if err != nil {
		t.Fatal(err)
	}
	sets, err := plan.Sets(fail, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	sim.Input, sim.Level, sim.Threads = in.Name, -1, 1
	if sim.Runs == 0 {
		sim.Runs = 1
	}
	if sim.Subset == "" {
		sim.Subset = analyze.SubsetLinearBFS
	}
	out, err := Run(context.Background(), in, plan, sets, Options{Engines: []string{engine}, Sim: sim, Jobs: 2, Tools: tools(t)})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A 2-level tree (kary k=2 n=2: leaves S0_0 with H0, H1 and S0_1 with
// H2, H3; spines S1_0, S1_1). Ranks 0..3 on H0, H2, H1, H3 make bisect's
// two connections H2 → H0 and H3 → H1 cross from S0_1 to S0_0. Intact,
// the destination-based spread sends them over the two spines: congestion
// 1, bandwidth 1. With the cable S0_0 – S1_0 cut, both enter S0_0 over the
// one cable left from S1_1: congestion 2 on both, bandwidth 1/2, 50 % kept.
// No pair is cut (non-critical) and every route stays leaf–spine–leaf
// (hops unchanged). ftree refuses the irregular tree and falls back.
func TestLeafUplinkNonCritical(t *testing.T) {
	for _, engine := range []string{"minhop", "ftree"} {
		t.Run(engine, func(t *testing.T) {
			out := runGen(t, "kary:k=2,n=2", engine, []string{"link:S0_0/3"}, analyze.Config{
				Pattern: patterns.Spec{Name: "bisect"}, Metric: "hist_acc_band", NoShuffle: true,
				Allocation: []int32{0, 2, 1, 3}, Commsize: 4})
			e := out.Engines[0]
			r := e.Rows[0]
			if engine == "ftree" {
				// ftree refuses a tree whose leaves differ in up-links
				// (OpenSM's ERR AB09) and OpenSM falls back to minhop:
				// reported, never counted as ftree's.
				if r.Status != StatusFallback || r.Used != "minhop" || len(r.Notes) == 0 {
					t.Fatalf("ftree after the cut: status %s, used %s, notes %q: want a reported fallback", r.Status, r.Used, r.Notes)
				}
				if s := out.Summarize()[0]; s.Fallbacks != 1 || s.OK != 0 || !math.IsNaN(s.MinKept) {
					t.Errorf("summary %+v: the fallback must not be compared", s)
				}
				return
			}
			if got := e.Intact.MeanBandwidth; got != 1 {
				t.Fatalf("intact mean bandwidth %v, want 1 (the two flows on different spines)", got)
			}
			if r.Status != StatusOK || r.Set != "link:S0_0/3" || r.Cables != 1 {
				t.Fatalf("row %+v", r)
			}
			if r.Critical() || r.PairsCut != 0 || r.Unroutable != 0 {
				t.Errorf("cut %d pairs, %d unroutable: want a non-critical failure", r.PairsCut, r.Unroutable)
			}
			if r.MeanBandwidth != 0.5 || r.BandwidthKept != 0.5 {
				t.Errorf("bandwidth %v (kept %v), want 0.5 (50 %%)", r.MeanBandwidth, r.BandwidthKept)
			}
			// Per host: one peer on its leaf (2 links), two on the other (4).
			if r.HopsChange != 0 || math.Abs(r.MeanHops-10.0/3) > 1e-12 {
				t.Errorf("mean hops %v (change %v), want (2+4+4)/3 and no change", r.MeanHops, r.HopsChange)
			}
			// The spread sends one of H2, H3 from S0_0 up over the cut
			// cable (1 entry moves), S1_0 reaches H0 and H1 only the long
			// way round now (2), and S0_1 sent one of H0, H1 over S1_0 (1).
			if r.LFTChanged != 4 {
				t.Errorf("%d forwarding entries changed, want 1 + 2 + 1 = 4", r.LFTChanged)
			}
		})
	}
}

// Cutting host H1's only cable on the same tree cuts exactly H1's pairs:
// 2 × (4 − 1) = 6 ordered pairs, one host cut off; the others still route.
func TestHostCableCritical(t *testing.T) {
	out := runGen(t, "kary:k=2,n=2", "minhop", []string{"link:H1/1"}, analyze.Config{
		Pattern: patterns.Spec{Name: "bisect_fb_sym"}, Metric: "hist_acc_band"})
	r := out.Engines[0].Rows[0]
	if r.Status != StatusOK {
		t.Fatalf("status %s: %s", r.Status, r.Error)
	}
	if !r.Critical() || r.PairsCut != 6 || r.HostsCut != 1 {
		t.Errorf("cut %d pairs, %d hosts: want critical, 6 pairs, 1 host", r.PairsCut, r.HostsCut)
	}
	if r.Unroutable != 6 {
		t.Errorf("%d pairs unroutable, want exactly H1's 6", r.Unroutable)
	}
	if len(r.Losers) == 0 || r.Losers[0].Host != "H1" || r.Losers[0].Pairs != 6 {
		t.Errorf("losers %+v, want H1 with 6 pairs first", r.Losers)
	}
}

// A ring of five switches (torus dims=5, one host each) under dor: every
// two-hop route goes the short way, so the clockwise channels S0→S1,
// S1→S2, …, S4→S0 depend on each other in a cycle (and so do the
// counter-clockwise ones): a credit loop on the one VL dor uses. Without
// S0 the ring is a line S1–S2–S3–S4, whose channel dependencies only run
// along the line: no cycle, deadlock-free. H0 (on S0) is cut off: its
// 2 × 4 = 8 ordered pairs.
func TestTorusSwitchDor(t *testing.T) {
	out := runGen(t, "torus:dims=5,hosts=1", "dor", []string{"switch:S0"}, analyze.Config{
		Pattern: patterns.Spec{Name: "bisect_fb_sym"}, Metric: "hist_acc_band"})
	e := out.Engines[0]
	if e.Intact.Deadlock != "loop" {
		t.Errorf("intact ring under dor: %q, want a loop", e.Intact.Deadlock)
	}
	r := e.Rows[0]
	if r.Status != StatusOK || r.Used != "dor" {
		t.Fatalf("status %s used %s: %s", r.Status, r.Used, r.Error)
	}
	if !strings.HasPrefix(r.Deadlock, "free") {
		t.Errorf("the line S1–S4 under dor: %q, want deadlock-free", r.Deadlock)
	}
	if r.PairsCut != 8 || r.HostsCut != 1 || !r.Islands || r.Cables != 3 || r.PairsNoSM != 0 {
		t.Errorf("cut %d pairs, %d hosts, islands %v, %d cables: want 8, 1, true, 3 (H0's cable, two ring cables)", r.PairsCut, r.HostsCut, r.Islands, r.Cables)
	}
}

// Random sets are nested: trial T's set for K holds its set for every
// smaller K, the same seed draws the same sets, and they fail cables
// between switches only.
func TestRandomSetsNested(t *testing.T) {
	f, err := gen.Generate("kary:k=4,n=3")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan(f, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Cables) != 192 {
		t.Fatalf("%d cables, want 64 host cables + 2 × 64 switch cables = 192", len(plan.Cables))
	}
	sets, err := plan.Sets([]string{"random:2", "random:8"}, 4, 7)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := plan.Sets([]string{"random:2", "random:8"}, 4, 7)
	if len(sets) != 8 || !slices.EqualFunc(sets, again, func(a, b Set) bool { return slices.Equal(a.Failures, b.Failures) }) {
		t.Fatalf("%d sets, or not reproducible", len(sets))
	}
	for tr := range 4 {
		small, big := sets[tr], sets[4+tr]
		if small.K != 2 || big.K != 8 || small.Trial != tr || !slices.Equal(small.Failures, big.Failures[:2]) {
			t.Errorf("trial %d: %v not the start of %v", tr, small.Failures, big.Failures)
		}
		seen := map[Failure]bool{}
		for _, x := range big.Failures {
			if v, _ := f.NodeByName(x.Node); f.Nodes[v].Kind == lft.Host || x.Port <= 4 {
				t.Errorf("trial %d: %s is not a cable up from a switch (ports 5-8 go up on kary k=4)", tr, x)
			}
			if seen[x] {
				t.Errorf("trial %d: %s twice", tr, x)
			}
			seen[x] = true
		}
	}
}

// Bad --fail specs name the spec and the problem.
func TestBadSpecs(t *testing.T) {
	f, _ := gen.Generate("kary:k=2,n=2")
	plan, err := NewPlan(f, true)
	if err != nil {
		t.Fatal(err)
	}
	for spec, want := range map[string]string{
		"link:S9/1":   `no node "S9"`,
		"link:S0_0/7": "no cable at port 7 (its cabled ports: 1, 2, 3, 4)",
		"link:S0_0":   "want link:NODE/PORT",
		"switch:H0":   "is a host",
		"random:0":    "K from 1 to the 4 cables between switches",
		"random:5":    "K from 1 to the 4 cables between switches",
		"cable:x":     "want link:NODE/PORT, switch:NODE",
	} {
		_, err := plan.Sets([]string{spec}, 1, 1)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", spec, err, want)
		}
	}
}

// Cutting both up-links of leaf S0_0 splits the tree into {H0, H1} and
// {H2, H3}: 2 × 2 × 2 = 8 ordered pairs cut. OpenSM runs in the part of
// the lowest host (H0's, on a tie), so H2 ↔ H3 (2 ordered pairs) stay
// unrouted for want of an SM there, which is not the engine's failure.
func TestSplitTreeNoSM(t *testing.T) {
	out := runGen(t, "kary:k=2,n=2", "minhop", []string{"link:S0_0/3", "link:S0_0/4"}, analyze.Config{
		Pattern: patterns.Spec{Name: "bisect_fb_sym"}, Metric: "hist_acc_band"})
	r := out.Engines[0].Rows[0]
	if r.Set != "link:S0_0/3+link:S0_0/4" || r.Cables != 2 || r.Status != StatusOK {
		t.Fatalf("row %+v", r)
	}
	if r.PairsCut != 8 || r.HostsCut != 2 || r.PairsNoSM != 2 || r.Unroutable != 10 {
		t.Errorf("cut %d pairs, %d hosts, %d pairs without SM, %d unroutable: want 8, 2, 2, 10", r.PairsCut, r.HostsCut, r.PairsNoSM, r.Unroutable)
	}
	if s := out.Summarize()[0]; s.Unroutable != 0 || s.Critical != 1 {
		t.Errorf("summary %+v: critical, but no engine failure", s)
	}
}

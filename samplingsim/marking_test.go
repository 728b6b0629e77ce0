package samplingsim

import (
	"strings"
	"testing"
)

// hotSpotPlan: every host of f but 0 sends P packets to host 0.
func hotSpotPlan(f interface{ NumHosts() int }, P int) []Message {
	var msgs []Message
	for s := 1; s < f.NumHosts(); s++ {
		msgs = append(msgs, Message{Src: int32(s), Dst: 0, Bytes: int64(P) * 4096})
	}
	return msgs
}

// TestMarkingPolicies checks each policy on a hot spot (the link into the
// hot host) and on a lone flow (nothing congested).
func TestMarkingPolicies(t *testing.T) {
	f := fabric(t, "kary:k=4,n=2")
	hot := f.NextHop(0, f.SwitchNode(0), 0)
	route, _ := f.AppendRoute(nil, 5, 0)
	tree := route[len(route)-2] // the top switch → leaf link towards H0
	lone := planOf(f, Message{Src: 1, Dst: 15, Bytes: 100 * 4096})
	frac := map[string]float64{}
	for _, c := range []struct {
		marking  string
		min, max float64     // bounds of the hot link's true congested fraction
		treeMin  float64     // least congested fraction of the link feeding the hot leaf
		loneMax  int64       // most congested packets of the lone flow on any link
		points   []MarkPoint // nil = all
	}{
		{"credits", 0.99, 1, 0.9, 0, nil},
		{"queue:threshold=2", 0.9, 1, 0.9, 0, nil},
		{"queue:threshold=0", 1, 1, 1, 1 << 40, nil}, // every packet: queue ≥ 1 > 0
		{"queue:threshold=100", 0, 0, 0, 0, nil},
		// The hot host drains at line rate, so the link into it never runs
		// out of credits; the link feeding its leaf does (tree saturation).
		// Credits are measured when the packet joins the queue here: at
		// departure a port always holds the credit it is about to spend.
		{"credit-threshold:threshold=1", 0, 0, 0.9, 0, []MarkPoint{MarkEnqueue}},
		{"credit-threshold:threshold=1", 0, 0, 0, 0, []MarkPoint{MarkDeparture}},
		{"credit-threshold:threshold=2", 0.9, 1, 0.9, 0, []MarkPoint{MarkEnqueue}},
		{"credit-threshold:threshold=5", 1, 1, 1, 1 << 40, nil}, // credits ≤ 4 < 5 always
		{"probabilistic:min=0,max=4", 0.05, 0.98, 0.05, 0, nil},
	} {
		points := c.points
		if points == nil {
			points = []MarkPoint{MarkEnqueue, MarkArrival, MarkDeparture}
		}
		for _, at := range points {
			cfg := DefaultConfig()
			cfg.Marking, cfg.MarkAt = c.marking, at
			r := mustRun(t, f, cfg, planOf(f, hotSpotPlan(f, 30)...))
			got := r.TruthOf(-1, hot).Fraction()
			if c.points != nil && at == MarkDeparture {
				var all int64 // NICs mark as they form a packet, switches at departure
				for l := range f.Links {
					if r.Sampled(int32(l)) {
						all += r.TruthOf(-1, int32(l)).Congested
					}
				}
				if all != 0 {
					t.Errorf("%s at departure marked %d packets at switches", c.marking, all)
				}
			}
			if got < c.min || got > c.max {
				t.Errorf("%s at %s: hot link congested fraction %.4f, want in [%g, %g]", c.marking, at, got, c.min, c.max)
			}
			if got := r.TruthOf(-1, tree).Fraction(); got < c.treeMin {
				t.Errorf("%s at %s: tree link congested fraction %.4f, want ≥ %g", c.marking, at, got, c.treeMin)
			}
			if at == MarkEnqueue && c.points == nil {
				frac[c.marking] = got
			}
			r = mustRun(t, f, cfg, lone)
			var most int64
			for l := range f.Links {
				most = max(most, r.TruthOf(-1, int32(l)).Congested)
			}
			if most > c.loneMax {
				t.Errorf("%s at %s: a lone flow has %d congested packets on a link", c.marking, at, most)
			}
		}
	}
	// Marking with probability (queue−credits)/4 marks a subset of what
	// the credits rule marks.
	if frac["probabilistic:min=0,max=4"] >= frac["credits"] {
		t.Errorf("probabilistic marking %.3f not below the credits rule %.3f", frac["probabilistic:min=0,max=4"], frac["credits"])
	}
}

func TestParseMarking(t *testing.T) {
	for _, bad := range []struct{ spec, want string }{
		{"fifo", `unknown marking policy "fifo"`},
		{"queue:threshold=-1", "must not be negative"},
		{"queue:threshold=1,threshold=2", "given twice"},
		{"credit-threshold:threshold=0", "at least 1"},
		{"probabilistic:min=3,max=2", "greater than min"},
		{"queue:threshold", `"threshold" is not KEY=VALUE`},
	} {
		_, err := parseMarking(bad.spec)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("parseMarking(%q) = %v, want an error containing %q", bad.spec, err, bad.want)
		}
	}
	if _, err := ParseMarkPoint("exit"); err == nil {
		t.Error("ParseMarkPoint accepted exit")
	}
	for _, n := range []string{"enqueue", "arrival", "departure"} {
		if m, err := ParseMarkPoint(n); err != nil || m.String() != n {
			t.Errorf("ParseMarkPoint(%q) = %v, %v", n, m, err)
		}
	}
}

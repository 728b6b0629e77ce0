package samplingsim

import (
	"strings"
	"testing"
)

// TestCompareRoutingMeasuresEveryRow: a workload without iterations is
// measured under static routing as under adaptive routing (a static row of
// zero latency read as if static had none), measuring changes nothing of
// the run, and an empty routing in the list is refused.
func TestCompareRoutingMeasuresEveryRow(t *testing.T) {
	f := fabric(t, "kary:k=4,n=2")
	p, err := BuildPlan(f, []JobSpec{{Workload: "hotspot:msgs=10", Hosts: allHosts(f.NumHosts())}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	rows, err := CompareRouting(f, cfg, p, []string{"static", "adaptive"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if !(r.Stats.Latency > 0) {
			t.Errorf("%s: mean latency %v, want it measured", r.Routing, r.Stats.Latency)
		}
	}
	plain, err := Run(f, cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].End != plain.End || rows[0].Hops != plain.PacketHops {
		t.Errorf("measured static run: end %v, %d hops; plain run: %v, %d", rows[0].End, rows[0].Hops, plain.End, plain.PacketHops)
	}
	if _, err := CompareRouting(f, cfg, p, []string{"static", ""}); err == nil || !strings.Contains(err.Error(), "empty routing") {
		t.Errorf("empty routing: %v", err)
	}
}

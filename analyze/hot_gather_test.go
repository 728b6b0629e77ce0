package analyze

import (
	"fmt"
	"testing"

	"orcs/dot"
	"orcs/metrics"
	"orcs/patterns"
)

// TestHotCablesGather: a gather to H0 on the 16-host fat tree of
// testdata/ft16.dot (4-ary 2-tree, d-mod-k), one run in linear_bfs order
// (rank i = Hi), counted by hand: all 15 messages end on S0_0 → H0 (load
// 15); the 12 from the other three leaves come down S1_0 → S0_0 (every
// leaf sends traffic for H0 up to spine S1_(0 mod 4)); each other leaf
// sends its 4 up its cable to S1_0 (load 4, three such cables, ranked by
// link id); H1 … H3 each send 1 over their own host cable. The first
// cable's flows are ranks 1 … 15 → 0 (all in 1 run, level 0), every one of
// them listed, in rank order, and all 15 are its peak's flows.
func TestHotCablesGather(t *testing.T) {
	f, err := dot.ReadFile("../testdata/ft16.dot", dot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(f, Config{Pattern: patterns.Spec{Name: "gather"}, Metric: "hist_acc_band", Runs: 1, Seed: 1,
		Subset: SubsetLinearBFS, NoShuffle: true, Threads: 2, Level: -1})
	if err != nil {
		t.Fatal(err)
	}
	hot, err := s.HotCables(5)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1 S0_0->H0 15 15 15", "2 S1_0->S0_0 12 12 12", "3 S0_1->S1_0 4 4 4", "4 S0_2->S1_0 4 4 4", "5 S0_3->S1_0 4 4 4"}
	if len(hot) != len(want) {
		t.Fatalf("%d hot cables, want %d: %+v", len(hot), len(want), hot)
	}
	for i, h := range hot {
		got := fmt.Sprintf("%d %s->%s %g %d %d", h.Rank, h.From, h.To, h.MeanPeak, h.MaxLoad, h.DistinctFlows)
		if got != want[i] || h.MaxRun != 0 || h.MaxLevel != 0 {
			t.Errorf("hot cable %d: %s (run %d level %d), want %s (run 0 level 0)", i+1, got, h.MaxRun, h.MaxLevel, want[i])
		}
	}
	if len(hot[0].Flows) != 15 || len(hot[0].PeakFlows) != 15 {
		t.Fatalf("cable 1: %d flows and %d peak flows listed, want 15 and 15", len(hot[0].Flows), len(hot[0].PeakFlows))
	}
	for i, fl := range hot[0].Flows {
		if want := (metrics.HotFlow{Level: 0, SrcRank: int32(i + 1), DstRank: 0, SrcHost: fmt.Sprintf("H%d", i+1), DstHost: "H0", Runs: 1}); fl != want {
			t.Errorf("cable 1 flow %d: %+v, want %+v", i, fl, want)
		}
	}
	if got := hot[2].Flows[0]; got.SrcHost != "H4" || got.DstHost != "H0" {
		t.Errorf("cable 3's first flow %+v, want H4 -> H0", got)
	}
}

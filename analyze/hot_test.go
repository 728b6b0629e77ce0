package analyze

import (
	"reflect"
	"testing"

	"orcs/patterns"
	"orcs/rng"
)

// TestHotPeakFlowsProperty: on random mappings, every hot cable's peak
// flows are exactly the MaxLoad routes of its peak's run and level (each
// one crossing the cable), Flows holds every distinct flow (the runs of
// each add up to the cable's crossings over all runs and levels), and the
// result does not depend on the thread count.
func TestHotPeakFlowsProperty(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	var first any
	for _, threads := range []int{1, 3} {
		s, err := New(f, Config{Pattern: patterns.Spec{Name: "bruck"}, Metric: "hist_max_cong", Runs: 7, Seed: 3, Threads: threads, Level: -1})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(); err != nil {
			t.Fatal(err)
		}
		hot, err := s.HotCables(6)
		if err != nil {
			t.Fatal(err)
		}
		if len(hot) != 6 {
			t.Fatalf("%d hot cables, want 6", len(hot))
		}
		// Crossings of each hot cable, counted here from the routes.
		var crossings [6]int
		peakCount := [6]int{}
		perm := make([]int32, f.NumHosts())
		var levels []patterns.Level
		for r := range 7 {
			var st rng.Stream
			levels = s.draw(r, &st, perm, levels)
			for li, lv := range levels {
				for _, pr := range lv {
					path, _ := f.AppendRoute(nil, perm[pr.Src], perm[pr.Dst])
					for _, l := range path {
						for i, h := range hot {
							if h.Link == l {
								crossings[i]++
								if h.MaxRun == r && h.MaxLevel == li {
									peakCount[i]++
								}
							}
						}
					}
				}
			}
		}
		for i, h := range hot {
			if len(h.PeakFlows) != int(h.MaxLoad) || peakCount[i] != int(h.MaxLoad) {
				t.Errorf("cable %d: %d peak flows, %d crossings in run %d level %d, max load %d", h.Rank, len(h.PeakFlows), peakCount[i], h.MaxRun, h.MaxLevel, h.MaxLoad)
			}
			for _, fl := range h.PeakFlows {
				if fl.Run != h.MaxRun || fl.Level != h.MaxLevel || fl.Runs < 1 {
					t.Errorf("cable %d: peak flow %+v, peak at run %d level %d", h.Rank, fl, h.MaxRun, h.MaxLevel)
				}
			}
			sum := 0
			for _, fl := range h.Flows {
				sum += fl.Runs
			}
			if sum != crossings[i] || len(h.Flows) != h.DistinctFlows {
				t.Errorf("cable %d: flows' runs add up to %d, %d crossings; %d flows, %d distinct", h.Rank, sum, crossings[i], len(h.Flows), h.DistinctFlows)
			}
		}
		if first == nil {
			first = hot
		} else if !reflect.DeepEqual(first, any(hot)) {
			t.Errorf("hot cables differ between 1 and %d threads", threads)
		}
	}
}

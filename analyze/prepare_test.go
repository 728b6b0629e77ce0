package analyze

import (
	"testing"

	"orcs/gen"
	"orcs/patterns"
)

// TestRunPreparesWalks: Run tells the fabric how many routes its runs walk
// (runs × the pairs of a run), so that a fabric compiles its entry routes
// for many runs and not for one, counting the level of -l alone; the
// route quality walks all pairs.
func TestRunPreparesWalks(t *testing.T) {
	// 64 hosts under 16 leaves: 1 024 entries, worth compiling from 256
	// routes; a bisect_fb_sym run walks 64.
	for _, tc := range []struct {
		runs int
		want bool
	}{{1, false}, {3, false}, {4, true}, {100, true}} {
		f, err := gen.Generate("kary:k=4,n=3")
		if err != nil {
			t.Fatal(err)
		}
		s, err := New(f, Config{Pattern: patterns.Spec{Name: "bisect_fb_sym"}, Metric: "hist_acc_band",
			Runs: tc.runs, Seed: 1, Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(); err != nil {
			t.Fatal(err)
		}
		if got := f.PrepareWalks(0); got != tc.want {
			t.Errorf("%d runs: entry routes %v, want %v", tc.runs, got, tc.want)
		}
	}
	// One run of alltoall walks its 63 levels of 64 pairs, one run of
	// level 0 alone (-l 0) 64 pairs only.
	for _, level := range []int{-1, 0} {
		f, err := gen.Generate("kary:k=4,n=3")
		if err != nil {
			t.Fatal(err)
		}
		s, err := New(f, Config{Pattern: patterns.Spec{Name: "alltoall"}, Metric: "hist_acc_band",
			Level: level, Runs: 1, Seed: 1, Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(); err != nil {
			t.Fatal(err)
		}
		if got := f.PrepareWalks(0); got != (level < 0) {
			t.Errorf("alltoall, level %d, 1 run: entry routes %v, want %v", level, got, level < 0)
		}
	}
	f, err := gen.Generate("kary:k=4,n=3")
	if err != nil {
		t.Fatal(err)
	}
	hosts := make([]int32, f.NumHosts())
	for i := range hosts {
		hosts[i] = int32(i)
	}
	if _, err := RouteQuality(f, hosts, 2); err != nil {
		t.Fatal(err)
	}
	if !f.PrepareWalks(0) {
		t.Error("the route quality of 64 hosts walks without entry routes")
	}
}

package analyze

import (
	"runtime"
	"testing"

	"orcs/patterns"
)

// benchFusedVsBatch runs whole runs of bisect_fb_sym on one thread with
// the fused walk and with the RouteBatch's walk in turn, fifteen times,
// each time also the flat walk over as many hops, and reports the least
// CPU time per hop of each (the one least disturbed by the machine's
// other work) and the ratios of the flat walk's to the two walks' (the
// issue's "fraction of a flat-array walk"). b.N is ignored: one turn.
func benchFusedVsBatch(b *testing.B, spec string, runs int) {
	f := benchFabric(b, spec)
	s, err := New(f, Config{Pattern: patterns.Spec{Name: "bisect_fb_sym"}, Metric: "hist_acc_band",
		Runs: 1, Seed: 1, Threads: 1, Level: -1})
	if err != nil {
		b.Fatal(err)
	}
	w := s.newWorker(make([]float64, runs))
	s.prepareWalks(max(runs, 1000)) // as a simulation of 1000 runs does
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer func() { fusedWalk = true }()
	best := [3]float64{1e9, 1e9, 1e9} // batch, fused, flat: ns per hop
	b.ResetTimer()
	for range 15 {
		var hops int64
		for mode := range 2 {
			fusedWalk = mode == 1
			h0, cpu := w.walk.Hops, threadCPU()
			for r := 0; r < runs; r++ {
				if err := w.run(r); err != nil {
					b.Fatal(err)
				}
			}
			t := threadCPU() - cpu
			hops = w.walk.Hops - h0
			best[mode] = min(best[mode], t/float64(hops)*1e9)
		}
		best[2] = min(best[2], 1e9/flatWalk(s, f, hops))
	}
	b.StopTimer()
	b.ReportMetric(best[0], "batch-ns/hop")
	b.ReportMetric(best[1], "fused-ns/hop")
	b.ReportMetric(best[2], "flat-ns/hop")
	b.ReportMetric(best[2]/best[0], "batch-of-flat")
	b.ReportMetric(best[2]/best[1], "fused-of-flat")
}

// The fused walk against the RouteBatch's on 512, 4096, 10 648 (link
// words) and 65 536 hosts (position words).
func BenchmarkFusedVsBatch512(b *testing.B)   { benchFusedVsBatch(b, "kary:k=8,n=3", 2000) }
func BenchmarkFusedVsBatch4096(b *testing.B)  { benchFusedVsBatch(b, "kary:k=16,n=3", 300) }
func BenchmarkFusedVsBatch10648(b *testing.B) { benchFusedVsBatch(b, "kary:k=22,n=3", 100) }
func BenchmarkFusedVsBatch65536(b *testing.B) {
	benchFusedVsBatch(b, "fattree3:pods=64,leaves=32,hosts=32", 10)
}

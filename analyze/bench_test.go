package analyze

import (
	"runtime"
	"syscall"
	"testing"

	"orcs/gen"
	"orcs/lft"
	"orcs/patterns"
	"orcs/rng"
)

var benchFabrics = map[string]*lft.Fabric{}

func benchFabric(b *testing.B, spec string) *lft.Fabric {
	if f, ok := benchFabrics[spec]; ok {
		return f
	}
	f, err := gen.Generate(spec)
	if err != nil {
		b.Fatal(err)
	}
	benchFabrics[spec] = f
	return f
}

// benchRuns measures whole runs on one thread and reports route hops per
// CPU second of the benchmark's thread (the machine may be shared), then
// the same number of hops as a flat array walk (each hop increments its
// link's counter and nothing else, the machine's limit for this work) over
// the links the runs walked, and the ratio of the two.
func benchRuns(b *testing.B, spec, pattern, metric string, level int) {
	f := benchFabric(b, spec)
	s, err := New(f, Config{Pattern: patterns.Spec{Name: pattern}, Metric: metric, Runs: 1,
		Seed: 1, Threads: 1, Level: level})
	if err != nil {
		b.Fatal(err)
	}
	w := s.newWorker(make([]float64, b.N))
	s.prepareWalks(b.N) // as Run does for b.N runs
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	cpu0 := threadCPU()
	for i := 0; i < b.N; i++ {
		if err := w.run(i); err != nil {
			b.Fatal(err)
		}
	}
	walk := threadCPU() - cpu0
	b.StopTimer()
	rate := float64(w.walk.Hops) / walk / 1e6
	b.ReportMetric(rate, "Mhops/s")
	b.ReportMetric(float64(w.walk.Hops)/float64(b.N), "hops/run")

	// The flat walk over the links of runs drawn the same way.
	var path []int32
	var k Walker
	k.Init(f, false)
	var st rng.Stream
	perm := make([]int32, len(s.hosts))
	var levels []patterns.Level
	for r := 0; len(path) < 1<<20; r++ {
		levels = s.draw(r, &st, perm, levels)
		for _, lv := range levels {
			src, dst := k.src[:0], k.dst[:0]
			for _, p := range lv {
				src, dst = append(src, perm[p.Src]), append(dst, perm[p.Dst])
			}
			k.src, k.dst = src, dst
			k.batch.Walk(f, src, dst, nil)
			for j := range src {
				path = append(path, k.batch.Route(j)...)
			}
		}
	}
	load := make([]int32, len(f.Links))
	hops, cpu1 := 0, threadCPU()
	for hops < int(w.walk.Hops) || hops < 1<<24 {
		for _, l := range path {
			load[l]++
		}
		hops += len(path)
	}
	flat := float64(hops) / (threadCPU() - cpu1) / 1e6
	b.ReportMetric(flat, "flat-Mhops/s")
	b.ReportMetric(rate/flat, "of-flat")
}

// threadCPU returns the CPU seconds of the calling OS thread.
func threadCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1, &ru); err != nil { // RUSAGE_THREAD
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// The route walk of bisect_fb_sym runs on k-ary 3-trees of 512, 1728,
// 4096, 10648 and 21952 hosts.
func BenchmarkWalk512(b *testing.B) {
	benchRuns(b, "kary:k=8,n=3", "bisect_fb_sym", "hist_acc_band", -1)
}

func BenchmarkWalk1728(b *testing.B) {
	benchRuns(b, "kary:k=12,n=3", "bisect_fb_sym", "hist_acc_band", -1)
}

func BenchmarkWalk4096(b *testing.B) {
	benchRuns(b, "kary:k=16,n=3", "bisect_fb_sym", "hist_acc_band", -1)
}

func BenchmarkWalk10648(b *testing.B) {
	benchRuns(b, "kary:k=22,n=3", "bisect_fb_sym", "hist_acc_band", -1)
}

func BenchmarkWalk21952(b *testing.B) {
	benchRuns(b, "kary:k=28,n=3", "bisect_fb_sym", "hist_acc_band", -1)
}

// BenchmarkRunAlltoallLevel16ary3 walks one level of alltoall per run.
func BenchmarkRunAlltoallLevel16ary3(b *testing.B) {
	benchRuns(b, "kary:k=16,n=3", "alltoall", "hist_acc_band", 100)
}

// BenchmarkAppendRoute8ary3 measures the one-route walk alone.
func BenchmarkAppendRoute8ary3(b *testing.B) {
	f := benchFabric(b, "kary:k=8,n=3")
	n := int32(f.NumHosts())
	buf := make([]int32, 0, 64)
	hops := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := int32(i) % n
		d := (s*37 + 11 + int32(i>>9)) % n
		if d == s {
			d = (d + 1) % n
		}
		buf, _ = f.AppendRoute(buf[:0], s, d)
		hops += len(buf)
	}
	b.ReportMetric(float64(hops)/b.Elapsed().Seconds()/1e6, "Mhops/s")
}

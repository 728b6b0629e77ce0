package analyze

import (
	"runtime"
	"syscall"
	"testing"
	"unsafe"

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
	// As a simulation of 1000 runs does: a loaded machine's small b.N
	// would walk the tables instead of the entry routes.
	s.prepareWalks(max(b.N, 1000))
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

	flat := flatWalk(s, f, w.walk.Hops) / 1e6
	b.ReportMetric(flat, "flat-Mhops/s")
	b.ReportMetric(rate/flat, "of-flat")
}

// flatWalk returns the hops per CPU second of a flat array walk (each hop
// increments its link's counter and nothing else) over the routes of runs
// of s drawn as its runs draw them, walking at least hops hops.
func flatWalk(s *Analysis, f *lft.Fabric, hops int64) float64 {
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
	n, cpu := int64(0), threadCPU()
	for n < hops || n < 1<<24 {
		for _, l := range path {
			load[l]++
		}
		n += int64(len(path))
	}
	return float64(n) / (threadCPU() - cpu)
}

// threadCPU returns the CPU seconds of the calling OS thread, to the
// nanosecond by clock_gettime(CLOCK_THREAD_CPUTIME_ID) (getrusage counts
// in scheduler ticks: a stage of BenchmarkStages512 read 0).
func threadCPU() float64 {
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3, uintptr(unsafe.Pointer(&ts)), 0); errno == 0 {
		return float64(ts.Nano()) / 1e9
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(1, &ru); err != nil { // RUSAGE_THREAD
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// The route walk of bisect_fb_sym runs on k-ary 3-trees of 512, 1728,
// 4096, 10648 and 21952 hosts (and BenchmarkWalk65536).
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

// BenchmarkWalk65536 walks the runs on the 65 536 hosts of a three-level
// fat tree of radix-64 switches (64 pods of 32 leaves of 32 hosts; 2048
// leaves, 2048 middle and 1024 spine switches). Generating it takes about
// 30 s and 3 GB; its entry routes would take 1 GiB, over their 512 MiB
// budget, so its runs walk the tables in rounds.
func BenchmarkWalk65536(b *testing.B) {
	benchRuns(b, "fattree3:pods=64,leaves=32,hosts=32", "bisect_fb_sym", "hist_acc_band", -1)
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

// benchStages splits whole runs of bisect_fb_sym into their stages and
// reports each stage's CPU time per route (per pair of the level) on one
// thread: each loop runs the runs up to one more stage, and a stage costs
// the difference to the loop before. draw: the run's seeded stream, the
// shuffle of the hosts (the mapping) and the pattern's levels; pairs: the
// level's ranks mapped to hosts; walk: the routes read, the link loads
// counted and zeroed again after the level; congestion: each route's
// largest load; rest: the rest of a run (weights counted, the metric's
// value); flat: the flat array walk over the same number of hops.
func benchStages(b *testing.B, spec string) {
	f := benchFabric(b, spec)
	s, err := New(f, Config{Pattern: patterns.Spec{Name: "bisect_fb_sym"}, Metric: "hist_acc_band",
		Runs: 1, Seed: 1, Threads: 1, Level: -1})
	if err != nil {
		b.Fatal(err)
	}
	w := s.newWorker(make([]float64, b.N))
	s.prepareWalks(max(b.N, 1000)) // as a simulation of 1000 runs does
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	k, st, perm := &w.walk, &w.stream, w.perm
	var levels []patterns.Level
	var routes, hops int64
	stage := func(upTo int) float64 {
		cpu := threadCPU()
		if upTo == 4 { // whole runs
			for r := 0; r < b.N; r++ {
				if err := w.run(r); err != nil {
					b.Fatal(err)
				}
			}
			return threadCPU() - cpu
		}
		for r := 0; r < b.N; r++ {
			levels = s.draw(r, st, perm, levels)
			for _, lv := range levels {
				if upTo == 0 {
					routes += int64(len(lv))
					continue
				}
				src, dst := k.src[:0], k.dst[:0]
				for _, p := range lv {
					src, dst = append(src, perm[p.Src]), append(dst, perm[p.Dst])
				}
				k.src, k.dst = src, dst
				if upTo == 1 {
					continue
				}
				k.batch.Walk(f, src, dst, k.load)
				hops += k.batch.Hops()
				if upTo == 3 {
					k.w = k.batch.Congestion(k.load, k.w)
				}
				clear(k.load)
			}
		}
		return threadCPU() - cpu
	}
	// The stages in turn, five times: the least time of each is the one
	// least disturbed by the machine's other work.
	b.ResetTimer()
	var t [5]float64
	for rep := range 5 {
		for i := range t {
			if c := stage(i); rep == 0 || c < t[i] {
				t[i] = c
			}
		}
	}
	full := t[4]
	routes /= 5
	hops /= 10 // walked in stages 2 and 3, five times
	b.StopTimer()
	ns := func(sec float64) float64 { return sec * 1e9 / float64(routes) }
	b.ReportMetric(ns(t[0]), "draw-ns/route")
	b.ReportMetric(ns(t[1]-t[0]), "pairs-ns/route")
	b.ReportMetric(ns(t[2]-t[1]), "walk-ns/route")
	b.ReportMetric(ns(t[3]-t[2]), "congestion-ns/route")
	b.ReportMetric(ns(full-t[3]), "rest-ns/route")
	b.ReportMetric(ns(full), "run-ns/route")
	b.ReportMetric(float64(hops)/float64(routes)/flatWalk(s, f, hops)*1e9, "flat-ns/route")
}

// The stages of a bisect_fb_sym run on 512, 4096 and 10648 hosts.
func BenchmarkStages512(b *testing.B)   { benchStages(b, "kary:k=8,n=3") }
func BenchmarkStages4096(b *testing.B)  { benchStages(b, "kary:k=16,n=3") }
func BenchmarkStages10648(b *testing.B) { benchStages(b, "kary:k=22,n=3") }

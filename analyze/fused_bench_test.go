package analyze

import (
	"runtime"
	"testing"
	"unsafe"

	"orcs/lft"
	"orcs/patterns"
	"orcs/rng"
)

// benchBisect returns the generated fabric spec and a one-thread analysis
// of bisect_fb_sym with hist_acc_band on it, its walks prepared as a
// simulation of runs (at least 1000) prepares them.
func benchBisect(b *testing.B, spec string, runs int) (*lft.Fabric, *Analysis) {
	f := benchFabric(b, spec)
	s, err := New(f, Config{Pattern: patterns.Spec{Name: "bisect_fb_sym"}, Metric: "hist_acc_band",
		Runs: 1, Seed: 1, Threads: 1, Level: -1})
	if err != nil {
		b.Fatal(err)
	}
	s.prepareWalks(max(runs, 1000))
	return f, s
}

// benchFusedVsBatch runs whole runs of bisect_fb_sym on one thread with
// the fused walk and with the RouteBatch's walk in turn, sixteen times,
// each time also the flat walk over as many hops, and reports the least
// CPU time per hop of each (the one least disturbed by the machine's
// other work) and the ratios of the flat walk's to the two walks' (the
// issue's "fraction of a flat-array walk"). The two walks take turns at
// going first: the second walks the same runs, and found the lines the
// first had brought into the caches (run second, the same walk read 4 %
// faster at 4096 hosts and 9 % at 65 536). b.N is ignored: one turn.
func benchFusedVsBatch(b *testing.B, spec string, runs int) {
	f, s := benchBisect(b, spec, runs)
	w := s.newWorker(make([]float64, runs))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer func() { fusedWalk = true }()
	best := [3]float64{1e9, 1e9, 1e9} // batch, fused, flat: ns per hop
	b.ResetTimer()
	for turn := range 16 {
		var hops int64
		for k := range 2 {
			mode := k ^ turn&1 // the batch first in even turns
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

// benchRunFloor times, on one thread, three parts that every run of
// bisect_fb_sym over inner words must do, each alone over the same runs
// (least of seven turns): the draw (the run's stream and the shuffle of
// the hosts, fixed by the seed), counting the loads of the words (the
// hosts' links left out, as in a oneToOne level) and each route's
// congestion from them. It reports each in ns per hop and floor-of-flat,
// the flat walk's time over the sum: the most a run could reach of the
// flat walk if finding and reading the words and the metric cost nothing.
func benchRunFloor(b *testing.B, spec string, runs int) {
	f, s := benchBisect(b, spec, runs)
	e, ok := f.LinkEntries()
	if !ok || e.Inner == nil {
		b.Fatalf("%s: no inner words", spec)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var st rng.Stream
	perm := make([]int32, len(s.hosts))
	var levels []patterns.Level
	ents := make([][]uint64, runs) // each run's words, in pair order
	hops := int64(0)
	for r := range ents {
		levels = s.draw(r, &st, perm, levels)
		for _, lv := range levels {
			for _, p := range lv {
				if sh, dh := perm[p.Src], perm[p.Dst]; sh != dh {
					wd := e.Inner[e.At[sh]+dh]
					ents[r] = append(ents[r], wd)
					for k := range 4 {
						if uint16(wd>>(16*k)) != lft.LinkPad {
							hops++
						}
					}
					hops += 2
				}
			}
		}
	}
	load := make([]int32, lft.LinkPad+1)
	lp := (*[lft.LinkPad + 1]int32)(load)
	longest := 0
	for _, ent := range ents {
		longest = max(longest, len(ent))
	}
	w := make([]int32, longest)
	nl := len(f.Links)
	count := func(ent []uint64) {
		for _, l := range unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(ent))), 4*len(ent)) {
			lp[l]++
		}
		lp[lft.LinkPad] = 0
	}
	timeFloor(b, s, f, runs, hops, func() {
		for _, ent := range ents {
			count(ent)
			clear(load[:nl])
		}
	}, func() { count(ents[0]) }, func() {
		for _, ent := range ents {
			for i, wd := range ent {
				w[i] = max(1, lp[uint16(wd)], lp[uint16(wd>>16)], lp[uint16(wd>>32)], lp[uint16(wd>>48)])
			}
		}
	}, func() { clear(load[:nl]) })
}

// timeFloor times the parts of a run for benchRunFloor and
// benchRunFloorLinks on one thread, seven times, and reports the least of
// each per hop of the runs: the draw of runs runs, countRuns (every run's
// loads counted and set back), congestionRuns (every run's congestions,
// read from the loads of one run that loadOne counts beforehand and
// clearLoads sets back after: what they read does not change the time of
// the reads) and the flat walk over as many hops.
func timeFloor(b *testing.B, s *Analysis, f *lft.Fabric, runs int, hops int64, countRuns, loadOne, congestionRuns, clearLoads func()) {
	var st rng.Stream
	perm := make([]int32, len(s.hosts))
	var levels []patterns.Level
	best := [4]float64{1e9, 1e9, 1e9, 1e9} // draw, count, congestion, flat
	b.ResetTimer()
	for range 7 {
		c := threadCPU()
		for r := range runs {
			levels = s.draw(r, &st, perm, levels)
		}
		best[0] = min(best[0], (threadCPU()-c)/float64(hops)*1e9)
		c = threadCPU()
		countRuns()
		best[1] = min(best[1], (threadCPU()-c)/float64(hops)*1e9)
		loadOne()
		c = threadCPU()
		congestionRuns()
		best[2] = min(best[2], (threadCPU()-c)/float64(hops)*1e9)
		clearLoads()
		best[3] = min(best[3], 1e9/flatWalk(s, f, hops))
	}
	b.StopTimer()
	b.ReportMetric(best[0], "draw-ns/hop")
	b.ReportMetric(best[1], "count-ns/hop")
	b.ReportMetric(best[2], "congestion-ns/hop")
	b.ReportMetric(best[3], "flat-ns/hop")
	b.ReportMetric(best[3]/(best[0]+best[1]+best[2]), "floor-of-flat")
}

// The floor of a run against the flat walk at 512, 4096 and 10 648 hosts.
func BenchmarkRunFloor512(b *testing.B)   { benchRunFloor(b, "kary:k=8,n=3", 2000) }
func BenchmarkRunFloor4096(b *testing.B)  { benchRunFloor(b, "kary:k=16,n=3", 300) }
func BenchmarkRunFloor10648(b *testing.B) { benchRunFloor(b, "kary:k=22,n=3", 100) }

// benchRunFloorLinks is benchRunFloor for fabrics without inner words
// (65 536 hosts and more): each pair's links between switches (those a
// oneToOne level counts; at most four on a three-level fat tree) are
// taken from the RouteBatch beforehand into four int32 places, the
// places past a route's end a counter of their own, and the draw, the
// count and the congestion are timed alone over them. Finding and
// reading the routes, the weights and the metric cost nothing here.
func benchRunFloorLinks(b *testing.B, spec string, runs int) {
	f, s := benchBisect(b, spec, runs)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var st rng.Stream
	var k Walker
	k.Init(f, false)
	perm := make([]int32, len(s.hosts))
	var levels []patterns.Level
	nl := int32(len(f.Links))
	ents := make([][][4]int32, runs) // each run's inner links, in pair order
	hops := int64(0)
	for r := range ents {
		levels = s.draw(r, &st, perm, levels)
		for _, lv := range levels {
			src, dst := k.src[:0], k.dst[:0]
			for _, p := range lv {
				if sh, dh := perm[p.Src], perm[p.Dst]; sh != dh {
					src, dst = append(src, sh), append(dst, dh)
				}
			}
			k.src, k.dst = src, dst
			if k.batch.Walk(f, src, dst, nil) != 0 {
				b.Fatalf("%s: a route fails", spec)
			}
			for j := range src {
				route := k.batch.Route(j)
				if len(route) > 6 {
					b.Fatalf("%s: a route of %d links", spec, len(route))
				}
				e := [4]int32{nl, nl, nl, nl}
				copy(e[:], route[1:len(route)-1])
				ents[r] = append(ents[r], e)
				hops += int64(len(route))
			}
		}
	}
	load := make([]int32, nl+1)
	longest := 0
	for _, ent := range ents {
		longest = max(longest, len(ent))
	}
	w := make([]int32, longest)
	count := func(ent [][4]int32) {
		for _, l := range unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(ent))), 4*len(ent)) {
			load[l]++
		}
		load[nl] = 0
	}
	timeFloor(b, s, f, runs, hops, func() {
		for _, ent := range ents {
			count(ent)
			clear(load)
		}
	}, func() { count(ents[0]) }, func() {
		for _, ent := range ents {
			for i, e := range ent {
				w[i] = max(1, load[e[0]], load[e[1]], load[e[2]], load[e[3]])
			}
		}
	}, func() { clear(load) })
}

// The floor of a run against the flat walk at 65 536 hosts (position
// words).
func BenchmarkRunFloor65536(b *testing.B) {
	benchRunFloorLinks(b, "fattree3:pods=64,leaves=32,hosts=32", 10)
}

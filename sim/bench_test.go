package sim

import (
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
// second.
func benchRuns(b *testing.B, spec, pattern, metric string, level int) {
	f := benchFabric(b, spec)
	s, err := New(f, Config{Pattern: patterns.Spec{Name: pattern}, Metric: metric, Runs: 1,
		Seed: 1, Threads: 1, Level: level})
	if err != nil {
		b.Fatal(err)
	}
	w := s.newWorker(make([]float64, b.N))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := w.run(i); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(w.walk.Hops)/b.Elapsed().Seconds()/1e6, "Mhops/s")
	b.ReportMetric(float64(w.walk.Hops)/float64(b.N), "hops/run")
}

func BenchmarkRunBisectFbSym8ary3(b *testing.B) {
	benchRuns(b, "kary:k=8,n=3", "bisect_fb_sym", "hist_acc_band", -1)
}

func BenchmarkRunBisectFbSym16ary3(b *testing.B) {
	benchRuns(b, "kary:k=16,n=3", "bisect_fb_sym", "hist_acc_band", -1)
}

func BenchmarkRunAlltoallLevel16ary3(b *testing.B) {
	benchRuns(b, "kary:k=16,n=3", "alltoall", "hist_acc_band", 100)
}

// BenchmarkFlatArrayWalk is the machine's limit for the same work: the hops
// of bisect_fb_sym runs on the 8-ary 3-tree, already laid out in one flat
// array, each incrementing its link's counter and nothing else.
func BenchmarkFlatArrayWalk8ary3(b *testing.B) {
	f := benchFabric(b, "kary:k=8,n=3")
	n := f.NumHosts()
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	var path []int32
	r := rng.New(1, 1)
	for len(path) < 1<<20 {
		r.ShuffleInt32(perm)
		for c := 0; c+1 < n; c += 2 {
			path, _ = f.AppendRoute(path, perm[c], perm[c+1])
			path, _ = f.AppendRoute(path, perm[c+1], perm[c])
		}
	}
	load := make([]int32, len(f.Links))
	b.ResetTimer()
	hops := 0
	for i := 0; i < b.N; i++ {
		for _, l := range path {
			load[l]++
		}
		hops += len(path)
	}
	b.ReportMetric(float64(hops)/b.Elapsed().Seconds()/1e6, "Mhops/s")
}

// BenchmarkAppendRoute8ary3 measures the table walk alone.
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

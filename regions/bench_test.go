package regions

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"orcs/gen"
	"orcs/rng"
)

// hotWindows makes n windows of stall values on the fabric of spec: a
// congestion tree towards one host (its leaf's down-cable, the cables
// into that leaf, and the cables into the switches above) whose stall and
// extent change from window to window, a second hot spot elsewhere, and
// noise of σ 1 % on every cable.
func hotWindows(tb testing.TB, spec string, n int) (*Bench, [][]float64) {
	tb.Helper()
	nw, err := gen.Build(spec)
	if err != nil {
		tb.Fatal(err)
	}
	f := nw.Fabric
	cables := make([]Cable, len(f.Links))
	into := make([][]int32, len(f.Nodes))
	for i, l := range f.Links {
		cables[i] = Cable{From: l.From, To: l.To}
		into[l.To] = append(into[l.To], int32(i))
	}
	g, err := HopGraph(len(f.Nodes), cables, 2)
	if err != nil {
		tb.Fatal(err)
	}
	r := rng.New(7, 0)
	out := make([][]float64, n)
	for w := range out {
		v := make([]float64, len(f.Links))
		for c := range v {
			v[c] = max(0, 1.0*normal(r))
		}
		for k, host := range []int32{f.HostNode(0), f.HostNode(f.NumHosts() / 2)} {
			// breadth-first up the tree: depth grows with the window
			depth := 1 + (w+k)%3
			front := []int32{host}
			stall := 20 + float64((w*7+k*13)%30)
			for d := 0; d < depth; d++ {
				var next []int32
				for _, v2 := range front {
					for _, l := range into[v2] {
						v[l] = stall + normal(r)
						next = append(next, f.Links[l].From)
					}
				}
				front = next
				stall *= 0.8
			}
		}
		out[w] = v
	}
	return &Bench{Kind: spec, Graph: g, Fabric: f}, out
}

var benchWindows = envInt("REGIONS_BENCH_WINDOWS", 10000)

// BenchmarkRegions10kWindows4096Hosts segments and tracks 10 000 windows on
// the 4096-host 16-ary 3-tree (24 576 directed cables); one op is all
// 10 000 windows. 64 distinct windows are made beforehand and cycled.
func BenchmarkRegions10kWindows4096Hosts(b *testing.B) {
	bench, wins := hotWindows(b, "kary:k=16,n=3", 64)
	p := MonetParams()
	b.ResetTimer()
	for range b.N {
		tr := NewTracker(bench.Graph.NumCables())
		regs := 0
		err := Run(bench.Graph, p, benchWindows, 0, func(w int) []float64 { return wins[w%len(wins)] }, func(w int, sg Segment) error {
			regs += len(tr.Add(float64(w), sg).Regions)
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(regs)/float64(benchWindows), "regions/window")
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// BenchmarkSegment4096Hosts segments one window of the 4096-host tree.
func BenchmarkSegment4096Hosts(b *testing.B) {
	bench, wins := hotWindows(b, "kary:k=16,n=3", 64)
	s, err := NewSegmenter(bench.Graph, MonetParams())
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.Segment(wins[i%len(wins)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadSamplingsimJSON reads the shipped samplingsim run (the
// hot spot on a 4-ary 3-tree, 1 MB) into stall values.
func BenchmarkReadSamplingsimJSON(b *testing.B) {
	f, err := gen.Generate("kary:k=4,n=3")
	if err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(fixtures, "k4n3-hotspot-samplingsim.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ReadSamplingsimJSON(bytes.NewReader(data), "run.json", f); err != nil {
			b.Fatal(err)
		}
	}
}

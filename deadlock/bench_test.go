package deadlock

import (
	"runtime"
	"testing"

	"orcs/fabricarg"
)

// BenchmarkCheckKary16 checks the 4096-host 16-ary 3-tree (768 switches,
// 24576 directed cables, 16.8 M routes) on all cores.
func BenchmarkCheckKary16(b *testing.B) {
	benchCheck(b, "gen:kary:k=16,n=3", runtime.NumCPU())
}

// BenchmarkCheckKary16OneThread is the same on one core.
func BenchmarkCheckKary16OneThread(b *testing.B) {
	benchCheck(b, "gen:kary:k=16,n=3", 1)
}

// BenchmarkCheckTorus16 checks a 16x16 torus (256 hosts), which has loops:
// the graph, its components and a shortest loop with example flows.
func BenchmarkCheckTorus16(b *testing.B) {
	benchCheck(b, "gen:torus:dims=16x16", runtime.NumCPU())
}

func benchCheck(b *testing.B, spec string, threads int) {
	src, err := fabricarg.Load(fabricarg.Args{Input: spec})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		r, err := Check(src.Fabric, nil, Options{Threads: threads, Examples: 3})
		if err != nil {
			b.Fatal(err)
		}
		if r.Routes == 0 {
			b.Fatal("no routes")
		}
	}
}

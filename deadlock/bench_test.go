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

// BenchmarkCheckKary16Pairwise is BenchmarkCheckKary16 walking every
// pair (the walk before buildByEntry), for comparison.
func BenchmarkCheckKary16Pairwise(b *testing.B) {
	benchCheckOpt(b, "gen:kary:k=16,n=3", Options{Threads: runtime.NumCPU(), Examples: 3, pairwise: true})
}

// BenchmarkCheckFattree3Pods16 checks the 4096-host three-level fat tree
// of radix-64 switches with 16 pods, the shape of the 65 536-host fabric
// of bench/scale.sh (pods=64), on all cores.
func BenchmarkCheckFattree3Pods16(b *testing.B) {
	benchCheck(b, "gen:fattree3:pods=16,leaves=32,hosts=32,up=32,mup=32", runtime.NumCPU())
}

// BenchmarkCheckFattree3Pods32 is the same with 32 pods (16 384 hosts).
func BenchmarkCheckFattree3Pods32(b *testing.B) {
	benchCheck(b, "gen:fattree3:pods=32,leaves=32,hosts=32,up=32,mup=32", runtime.NumCPU())
}

func benchCheck(b *testing.B, spec string, threads int) {
	benchCheckOpt(b, spec, Options{Threads: threads, Examples: 3})
}

func benchCheckOpt(b *testing.B, spec string, opt Options) {
	src, err := fabricarg.Load(fabricarg.Args{Input: spec})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		r, err := Check(src.Fabric, nil, opt)
		if err != nil {
			b.Fatal(err)
		}
		if r.Routes == 0 {
			b.Fatal("no routes")
		}
	}
}

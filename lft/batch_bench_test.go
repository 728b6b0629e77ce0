package lft_test

import (
	"runtime"
	"syscall"
	"testing"

	"orcs/gen"
	"orcs/lft"
	"orcs/rng"
)

func benchPairs(b *testing.B, spec string) (*lft.Fabric, []int32, []int32) {
	f, err := gen.Generate(spec)
	if err != nil {
		b.Fatal(err)
	}
	n := f.NumHosts()
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	rng.New(1, 1).ShuffleInt32(perm)
	src, dst := make([]int32, n), make([]int32, n)
	for i := range perm {
		src[i], dst[i] = perm[i], perm[(i+n/2)%n]
	}
	return f, src, dst
}

func benchOneByOne(b *testing.B, spec string) {
	f, src, dst := benchPairs(b, spec)
	var path []int32
	hops := 0
	startCPU(b)
	for i := 0; i < b.N; i++ {
		path = path[:0]
		for j := range src {
			path, _ = f.AppendRoute(path, src[j], dst[j])
		}
		hops += len(path)
	}
	b.ReportMetric(float64(hops)/cpu(b)/1e6, "Mhops/cpu-s")
}

func benchBatch(b *testing.B, spec string) {
	f, src, dst := benchPairs(b, spec)
	var rb lft.RouteBatch
	hops := 0
	startCPU(b)
	for i := 0; i < b.N; i++ {
		rb.Walk(f, src, dst, nil)
		hops += int(rb.Hops())
	}
	b.ReportMetric(float64(hops)/cpu(b)/1e6, "Mhops/cpu-s")
}

func BenchmarkWalkOneByOne8ary3(b *testing.B)  { benchOneByOne(b, "kary:k=8,n=3") }
func BenchmarkWalkBatch8ary3(b *testing.B)     { benchBatch(b, "kary:k=8,n=3") }
func BenchmarkWalkOneByOne12ary3(b *testing.B) { benchOneByOne(b, "kary:k=12,n=3") }
func BenchmarkWalkBatch12ary3(b *testing.B)    { benchBatch(b, "kary:k=12,n=3") }
func BenchmarkWalkOneByOne16ary3(b *testing.B) { benchOneByOne(b, "kary:k=16,n=3") }
func BenchmarkWalkBatch16ary3(b *testing.B)    { benchBatch(b, "kary:k=16,n=3") }
func BenchmarkWalkOneByOne22ary3(b *testing.B) { benchOneByOne(b, "kary:k=22,n=3") }
func BenchmarkWalkBatch22ary3(b *testing.B)    { benchBatch(b, "kary:k=22,n=3") }
func BenchmarkWalkOneByOne28ary3(b *testing.B) { benchOneByOne(b, "kary:k=28,n=3") }
func BenchmarkWalkBatch28ary3(b *testing.B)    { benchBatch(b, "kary:k=28,n=3") }

var cpu0 float64

func threadCPU() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(1, &ru) // RUSAGE_THREAD
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func startCPU(b *testing.B) {
	runtime.LockOSThread()
	b.ResetTimer()
	cpu0 = threadCPU()
}

func cpu(b *testing.B) float64 {
	defer runtime.UnlockOSThread()
	return threadCPU() - cpu0
}

package prefetch

import (
	"testing"
	"unsafe"
)

// TestLineNeverFaults: asking for any address, alone or among others or
// as an entry of an array, returns, whether it is a live line, nil or not
// mapped at all.
func TestLineNeverFaults(t *testing.T) {
	buf := make([]uint64, 1024)
	for i := 0; i < len(buf); i += 8 {
		Line(uintptr(unsafe.Pointer(&buf[i])))
	}
	Line(0)
	Line(8)
	Line(^uintptr(0) &^ 63)
	Line(uintptr(1) << 46) // in the user half, not mapped by a Go program
	Lines(nil)
	Lines([]uintptr{uintptr(unsafe.Pointer(&buf[8])), 0, 8, uintptr(1) << 46, uintptr(unsafe.Pointer(&buf[1016]))})
	base := uintptr(unsafe.Pointer(&buf[0]))
	Indexed(base, nil, 8)
	Indexed(base, []int32{0, -1, 1023, -1 << 31, 1<<31 - 1, 512}, 8)
	Indexed(0, []int32{1, 2, 3}, 1<<40)
	if buf[0] != 0 {
		t.Fatal("a prefetch changed memory")
	}
}

// BenchmarkIndexed64 is the cost of one call for 64 entries already in
// the cache, every eighth index negative (none).
func BenchmarkIndexed64(b *testing.B) {
	var x [512]uint64
	idx := make([]int32, 64)
	for i := range idx {
		idx[i] = int32(8 * i)
		if i%8 == 7 {
			idx[i] = -1
		}
	}
	base := uintptr(unsafe.Pointer(&x[0]))
	for range b.N {
		Indexed(base, idx, 8)
	}
}

// BenchmarkLine is the cost of one call on a line already in the cache,
// and BenchmarkLines8 of one call for eight.
func BenchmarkLine(b *testing.B) {
	var x [8]uint64
	p := uintptr(unsafe.Pointer(&x[0]))
	for range b.N {
		Line(p)
	}
}

// BenchmarkLines8: see BenchmarkLine.
func BenchmarkLines8(b *testing.B) {
	var x [64]uint64
	var addrs [8]uintptr
	for i := range addrs {
		addrs[i] = uintptr(unsafe.Pointer(&x[8*i]))
	}
	for range b.N {
		Lines(addrs[:])
	}
}

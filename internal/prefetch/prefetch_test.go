package prefetch

import (
	"testing"
	"unsafe"
)

// TestLineNeverFaults: asking for any address, alone or among others,
// returns, whether it is a live line, nil or not mapped at all.
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
	if buf[0] != 0 {
		t.Fatal("a prefetch changed memory")
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

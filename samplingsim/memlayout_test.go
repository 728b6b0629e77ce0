package samplingsim

import (
	"testing"
	"unsafe"
)

// TestHotLayout: what a hop reads stays within one 64-byte cache line per
// packet (packet.go).
func TestHotLayout(t *testing.T) {
	if n := unsafe.Sizeof(packet{}); n > 64 {
		t.Errorf("packet: %d bytes, more than a cache line", n)
	}
}

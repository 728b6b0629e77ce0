package samplingsim

import (
	"testing"
	"unsafe"
)

// TestHotLayout: what a hop reads stays within one 64-byte cache line per
// packet (packet.go) and one 128-byte block per channel (channel.go).
func TestHotLayout(t *testing.T) {
	if n := unsafe.Sizeof(packet{}); n > 64 {
		t.Errorf("packet: %d bytes, more than a cache line", n)
	}
	if n := unsafe.Sizeof(channel{}); n != 128 {
		t.Errorf("channel: %d bytes, not the 128 of a pair of cache lines", n)
	}
}

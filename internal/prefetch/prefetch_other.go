//go:build !amd64 && !arm64

package prefetch

// Line does nothing on this architecture.
func Line(addr uintptr) {}

// Lines does nothing on this architecture.
func Lines(addrs []uintptr) {}

// Indexed does nothing on this architecture.
func Indexed(base uintptr, idx []int32, size uintptr) {}

//go:build amd64 || arm64

package prefetch

// Line asks for the cache line holding address addr to be loaded into the
// first-level cache. It returns at once and never faults, whatever addr
// is: an address that is not mapped is ignored.
//
//go:noescape
func Line(addr uintptr)

// Lines asks for the lines of all of addrs, as Line does, in one call.
//
//go:noescape
func Lines(addrs []uintptr)

// Indexed asks for the lines of the entries idx of an array at base whose
// entries take size bytes, as Line does; negative indices are none.
//
//go:noescape
func Indexed(base uintptr, idx []int32, size uintptr)

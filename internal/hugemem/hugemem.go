// Package hugemem allocates large arrays of plain data (no pointers) outside
// the Go heap, in mappings the kernel is asked to back with huge pages, and
// asks the same for the whole huge pages of a large array on the heap
// (Advise).
//
// A simulation or a route walk that reads a few bytes at random places of
// an array of megabytes misses the TLB on nearly every read when the array
// sits on 4 KiB pages: each 2 MiB huge page replaces 512 TLB entries. Go's
// heap asks for huge pages only when the system's transparent huge pages
// are set to "always"; the usual default is "madvise", which serves only
// the mappings that ask (madvise(MADV_HUGEPAGE)), as these do.
//
// The memory of an Arena is released by Release, or when the value that
// owns it is garbage collected (Arena.ReleaseWith). The garbage collector
// does not scan it: the element types must hold no pointers (no pointers,
// slices, maps, strings, interfaces or funcs).
package hugemem

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// mapped is the number of bytes mapped by all arenas and not yet released.
var mapped atomic.Int64

// Mapped returns the number of bytes that arenas hold mapped now.
func Mapped() int64 { return mapped.Load() }

// MinBytes is the smallest array an Arena maps on its own; smaller ones
// are made on the Go heap (a huge page would be mostly empty).
const MinBytes = 1 << 20

// pageBytes is the size of a huge page (x86-64 and arm64 with 4 KiB base
// pages): mappings are aligned to it, so that every 2 MiB of an array can
// be one huge page.
const pageBytes = 2 << 20

// Arena holds the mappings of a set of arrays that are released together.
// The zero value is ready to use. An Arena must not be copied.
type Arena struct {
	mu   sync.Mutex
	maps [][]byte
	once sync.Once
}

// Make returns a slice of n zero elements of T and capacity cap (≥ n) in
// arena a: mapped on huge pages when cap elements take at least MinBytes,
// else on the Go heap. Pages are backed only when first written, so a large
// capacity that is never reached costs address space, not memory. T must
// hold no pointers; the slice must not be used after a.Release.
func Make[T any](a *Arena, n, cap int) []T {
	var zero T
	elem := int(max(unsafe.Sizeof(zero), 1))
	if n < 0 || cap < n || cap > math.MaxInt/2/elem || cap*elem < MinBytes {
		return make([]T, n, max(cap, n))
	}
	mem := a.mapAligned(cap * elem)
	if mem == nil {
		return make([]T, n, cap)
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&mem[0])), cap)[:n]
}

// mapAligned maps size bytes aligned to a huge page and asks for huge
// pages, or returns nil when the system refuses the mapping.
func (a *Arena) mapAligned(size int) []byte {
	size = (size + pageBytes - 1) &^ (pageBytes - 1)
	whole, err := mapAnon(size + pageBytes)
	if err != nil {
		return nil
	}
	off := alignOffset(uintptr(unsafe.Pointer(&whole[0])))
	mem := whole[off : off+size : off+size]
	adviseHuge(mem)
	a.mu.Lock()
	a.maps = append(a.maps, whole)
	a.mu.Unlock()
	mapped.Add(int64(len(whole)))
	return mem
}

// alignOffset returns how far after address p the next huge page starts
// (0 when p is one's start). Recent kernels align large anonymous
// mappings themselves; older ones need the offset.
func alignOffset(p uintptr) int { return int(-p & (pageBytes - 1)) }

// Release unmaps the arena's arrays. It may be called more than once, and
// concurrently with the cleanup of ReleaseWith: the first call unmaps.
func (a *Arena) Release() {
	a.once.Do(func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		for _, m := range a.maps {
			unmap(m)
			mapped.Add(-int64(len(m)))
		}
		a.maps = nil
	})
}

// ReleaseWith releases the arena when owner is garbage collected (if
// Release has not released it before). Owner must hold the arrays' slices
// (and so keep them alive) wherever they are used.
func ReleaseWith[O any](a *Arena, owner *O) {
	runtime.AddCleanup(owner, func(a *Arena) { a.Release() }, a)
}

// Advise asks the kernel to back the whole huge pages within s's array
// with huge pages, for a large array on the Go heap that is about to be
// written whole for the first time: a fresh array is backed page by page
// as it is first written, and in a virtual machine each 4 KiB page fault
// costs microseconds (16 MiB: 60–70 ms measured on the development
// machine, 1–10 ms on huge pages). Its first and last huge page, shared
// with other objects, stay on small pages, so while the array lives it
// holds no more memory than it would. The advice stays on the address
// range when the array is freed: memory the heap reuses there may be
// backed by huge pages too (and the kernel may gather pages that the
// runtime gave back into huge pages again), so it is for arrays of a few
// megabytes read once per process, not for the heap at large. The advice
// is a hint, without effect where the system has no transparent huge
// pages or on memory backed already. T may hold pointers.
func Advise[T any](s []T) {
	var zero T
	p := unsafe.Pointer(unsafe.SliceData(s))
	if off, n := wholePages(uintptr(p), uintptr(cap(s))*unsafe.Sizeof(zero)); n > 0 {
		adviseHuge(unsafe.Slice((*byte)(unsafe.Add(p, off)), n))
	}
}

// wholePages returns where the whole huge pages of the size bytes at
// address p start (an offset from p) and how many bytes they take: none
// below MinBytes.
func wholePages(p, size uintptr) (off, n uintptr) {
	if size < MinBytes {
		return 0, 0
	}
	off = uintptr(alignOffset(p))
	if off >= size {
		return 0, 0
	}
	return off, (size - off) &^ (pageBytes - 1)
}

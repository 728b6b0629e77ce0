package lft

import (
	"syscall"
	"unsafe"
)

// hugeWords allocates n zero words, asking the kernel for huge pages when
// the array is large (random reads over it then miss the TLB less).
func hugeWords(n int) []uint64 {
	size := 8 * n
	if size < 32<<20 {
		return make([]uint64, n)
	}
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return make([]uint64, n)
	}
	_ = syscall.Madvise(mem, 14) // MADV_HUGEPAGE
	return unsafe.Slice((*uint64)(unsafe.Pointer(&mem[0])), n)
}

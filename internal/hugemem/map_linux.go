package hugemem

import "syscall"

// mapAnon maps size bytes of zeroed private memory, reserving no swap for
// it (pages are backed as they are written).
func mapAnon(size int) ([]byte, error) {
	return syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
}

// adviseHuge asks the kernel to back mem with transparent huge pages. It
// is a hint: a kernel without them, or set to "never", uses plain pages.
func adviseHuge(mem []byte) {
	const madvHugepage = 14
	_ = syscall.Madvise(mem, madvHugepage)
}

func unmap(mem []byte) { _ = syscall.Munmap(mem) }

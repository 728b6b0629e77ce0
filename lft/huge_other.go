//go:build !linux

package lft

// hugeSlice allocates n zero elements of T for owner (huge pages are asked
// for on Linux only).
func hugeSlice[T, O any](n int, owner *O) []T { return make([]T, n) }

//go:build !linux

package hugemem

import "errors"

// mapAnon refuses: outside Linux the arrays live on the Go heap.
func mapAnon(size int) ([]byte, error) { return nil, errors.New("hugemem: Linux only") }

func adviseHuge(mem []byte) {}

func unmap(mem []byte) {}

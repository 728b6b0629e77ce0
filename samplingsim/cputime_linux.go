//go:build linux

package samplingsim

import (
	"syscall"
	"time"
)

// rusageThread is RUSAGE_THREAD of getrusage(2).
const rusageThread = 1

// threadCPU returns the CPU time (user + system) of the calling OS thread,
// or 0 if it cannot be read.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

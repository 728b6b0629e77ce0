//go:build linux

package samplingsim

import (
	"syscall"
	"time"
	"unsafe"
)

// clockThreadCPUTime is CLOCK_THREAD_CPUTIME_ID of clock_gettime(2), and
// rusageThread RUSAGE_THREAD of getrusage(2).
const (
	clockThreadCPUTime = 3
	rusageThread       = 1
)

// threadCPU returns the CPU time of the calling OS thread, to the
// nanosecond (getrusage counts in scheduler ticks, milliseconds), or 0 if
// it cannot be read.
func threadCPU() time.Duration {
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno == 0 {
		return time.Duration(ts.Nano())
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

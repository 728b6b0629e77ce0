//go:build !linux

package samplingsim

import "time"

// threadCPU is not available here; Result.CPU stays 0.
func threadCPU() time.Duration { return 0 }

package plan

import "math"

// Time is simulated time in picoseconds.
type Time = int64

// Units of Time.
const (
	Picosecond  Time = 1
	Nanosecond  Time = 1000
	Microsecond Time = 1000 * Nanosecond
	Millisecond Time = 1000 * Microsecond
	Second      Time = 1000 * Millisecond
)

// LongestTime is the largest simulated time, about 106 days.
const LongestTime Time = math.MaxInt64

package metrics

import (
	"io"

	"orcs/lft"
	"orcs/patterns"
)

func init() {
	Register(&Metric{
		Name: "dep_max_delay",
		Doc: "per run, the longest congestion-weighted dependency chain through the first pattern " +
			"(its completion time; with ptrnvsptrn the second pattern is background traffic)",
		ValueName:  "delay",
		Discrete:   true,
		Value:      func(s RunStats) float64 { return float64(s.Delay) },
		NeedsDelay: true,
		Text: func(w io.Writer, r *Result, _ *lft.Fabric) error {
			return statisticalResults(w, r.Values, [4]string{
				"Minimal Delay:", "Maximal Delay:", "Average Delay:", "Delay Variance:",
			}, "Delay of %.0f occured %d times.\n")
		},
	})
}

// DelayTracker computes dep_max_delay by a forward pass over levels: a rank
// may send in a level only after every message it received in earlier levels
// has arrived, and a message arrives w time units after its sender is ready.
// Messages of one level are evaluated against the ready times before that
// level, so exchanges inside a level (cycles) are handled exactly.
//
// With ORCS2 set it follows ORCS 2.0's rule instead. ORCS 2.0 builds a
// graph with two vertices per measured message (sender side, receiver side)
// joined by an edge of the message's weight, and links a message to a later
// one only in this case: the later message is the first one (in pattern
// order) that its sender sends in level k, and the earlier one is the first
// message that same rank received in level k−1. Messages received later in
// level k−1, or in any level before k−1, and messages sent after the
// sender's first one in level k, start no chain: they start at 0. The result
// is the longest chain, the largest arrival time of any message. Every
// vertex has at most one edge in and one edge out, so the chains are simple
// paths and ORCS's repeated breadth-first searches, whose distances it never
// resets, still find their exact lengths.
type DelayTracker struct {
	// ORCS2 selects ORCS 2.0's chaining rule; set it before Reset.
	ORCS2 bool

	ready   []int64
	arrival []int64
	first   int32 // ranks < first belong to the measured pattern

	// ORCS 2.0 rule: level counts the levels of the run; firstAt[k%2][r]
	// is the level in which rank r's first received message of level k
	// arrived at firstArr[k%2][r]; sentAt[r] is the last level r sent in.
	level    int32
	firstAt  [2][]int32
	firstArr [2][]int64
	sentAt   []int32
	longest  int64
}

// Reset prepares the tracker for a run of n ranks of which the first
// firstRanks are measured.
func (d *DelayTracker) Reset(n, firstRanks int) {
	d.first = int32(firstRanks)
	if d.ORCS2 {
		d.level, d.longest = 0, 0
		for i := range 2 {
			d.firstAt[i] = fill(d.firstAt[i], n, -1)
			d.firstArr[i] = fill(d.firstArr[i], n, 0)
		}
		d.sentAt = fill(d.sentAt, n, -1)
		return
	}
	d.ready = fill(d.ready, n, 0)
}

// fill returns s resized to n elements, all v.
func fill[T int32 | int64](s []T, n int, v T) []T {
	if cap(s) < n {
		s = make([]T, n)
	}
	s = s[:n]
	for i := range s {
		s[i] = v
	}
	return s
}

// Level accounts one level: message i of lv travels with congestion w[i].
func (d *DelayTracker) Level(lv patterns.Level, w []int32) {
	if d.ORCS2 {
		d.orcs2Level(lv, w)
		return
	}
	d.arrival = d.arrival[:0]
	for i, p := range lv {
		if p.Src >= d.first || p.Dst >= d.first {
			d.arrival = append(d.arrival, -1)
			continue
		}
		d.arrival = append(d.arrival, d.ready[p.Src]+int64(w[i]))
	}
	for i, a := range d.arrival {
		if dst := lv[i].Dst; a >= 0 && a > d.ready[dst] {
			d.ready[dst] = a
		}
	}
}

// orcs2Level accounts one level by ORCS 2.0's rule (see DelayTracker).
func (d *DelayTracker) orcs2Level(lv patterns.Level, w []int32) {
	k := d.level
	cur, prev := k%2, (k+1)%2
	for i, p := range lv {
		if p.Src >= d.first || p.Dst >= d.first {
			continue
		}
		var start int64
		if d.sentAt[p.Src] != k {
			d.sentAt[p.Src] = k
			if k > 0 && d.firstAt[prev][p.Src] == k-1 {
				start = d.firstArr[prev][p.Src]
			}
		}
		a := start + int64(w[i])
		if d.firstAt[cur][p.Dst] != k {
			d.firstAt[cur][p.Dst] = k
			d.firstArr[cur][p.Dst] = a
		}
		d.longest = max(d.longest, a)
	}
	d.level++
}

// Delay is the completion time of the measured pattern so far (with ORCS2,
// the longest chain so far).
func (d *DelayTracker) Delay() int64 {
	if d.ORCS2 {
		return d.longest
	}
	var m int64
	for _, t := range d.ready {
		if t > m {
			m = t
		}
	}
	return m
}

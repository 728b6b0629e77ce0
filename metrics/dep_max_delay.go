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
type DelayTracker struct {
	ready   []int64
	arrival []int64
	first   int32 // ranks < first belong to the measured pattern
}

// Reset prepares the tracker for a run of n ranks of which the first
// firstRanks are measured.
func (d *DelayTracker) Reset(n, firstRanks int) {
	if cap(d.ready) < n {
		d.ready = make([]int64, n)
	}
	d.ready = d.ready[:n]
	for i := range d.ready {
		d.ready[i] = 0
	}
	d.first = int32(firstRanks)
}

// Level accounts one level: message i of lv travels with congestion w[i].
func (d *DelayTracker) Level(lv patterns.Level, w []int32) {
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

// Delay is the completion time of the measured pattern so far.
func (d *DelayTracker) Delay() int64 {
	var m int64
	for _, t := range d.ready {
		if t > m {
			m = t
		}
	}
	return m
}

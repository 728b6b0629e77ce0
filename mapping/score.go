package mapping

import "fmt"

// Mode says how objectives compare.
type Mode uint8

const (
	// ByCongestion compares the congestion first, then the sum of squared
	// loads (the default).
	ByCongestion Mode = iota
	// BySumSq compares the sum of squared loads first, then the congestion.
	BySumSq
)

// ParseMode reads an --objective value: "congestion" (or "max") or "sumsq".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "congestion", "max", "":
		return ByCongestion, nil
	case "sumsq":
		return BySumSq, nil
	}
	return 0, fmt.Errorf("unknown objective %q (known: congestion, sumsq)", s)
}

// String names the mode as ParseMode reads it.
func (m Mode) String() string {
	if m == BySumSq {
		return "sumsq"
	}
	return "congestion"
}

// Objective is the score of a placement. Per level, a cable's load is the
// summed weight of the level's routes over it (a directed link, as the
// analyzer counts).
type Objective struct {
	// Congestion is the largest cable load of each level summed over the
	// levels (ORCS's sum_max_cong; for one level, the max cable load).
	Congestion int64
	// SumSq is the sum over levels and cables of the squared load.
	SumSq float64
	// SumSqJob is the sum over cables of the squared load of the whole job
	// (all levels together): levels that overlap in time, as the phases of
	// ranks that run at different paces do, share cables. It breaks ties
	// of SumSq; for one level it equals SumSq.
	SumSqJob float64
	// MaxLoad is the largest cable load of any level.
	MaxLoad int64
	// LeafUp is the largest load of any level on a cable from a leaf
	// switch (one with hosts) to another switch: 1 (or the largest weight)
	// means no two routes of a level share a leaf's up-link.
	LeafUp int64
	// Hops is the number of cables walked by all routes (the dilation
	// summed over messages).
	Hops int64
}

// Better reports whether a is strictly better than b.
func (m Mode) Better(a, b Objective) bool {
	if m == BySumSq {
		if a.SumSq != b.SumSq {
			return a.SumSq < b.SumSq
		}
		if a.Congestion != b.Congestion {
			return a.Congestion < b.Congestion
		}
		return a.SumSqJob < b.SumSqJob
	}
	if a.Congestion != b.Congestion {
		return a.Congestion < b.Congestion
	}
	if a.SumSq != b.SumSq {
		return a.SumSq < b.SumSq
	}
	return a.SumSqJob < b.SumSqJob
}

// Score walks every route of the job under placement pl through the
// fabric's tables and returns the objective. Every pair of the
// allocation routes (NewProblem checked it).
func (p *Problem) Score(pl Placement) Objective {
	f := p.Fabric
	load := make([]int64, len(f.Links))
	job := make([]int64, len(f.Links))
	var path []int32
	var o Objective
	msgs := p.Comm.Msgs
	for i := 0; i < len(msgs); {
		j := i
		path = path[:0]
		for ; j < len(msgs) && msgs[j].Level == msgs[i].Level; j++ {
			start := len(path)
			path, _ = f.AppendRoute(path, pl[msgs[j].Src], pl[msgs[j].Dst])
			for _, l := range path[start:] {
				load[l] += msgs[j].Weight
			}
		}
		o.Hops += int64(len(path))
		var lmax int64
		for _, l := range path {
			c := load[l]
			if c == 0 {
				continue // counted already
			}
			job[l] += c
			lmax = max(lmax, c)
			o.SumSq += float64(c) * float64(c)
			if p.leafSw[f.Links[l].From] && f.HostIndex(f.Links[l].To) < 0 {
				o.LeafUp = max(o.LeafUp, c)
			}
			load[l] = 0
		}
		o.Congestion += lmax
		o.MaxLoad = max(o.MaxLoad, lmax)
		i = j
	}
	for _, c := range job {
		o.SumSqJob += float64(c) * float64(c)
	}
	return o
}

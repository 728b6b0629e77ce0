package samplingsim

import (
	"orcs/registry"
	"orcs/rng"
)

func init() {
	registerMarking(&markingPolicy{
		name: "probabilistic",
		doc: "marks with probability rising linearly from 0 to 1 as the excess queue−credits " +
			"goes from min to max (§5.10; like RED)",
		params: []registry.Param{
			{Key: "min", Default: "0", Doc: "excess at or below which nothing is marked"},
			{Key: "max", Default: "4", Doc: "excess at or above which everything is marked"},
		},
		build: func(r *registry.Reader) (marker, error) {
			lo, hi := r.Float("min"), r.Float("max")
			if !(hi > lo) {
				r.Failf("max=%g must be greater than min=%g", hi, lo)
			}
			return marker{congested: markProbabilistic, lo: lo, hi: hi}, r.Err()
		},
	})
}

func markProbabilistic(m *marker, queue, credits, _ int32, r *rng.Stream) bool {
	excess := float64(queue - credits)
	switch {
	case excess <= m.lo:
		return false
	case excess >= m.hi:
		return true
	}
	return r.Float64() < (excess-m.lo)/(m.hi-m.lo)
}

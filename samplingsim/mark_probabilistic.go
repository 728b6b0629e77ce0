package samplingsim

import (
	"fmt"

	"orcs/rng"
)

func init() {
	registerMarking(&markingPolicy{
		name: "probabilistic",
		doc: "marks with probability rising linearly from 0 to 1 as the excess queue−credits " +
			"goes from min to max (§5.10; like RED)",
		params: []param{
			{key: "min", def: "0", doc: "excess at or below which nothing is marked"},
			{key: "max", def: "4", doc: "excess at or above which everything is marked"},
		},
		build: func(s spec) (marker, error) {
			lo, err := s.float("min")
			if err != nil {
				return marker{}, err
			}
			hi, err := s.float("max")
			if err != nil {
				return marker{}, err
			}
			if !(hi > lo) {
				return marker{}, fmt.Errorf("probabilistic: max=%g must be greater than min=%g", hi, lo)
			}
			return marker{congested: markProbabilistic, lo: lo, hi: hi}, nil
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

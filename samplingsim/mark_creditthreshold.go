package samplingsim

import (
	"fmt"

	"orcs/rng"
)

func init() {
	registerMarking(&markingPolicy{
		name:   "credit-threshold",
		doc:    "congested when the available credits are below threshold (§5.10)",
		params: []param{{key: "threshold", def: "1", doc: "credits"}},
		build: func(s spec) (marker, error) {
			t, err := s.int("threshold")
			if err != nil {
				return marker{}, err
			}
			if t < 1 {
				return marker{}, fmt.Errorf("credit-threshold: threshold=%d must be at least 1 (no port has fewer than 0 credits)", t)
			}
			return marker{congested: markCreditThreshold, lo: float64(t)}, nil
		},
	})
}

func markCreditThreshold(m *marker, _, credits, _ int32, _ *rng.Stream) bool {
	return float64(credits) < m.lo
}

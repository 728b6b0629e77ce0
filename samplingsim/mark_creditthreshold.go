package samplingsim

import (
	"orcs/registry"
	"orcs/rng"
)

func init() {
	registerMarking(&markingPolicy{
		name:   "credit-threshold",
		doc:    "congested when the available credits are below threshold (§5.10)",
		params: []registry.Param{{Key: "threshold", Default: "1", Doc: "credits"}},
		build: func(r *registry.Reader) (marker, error) {
			t := r.Int("threshold")
			if t < 1 {
				r.Failf("threshold=%d must be at least 1 (no port has fewer than 0 credits)", t)
			}
			return marker{congested: markCreditThreshold, lo: float64(t)}, r.Err()
		},
	})
}

func markCreditThreshold(m *marker, _, credits, _ int32, _ *rng.Stream) bool {
	return float64(credits) < m.lo
}

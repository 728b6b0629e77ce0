package samplingsim

import (
	"orcs/registry"
	"orcs/rng"
)

func init() {
	registerMarking(&markingPolicy{
		name:   "queue",
		doc:    "congested when the queue is longer than threshold packets (§5.10)",
		params: []registry.Param{{Key: "threshold", Default: "2", Doc: "queue length in packets"}},
		build: func(r *registry.Reader) (marker, error) {
			t := r.Int("threshold")
			if t < 0 {
				r.Failf("threshold=%d must not be negative", t)
			}
			return marker{congested: markQueue, lo: float64(t)}, r.Err()
		},
	})
}

func markQueue(m *marker, queue, _, _ int32, _ *rng.Stream) bool {
	return float64(queue) > m.lo
}

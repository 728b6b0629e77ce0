package samplingsim

import (
	"fmt"

	"orcs/rng"
)

func init() {
	registerMarking(&markingPolicy{
		name:   "queue",
		doc:    "congested when the queue is longer than threshold packets (§5.10)",
		params: []param{{key: "threshold", def: "2", doc: "queue length in packets"}},
		build: func(s spec) (marker, error) {
			t, err := s.int("threshold")
			if err != nil {
				return marker{}, err
			}
			if t < 0 {
				return marker{}, fmt.Errorf("queue: threshold=%d must not be negative", t)
			}
			return marker{congested: markQueue, lo: float64(t)}, nil
		},
	})
}

func markQueue(m *marker, queue, _, _ int32, _ *rng.Stream) bool {
	return float64(queue) > m.lo
}

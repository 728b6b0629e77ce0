package samplingsim

import (
	"orcs/registry"
	"orcs/rng"
)

func init() {
	registerMarking(&markingPolicy{
		name: "credits",
		doc:  "congested when the queue is longer than the available credits (thesis §3.2)",
		build: func(r *registry.Reader) (marker, error) {
			return marker{congested: markCredits}, r.Err()
		},
	})
}

// markCredits is the thesis's rule: the port must get credits back before it
// can empty its queue.
func markCredits(_ *marker, queue, credits, _ int32, _ *rng.Stream) bool {
	return queue > credits
}

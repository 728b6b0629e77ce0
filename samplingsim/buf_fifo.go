package samplingsim

import "orcs/registry"

func init() {
	registerBuffers(&bufferPolicy{
		name: "fifo",
		doc:  "one FIFO of B packets per input port, only its head moves (head-of-line blocking), no rule per destination (the default)",
		build: func(r *registry.Reader, _ bufferEnv) (*dampener, error) {
			return nil, r.Err()
		},
	})
}

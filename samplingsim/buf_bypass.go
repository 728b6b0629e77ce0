package samplingsim

import "orcs/registry"

func init() {
	registerBuffers(&bufferPolicy{
		name: "bypass",
		doc: "B shared buffers per input port from which any packet whose output admits it moves (no head-of-line blocking), " +
			"no rule per destination: the dampening switches' mechanics without dampening, a control",
		build: func(r *registry.Reader, _ bufferEnv) (*dampener, error) {
			return &dampener{
				admit:   func(_, _ int32) bool { return true },
				claim:   func(_, dst int32) int32 { return dst },
				release: func(_, _ int32) {},
			}, r.Err()
		},
	})
}

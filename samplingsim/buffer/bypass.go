package buffer

import "orcs/registry"

func init() {
	register(&policy{
		name: "bypass",
		doc: "B shared buffers per input port from which any packet whose output admits it moves (no head-of-line blocking), " +
			"no rule per destination: the dampening switches' mechanics without dampening, a control",
		parse: func(r *registry.Reader, _ int32) (func(Env) *Rule, error) {
			return newBypass, r.Err()
		},
	})
}

// newBypass returns the rule that admits every destination.
func newBypass(Env) *Rule {
	return &Rule{
		Admit:   func(_, _ int32) bool { return true },
		Claim:   func(_, dst int32) int32 { return dst },
		Release: func(_, _ int32) {},
	}
}

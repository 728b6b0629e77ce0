package buffer

import "orcs/registry"

func init() {
	register(&policy{
		name: "fifo",
		doc:  "one FIFO of B packets per input port, only its head moves (head-of-line blocking), no rule per destination (the default)",
		parse: func(r *registry.Reader, _ int32) (func(Env) *Rule, error) {
			return nil, r.Err()
		},
	})
}

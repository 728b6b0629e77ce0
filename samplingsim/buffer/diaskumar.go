package buffer

import "orcs/registry"

func init() {
	register(&policy{
		name: "dias-kumar",
		doc:  "an input port buffers at most one packet per destination (Dias and Kumar, ICPP 1989): B hot spots can claim at most B buffers",
		parse: func(r *registry.Reader, _ int32) (func(Env) *Rule, error) {
			if err := r.Err(); err != nil {
				return nil, err
			}
			return func(env Env) *Rule { return newDiasKumar(env.Links, env.Slots) }, nil
		},
	})
}

// newDiasKumar returns the Dias–Kumar rule: the mirror of link l lists the
// destinations present in its buffer, held[l·B : l·B+n[l]].
func newDiasKumar(links int, slots int32) *Rule {
	held := make([]int32, links*int(slots))
	n := make([]int32, links)
	find := func(l, dst int32) int32 {
		base := l * slots
		for i := range n[l] {
			if held[base+i] == dst {
				return i
			}
		}
		return -1
	}
	return &Rule{
		Admit: func(l, dst int32) bool { return find(l, dst) < 0 },
		Claim: func(l, dst int32) int32 {
			held[l*slots+n[l]] = dst
			n[l]++
			return dst
		},
		Release: func(l, dst int32) {
			i, base := find(l, dst), l*slots
			n[l]--
			held[base+i] = held[base+n[l]]
		},
	}
}

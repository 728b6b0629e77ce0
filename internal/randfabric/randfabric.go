// Package randfabric builds random routed fabrics for tests: switches in a
// random connected graph, hosts on random switches, and switch tables full
// of loops, holes and dead ends, against which a walk is checked with the
// tables' own route walk.
package randfabric

import (
	"fmt"
	"math/rand/v2"

	"orcs/lft"
)

// Spec says what Tables builds.
type Spec struct {
	// Switches S0 … are cabled in a random tree, then up to as many extra
	// cables between random pairs; Hosts H0 … hang each on a random switch
	// by one cable; Isolated hosts I0 … have no link at all.
	Switches, Hosts, Isolated int
	// Miss is the probability that a switch has no entry for a
	// destination; the others are random out-links of the switch.
	Miss float64
	// Host H0 names each destination in its table instead of routing every
	// destination over its cable ("*") with PerDest, and has no route at
	// all with NoRoute.
	PerDest, NoRoute bool
}

// Tables returns a random fabric as spec says, drawn from r. A cable's
// ends are numbered as the switches' ports in the order they are cabled,
// port 1 on a host.
func Tables(r *rand.Rand, spec Spec) *lft.Fabric {
	b := lft.NewBuilder()
	sw := make([]int32, spec.Switches)
	for i := range sw {
		sw[i] = b.Node(fmt.Sprintf("S%d", i), lft.Switch)
	}
	out := make([][]int32, spec.Switches)
	cable := func(i, j int) {
		out[i] = append(out[i], b.Link(sw[i], sw[j], len(out[i])+1, 0))
		out[j] = append(out[j], b.Link(sw[j], sw[i], len(out[j])+1, 0))
	}
	for i := 1; i < spec.Switches; i++ {
		cable(i, r.IntN(i))
	}
	for range spec.Switches {
		if i, j := r.IntN(spec.Switches), r.IntN(spec.Switches); i != j {
			cable(i, j)
		}
	}
	names := make([]string, spec.Hosts)
	for h := range spec.Hosts {
		names[h] = fmt.Sprintf("H%d", h)
		v := b.Node(names[h], lft.Host)
		s := r.IntN(spec.Switches)
		up := b.Link(v, sw[s], 1, 0)
		out[s] = append(out[s], b.Link(sw[s], v, len(out[s])+1, 1))
		switch {
		case h == 0 && spec.NoRoute:
		case h == 0 && spec.PerDest:
			for d := 1; d < spec.Hosts; d++ {
				b.Route(up, b.Dest(fmt.Sprintf("H%d", d)))
			}
		default:
			b.Route(up, lft.AnyDest)
		}
	}
	for i := range spec.Isolated {
		b.Node(fmt.Sprintf("I%d", i), lft.Host)
	}
	for s := range spec.Switches {
		for d := range spec.Hosts {
			if r.Float64() >= spec.Miss {
				b.Route(out[s][r.IntN(len(out[s]))], b.Dest(names[d]))
			}
		}
	}
	f, err := b.Build()
	if err != nil {
		panic(err) // every node has a name of its own
	}
	return f
}

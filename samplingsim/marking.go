package samplingsim

import (
	"fmt"
	"slices"
	"strings"

	"orcs/rng"
)

// A marking policy decides whether an output port is congested for the
// packet being handled (thesis §3.2 and §5.10). It sees the length of the
// output queue (including the packet, at enqueue; as if added, at arrival;
// including the departing packet, at departure), the credits the port has
// available and the queue's capacity.
//
// Policies are registered by name, one file each; the decision is a plain
// function (no interface) because it runs once per packet and hop.
type markingPolicy struct {
	name   string
	doc    string
	params []param
	// build checks the parameters and returns the marker.
	build func(s spec) (marker, error)
}

// marker is a configured policy.
type marker struct {
	// congested decides for one packet. r is the marking random stream.
	congested func(m *marker, queue, credits, capacity int32, r *rng.Stream) bool
	// lo and hi are the policy's thresholds.
	lo, hi float64
}

var markingPolicies = map[string]*markingPolicy{}

// registerMarking adds a policy; called from init functions.
func registerMarking(p *markingPolicy) {
	if _, dup := markingPolicies[p.name]; dup {
		panic("samplingsim: marking policy registered twice: " + p.name)
	}
	markingPolicies[p.name] = p
}

// MarkingNames lists the registered marking policies with their parameters
// and descriptions, sorted by name, for help texts.
func MarkingNames() []string {
	var out []string
	for _, p := range markingPolicies {
		s := p.name
		if len(p.params) > 0 {
			s += ":" + describeParams(p.params)
		}
		out = append(out, s+" — "+p.doc)
	}
	slices.Sort(out)
	return out
}

// parseMarking parses a marking spec such as "queue:threshold=2".
func parseMarking(text string) (marker, error) {
	s, err := parseSpec("marking policy", text, func(name string) ([]param, error) {
		p, ok := markingPolicies[name]
		if !ok {
			names := make([]string, 0, len(markingPolicies))
			for n := range markingPolicies {
				names = append(names, n)
			}
			slices.Sort(names)
			return nil, fmt.Errorf("unknown marking policy %q (known: %s)", name, strings.Join(names, ", "))
		}
		return p.params, nil
	})
	if err != nil {
		return marker{}, err
	}
	return markingPolicies[s.name].build(s)
}

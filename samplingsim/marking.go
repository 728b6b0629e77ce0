package samplingsim

import (
	"fmt"
	"strings"

	"orcs/registry"
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
	params []registry.Param
	// build reads the parameters and returns the marker; it returns r.Err()
	// when that is not nil.
	build func(r *registry.Reader) (marker, error)
}

func (p *markingPolicy) Params() []registry.Param { return p.params }

// marker is a configured policy.
type marker struct {
	// congested decides for one packet. r is the marking random stream.
	congested func(m *marker, queue, credits, capacity int32, r *rng.Stream) bool
	// lo and hi are the policy's thresholds.
	lo, hi float64
}

// markingPolicies holds the marking policies by name.
var markingPolicies = registry.New[*markingPolicy]("marking policy")

// registerMarking adds a policy; called from init functions. It panics on a
// duplicate or invalid name.
func registerMarking(p *markingPolicy) { markingPolicies.Register(p.name, p.doc, p) }

// MarkingNames lists the registered marking policies with their parameters
// and descriptions, sorted by name, for help texts.
func MarkingNames() []string {
	var out []string
	for _, p := range markingPolicies.All() {
		out = append(out, registry.Describe(p.name, p.doc, p.params))
	}
	return out
}

// parseMarking parses a marking spec such as "queue:threshold=2".
func parseMarking(text string) (marker, error) {
	p, r, err := registry.LookupSpec(markingPolicies, text)
	if err != nil {
		return marker{}, err
	}
	m, err := p.build(r)
	if err != nil {
		return marker{}, fmt.Errorf("%s %q: %w", markingPolicies.Kind(), strings.TrimSpace(text), err)
	}
	return m, nil
}

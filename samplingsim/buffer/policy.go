// Package buffer holds the buffer policies of samplingsim's switch input
// ports (Config.Buffers): which packets an input port may hold.
//
// A buffer policy says which packets an input port may hold (Kuszmaul and
// Kuszmaul, "Few buffers, many hot spots, and no tree saturation", SPAA
// 2014). The default, "fifo", is the switch of switch.go: one FIFO per input
// port whose head alone can move (head-of-line blocking) and no rule per
// destination. Every other policy turns the input buffers into the
// dampening switch of the paper:
//
//   - per-destination flow control: the sender of a link keeps a mirror of
//     the downstream input buffer (which destinations hold which slots) and
//     sends a packet for destination d only when the policy admits d there.
//     The mirror is updated as credits are: a slot is claimed when the
//     sender reserves it and released when the credit, which carries the
//     destination or slot that freed, comes back Latency after the slot
//     frees. So the sender's view is conservative and a rule is never
//     broken by packets in flight;
//   - a packet reserves its downstream slot (its credit) as it enters the
//     output queue, so an output queue holds only packets that can go, and
//     a packet whose destination is blocked waits in its input buffer;
//   - any packet of an input buffer whose output admits it moves on (no
//     head-of-line blocking): each output queue keeps the packets waiting
//     for it in arrival order and serves the first admissible one;
//   - a NIC sends the first of its ready messages whose destination the
//     first switch admits, so a message to a blocked hot spot does not hold
//     up the others.
//
// Policies are registered by name, one file each (fifo.go, bypass.go,
// diaskumar.go, counting.go, hashed.go); Parse reads a spec once into a
// Spec, whose Rule builds the plain function values the event loop calls,
// over flat per-link state. The mechanics above are samplingsim's
// (buffers.go there).
package buffer

import (
	"fmt"
	"strings"

	"orcs/registry"
)

// policy is a registered buffer policy.
type policy struct {
	name   string
	doc    string
	params []registry.Param
	// parse reads the parameters for ports of slots buffers and returns
	// the constructor of the rule (nil for the FIFO); it returns r.Err()
	// when that is not nil.
	parse func(r *registry.Reader, slots int32) (build func(Env) *Rule, err error)
}

// Params returns the parameters p takes (registry.Member).
func (p *policy) Params() []registry.Param { return p.params }

// Env is what a rule is built for: the links and hosts of the fabric, the
// buffers per input port and the run's seed.
type Env struct {
	Links, Hosts int
	Slots        int32
	Seed         uint64
}

// Rule is a configured per-destination rule over the senders' mirrors of
// the downstream input buffers.
type Rule struct {
	// Admit reports whether the input buffer at the end of link l accepts
	// one more packet for destination dst (given a free slot).
	Admit func(l, dst int32) bool
	// Claim records a packet for dst entering that buffer and returns its
	// tag (the slot it takes, or dst), which comes back with its credit.
	Claim func(l, dst int32) int32
	// Release records the packet with tag leaving that buffer.
	Release func(l, tag int32)
}

// policies holds the buffer policies by name.
var policies = registry.New[*policy]("buffer policy")

// register adds a policy; called from init functions. It panics on a
// duplicate or invalid name.
func register(p *policy) { policies.Register(p.name, p.doc, p) }

// Names lists the registered buffer policies with their parameters and
// descriptions, sorted by name, for help texts.
func Names() []string {
	var out []string
	for _, p := range policies.All() {
		out = append(out, registry.Describe(p.name, p.doc, p.params))
	}
	return out
}

// Spec is a parsed buffer policy spec such as "hashed:j=3": the policy
// and its checked parameters.
type Spec struct {
	// Name is the policy's name ("fifo", "hashed", …).
	Name  string
	build func(Env) *Rule // nil for the FIFO
}

// Parse parses a buffer policy spec for input ports of slots buffers.
func Parse(text string, slots int32) (Spec, error) {
	p, r, err := registry.LookupSpec(policies, text)
	if err != nil {
		return Spec{}, err
	}
	build, err := p.parse(r, slots)
	if err != nil {
		return Spec{}, fmt.Errorf("%s %q: %w", policies.Kind(), strings.TrimSpace(text), err)
	}
	return Spec{Name: p.name, build: build}, nil
}

// FIFO reports whether s is the FIFO switch: no rule per destination and
// none of the dampening mechanics.
func (s Spec) FIFO() bool { return s.build == nil }

// Rule builds the rule of s for env; nil for the FIFO.
func (s Spec) Rule(env Env) *Rule {
	if s.build == nil {
		return nil
	}
	return s.build(env)
}

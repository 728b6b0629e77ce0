// Package whatif answers what the routing does when cables or switches
// die: every failure set is applied to the fabric's topology, re-routed by
// the real OpenSM engine (package opensm, as orcs route does) and compared
// with the intact fabric routed by the same engine: host pairs cut
// (critical or not, in the terms of Domke et al., SC'14, "Fail-in-Place
// Network Design"), the pattern's metric, path lengths, the deadlock
// verdict of the new tables and the forwarding entries that changed.
package whatif

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"orcs/ib"
	"orcs/lft"
	"orcs/rng"
)

// Failure is one failed component: a cable (Switch false: the cable at
// port Port of node Node) or a whole switch (every cable of Node).
type Failure struct {
	Node   string
	Port   int32
	Switch bool
}

// String names the failure as --fail takes it: "link:NODE/PORT" or
// "switch:NODE".
func (f Failure) String() string {
	if f.Switch {
		return "switch:" + f.Node
	}
	return "link:" + f.Node + "/" + strconv.Itoa(int(f.Port))
}

// Set is one failure set: the components that fail together.
type Set struct {
	// Name names the set: its failures joined by "+", or for a random
	// set "random:K#T" (K cables, trial T counted from 0).
	Name string
	// Failures lists the failed components.
	Failures []Failure
	// K and Trial are the size and trial of a random set (K 0 otherwise).
	K, Trial int
}

// Plan is a fabric prepared for failures: every cable with the port
// numbers of its emulation, so that a failed fabric keeps the ports of the
// intact one.
type Plan struct {
	// Fabric is the input fabric with every link's ports set to those of
	// its emulation.
	Fabric *lft.Fabric
	// Cables lists one directed link per cable (the one whose reverse has
	// a higher id), in link order.
	Cables  []int32
	reverse []int32
}

// NewPlan numbers the ports of f as its emulation does (the fabric's own
// ports with keepPorts, else as dot2osm numbers them) and lists its cables.
func NewPlan(f *lft.Fabric, keepPorts bool) (*Plan, error) {
	net, err := ib.PlanSimNet(f, ib.SimOptions{KeepPorts: keepPorts})
	if err != nil {
		return nil, err
	}
	g, err := rebuild(f, nil, net.Port, net.Reverse)
	if err != nil {
		return nil, err
	}
	p := &Plan{Fabric: g, reverse: net.Reverse}
	for l := range f.Links {
		if r := net.Reverse[l]; r < 0 || int32(l) < r {
			p.Cables = append(p.Cables, int32(l))
		}
	}
	return p, nil
}

// rebuild returns the fabric of f with only the links where keep is set
// (nil: every link), ports from port (port[l] is link l's port at its
// From end), without tables. Every node stays, in its order, so that host
// indices do not change.
func rebuild(f *lft.Fabric, keep []bool, port, reverse []int32) (*lft.Fabric, error) {
	b := lft.NewBuilder()
	for v, n := range f.Nodes {
		id := b.Node(n.Name, n.Kind)
		if int(id) != v {
			return nil, fmt.Errorf("node %q given twice", n.Name)
		}
		b.SetNodeInfo(id, n.GUID, n.Desc)
		b.SetPortInfo(id, n.Port, n.PortGUID, n.LID, n.LMC)
	}
	for l, k := range f.Links {
		if keep != nil && !keep[l] {
			continue
		}
		to := int32(0)
		if r := reverse[l]; r >= 0 {
			to = port[r]
		}
		b.Link(k.From, k.To, int(port[l]), int(to))
	}
	return b.Build()
}

// Apply returns the fabric of the plan with the failures of s removed, and
// the number of cables removed.
func (p *Plan) Apply(s Set) (*lft.Fabric, int, error) {
	f := p.Fabric
	keep := make([]bool, len(f.Links))
	for i := range keep {
		keep[i] = true
	}
	for _, x := range s.Failures {
		v, ok := f.NodeByName(x.Node)
		if !ok {
			return nil, 0, fmt.Errorf("%s: no node %q", x, x.Node)
		}
		found := false
		for l, k := range f.Links {
			if (k.From == v && (x.Switch || k.FromPort == x.Port)) || (x.Switch && k.To == v) {
				if keep[l] {
					keep[l] = false
					found = true
				}
				if r := p.reverse[l]; r >= 0 {
					keep[r] = false
				}
			}
		}
		if !found {
			return nil, 0, fmt.Errorf("%s: no cable there (or it failed already in this set)", x)
		}
	}
	removed := 0
	for _, l := range p.Cables {
		if !keep[l] {
			removed++
		}
	}
	port := make([]int32, len(f.Links))
	for l, k := range f.Links {
		port[l] = k.FromPort
	}
	g, err := rebuild(f, keep, port, p.reverse)
	return g, removed, err
}

// cableFailure names cable l as a link failure, from its From end.
func (p *Plan) cableFailure(l int32) Failure {
	k := p.Fabric.Links[l]
	return Failure{Node: p.Fabric.Nodes[k.From].Name, Port: k.FromPort}
}

// Sets expands --fail specs into failure sets. Explicit specs (link:NODE/
// PORT, switch:NODE) given together form one set; each-link and
// each-switch give one set per cable or switch; random:K gives trials
// sets of K random cables between switches (a host's cable is critical by
// itself; each-link has them), drawn from seed so that trial T's set for K
// holds its set for every smaller K (the first K cables of one random
// order of those cables per trial).
func (p *Plan) Sets(specs []string, trials int, seed uint64) ([]Set, error) {
	f := p.Fabric
	var explicit []Failure
	var sets []Set
	for _, spec := range specs {
		spec = strings.TrimSpace(spec)
		kind, arg, _ := strings.Cut(spec, ":")
		switch kind {
		case "each-link":
			for _, l := range p.Cables {
				x := p.cableFailure(l)
				sets = append(sets, Set{Name: x.String(), Failures: []Failure{x}})
			}
		case "each-switch":
			for s := range f.NumSwitches() {
				x := Failure{Node: f.Nodes[f.SwitchNode(s)].Name, Switch: true}
				sets = append(sets, Set{Name: x.String(), Failures: []Failure{x}})
			}
		case "random":
			inner := p.switchCables()
			k, err := strconv.Atoi(arg)
			if err != nil || k < 1 || k > len(inner) {
				return nil, fmt.Errorf("--fail %s: want random:K with K from 1 to the %d cables between switches", spec, len(inner))
			}
			if trials < 1 {
				return nil, fmt.Errorf("--fail %s: want at least 1 trial, not %d", spec, trials)
			}
			for t := range trials {
				order := slices.Clone(inner)
				rng.New(seed, uint64(t)).ShuffleInt32(order)
				s := Set{Name: fmt.Sprintf("random:%d#%d", k, t), K: k, Trial: t}
				for _, l := range order[:k] {
					s.Failures = append(s.Failures, p.cableFailure(l))
				}
				sets = append(sets, s)
			}
		case "link":
			node, port, ok := strings.Cut(arg, "/")
			n, err := strconv.Atoi(port)
			if !ok || err != nil || n < 0 {
				return nil, fmt.Errorf("--fail %s: want link:NODE/PORT", spec)
			}
			x := Failure{Node: node, Port: int32(n)}
			if err := p.check(x); err != nil {
				return nil, fmt.Errorf("--fail %s: %w", spec, err)
			}
			explicit = append(explicit, x)
		case "switch":
			x := Failure{Node: arg, Switch: true}
			if err := p.check(x); err != nil {
				return nil, fmt.Errorf("--fail %s: %w", spec, err)
			}
			explicit = append(explicit, x)
		default:
			return nil, fmt.Errorf("--fail %q: want link:NODE/PORT, switch:NODE, each-link, each-switch or random:K", spec)
		}
	}
	if len(explicit) > 0 {
		names := make([]string, len(explicit))
		for i, x := range explicit {
			names[i] = x.String()
		}
		sets = append([]Set{{Name: strings.Join(names, "+"), Failures: explicit}}, sets...)
	}
	if len(sets) == 0 {
		return nil, fmt.Errorf("no failures given (--fail)")
	}
	return sets, nil
}

// switchCables lists the cables between two switches (or routers).
func (p *Plan) switchCables() []int32 {
	var out []int32
	for _, l := range p.Cables {
		k := p.Fabric.Links[l]
		if p.Fabric.Nodes[k.From].Kind != lft.Host && p.Fabric.Nodes[k.To].Kind != lft.Host {
			out = append(out, l)
		}
	}
	return out
}

// check reports whether failure x names a node and, for a cable, a cabled
// port of it.
func (p *Plan) check(x Failure) error {
	f := p.Fabric
	v, ok := f.NodeByName(x.Node)
	if !ok {
		return fmt.Errorf("no node %q in the fabric", x.Node)
	}
	if x.Switch {
		if f.Nodes[v].Kind == lft.Host {
			return fmt.Errorf("%q is a host, not a switch", x.Node)
		}
		return nil
	}
	var ports []string
	for _, l := range f.OutLinks(v) {
		if f.Links[l].FromPort == x.Port {
			return nil
		}
		ports = append(ports, strconv.Itoa(int(f.Links[l].FromPort)))
	}
	return fmt.Errorf("node %q has no cable at port %d (its cabled ports: %s)", x.Node, x.Port, strings.Join(ports, ", "))
}

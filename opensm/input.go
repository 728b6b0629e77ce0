package opensm

import (
	"fmt"
	"strings"

	"orcs/gen"
	"orcs/ib"
	"orcs/lft"
)

// Input is a fabric to route and what is known about where it came from.
type Input struct {
	// Fabric is the topology; its tables, if any, are not used.
	Fabric *lft.Fabric
	// Name names the fabric in messages.
	Name string
	// Network is the generator's description of the fabric, or nil. It
	// gives torus-2QoS its seed and --roots tree its top level.
	Network *gen.Network
	// RealPorts keeps the links' port numbers (generated fabrics,
	// InfiniBand files); otherwise ports are numbered as dot2osm does.
	RealPorts bool
	// RealIdentity keeps the fabric's node GUIDs and LIDs in the emulation
	// (fabrics read from InfiniBand files).
	RealIdentity bool
	// Topology is the InfiniBand topology the fabric was built from, or
	// nil: with it the emulation is that topology (Options.Topology).
	Topology *ib.Topology
}

// Options returns the engine-independent options of routing in with
// engine: real port numbers and the torus-2QoS seed of a generated torus.
func (in *Input) Options(engine string) Options {
	opt := Options{Engine: engine, KeepPorts: in.RealPorts, KeepIdentity: in.RealIdentity, Topology: in.Topology}
	if in.Network != nil {
		opt.Torus = TorusOf(in.Network)
	}
	return opt
}

// Roots resolves a --roots argument: comma-separated switch names, or
// "tree" for the top level of a generated fat tree. "" gives no roots.
func (in *Input) Roots(arg string) ([]string, error) {
	if arg == "" {
		return nil, nil
	}
	if arg == "tree" {
		if in.Network == nil || in.Network.Tree == nil {
			return nil, fmt.Errorf("--roots tree: %s is not a generated fat tree; name the root switches", in.Name)
		}
		return RootsOf(in.Network), nil
	}
	var names []string
	for _, n := range strings.Split(arg, ",") {
		n = strings.TrimSpace(n)
		v, ok := in.Fabric.NodeByName(n)
		if !ok {
			return nil, fmt.Errorf("--roots: no node %q in %s", n, in.Name)
		}
		if in.Fabric.Nodes[v].Kind == lft.Host {
			return nil, fmt.Errorf("--roots: %q is a host, not a switch", n)
		}
		names = append(names, n)
	}
	return names, nil
}

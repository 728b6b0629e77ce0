package opensm

import (
	"fmt"
	"strings"

	"orcs/ib"
)

// Torus describes a torus or mesh of switches for OpenSM's torus-2QoS
// engine, which must be told the torus's size and a seed: one switch and
// its neighbours in each dimension (see torus-2QoS.conf(5)). Switches are
// named by their node names in the fabric.
type Torus struct {
	// Mesh says the topology has no wrap-around links.
	Mesh bool
	// Dims is the number of switches in x, y and z (1 for a missing
	// dimension).
	Dims [3]int
	// Seed is the seed switch.
	Seed string
	// Plus and Minus name the seed's neighbours in the positive and
	// negative direction of each dimension, "" where there is none.
	Plus, Minus [3]string
}

// config writes the torus-2QoS configuration for the GUIDs of t.
func (tr *Torus) config(guid func(name string) (uint64, error)) (string, error) {
	var b strings.Builder
	kind := "torus"
	if tr.Mesh {
		kind = "mesh"
	}
	fmt.Fprintf(&b, "# torus-2QoS seed written by orcs route\n%s %d %d %d\n", kind, tr.Dims[0], tr.Dims[1], tr.Dims[2])
	seed, err := guid(tr.Seed)
	if err != nil {
		return "", fmt.Errorf("torus seed: %w", err)
	}
	for d, axis := range []string{"x", "y", "z"} {
		for _, dir := range []struct {
			name, sign string
		}{{tr.Plus[d], "p"}, {tr.Minus[d], "m"}} {
			if dir.name == "" {
				continue
			}
			g, err := guid(dir.name)
			if err != nil {
				return "", fmt.Errorf("torus seed: %w", err)
			}
			fmt.Fprintf(&b, "%s%s_link 0x%x 0x%x  # %s -> %s\n", axis, dir.sign, seed, g, tr.Seed, dir.name)
		}
	}
	return b.String(), nil
}

// guidLookup returns a function giving the node GUID of a node id of t.
func guidLookup(t *ib.Topology) func(name string) (uint64, error) {
	byID := make(map[string]uint64, len(t.Nodes))
	for _, n := range t.Nodes {
		byID[n.ID] = n.GUID
	}
	return func(name string) (uint64, error) {
		g, ok := byID[name]
		if !ok {
			return 0, fmt.Errorf("no node %q in the fabric", name)
		}
		return g, nil
	}
}

// guidFile writes one GUID per line for the named nodes (OpenSM's root and
// compute node GUID files).
func guidFile(names []string, guid func(name string) (uint64, error)) (string, error) {
	var b strings.Builder
	for _, n := range names {
		g, err := guid(n)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "0x%016x\n", g)
	}
	return b.String(), nil
}

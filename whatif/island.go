package whatif

import (
	"fmt"
	"slices"

	"orcs/lft"
)

// components labels the nodes of g by part: comp[v] is the node of the
// lowest host of v's part, -1 for a node that no host reaches.
func components(g *lft.Fabric) []int32 {
	comp := make([]int32, len(g.Nodes))
	for i := range comp {
		comp[i] = -1
	}
	var dist []int32
	for h := range g.NumHosts() {
		v := g.HostNode(h)
		if comp[v] >= 0 {
			continue
		}
		dist = g.Hops(dist, v)
		for w, d := range dist {
			if d >= 0 {
				comp[w] = v
			}
		}
	}
	return comp
}

// hostParts counts the hosts of each part of g (comp labels its nodes:
// components) and picks the main part, the one with the most hosts (ties:
// the part of the lowest host); main is -1 when g has no hosts.
func hostParts(g *lft.Fabric, comp []int32) (hosts map[int32]int64, main int32) {
	hosts = map[int32]int64{}
	for h := range g.NumHosts() {
		hosts[comp[g.HostNode(h)]]++
	}
	main = -1
	for h := range g.NumHosts() {
		if c := comp[g.HostNode(h)]; main < 0 || hosts[c] > hosts[main] {
			main = c
		}
	}
	return hosts, main
}

// mainPart returns the nodes of g's main part (hostParts) when g falls
// apart, or nil when every node is in one part; comp labels g's nodes
// (components). OpenSM, bound to a host of that part, routes only it;
// ibsim cannot emulate a host without a cable.
func mainPart(g *lft.Fabric, comp []int32) []int32 {
	hosts, main := hostParts(g, comp)
	if len(hosts) == 1 && !slices.Contains(comp, -1) {
		return nil
	}
	var keep []int32
	for v, c := range comp {
		if c == main {
			keep = append(keep, int32(v))
		}
	}
	return keep
}

// subFabric returns the fabric of g's nodes keep (in their order) and the
// links between them, without tables.
func subFabric(g *lft.Fabric, keep []int32) (*lft.Fabric, error) {
	in := make([]bool, len(g.Nodes))
	for _, v := range keep {
		in[v] = true
	}
	b := lft.NewBuilder()
	id := make([]int32, len(g.Nodes))
	for _, v := range keep {
		n := g.Nodes[v]
		id[v] = b.Node(n.Name, n.Kind)
		b.SetNodeInfo(id[v], n.GUID, n.Desc)
		b.SetPortInfo(id[v], n.Port, n.PortGUID, n.LID, n.LMC)
	}
	for _, k := range g.Links {
		if in[k.From] && in[k.To] {
			b.Link(id[k.From], id[k.To], int(k.FromPort), int(k.ToPort))
		}
	}
	return b.Build()
}

// lift returns g (every node and link) with the base-LID tables of the
// routed part r: r's nodes are g's by name, its links g's by node and
// port. Nodes outside r route nothing.
func lift(g, r *lft.Fabric) (*lft.Fabric, error) {
	b := lft.NewBuilder()
	for _, n := range g.Nodes {
		v := b.Node(n.Name, n.Kind)
		b.SetNodeInfo(v, n.GUID, n.Desc)
		b.SetPortInfo(v, n.Port, n.PortGUID, n.LID, n.LMC)
	}
	byPort := map[int64]int32{}
	for l, k := range g.Links {
		b.Link(k.From, k.To, int(k.FromPort), int(k.ToPort))
		byPort[int64(k.From)<<16|int64(k.FromPort)] = int32(l)
	}
	gl := func(l int32) (int32, error) {
		k := r.Links[l]
		v, ok := g.NodeByName(r.Nodes[k.From].Name)
		if !ok {
			return -1, fmt.Errorf("routed node %s is not in the fabric", r.Nodes[k.From].Name)
		}
		x, ok := byPort[int64(v)<<16|int64(k.FromPort)]
		if !ok {
			return -1, fmt.Errorf("routed cable %s is not in the fabric", r.Cable(l))
		}
		return x, nil
	}
	dests := make([]lft.DestID, r.NumHosts())
	for d := range dests {
		dests[d] = b.Dest(r.HostName(d))
	}
	var row []int32
	for v := range r.Nodes {
		var uniform int32
		row, uniform = r.RowInto(row, int32(v))
		if r.Nodes[v].Kind == lft.Host && row == nil {
			if uniform >= 0 {
				x, err := gl(uniform)
				if err != nil {
					return nil, err
				}
				b.Route(x, lft.AnyDest)
			}
			continue
		}
		for d, l := range row {
			if l < 0 {
				continue
			}
			x, err := gl(l)
			if err != nil {
				return nil, err
			}
			b.Route(x, dests[d])
		}
	}
	return b.Build()
}

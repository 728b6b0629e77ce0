package whatif

import (
	"fmt"

	"orcs/lft"
)

// mainPart returns the nodes of g's part with the most hosts (ties: the
// part of the lowest host) when g falls apart, or nil when every node is
// in one part. OpenSM, bound to a host of that part, routes only it; ibsim
// cannot emulate a host without a cable.
func mainPart(g *lft.Fabric) []int32 {
	comp := make([]int32, len(g.Nodes))
	for i := range comp {
		comp[i] = -1
	}
	var dist []int32
	best, bestHosts := int32(-1), 0
	parts := 0
	for h := range g.NumHosts() {
		v := g.HostNode(h)
		if comp[v] >= 0 {
			continue
		}
		parts++
		dist = g.Hops(dist, v)
		hosts := 0
		for w, d := range dist {
			if d >= 0 {
				comp[w] = v
				if g.Nodes[w].Kind == lft.Host {
					hosts++
				}
			}
		}
		if hosts > bestHosts {
			best, bestHosts = v, hosts
		}
	}
	all := parts == 1
	for _, c := range comp {
		all = all && c >= 0
	}
	if all {
		return nil
	}
	var keep []int32
	for v, c := range comp {
		if c == best {
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

package mapping

import (
	"orcs/gen"
)

// geometry holds the coordinates of the allocated hosts of a generated
// torus or mesh: the coordinates of the switch each host is cabled to.
type geometry struct {
	dims  int
	size  []int   // switches per dimension
	coord []int32 // per slot (position in p.order): dims coordinates
}

// gridGeometry returns the coordinates of the allocated hosts when the
// fabric is a torus or mesh the generator built (or a dot file it wrote,
// recognised by its graph name and nodes); nil otherwise. Without
// p.Network, recognising the fabric builds the generated one again, so the
// answer is kept: bisect runs once on its own and once more as a start of
// search.
func (p *Problem) gridGeometry() *geometry {
	if !p.geoDone {
		p.geo, p.geoDone = p.computeGridGeometry(), true
	}
	return p.geo
}

// computeGridGeometry computes what gridGeometry returns.
func (p *Problem) computeGridGeometry() *geometry {
	n := p.Network
	if n == nil {
		if p.Fabric.GraphName == "" {
			return nil
		}
		n = gen.Recognize(p.Fabric)
	}
	if n == nil || n.Grid == nil {
		return nil
	}
	g := &geometry{dims: len(n.Grid.Dims), size: n.Grid.Dims, coord: make([]int32, 0, len(p.order)*len(n.Grid.Dims))}
	for _, h := range p.order {
		for _, c := range n.Grid.Coord(p.Fabric.HostNode(int(h))) {
			g.coord = append(g.coord, int32(c))
		}
	}
	return g
}

// at returns the coordinate of a slot's switch in dimension d.
func (g *geometry) at(slot int32, d int) int32 { return g.coord[int(slot)*g.dims+d] }

// spread returns the number of distinct coordinates of slots in
// dimension d.
func (g *geometry) spread(slots []int32, d int) int {
	seen := make([]bool, g.size[d])
	n := 0
	for _, s := range slots {
		if c := g.at(s, d); !seen[c] {
			seen[c] = true
			n++
		}
	}
	return n
}

// leavesCabled reports whether two of the leaves (switches with hosts)
// are cabled to each other, as in a torus, a mesh or another direct
// network; in a tree they are not.
func (p *Problem) leavesCabled(leaves []int32) bool {
	f := p.Fabric
	for _, l := range leaves {
		for _, e := range f.OutLinks(l) {
			if p.leafSw[f.Links[e].To] {
				return true
			}
		}
	}
	return false
}

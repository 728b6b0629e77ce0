package opensm

import "orcs/gen"

// TorusOf returns the torus-2QoS seed of a generated torus or mesh of one
// to three dimensions, or nil for other networks: the seed switch is the
// one at the origin, with its neighbours in the positive direction of every
// dimension and, on a torus of size 3 or more, in the negative direction
// (torus-2QoS needs both on a torus of size 4).
func TorusOf(n *gen.Network) *Torus {
	g := n.Grid
	if g == nil || len(g.Dims) > 3 {
		return nil
	}
	t := &Torus{Mesh: !g.Torus, Dims: [3]int{1, 1, 1}}
	origin := make([]int, len(g.Dims))
	name := func(c []int) string { return n.Fabric.Nodes[g.Switch(c)].Name }
	t.Seed = name(origin)
	for d, size := range g.Dims {
		t.Dims[d] = size
		c := append([]int(nil), origin...)
		c[d] = 1
		t.Plus[d] = name(c)
		if g.Torus && size > 2 {
			c[d] = size - 1
			t.Minus[d] = name(c)
		}
	}
	return t
}

// RootsOf returns the names of the top-level switches of a generated fat
// tree, the roots for updn, dnup and ftree, or nil for other networks.
func RootsOf(n *gen.Network) []string {
	if n.Tree == nil {
		return nil
	}
	var names []string
	for _, v := range n.Tree.Roots() {
		names = append(names, n.Fabric.Nodes[v].Name)
	}
	return names
}

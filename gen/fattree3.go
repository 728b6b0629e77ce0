package gen

import (
	"fmt"
	"strconv"
)

func init() {
	register(&topology{
		name: "fattree3",
		doc:  "three-level fat tree (folded Clos) of pods, with tapers at the leaves (hosts:up) and middle (leaves:mup); d-mod-k-like routing",
		params: []param{
			{key: "pods", doc: "number of pods (a pod: its leaves and their middle switches)", min: 1},
			{key: "leaves", doc: "leaf switches per pod", min: 1},
			{key: "hosts", doc: "hosts per leaf switch", min: 1},
			{key: "up", doc: "up-links per leaf = middle switches per pod (taper hosts:up)", def: "hosts", min: 1},
			{key: "mup", doc: "up-links per middle switch (taper leaves:mup)", def: "leaves", min: 1},
			{key: "rep", doc: "middle switches of every pod that each spine links to (a spine has pods·rep ports; up must be a multiple)", def: "1", min: 1},
		},
		check: func(s Spec) error {
			if u, r := s.num("up"), s.num("rep"); u%r != 0 {
				return fmt.Errorf("rep=%d must divide up=%d (the middle switches of a pod form up/rep spine groups)", r, u)
			}
			return nil
		},
		size:  fatTree3Size,
		build: buildFatTree3,
	})
}

// fatTree3Size: P·L·h hosts; P·L leaves, P·u middles, (u/r)·m spines;
// P·L·h + P·L·u + P·u·m cables.
func fatTree3Size(s Spec) Size {
	pods, leaves, h, u, m, r := s.num("pods"), s.num("leaves"), s.num("hosts"), s.num("up"), s.num("mup"), s.num("rep")
	lv := mul(pods, leaves)
	hosts := mul(lv, h)
	cables := add(add(hosts, mul(lv, u)), mul(mul(pods, u), m))
	return Size{
		Hosts:    hosts,
		Switches: add(add(lv, mul(pods, u)), mul(max(u/r, 1), m)),
		Links:    mul(2, cables),
		Radix:    max(h+u, leaves+m, mul(pods, r)),
	}
}

// buildFatTree3 generates a three-level folded Clos network: P pods of L
// leaves with h hosts and u up-links each, and u middle switches per pod
// with m up-links each, under u·m spine switches.
//
// Leaf i of pod q (switch S0_<qL+i>) has host (qL+i)·h+j on port j+1 and
// up-link t on port h+1+t, to middle switch t of its pod (S1_<qu+t>), where
// it arrives on port 1+i. Middle switch t of pod q has up-link k on port
// L+1+k, to spine S2_<gm+k> of group g = ⌊t/r⌋, where it arrives on port
// 1+q·r+t mod r. So the m spines of group g connect the middle switches
// gr … gr+r−1 of all pods, and a spine has r ports per pod. With r = 1 (the
// default) a spine links once to each pod (u·m spines of P ports); a larger
// r folds r such spines into one of P·r ports, as the CODES fat-tree model
// does (its link_repetitions) to fill the spines' radix: Taffet's Table 3.1
// systems are pods=11,leaves=18,hosts=18,rep=3 (504 switches of 36 ports)
// and pods=6,leaves=24,hosts=32,up=16,rep=8 (288 switches of 48 ports).
//
// Routing (destination d, on leaf e = ⌊d/h⌋ of pod ⌊e/L⌋): a leaf delivers
// its own hosts and sends other traffic up on up-link t = d mod u; a middle
// switch sends traffic for its own pod down to d's leaf, and other traffic
// up on up-link k = ⌊d/u⌋ mod m; a spine sends d down to d's pod, to its
// middle switch d mod u (which is in the spine's group, since d's traffic
// climbed through middle switch d mod u of the source pod). Traffic to d
// thus climbs only as high as needed, on links chosen by d alone, and
// descends through middle switch d mod u of d's pod.
func buildFatTree3(s Spec) (*Network, error) {
	pods, L, h, u, m, r := s.num("pods"), s.num("leaves"), s.num("hosts"), s.num("up"), s.num("mup"), s.num("rep")
	hosts := pods * L * h
	groups := u / r
	nb := newNetBuilder(hosts, pods*L+pods*u+groups*m)
	tree := &Tree{Levels: 3, start: make([]int32, 4)}
	tree.start[0] = int32(nb.b.NumNodes())
	for i := range pods * L {
		nb.addSwitch("S0_"+strconv.Itoa(i), h+u)
	}
	tree.start[1] = int32(nb.b.NumNodes())
	for i := range pods * u {
		nb.addSwitch("S1_"+strconv.Itoa(i), L+m)
	}
	tree.start[2] = int32(nb.b.NumNodes())
	for i := range groups * m {
		nb.addSwitch("S2_"+strconv.Itoa(i), pods*r)
	}
	tree.start[3] = int32(nb.b.NumNodes())
	leaf := func(e int) int32 { return tree.start[0] + int32(e) }
	middle := func(q, t int) int32 { return tree.start[1] + int32(q*u+t) }
	spine := func(g, k int) int32 { return tree.start[2] + int32(g*m+k) }

	for d := range hosts {
		nb.hostCable(d, leaf(d/h), d%h+1)
	}
	for q := range pods {
		for i := range L {
			for t := range u {
				nb.cable(leaf(q*L+i), h+1+t, middle(q, t), 1+i)
			}
		}
	}
	for q := range pods {
		for t := range u {
			for k := range m {
				nb.cable(middle(q, t), L+1+k, spine(t/r, k), 1+q*r+t%r)
			}
		}
	}

	for e := range pods * L {
		nb.routeLeaf(leaf(e), e, h, u)
	}
	for q := range pods {
		for t := range u {
			for d := range hosts {
				e := d / h
				if e/L == q {
					nb.route(middle(q, t), 1+e%L, d)
				} else {
					nb.route(middle(q, t), L+1+d/u%m, d)
				}
			}
		}
	}
	for g := range groups {
		for k := range m {
			for d := range hosts {
				nb.route(spine(g, k), 1+d/h/L*r+d%u%r, d)
			}
		}
	}
	f, err := nb.build(s)
	if err != nil {
		return nil, err
	}
	return &Network{Fabric: f, Tree: tree}, nil
}

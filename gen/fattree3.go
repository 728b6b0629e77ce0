package gen

import "strconv"

func init() {
	register(&topology{
		name:    "fattree3",
		routing: "d-mod-k-like",
		doc:     "three-level fat tree (folded Clos) of pods, with tapers at the leaves (hosts:up) and middle (leaves:mup); d-mod-k-like routing",
		params: []param{
			{key: "pods", doc: "number of pods (a pod: its leaves and their middle switches)", min: 1},
			{key: "leaves", doc: "leaf switches per pod", min: 1},
			{key: "hosts", doc: "hosts per leaf switch", min: 1},
			{key: "up", doc: "up-links per leaf = middle switches per pod (taper hosts:up)", def: "hosts", min: 1},
			{key: "mup", doc: "up-links per middle switch (taper leaves:mup)", def: "leaves", min: 1},
		},
		size:  fatTree3Size,
		build: buildFatTree3,
	})
}

// fatTree3Size: P·L·h hosts; P·L leaves, P·u middles, u·m spines;
// P·L·h + P·L·u + P·u·m cables.
func fatTree3Size(s Spec) Size {
	pods, leaves, h, u, m := s.num("pods"), s.num("leaves"), s.num("hosts"), s.num("up"), s.num("mup")
	lv := mul(pods, leaves)
	hosts := mul(lv, h)
	cables := add(add(hosts, mul(lv, u)), mul(mul(pods, u), m))
	return Size{
		Hosts:    hosts,
		Switches: add(add(lv, mul(pods, u)), mul(u, m)),
		Links:    mul(2, cables),
		Radix:    max(h+u, leaves+m, pods),
	}
}

// buildFatTree3 generates a three-level folded Clos network: P pods of L
// leaves with h hosts and u up-links each, and u middle switches per pod
// with m up-links each, under u·m spine switches.
//
// Leaf i of pod q (switch S0_<qL+i>) has host (qL+i)·h+j on port j+1 and
// up-link t on port h+1+t, to middle switch t of its pod (S1_<qu+t>), where
// it arrives on port 1+i. Middle switch t of pod q has up-link k on port
// L+1+k, to spine S2_<tm+k>, where it arrives on port 1+q. So the spines of
// group t (S2_<tm> … S2_<tm+m-1>) connect the t-th middle switches of all
// pods, and a spine has one port per pod.
//
// Routing (destination d, on leaf e = ⌊d/h⌋ of pod ⌊e/L⌋): a leaf delivers
// its own hosts and sends other traffic up on up-link t = d mod u; a middle
// switch sends traffic for its own pod down to d's leaf, and other traffic
// up on up-link k = ⌊d/u⌋ mod m; a spine sends d down to d's pod. Traffic to
// d thus climbs only as high as needed, on links chosen by d alone, and
// descends through middle switch d mod u of d's pod.
func buildFatTree3(s Spec) (*Network, error) {
	pods, L, h, u, m := s.num("pods"), s.num("leaves"), s.num("hosts"), s.num("up"), s.num("mup")
	hosts := pods * L * h
	nb := newNetBuilder(hosts, pods*L+pods*u+u*m)
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
	for i := range u * m {
		nb.addSwitch("S2_"+strconv.Itoa(i), pods)
	}
	tree.start[3] = int32(nb.b.NumNodes())
	leaf := func(e int) int32 { return tree.start[0] + int32(e) }
	middle := func(q, t int) int32 { return tree.start[1] + int32(q*u+t) }
	spine := func(t, k int) int32 { return tree.start[2] + int32(t*m+k) }

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
				nb.cable(middle(q, t), L+1+k, spine(t, k), 1+q)
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
	for t := range u {
		for k := range m {
			for d := range hosts {
				nb.route(spine(t, k), 1+d/h/L, d)
			}
		}
	}
	f, err := nb.build(s)
	if err != nil {
		return nil, err
	}
	return &Network{Fabric: f, Tree: tree}, nil
}

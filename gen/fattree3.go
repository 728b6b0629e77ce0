package gen

import (
	"fmt"
	"strconv"
)

func init() {
	register(&topology{
		name:    "fattree3",
		routing: "d-mod-k-like",
		doc:     "three-level fat tree (folded Clos) of pods, with tapers at the leaves (hosts:up) and middle (leaves:mup); d-mod-k-like routing",
		params: []param{
			{key: "pods", doc: "number of pods (a pod: its leaves and their middle switches)", min: 1},
			{key: "leaves", doc: "leaf switches per pod", min: 1},
			{key: "hosts", doc: "hosts per leaf switch", min: 1},
			{key: "up", doc: "up-links per leaf (taper hosts:up); the pod has up/lmul middle switches", def: "hosts", min: 1},
			{key: "mup", doc: "up-links per middle switch (taper leaves·lmul:mup)", def: "leaves", min: 1},
			{key: "rep", doc: "middle switches of every pod that each spine links to (a spine has pods·rep ports)", def: "1", min: 1},
			{key: "lmul", doc: "parallel links between a leaf and each middle switch of its pod", def: "1", min: 1},
		},
		check: func(s Spec) error {
			u, r, q := s.num("up"), s.num("rep"), s.num("lmul")
			if u%q != 0 {
				return fmt.Errorf("lmul=%d must divide up=%d (a leaf's up-links go lmul at a time to the up/lmul middle switches of its pod)", q, u)
			}
			if (u/q)%r != 0 {
				return fmt.Errorf("rep=%d must divide the %d middle switches of a pod (up/lmul; they form groups of rep under the spines)", r, u/q)
			}
			return nil
		},
		size:  fatTree3Size,
		build: buildFatTree3,
	})
}

// fatTree3Size: P·L·h hosts; P·L leaves, P·M middles (M = u/q), (M/r)·m
// spines; P·L·h + P·L·u + P·M·m cables.
func fatTree3Size(s Spec) Size {
	pods, leaves, h, u, m, r, q := s.num("pods"), s.num("leaves"), s.num("hosts"), s.num("up"), s.num("mup"), s.num("rep"), s.num("lmul")
	M := max(u/q, 1)
	lv := mul(pods, leaves)
	hosts := mul(lv, h)
	cables := add(add(hosts, mul(lv, u)), mul(mul(pods, M), m))
	return Size{
		Hosts:    hosts,
		Switches: add(add(lv, mul(pods, M)), mul(max(M/r, 1), m)),
		Links:    mul(2, cables),
		Radix:    max(h+u, mul(leaves, q)+m, mul(pods, r)),
	}
}

// buildFatTree3 generates a three-level folded Clos network: P pods of L
// leaves with h hosts and u up-links each, and M = u/q middle switches per
// pod with m up-links each, under (M/r)·m spine switches.
//
// Leaf i of pod p (switch S0_<pL+i>) has host (pL+i)·h+j on port j+1 and
// up-link t on port h+1+t, to middle switch t mod M of its pod
// (S1_<pM+t mod M>), where it arrives on port 1+i·q+⌊t/M⌋: a leaf has q
// parallel links to each middle switch of its pod. Middle switch t' of pod
// p has up-link k on port Lq+1+k, to spine S2_<gm+k> of group g = ⌊t'/r⌋,
// where it arrives on port 1+p·r+t' mod r. So the m spines of group g
// connect the middle switches gr … gr+r−1 of all pods, and a spine has r
// ports per pod. With q = r = 1 (the defaults) a leaf links once to each
// of u middle switches and a spine once to each pod (u·m spines of P
// ports); a larger r folds r such spines into one of P·r ports, as the
// CODES fat-tree model does (its link_repetitions) to fill the spines'
// radix: Taffet's Table 3.1 systems, as CODES lays them out, are
// pods=11,leaves=18,hosts=18,rep=3 (504 switches of 36 ports) and
// pods=6,leaves=24,hosts=32,up=16,rep=8 (288 switches of 48 ports);
// pods=12,leaves=12,hosts=32,up=16,mup=24,rep=4,lmul=2 is the other
// 288-switch reading of Tapered, with doubled leaf–middle links.
//
// Routing (destination d, on leaf e = ⌊d/h⌋ of pod ⌊e/L⌋; t = d mod u): a
// leaf delivers its own hosts and sends other traffic up on up-link t; a
// middle switch sends traffic for its own pod down to d's leaf on the
// parallel link ⌊t/M⌋, and other traffic up on up-link k = ⌊d/u⌋ mod m; a
// spine sends d down to d's pod, to its middle switch t mod M (which is in
// the spine's group, since d's traffic climbed through middle switch t mod
// M of the source pod). Traffic to d thus climbs only as high as needed,
// on links chosen by d alone, and descends through middle switch t mod M
// of d's pod.
func buildFatTree3(s Spec) (*Network, error) {
	pods, L, h, u, m, r, q := s.num("pods"), s.num("leaves"), s.num("hosts"), s.num("up"), s.num("mup"), s.num("rep"), s.num("lmul")
	M := u / q
	hosts := pods * L * h
	groups := M / r
	nb := newNetBuilder(hosts, pods*L+pods*M+groups*m)
	tree := &Tree{Levels: 3, start: make([]int32, 4)}
	tree.start[0] = int32(nb.b.NumNodes())
	for i := range pods * L {
		nb.addSwitch("S0_"+strconv.Itoa(i), h+u)
	}
	tree.start[1] = int32(nb.b.NumNodes())
	for i := range pods * M {
		nb.addSwitch("S1_"+strconv.Itoa(i), L*q+m)
	}
	tree.start[2] = int32(nb.b.NumNodes())
	for i := range groups * m {
		nb.addSwitch("S2_"+strconv.Itoa(i), pods*r)
	}
	tree.start[3] = int32(nb.b.NumNodes())
	leaf := func(e int) int32 { return tree.start[0] + int32(e) }
	middle := func(p, t int) int32 { return tree.start[1] + int32(p*M+t) }
	spine := func(g, k int) int32 { return tree.start[2] + int32(g*m+k) }

	for d := range hosts {
		nb.hostCable(d, leaf(d/h), d%h+1)
	}
	for p := range pods {
		for i := range L {
			for t := range u {
				nb.cable(leaf(p*L+i), h+1+t, middle(p, t%M), 1+i*q+t/M)
			}
		}
	}
	for p := range pods {
		for t := range M {
			for k := range m {
				nb.cable(middle(p, t), L*q+1+k, spine(t/r, k), 1+p*r+t%r)
			}
		}
	}

	for e := range pods * L {
		nb.routeLeaf(leaf(e), e, h, u)
	}
	for p := range pods {
		for t := range M {
			nb.routeBy(middle(p, t), func(d int) int {
				if e := d / h; e/L == p {
					return 1 + e%L*q + d%u/M
				}
				return L*q + 1 + d/u%m
			})
		}
	}
	for g := range groups {
		for k := range m {
			nb.routeBy(spine(g, k), func(d int) int { return 1 + d/h/L*r + d%u%M%r })
		}
	}
	f, err := nb.build(s)
	if err != nil {
		return nil, err
	}
	return &Network{Fabric: f, Tree: tree}, nil
}

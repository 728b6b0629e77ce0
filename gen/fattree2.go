package gen

import (
	"fmt"
	"strconv"
)

func init() {
	register(&topology{
		name:    "fattree2",
		routing: "d-mod-k-like",
		doc:     "two-level fat tree: leaf switches with hosts, spine switches, taper hosts:up; d-mod-k-like routing",
		params: []param{
			{key: "leaves", doc: "number of leaf switches", min: 1},
			{key: "hosts", doc: "hosts per leaf switch", min: 1},
			{key: "up", doc: "up-links per leaf switch (taper = hosts:up)", def: "hosts", min: 1},
			{key: "spines", doc: "number of spine switches, at most up", def: "up", min: 1},
		},
		check: func(s Spec) error {
			if up, spines := s.num("up"), s.num("spines"); spines > up {
				return fmt.Errorf("spines=%d is more than up=%d: every leaf needs a link to every spine", spines, up)
			}
			return nil
		},
		size:  fatTree2Size,
		build: buildFatTree2,
	})
}

// spineLinks returns how many of a leaf's up links go to spine s.
func spineLinks(up, spines, s int) int { return (up-1-s)/spines + 1 }

func fatTree2Size(s Spec) Size {
	leaves, hosts, up, spines := s.num("leaves"), s.num("hosts"), s.num("up"), s.num("spines")
	return Size{
		Hosts:    mul(leaves, hosts),
		Switches: add(leaves, spines),
		Links:    mul(2*leaves, add(hosts, up)),
		Radix:    max(hosts+up, mul(leaves, spineLinks(up, spines, 0))),
	}
}

// buildFatTree2 generates a two-level fat tree with L leaves, h hosts per
// leaf, u up-links per leaf and S ≤ u spines.
//
// Leaf i (switch S0_i) has host i·h+j on port j+1 and up-link t on port
// h+1+t, t = 0 … u-1. Up-link t goes to spine t mod S (switch S1_s), round
// robin, so a leaf has ⌈u/S⌉ or ⌊u/S⌋ parallel links to each spine. Spine
// s numbers its ports leaf by leaf: the r-th link (r = t div S) from leaf i
// arrives on port 1 + i·c_s + r, where c_s is the number of links from
// each leaf to spine s.
//
// Routing: a leaf delivers its own hosts directly and sends every other
// destination d up on up-link t = d mod u. A spine sends d down to d's leaf
// on the parallel link r = ((d mod u) div S) mod c_s, which is exactly the
// link of up-link index d mod u: traffic to d climbs and descends on
// links with the same index, and the destinations of a leaf spread evenly
// over its up-links (d-mod-k with k = u).
func buildFatTree2(s Spec) (*Network, error) {
	leaves, h, up, spines := s.num("leaves"), s.num("hosts"), s.num("up"), s.num("spines")
	hosts := leaves * h
	nb := newNetBuilder(hosts, leaves+spines)
	tree := &Tree{Levels: 2, start: make([]int32, 3)}
	tree.start[0] = int32(nb.b.NumNodes())
	for i := range leaves {
		nb.addSwitch("S0_"+strconv.Itoa(i), h+up)
	}
	tree.start[1] = int32(nb.b.NumNodes())
	for sp := range spines {
		nb.addSwitch("S1_"+strconv.Itoa(sp), leaves*spineLinks(up, spines, sp))
	}
	tree.start[2] = int32(nb.b.NumNodes())
	leaf := func(i int) int32 { return tree.start[0] + int32(i) }
	spine := func(sp int) int32 { return tree.start[1] + int32(sp) }

	for d := range hosts {
		nb.hostCable(d, leaf(d/h), d%h+1)
	}
	for i := range leaves {
		for t := range up {
			sp := t % spines
			nb.cable(leaf(i), h+1+t, spine(sp), 1+i*spineLinks(up, spines, sp)+t/spines)
		}
	}

	for i := range leaves {
		nb.routeLeaf(leaf(i), i, h, up)
	}
	for sp := range spines {
		c := spineLinks(up, spines, sp)
		nb.routeBy(spine(sp), func(d int) int { return 1 + d/h*c + d%up/spines%c })
	}
	f, err := nb.build(s)
	if err != nil {
		return nil, err
	}
	return &Network{Fabric: f, Tree: tree}, nil
}

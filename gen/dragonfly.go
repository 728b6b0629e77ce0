package gen

import (
	"fmt"
	"strconv"
)

func init() {
	register(&topology{
		name:    "dragonfly",
		routing: "minimal",
		doc:     "Dragonfly (Kim et al.): groups of a all-to-all connected routers with p hosts and h global links each; minimal routing",
		params: []param{
			{key: "a", doc: "routers per group", min: 1},
			{key: "h", doc: "global links per router", min: 1},
			{key: "p", doc: "hosts per router", def: "h", min: 1},
			{key: "g", doc: "groups; 0 = a·h+1, every two groups joined by one global link", def: "0", min: 0},
		},
		check: func(s Spec) error {
			a, h, g := s.num("a"), s.num("h"), dragonflyGroups(s)
			switch {
			case g < 2:
				return fmt.Errorf("g=%d: a Dragonfly has at least 2 groups", g)
			case g > a*h+1:
				return fmt.Errorf("g=%d: a group has a·h = %d global links, enough for at most %d groups", g, a*h, a*h+1)
			case (a*h)%(g-1) != 0:
				return fmt.Errorf("g=%d: the a·h = %d global links of a group must split evenly over the other %d groups", g, a*h, g-1)
			}
			return nil
		},
		size:  dragonflySize,
		build: buildDragonfly,
	})
}

// dragonflyGroups returns the number of groups of s (g=0: a·h+1).
func dragonflyGroups(s Spec) int {
	if g := s.num("g"); g != 0 {
		return g
	}
	return s.num("a")*s.num("h") + 1
}

func dragonflySize(s Spec) Size {
	a, h, p, g := s.num("a"), s.num("h"), s.num("p"), dragonflyGroups(s)
	routers := mul(a, g)
	local := mul(g, a*(a-1)/2)
	global := mul(g, a*h) / 2
	return Size{
		Hosts:    mul(routers, p),
		Switches: routers,
		Links:    mul(2, add(add(mul(routers, p), local), global)),
		Radix:    p + a - 1 + h,
	}
}

// buildDragonfly generates a Dragonfly of g groups of a routers.
//
// Router r of group G is switch S<G>_<r>; host (G·a+r)·p+j is on its port
// j+1. Its local port p+1+i (i = 0 … a-2) leads to the i-th other router of
// the group (in router order), and its global port p+a+x (x = 0 … h-1) is
// the group's global link k = r·h+x. Global link k of group G leads to
// group G + o (mod g) with o = k mod (g-1) + 1; with c = ⌊k/(g-1)⌋ it is
// the c-th of the a·h/(g-1) links between the two groups, and arrives on
// the group's global link c·(g-1) + (g-1-o) there.
//
// Routing is minimal: a router delivers its own hosts and reaches the
// other routers of its group directly. Towards another group it prefers,
// in this order, a global link of its own that lands on the destination's
// router, any global link of its own to that group, a local hop to a
// router whose global link lands on the destination's router, and a local
// hop to the router of the link c = d mod (a·h/(g-1)); among equals the
// destination d picks (d mod their number).
func buildDragonfly(s Spec) (*Network, error) {
	a, h, p, g := s.num("a"), s.num("h"), s.num("p"), dragonflyGroups(s)
	routers := a * g
	hosts := routers * p
	nb := newNetBuilder(hosts, routers)
	first := int32(nb.b.NumNodes())
	for G := range g {
		for r := range a {
			nb.addSwitch("S"+strconv.Itoa(G)+"_"+strconv.Itoa(r), p+a-1+h)
		}
	}
	router := func(G, r int) int32 { return first + int32(G*a+r) }
	// localPort is the port of router r towards router q of its group.
	localPort := func(r, q int) int {
		if q < r {
			return p + 1 + q
		}
		return p + q
	}
	for d := range hosts {
		nb.hostCable(d, first+int32(d/p), d%p+1)
	}
	for G := range g {
		for r := range a {
			for q := r + 1; q < a; q++ {
				nb.cable(router(G, r), localPort(r, q), router(G, q), localPort(q, r))
			}
		}
	}
	// global link k of group G: its far group and far link.
	far := func(G, k int) (int, int) {
		o, c := k%(g-1)+1, k/(g-1)
		return (G + o) % g, c*(g-1) + (g - 1 - o)
	}
	for G := range g {
		for k := range a * h {
			G2, k2 := far(G, k)
			if G2 < G || (G2 == G && k2 < k) {
				continue // cabled from the other end
			}
			nb.cable(router(G, k/h), p+a+k%h, router(G2, k2/h), p+a+k2%h)
		}
	}

	copies := a * h / (g - 1)
	for G := range g {
		for r := range a {
			var own, ownLand, otherLand []int // global links by category, this row's scratch
			nb.routeBy(router(G, r), func(d int) int {
				dr := d / p // destination router index
				G2, r2 := dr/a, dr%a
				switch {
				case G2 == G && r2 == r:
					return d%p + 1
				case G2 == G:
					return localPort(r, r2)
				}
				own, ownLand, otherLand = own[:0], ownLand[:0], otherLand[:0]
				for c := range copies {
					k := c*(g-1) + (G2-G+g)%g - 1
					_, k2 := far(G, k)
					lands := k2/h == r2
					switch {
					case k/h == r && lands:
						ownLand = append(ownLand, k)
					case k/h == r:
						own = append(own, k)
					case lands:
						otherLand = append(otherLand, k)
					}
				}
				var k int
				switch {
				case len(ownLand) > 0:
					k = ownLand[d%len(ownLand)]
				case len(own) > 0:
					k = own[d%len(own)]
				case len(otherLand) > 0:
					k = otherLand[d%len(otherLand)]
				default:
					k = (d%copies)*(g-1) + (G2-G+g)%g - 1
				}
				if k/h == r {
					return p + a + k%h
				}
				return localPort(r, k/h)
			})
		}
	}
	f, err := nb.build(s)
	if err != nil {
		return nil, err
	}
	groups := make([]int32, f.NumSwitches())
	for G := range g {
		for r := range a {
			groups[f.SwitchIndex(router(G, r))] = int32(G)
		}
	}
	return &Network{Fabric: f, Groups: groups}, nil
}

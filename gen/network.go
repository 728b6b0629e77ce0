package gen

import (
	"fmt"
	"math"
	"strconv"

	"orcs/internal/plural"
	"orcs/lft"
)

// Limits on the size of a generated fabric. They guard against overflow,
// not against running out of memory: memory grows with the routing tables,
// one byte per (switch, destination host) entry while the lft.Builder
// compiles them (the generators hand it their routing as rules, a row at
// a time, which keep nothing per entry; the finished Fabric keeps the
// tables' distinct blocks).
const (
	// MaxRoutes bounds switches × hosts, the number of routing entries.
	MaxRoutes = 1 << 31
	// MaxLinks bounds the number of directed links.
	MaxLinks = 1 << 30
)

// Size gives the counts of a fabric.
type Size struct {
	// Hosts is the number of hosts.
	Hosts int
	// Switches is the number of switches.
	Switches int
	// Links is the number of directed links, two per cable (the length of
	// lft.Fabric.Links).
	Links int
	// Radix is the number of ports a switch needs: the highest port number
	// used on any switch.
	Radix int
}

// String formats z like "64 hosts, 48 switches, 384 links (192 cables), radix 8".
func (z Size) String() string {
	return fmt.Sprintf("%s, %s, %s (%s), radix %d",
		plural.N(z.Hosts, "host"), plural.N(z.Switches, "switch"), plural.N(z.Links, "link"), plural.N(z.Links/2, "cable"), z.Radix)
}

// check reports whether z is within the limits.
func (z Size) check() error {
	routes := mul(z.Switches, z.Hosts)
	switch {
	case routes > MaxRoutes:
		return fmt.Errorf("too large: %s would need %s routing entries (switches × hosts); the limit is %d",
			z, satString(routes), MaxRoutes)
	case z.Links > MaxLinks:
		return fmt.Errorf("too large: %s links; the limit is %d", satString(z.Links), MaxLinks)
	}
	return nil
}

// saturation is where mul and add stop growing.
const saturation = math.MaxInt >> 2

// mul returns a×b for a, b ≥ 0, or saturation if that is larger.
func mul(a, b int) int {
	if a != 0 && b > saturation/a {
		return saturation
	}
	return min(a*b, saturation)
}

// add returns a+b for a, b ≥ 0, or saturation if that is larger.
func add(a, b int) int { return min(a+b, saturation) }

// pow returns k^n, or saturation if that is larger.
func pow(k, n int) int {
	p := 1
	for range n {
		p = mul(p, k)
	}
	return p
}

func satString(v int) string {
	if v >= saturation {
		return "more than " + strconv.Itoa(saturation)
	}
	return strconv.Itoa(v)
}

// Network is a generated fabric with what its generator knows about it.
type Network struct {
	// Spec is the spec the network was built from.
	Spec Spec
	// Fabric is the routed fabric.
	Fabric *lft.Fabric
	// Tree describes the switch levels of a fat tree (kary, fattree2);
	// nil for other topologies.
	Tree *Tree
	// Grid gives the coordinates of a torus or mesh; nil for others.
	Grid *Grid
	// Groups gives the group of every switch of a Dragonfly (by switch
	// index, lft.Fabric.SwitchIndex); nil for others.
	Groups []int32
}

// Routing names the routing the generator built, e.g. "d-mod-k" or
// "dimension order".
func (n *Network) Routing() string { return n.Spec.topo.routing }

// Tree describes the levels of a generated fat tree. Level 0 holds the
// leaf switches (those with hosts); the top level holds the roots.
type Tree struct {
	// Levels is the number of switch levels.
	Levels int
	// start[l] is the node id of the first switch of level l; start[Levels]
	// is the number of nodes. Hosts are the nodes before start[0].
	start []int32
}

// Level returns the level of node (0 = leaf switches), or -1 for a host.
func (t *Tree) Level(node int32) int {
	for l := t.Levels - 1; l >= 0; l-- {
		if node >= t.start[l] {
			return l
		}
	}
	return -1
}

// Switches returns the node ids of the switches of level l, in order.
func (t *Tree) Switches(l int) []int32 {
	ids := make([]int32, 0, t.start[l+1]-t.start[l])
	for v := t.start[l]; v < t.start[l+1]; v++ {
		ids = append(ids, v)
	}
	return ids
}

// Roots returns the node ids of the top-level switches, in order (the root
// switches that OpenSM's updn and ftree engines ask for).
func (t *Tree) Roots() []int32 { return t.Switches(t.Levels - 1) }

// netBuilder adds generated nodes, cables and routes to an lft.Builder,
// keeping track of ports.
type netBuilder struct {
	b     *lft.Builder
	hosts int
	// ports[v][p-1] is the id of the link leaving node v on port p, or -1.
	ports [][]int32
}

// newNetBuilder returns a builder with hosts H0 … H(hosts-1) as nodes
// 0 … hosts-1, each with one port, and room for the routing entries of
// switches switches.
func newNetBuilder(hosts, switches int) *netBuilder {
	return newNamedNetBuilder(hosts, switches, nil)
}

// newNamedNetBuilder is newNetBuilder with host h named name(h) (nil:
// H<h>).
func newNamedNetBuilder(hosts, switches int, hostName func(h int) string) *netBuilder {
	nb := &netBuilder{b: lft.NewBuilder(), hosts: hosts}
	nb.b.Grow(hosts)
	nb.ports = make([][]int32, 0, hosts)
	name := make([]byte, 0, 16)
	for h := range hosts {
		if hostName != nil {
			nb.add(hostName(h), lft.Host, 1)
			continue
		}
		name = strconv.AppendInt(append(name[:0], 'H'), int64(h), 10)
		nb.add(string(name), lft.Host, 1)
	}
	return nb
}

// add adds a node with the given number of ports and returns its id.
func (nb *netBuilder) add(name string, kind lft.NodeKind, ports int) int32 {
	id := nb.b.Node(name, kind)
	if int(id) != len(nb.ports) {
		panic("gen: duplicate node name " + name)
	}
	p := make([]int32, ports)
	for i := range p {
		p[i] = -1
	}
	nb.ports = append(nb.ports, p)
	return id
}

// addSwitch adds a switch with the given number of ports and returns its id.
func (nb *netBuilder) addSwitch(name string, ports int) int32 {
	return nb.add(name, lft.Switch, ports)
}

// cable connects port pa of node a with port pb of node b: the link a→b
// and then the link b→a.
func (nb *netBuilder) cable(a int32, pa int, b int32, pb int) {
	if nb.ports[a][pa-1] >= 0 || nb.ports[b][pb-1] >= 0 {
		panic(fmt.Sprintf("gen: port used twice: %s port %d or %s port %d",
			nb.b.NodeName(a), pa, nb.b.NodeName(b), pb))
	}
	nb.ports[a][pa-1] = nb.b.Link(a, b, pa, pb)
	nb.ports[b][pb-1] = nb.b.Link(b, a, pb, pa)
}

// hostCable connects host h (its port 1) to port p of switch sw and routes
// all of the host's traffic over it.
func (nb *netBuilder) hostCable(h int, sw int32, p int) {
	nb.cable(int32(h), 1, sw, p)
	nb.b.Route(nb.ports[h][0], lft.AnyDest)
}

// routeBy routes switch sw by a rule: port(d) is the port it sends the
// traffic for host d out of (0: none). The builder calls port for every
// host when it compiles the tables, on several goroutines at once (one
// switch each), so port must not share scratch state with other rows.
func (nb *netBuilder) routeBy(sw int32, port func(d int) int) {
	ports := nb.ports[sw]
	nb.b.RouteRow(sw, func(row []int32) {
		for d := range row {
			p := port(d)
			if p == 0 {
				continue
			}
			l := ports[p-1]
			if l < 0 {
				panic(fmt.Sprintf("gen: route over unconnected port %d of %s", p, nb.b.NodeName(sw)))
			}
			row[d] = l
		}
	})
}

// build compiles the fabric, named after the spec.
func (nb *netBuilder) build(s Spec) (*lft.Fabric, error) {
	f, err := nb.b.Build()
	if err != nil {
		return nil, err
	}
	f.GraphName = s.String()
	return f, nil
}

// routeLeaf routes leaf switch v, whose hosts e·h … e·h+h−1 sit on ports
// 1…h and whose up-links are ports h+1…h+up: its own hosts go down, every
// other destination d goes up on up-link d mod up (d-mod-k).
func (nb *netBuilder) routeLeaf(v int32, e, h, up int) {
	nb.routeBy(v, func(d int) int {
		if d/h == e {
			return d%h + 1
		}
		return h + 1 + d%up
	})
}

package gen

import "strconv"

func init() {
	register(gridTopology("torus", "torus of any dimension (wrap-around links), h hosts per switch; dimension-order routing, shorter way round", true))
	register(gridTopology("mesh", "mesh of any dimension (no wrap-around), h hosts per switch; dimension-order routing", false))
}

func gridTopology(name, doc string, torus bool) *topology {
	return &topology{
		name:    name,
		doc:     doc,
		routing: "dimension order",
		params: []param{
			{key: "dims", doc: "switches per dimension, x first, e.g. 4x4 or 4x4x4", dims: true, min: 2},
			{key: "hosts", doc: "hosts per switch", def: "1", min: 1},
		},
		size: func(s Spec) Size { return gridSize(s, torus) },
		build: func(s Spec) (*Network, error) {
			return buildGrid(s, torus)
		},
	}
}

// Grid gives the coordinates of the switches of a generated torus or mesh,
// e.g. for writing the seed file of OpenSM's torus-2QoS engine.
//
// Switch (c_0, c_1, …) is named S<c_0>_<c_1>_…; its index is
// c_0 + Dims[0]·(c_1 + Dims[1]·(c_2 + …)), x varying fastest. Host i is
// attached to switch i div HostsPerSwitch on port i mod HostsPerSwitch + 1.
// The link to the neighbour in the positive direction of dimension i is on
// port Port(i, true), the one in the negative direction on Port(i, false),
// on every switch; in a mesh the border switches leave those ports
// unconnected. In a torus of size 2 in a dimension both ports lead to the
// same neighbour (two parallel cables).
type Grid struct {
	// Dims is the number of switches in each dimension, x first.
	Dims []int
	// Torus says whether there are wrap-around links.
	Torus bool
	// HostsPerSwitch is the number of hosts on every switch.
	HostsPerSwitch int
	// first is the node id of switch index 0; the hosts come before it.
	first int32
}

// NumSwitches returns the number of switches, the product of Dims.
func (g *Grid) NumSwitches() int {
	n := 1
	for _, d := range g.Dims {
		n *= d
	}
	return n
}

// Coord returns the coordinates of node: of the switch itself, or of the
// switch a host is attached to.
func (g *Grid) Coord(node int32) []int {
	idx := int(node - g.first)
	if node < g.first {
		idx = int(node) / g.HostsPerSwitch
	}
	c := make([]int, len(g.Dims))
	for i, d := range g.Dims {
		c[i] = idx % d
		idx /= d
	}
	return c
}

// Switch returns the node id of the switch at coord, or -1 when coord has
// the wrong length or lies outside the grid.
func (g *Grid) Switch(coord []int) int32 {
	if len(coord) != len(g.Dims) {
		return -1
	}
	idx := 0
	for i := len(g.Dims) - 1; i >= 0; i-- {
		if coord[i] < 0 || coord[i] >= g.Dims[i] {
			return -1
		}
		idx = idx*g.Dims[i] + coord[i]
	}
	return g.first + int32(idx)
}

// Port returns the port number of the link towards the neighbour in
// dimension dim, in the positive direction if positive, else negative.
func (g *Grid) Port(dim int, positive bool) int {
	p := g.HostsPerSwitch + 1 + 2*dim
	if !positive {
		p++
	}
	return p
}

func gridSize(s Spec, torus bool) Size {
	dims, h := s.list("dims"), s.num("hosts")
	switches := 1
	for _, d := range dims {
		switches = mul(switches, d)
	}
	cables := mul(switches, h)
	for _, d := range dims {
		if torus {
			cables = add(cables, switches)
		} else {
			cables = add(cables, switches/d*(d-1))
		}
	}
	return Size{
		Hosts:    mul(switches, h),
		Switches: switches,
		Links:    mul(2, cables),
		Radix:    add(h, 2*len(dims)),
	}
}

// buildGrid generates a torus or mesh with dimension-order routing: a
// switch sends traffic for a host on another switch along the lowest
// dimension in which their coordinates differ, in a mesh towards the
// target, in a torus the shorter way round (the positive direction when
// both ways are equally long). When all coordinates agree, it delivers the
// packet on the host's port. Routes are minimal: their switch-to-switch
// hops are the Manhattan distance (with wrap-around on a torus).
func buildGrid(s Spec, torus bool) (*Network, error) {
	dims, h := s.list("dims"), s.num("hosts")
	g := &Grid{Dims: append([]int(nil), dims...), Torus: torus, HostsPerSwitch: h}
	nsw := g.NumSwitches()
	nb := newNetBuilder(nsw*h, nsw)
	g.first = int32(nb.b.NumNodes())
	D := len(dims)
	coord := make([]int, nsw*D) // coordinates of switch idx at coord[idx*D:]
	name := make([]byte, 0, 32)
	for idx := range nsw {
		c := coord[idx*D : (idx+1)*D]
		rest := idx
		name = append(name[:0], 'S')
		for i, d := range dims {
			c[i] = rest % d
			rest /= d
			if i > 0 {
				name = append(name, '_')
			}
			name = strconv.AppendInt(name, int64(c[i]), 10)
		}
		nb.addSwitch(string(name), h+2*D)
	}

	for host := range nsw * h {
		nb.hostCable(host, g.first+int32(host/h), host%h+1)
	}
	for idx := range nsw {
		c := coord[idx*D : (idx+1)*D]
		stride := 1
		for i, d := range dims {
			next := idx + stride
			if c[i] == d-1 {
				next = idx - (d-1)*stride
			}
			if torus || c[i] < d-1 {
				nb.cable(g.first+int32(idx), g.Port(i, true), g.first+int32(next), g.Port(i, false))
			}
			stride *= d
		}
	}

	for idx := range nsw {
		c := coord[idx*D : (idx+1)*D]
		nb.routeBy(g.first+int32(idx), func(dst int) int {
			target := dst / h
			t := coord[target*D : (target+1)*D]
			for i, d := range dims {
				if c[i] == t[i] {
					continue
				}
				positive := t[i] > c[i]
				if torus {
					forward := (t[i] - c[i] + d) % d
					positive = forward <= d-forward
				}
				return g.Port(i, positive)
			}
			return dst%h + 1
		})
	}
	f, err := nb.build(s)
	if err != nil {
		return nil, err
	}
	return &Network{Fabric: f, Grid: g}, nil
}

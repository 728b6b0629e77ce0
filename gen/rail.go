package gen

import (
	"fmt"
	"strconv"
)

func init() {
	register(&topology{
		name:    "rail",
		routing: "d-mod-k-like",
		doc:     "rail-optimized GPU fabric: scalable units of nodes with one HCA per rail, one leaf per (unit, rail), spines above (every leaf to every spine), or spines per unit under cores; d-mod-k-like routing",
		params:  railParams,
		check:   checkRail,
		size:    railSize,
		build:   buildRail,
	})
	register(&topology{
		name:    "superpod-h100",
		routing: "d-mod-k-like",
		doc: "NVIDIA DGX SuperPOD with DGX H100 (reference architecture RA-11333-001, compute fabric table): scalable units of 32 slots × 8 rails " +
			"on 64-port NDR leaves (QM9700, 32 down, 32 up); 1 SU: 8 leaves, 4 spines; 2 SUs: 16, 8; 3 SUs: 24, 16; 4 SUs: 32, 16; " +
			"32·su−1 DGX H100 nodes (dgxNNN) and 4 single-HCA UFM appliances (ufmNN) on rails 0-3 of the last slot",
		params: []param{{key: "su", doc: "scalable units, 1 to 4", def: "4", min: 1}},
		check: func(s Spec) error {
			if s.num("su") > 4 {
				return fmt.Errorf("su=%d: the reference architecture gives the fabric for 1 to 4 scalable units (use rail:... for more)", s.num("su"))
			}
			return nil
		},
		size:  func(s Spec) Size { return railSize(h100Spec(s)) },
		build: func(s Spec) (*Network, error) { return buildPreset(s, h100Spec(s)) },
	})
	register(&topology{
		name:    "superpod-a100",
		routing: "d-mod-k-like",
		doc: "NVIDIA DGX SuperPOD with DGX A100 (reference architecture RA-09950-001): scalable units of 20 DGX A100 × 8 HDR rails " +
			"on 40-port leaves (QM8790, 20 down, 20 up), 7 SUs = 140 nodes; above the leaves orcs builds a non-blocking three-level fat tree " +
			"of 40-port switches: 10 spines per SU (2 links from each leaf) and 32 cores",
		params: []param{{key: "su", doc: "scalable units, 1 to 8", def: "7", min: 1}},
		check: func(s Spec) error {
			if s.num("su") > 8 {
				return fmt.Errorf("su=%d: a core switch of 40 ports takes 5 links from each of at most 8 scalable units", s.num("su"))
			}
			return nil
		},
		size:  func(s Spec) Size { return railSize(a100Spec(s)) },
		build: func(s Spec) (*Network, error) { return buildPreset(s, a100Spec(s)) },
	})
}

var railParams = []param{
	{key: "units", doc: "scalable units", def: "1", min: 1},
	{key: "nodes", doc: "node slots per scalable unit (hosts per leaf switch)", min: 1},
	{key: "rails", doc: "HCAs per node: one leaf switch per rail and unit", def: "8", min: 1},
	{key: "up", doc: "up-links per leaf switch (taper nodes:up)", def: "nodes", min: 1},
	{key: "spines", doc: "spine switches: in all (cores=0: every leaf links to every spine, up/spines times), or per unit (cores>0)", def: "up", min: 1},
	{key: "cores", doc: "core switches above spines of each unit (0: two levels)", def: "0", min: 0},
	{key: "sup", doc: "up-links per spine switch when cores>0 (taper at the spines; default rails·up/spines, non-blocking)", def: "0", min: 0},
	{key: "service", doc: "single-HCA service nodes in the last node slots (rails 0, 1, … of the last slot, then of the slot before)", def: "0", min: 0},
	{key: "railonly", doc: "1: rail-only, two levels only: spines in one group per rail, a leaf linked to its rail's group only; HCAs of different rails have no route (NCCL crosses rails over NVLink)", def: "0", min: 0},
}

// railShape is a rail spec's numbers.
type railShape struct {
	units, nodes, rails, up, spines, cores, sup, service int
	// railOnly: spines per rail group (two levels); 0: every leaf to
	// every spine.
	railOnly bool
	// gpu and svc name the nodes ("dgx", "svc").
	gpu, svc string
	spec     Spec
}

func railOf(s Spec) railShape {
	r := railShape{units: s.num("units"), nodes: s.num("nodes"), rails: s.num("rails"), up: s.num("up"),
		spines: s.num("spines"), cores: s.num("cores"), sup: s.num("sup"), service: s.num("service"),
		gpu: "dgx", svc: "svc", spec: s, railOnly: s.num("railonly") == 1}
	if s.Name == "superpod-h100" {
		r.svc = "ufm" // the UFM appliances of the reference architecture
	}
	if r.cores > 0 && r.sup == 0 {
		r.sup = r.rails * r.up / r.spines
	}
	return r
}

// railSpec makes a rail Spec with the given values (for the presets).
func railSpec(name string, vals map[string]int) Spec {
	t, _ := topologies.Lookup("rail")
	s := Spec{Name: name, topo: t, vals: map[string][]int{}}
	for _, p := range railParams {
		v, ok := vals[p.key]
		if !ok {
			v, _ = strconv.Atoi(p.def)
		}
		s.vals[p.key] = []int{v}
	}
	return s
}

// h100Spec is the rail spec of superpod-h100 with su scalable units: the
// compute fabric table of the DGX H100 SuperPOD reference architecture.
func h100Spec(s Spec) Spec {
	su := s.num("su")
	spines := []int{0, 4, 8, 16, 16}[min(su, 4)]
	return railSpec("superpod-h100", map[string]int{"units": su, "nodes": 32, "rails": 8, "up": 32, "spines": spines, "service": 4})
}

// a100Spec is the rail spec of superpod-a100 with su scalable units.
func a100Spec(s Spec) Spec {
	return railSpec("superpod-a100", map[string]int{"units": s.num("su"), "nodes": 20, "rails": 8, "up": 20, "spines": 10, "cores": 32, "sup": 16})
}

// buildPreset builds the rail fabric r of preset s, named after s.
func buildPreset(s, r Spec) (*Network, error) {
	n, err := buildRail(r)
	if err != nil {
		return nil, err
	}
	n.Fabric.GraphName = s.String()
	return n, nil
}

func checkRail(s Spec) error {
	r := railOf(s)
	if s.num("railonly") > 1 {
		return fmt.Errorf("railonly=%d: want 0 or 1", s.num("railonly"))
	}
	if r.railOnly {
		if r.cores > 0 {
			return fmt.Errorf("railonly=1 has two levels: no cores")
		}
		if r.spines%r.rails != 0 || r.up%(r.spines/r.rails) != 0 {
			return fmt.Errorf("railonly=1: rails=%d must divide spines=%d, and the spines of a rail (spines/rails) must divide up=%d", r.rails, r.spines, r.up)
		}
		return nil
	}
	if r.up%r.spines != 0 {
		return fmt.Errorf("spines=%d must divide up=%d (a leaf has up/spines links to each spine)", r.spines, r.up)
	}
	if r.service > r.nodes*r.rails {
		return fmt.Errorf("service=%d: the service nodes fit in the %d slots of one unit at most (%d)", r.service, r.nodes, r.nodes*r.rails)
	}
	if r.cores == 0 {
		if s.num("sup") != 0 {
			return fmt.Errorf("sup=%d needs cores: two-level fabrics have no spine up-links", s.num("sup"))
		}
		return nil
	}
	if r.cores%r.sup != 0 || r.spines*r.sup%r.cores != 0 || r.spines%(r.spines*r.sup/r.cores) != 0 {
		return fmt.Errorf("cores=%d does not split evenly: with %d spines per unit of %d up-links each, cores must be a multiple of %d whose groups divide the spines (cores = spines/rep · sup for a rep dividing spines)",
			r.cores, r.spines, r.sup, r.sup)
	}
	return nil
}

// rep is how many spines of each unit a core links to (3 levels).
func (r railShape) rep() int { return r.spines * r.sup / r.cores }

// serviceSlots is the number of node slots the service nodes take.
func (r railShape) serviceSlots() int { return (r.service + r.rails - 1) / r.rails }

// hostCount is the number of hosts: every rail of every GPU slot, plus
// the service nodes.
func (r railShape) hostCount() int {
	return mul(mul(r.units, r.nodes)-r.serviceSlots(), r.rails) + r.service
}

func railSize(s Spec) Size {
	r := railOf(s)
	leaves := mul(r.units, r.rails)
	hosts := r.hostCount()
	z := Size{Hosts: hosts, Radix: r.nodes + r.up}
	if r.cores == 0 {
		z.Switches = add(leaves, r.spines)
		z.Links = mul(2, add(hosts, mul(leaves, r.up)))
		z.Radix = max(z.Radix, mul(leaves, r.up/r.spines))
		return z
	}
	z.Switches = add(add(leaves, mul(r.units, r.spines)), r.cores)
	z.Links = mul(2, add(add(hosts, mul(leaves, r.up)), mul(mul(r.units, r.spines), r.sup)))
	z.Radix = max(z.Radix, r.rails*(r.up/r.spines)+r.sup, mul(r.units, max(r.rep(), 1)))
	return z
}

// railHost is one host of a rail fabric: its leaf (unit·rails + rail) and
// its slot on the leaf (its port − 1).
type railHost struct {
	leaf, slot int
	name       string
}

// hosts lists the hosts in host index order: slot by slot (unit 0 slot 0
// rail 0, rail 1, …), the GPU nodes' HCAs, then the service nodes.
func (r railShape) hosts() []railHost {
	slots := r.units * r.nodes
	gpuSlots := slots - r.serviceSlots()
	width := max(3, len(strconv.Itoa(gpuSlots)))
	out := make([]railHost, 0, r.hostCount())
	for g := range gpuSlots {
		node := r.gpu + pad(g+1, width)
		for k := range r.rails {
			out = append(out, railHost{leaf: g/r.nodes*r.rails + k, slot: g % r.nodes, name: "H-" + node + "_mlx5_" + strconv.Itoa(k)})
		}
	}
	for i := range r.service {
		g := slots - 1 - i/r.rails
		out = append(out, railHost{leaf: g/r.nodes*r.rails + i%r.rails, slot: g % r.nodes,
			name: "H-" + r.svc + pad(i+1, 2) + "_mlx5_0"})
	}
	return out
}

func pad(v, width int) string {
	s := strconv.Itoa(v)
	for len(s) < width {
		s = "0" + s
	}
	return s
}

// buildRail generates a rail-optimized fabric.
//
// Node slot g (unit g/nodes, slot g mod nodes on the unit's leaves) holds a
// GPU node dgxNNN whose HCA k (H-dgxNNN_mlx5_k) is on port slot+1 of leaf
// S0_<unit·rails+k>; the last slots hold the service nodes instead, one
// HCA each. A leaf's up-link t is port nodes+1+t.
//
// Two levels (cores=0): up-link t goes to spine S1_<t mod spines>, which
// has up/spines ports per leaf: leaf e's link t arrives on port
// 1+e·(up/spines)+t/spines.
//
// Three levels: up-link t goes to spine S1_<unit·spines + t mod spines> of
// the leaf's own unit (q = up/spines parallel links, leaf k of the unit on
// ports 1+k·q … k·q+q); spine i of a unit has up-link j on port
// rails·q+1+j to core S2_<(i/rep)·sup+j>, arriving on port
// 1+unit·rep+i mod rep (rep = spines·sup/cores).
//
// Rail-only (railonly=1, two levels): the spines form rails groups of
// g = spines/rails; leaf up-link t of rail k goes to spine k·g + t mod g,
// arriving on port 1+unit·(up/g)+t/g; a leaf and a spine route the
// destinations of their rail only.
//
// Routing (d-mod-k on the leaf-major number of the destination, n(d) =
// leaf·nodes + slot, t = n(d) mod up): a leaf delivers its own hosts and
// sends the rest up on up-link t; a two-level spine sends d down to d's
// leaf on its parallel link t/spines. With three levels a spine sends d of
// its own unit down to d's leaf on parallel link t/spines, other traffic
// up on up-link ⌊n(d)/spines⌋ mod sup (the destinations that reach spine
// i are n(d) ≡ i mod spines, so they spread evenly); a core sends d down
// to d's unit, to its spine t mod spines. Traffic to d climbs no higher than needed, on links
// chosen by d alone, as the k-ary n-tree's d-mod-k does.
func buildRail(s Spec) (*Network, error) {
	r := railOf(s)
	hs := r.hosts()
	leaves := r.units * r.rails
	unitSpines := r.spines
	if r.cores == 0 {
		unitSpines = 0
	}
	nb := newNamedNetBuilder(len(hs), leaves+r.units*unitSpines+r.spines*boolInt(r.cores == 0)+r.cores,
		func(h int) string { return hs[h].name })
	levels := 2
	if r.cores > 0 {
		levels = 3
	}
	tree := &Tree{Levels: levels, start: make([]int32, levels+1)}
	tree.start[0] = int32(nb.b.NumNodes())
	for i := range leaves {
		nb.addSwitch("S0_"+strconv.Itoa(i), r.nodes+r.up)
	}
	tree.start[1] = int32(nb.b.NumNodes())
	q := r.up / r.spines
	g := r.spines / r.rails // rail-only: spines per rail group
	if r.railOnly {
		q = r.up / g
		for i := range r.spines {
			nb.addSwitch("S1_"+strconv.Itoa(i), r.units*q)
		}
	} else if r.cores == 0 {
		for i := range r.spines {
			nb.addSwitch("S1_"+strconv.Itoa(i), leaves*q)
		}
	} else {
		for i := range r.units * r.spines {
			nb.addSwitch("S1_"+strconv.Itoa(i), r.rails*q+r.sup)
		}
		tree.start[2] = int32(nb.b.NumNodes())
		for i := range r.cores {
			nb.addSwitch("S2_"+strconv.Itoa(i), r.units*r.rep())
		}
	}
	tree.start[levels] = int32(nb.b.NumNodes())
	leaf := func(e int) int32 { return tree.start[0] + int32(e) }
	spine := func(i int) int32 { return tree.start[1] + int32(i) }
	core := func(i int) int32 { return tree.start[2] + int32(i) }

	for d, h := range hs {
		nb.hostCable(d, leaf(h.leaf), h.slot+1)
	}
	for e := range leaves {
		unit, k := e/r.rails, e%r.rails
		for t := range r.up {
			if r.railOnly {
				nb.cable(leaf(e), r.nodes+1+t, spine(k*g+t%g), 1+unit*q+t/g)
				continue
			}
			if r.cores == 0 {
				nb.cable(leaf(e), r.nodes+1+t, spine(t%r.spines), 1+e*q+t/r.spines)
			} else {
				nb.cable(leaf(e), r.nodes+1+t, spine(unit*r.spines+t%r.spines), 1+k*q+t/r.spines)
			}
		}
	}
	if r.cores > 0 {
		rep := r.rep()
		for unit := range r.units {
			for i := range r.spines {
				for j := range r.sup {
					nb.cable(spine(unit*r.spines+i), r.rails*q+1+j, core(i/rep*r.sup+j), 1+unit*rep+i%rep)
				}
			}
		}
	}

	num := func(d int) int { return hs[d].leaf*r.nodes + hs[d].slot }
	for e := range leaves {
		nb.routeBy(leaf(e), func(d int) int {
			switch h := hs[d]; {
			case h.leaf == e:
				return h.slot + 1
			case r.railOnly && h.leaf%r.rails != e%r.rails:
				return 0 // another rail: no route
			default:
				return r.nodes + 1 + num(d)%r.up
			}
		})
	}
	if r.railOnly {
		for i := range r.spines {
			nb.routeBy(spine(i), func(d int) int {
				if h := hs[d]; h.leaf%r.rails == i/g {
					return 1 + h.leaf/r.rails*q + num(d)%r.up/g
				}
				return 0
			})
		}
	} else if r.cores == 0 {
		for i := range r.spines {
			nb.routeBy(spine(i), func(d int) int { return 1 + hs[d].leaf*q + num(d)%r.up/r.spines })
		}
	} else {
		rep := r.rep()
		for unit := range r.units {
			for i := range r.spines {
				nb.routeBy(spine(unit*r.spines+i), func(d int) int {
					if h := hs[d]; h.leaf/r.rails == unit {
						return 1 + h.leaf%r.rails*q + num(d)%r.up/r.spines
					}
					return r.rails*q + 1 + num(d)/r.spines%r.sup
				})
			}
		}
		for c := range r.cores {
			nb.routeBy(core(c), func(d int) int { return 1 + hs[d].leaf/r.rails*rep + num(d)%r.up%r.spines%rep })
		}
	}
	f, err := nb.build(s)
	if err != nil {
		return nil, err
	}
	return &Network{Fabric: f, Tree: tree}, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

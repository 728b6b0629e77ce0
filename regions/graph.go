package regions

import (
	"fmt"
	"slices"
)

// Cable is one directed cable (one direction of a physical link): the
// vertex of the segmentation graph. From and To are node ids.
type Cable struct {
	From, To int32
}

// Metric names how the distance between two cables is measured.
type Metric string

const (
	// Hops is the distance in the fabric graph: two cables that share a node
	// are 1 apart, two cables joined by one more cable 2 apart, and so on
	// (the line graph of the fabric). Fat trees have no coordinates, so this
	// is the distance every fabric has.
	Hops Metric = "hops"
	// L1 is Monet's distance on tori and meshes: a cable sits halfway
	// between the coordinates of its two switches (a host cable at its
	// switch), and two cables are the L1 norm of the difference apart, the
	// shorter way round on a torus. Both directions of a cable are 0 apart.
	L1 Metric = "l1"
)

// Graph is the neighbourhood structure of the segmentation: which cables
// lie within the distance δ of each other. It is stored as a cover by
// cliques so that the closures of the segmentation never list pairs: an
// atom is a set of cables all within δ of each other (the cables at one
// node, or at one L1 point), and a clique is a set of atoms whose cables are
// all within δ of each other; two cables are within δ exactly when they
// share an atom or a clique. On a radix-32 fat tree a cable has about 4000
// cables within 2 hops, but only two atoms and 64 two-atom cliques.
type Graph struct {
	// Metric is the distance used; Delta the threshold δ.
	Metric Metric
	Delta  int

	n int // cables
	// atom a holds the cables atomCables[atomStart[a]:atomStart[a+1]].
	atomStart, atomCables []int32
	// cable c lies in the atoms cabAtoms[cabStart[c]:cabStart[c+1]].
	cabStart, cabAtoms []int32
	// clique k joins the atoms cliqAtoms[cliqStart[k]:cliqStart[k+1]]
	// (two or more; a single atom is a clique by itself and not listed).
	cliqStart, cliqAtoms []int32
	// atom a lies in the cliques atomCliqs[atomCliqStart[a]:atomCliqStart[a+1]].
	atomCliqStart, atomCliqs []int32
	// The median filter's neighbourhood of cable c is
	// nearCables[nearStart[c]:nearStart[c+1]] (c included): on grids the
	// cables within L1 distance 1, on hop graphs the cables between the
	// same two nodes (both directions; the cables at a node are too many
	// and too different for a median).
	nearStart, nearCables []int32
}

// NumCables returns the number of cables (vertices).
func (g *Graph) NumCables() int { return g.n }

// NumAtoms returns the number of atoms of the cover.
func (g *Graph) NumAtoms() int { return len(g.atomStart) - 1 }

// NumCliques returns the number of cliques of two or more atoms.
func (g *Graph) NumCliques() int { return len(g.cliqStart) - 1 }

// csr builds a compressed sparse row from lists.
func csr(lists [][]int32) (start, items []int32) {
	start = make([]int32, len(lists)+1)
	total := 0
	for i, l := range lists {
		total += len(l)
		start[i+1] = int32(total)
	}
	items = make([]int32, 0, total)
	for _, l := range lists {
		items = append(items, l...)
	}
	return start, items
}

// invert returns, for n targets, the CSR of the sources listing each.
func invert(start, items []int32, n int) (istart, iitems []int32) {
	istart = make([]int32, n+1)
	for _, t := range items {
		istart[t+1]++
	}
	for i := range n {
		istart[i+1] += istart[i]
	}
	iitems = make([]int32, len(items))
	fill := slices.Clone(istart[:n])
	for s := range len(start) - 1 {
		for _, t := range items[start[s]:start[s+1]] {
			iitems[fill[t]] = int32(s)
			fill[t]++
		}
	}
	return istart, iitems
}

// finish derives the reverse indices from atoms and cliques.
func (g *Graph) finish(atoms, cliques [][]int32) *Graph {
	g.atomStart, g.atomCables = csr(atoms)
	g.cabStart, g.cabAtoms = invert(g.atomStart, g.atomCables, g.n)
	g.cliqStart, g.cliqAtoms = csr(cliques)
	g.atomCliqStart, g.atomCliqs = invert(g.cliqStart, g.cliqAtoms, len(atoms))
	return g
}

// HopGraph returns the graph of cables within delta hops of each other on a
// fabric of numNodes nodes. Cables are numbered as in cables; two cables
// that share a node are 1 apart, a cable and itself 0.
func HopGraph(numNodes int, cables []Cable, delta int) (*Graph, error) {
	if delta < 0 {
		return nil, fmt.Errorf("distance δ %d: want ≥ 0", delta)
	}
	g := &Graph{Metric: Hops, Delta: delta, n: len(cables)}
	for i, c := range cables {
		if c.From < 0 || int(c.From) >= numNodes || c.To < 0 || int(c.To) >= numNodes {
			return nil, fmt.Errorf("cable %d: node out of range", i)
		}
	}
	pair := map[[2]int32][]int32{}
	for i, c := range cables {
		k := [2]int32{min(c.From, c.To), max(c.From, c.To)}
		pair[k] = append(pair[k], int32(i))
	}
	nc := make([][]int32, len(cables))
	for i, c := range cables {
		nc[i] = pair[[2]int32{min(c.From, c.To), max(c.From, c.To)}]
	}
	g.nearStart, g.nearCables = csr(nc)
	if delta == 0 {
		atoms := make([][]int32, len(cables))
		for i := range cables {
			atoms[i] = []int32{int32(i)}
		}
		return g.finish(atoms, nil), nil
	}
	// Atoms: the cables at each node (a cable lies in the atoms of both
	// its ends).
	atoms := make([][]int32, numNodes)
	adj := make([][]int32, numNodes) // node neighbours, deduplicated
	for i, c := range cables {
		atoms[c.From] = append(atoms[c.From], int32(i))
		if c.To != c.From {
			atoms[c.To] = append(atoms[c.To], int32(i))
			adj[c.From] = append(adj[c.From], c.To)
			adj[c.To] = append(adj[c.To], c.From)
		}
	}
	for v := range adj {
		slices.Sort(adj[v])
		adj[v] = slices.Compact(adj[v])
	}
	// Two cables are within δ hops when some end of one is within k = δ−1
	// node hops of some end of the other. Every such pair of ends has a
	// midpoint: a node m within r = ⌊k/2⌋ of both (k even) or a node edge
	// (m1, m2) with each end within r of one of them (k odd). So the atoms
	// of Ball(m, r), respectively Ball(m1, r) ∪ Ball(m2, r), form cliques
	// that cover every pair, and hold no pair farther apart.
	k := delta - 1
	r := k / 2
	ball := newBaller(adj)
	var cliques [][]int32
	if k%2 == 0 {
		if r > 0 {
			for m := range numNodes {
				if len(atoms[m]) == 0 {
					continue
				}
				if b := ball.ball([]int32{int32(m)}, r); len(b) > 1 {
					cliques = append(cliques, b)
				}
			}
		}
	} else {
		for m1 := range numNodes {
			for _, m2 := range adj[m1] {
				if m2 <= int32(m1) {
					continue
				}
				if b := ball.ball([]int32{int32(m1), m2}, r); len(b) > 1 {
					cliques = append(cliques, b)
				}
			}
		}
	}
	// A node whose cables all lead to one neighbour (a host) has an atom
	// inside that neighbour's, and every clique that holds it holds the
	// neighbour too: dropping it changes no relation and saves a third of
	// the atoms of a fat tree.
	loop := make([]bool, numNodes)
	for _, c := range cables {
		if c.From == c.To {
			loop[c.From] = true
		}
	}
	atomID := make([]int32, numNodes)
	var kept [][]int32
	for v := range numNodes {
		atomID[v] = -1
		single := func(u int32) bool { return len(adj[u]) == 1 && !loop[u] }
		// two such nodes joined only to each other: keep the first
		if len(atoms[v]) > 0 && (!single(int32(v)) || (single(adj[v][0]) && adj[v][0] > int32(v))) {
			atomID[v] = int32(len(kept))
			kept = append(kept, atoms[v])
		}
	}
	var kc [][]int32
	for _, cl := range cliques {
		var m []int32
		for _, v := range cl {
			if a := atomID[v]; a >= 0 {
				m = append(m, a)
			}
		}
		if len(m) > 1 {
			kc = append(kc, m)
		}
	}
	atoms, cliques = kept, kc
	return g.finish(atoms, cliques), nil
}

// baller computes balls in a graph by breadth-first search with stamps.
type baller struct {
	adj   [][]int32
	seen  []int32
	stamp int32
}

func newBaller(adj [][]int32) *baller {
	return &baller{adj: adj, seen: make([]int32, len(adj))}
}

// ball returns the nodes within r hops of any of the centres, sorted.
func (b *baller) ball(centres []int32, r int) []int32 {
	b.stamp++
	out := make([]int32, 0, len(centres))
	for _, c := range centres {
		if b.seen[c] != b.stamp {
			b.seen[c] = b.stamp
			out = append(out, c)
		}
	}
	lo := 0
	for d := 0; d < r && lo < len(out); d++ { // stop when the ball stops growing
		hi := len(out)
		for _, v := range out[lo:hi] {
			for _, w := range b.adj[v] {
				if b.seen[w] != b.stamp {
					b.seen[w] = b.stamp
					out = append(out, w)
				}
			}
		}
		lo = hi
	}
	slices.Sort(out)
	return out
}

// GridGraph returns the graph of cables within L1 distance delta of each
// other on a torus (torus true) or mesh of the given dimensions: coord
// gives the coordinates of a node (a host: those of its switch). A cable
// lies halfway between its ends; on a torus a cable between the last and
// the first switch of a dimension lies beyond the last, and distances are
// taken the shorter way round.
func GridGraph(cables []Cable, coord func(node int32) []int, dims []int, torus bool, delta int) (*Graph, error) {
	if delta < 0 {
		return nil, fmt.Errorf("distance δ %d: want ≥ 0", delta)
	}
	if len(dims) == 0 {
		return nil, fmt.Errorf("grid without dimensions")
	}
	D := len(dims)
	// Points are doubled coordinates: a switch at 2c, a cable between c
	// and c+1 at 2c+1 (mod 2n on a torus).
	size2 := make([]int, D)
	for i, n := range dims {
		if n < 1 {
			return nil, fmt.Errorf("grid dimension %d: size %d", i, n)
		}
		size2[i] = 2 * n
	}
	index := func(p []int) int {
		idx := 0
		for i := D - 1; i >= 0; i-- {
			idx = idx*size2[i] + p[i]
		}
		return idx
	}
	g := &Graph{Metric: L1, Delta: delta, n: len(cables)}
	atomOf := make(map[int]int32)
	var atoms [][]int32
	var pts [][]int
	for i, c := range cables {
		a, b := coord(c.From), coord(c.To)
		if len(a) != D || len(b) != D {
			return nil, fmt.Errorf("cable %d: coordinates of %d dimensions, want %d", i, len(a), D)
		}
		p := make([]int, D)
		for d := range D {
			lo, hi := min(a[d], b[d]), max(a[d], b[d])
			switch {
			case lo == hi:
				p[d] = 2 * lo
			case hi-lo == 1:
				p[d] = 2*lo + 1
			case torus && lo == 0 && hi == dims[d]-1:
				p[d] = 2*hi + 1 // the wrap-around cable
			default:
				return nil, fmt.Errorf("cable %d: ends %v and %v are not grid neighbours", i, a, b)
			}
		}
		idx := index(p)
		at, ok := atomOf[idx]
		if !ok {
			at = int32(len(atoms))
			atomOf[idx] = at
			atoms = append(atoms, nil)
			pts = append(pts, p)
		}
		atoms[at] = append(atoms[at], int32(i))
	}
	// Cliques: every pair of distinct points within 2δ (doubled units).
	if n := l1Count(D, 2*delta) * float64(len(pts)); n > maxL1Checks {
		best := 0
		for d := delta - 1; d >= 0; d-- {
			if l1Count(D, 2*d)*float64(len(pts)) <= maxL1Checks {
				best = d
				break
			}
		}
		return nil, fmt.Errorf("δ %d on a %d-dimensional grid of %d cable points: %.3g distance checks, more than %.3g; the largest δ that fits is %d", delta, D, len(pts), n, float64(maxL1Checks), best)
	}
	offsets := l1Offsets(D, 2*delta)
	var cliques [][]int32
	near := make([][]int32, len(atoms)) // atoms within distance 1
	q := make([]int, D)
	for at, p := range pts {
		near[at] = append(near[at], int32(at))
		for _, off := range l1Offsets(D, 2) {
			for d := range D {
				q[d] = ((p[d]+off[d])%size2[d] + size2[d]) % size2[d]
			}
			if bt, found := atomOf[index(q)]; found && (torus || inside(p, off, size2)) {
				near[at] = append(near[at], bt)
			}
		}
		slices.Sort(near[at])
		near[at] = slices.Compact(near[at])
		for _, off := range offsets {
			ok := true
			for d := range D {
				v := p[d] + off[d]
				if torus {
					v = ((v % size2[d]) + size2[d]) % size2[d]
				} else if v < 0 || v >= size2[d] {
					ok = false
					break
				}
				q[d] = v
			}
			if !ok {
				continue
			}
			if bt, found := atomOf[index(q)]; found && bt > int32(at) {
				cliques = append(cliques, []int32{int32(at), bt})
			}
		}
	}
	// On a small torus two offsets can reach the same point: drop repeats.
	slices.SortFunc(cliques, func(x, y []int32) int { return slices.Compare(x, y) })
	cliques = slices.CompactFunc(cliques, func(x, y []int32) bool { return slices.Equal(x, y) })
	nc := make([][]int32, len(cables))
	for at, cs := range atoms {
		var list []int32
		for _, b := range near[at] {
			list = append(list, atoms[b]...)
		}
		slices.Sort(list)
		for _, c := range cs {
			nc[c] = list
		}
	}
	g.nearStart, g.nearCables = csr(nc)
	return g.finish(atoms, cliques), nil
}

// maxL1Checks bounds the point pairs GridGraph examines (offsets times
// points): a few seconds of work.
const maxL1Checks = 1e8

// l1Count returns the number of integer vectors of D components with L1
// norm at most r: Σ_k 2^k·C(D,k)·C(r,k).
func l1Count(D, r int) float64 {
	n, cd, cr, p := 0.0, 1.0, 1.0, 1.0
	for k := 0; k <= D && k <= r; k++ {
		n += p * cd * cr
		cd = cd * float64(D-k) / float64(k+1)
		cr = cr * float64(r-k) / float64(k+1)
		p *= 2
	}
	return n
}

// l1Offsets lists the non-zero integer vectors of D components with L1 norm
// at most r.
func l1Offsets(D, r int) [][]int {
	var out [][]int
	cur := make([]int, D)
	var rec func(d, left int)
	rec = func(d, left int) {
		if d == D {
			for _, v := range cur {
				if v != 0 {
					out = append(out, slices.Clone(cur))
					return
				}
			}
			return
		}
		for v := -left; v <= left; v++ {
			cur[d] = v
			rec(d+1, left-abs(v))
		}
		cur[d] = 0
	}
	rec(0, r)
	return out
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// inside reports whether p+off lies within the sizes (no wrap).
func inside(p, off, size []int) bool {
	for d := range p {
		if v := p[d] + off[d]; v < 0 || v >= size[d] {
			return false
		}
	}
	return true
}

package mapping

import (
	"container/heap"
	"math/bits"
	"slices"

	"orcs/rng"
)

func init() {
	register(&Strategy{
		Name: "bisect",
		Doc: "recursive bisection: the hosts are halved (a torus or mesh across its planes, another direct network by hop " +
			"distances, a tree at the widest boundary of the linear_bfs order: pods, then leaf switches), the ranks split " +
			"into parts of those sizes with the least traffic between them and towards their partners outside (graph growing, " +
			"Kernighan–Lin), recursively (LibTopoMap's recursive bisection); then the order at the leaves by swaps that " +
			"lower the objective (the routing decides which cables a rank's traffic takes)",
		Place: placeBisect,
	})
}

// bisector holds the state of one recursive bisection.
type bisector struct {
	p      *Problem
	g      *Graph
	part   []int8  // per rank: 0 = A, 1 = B, −1 = outside the current set
	gain   []int64 // per rank: growing gain, then Kernighan–Lin D
	leafAt []int32 // per slot (position in p.order): its leaf index
	dist   []int32 // hop distances between leaves, flat
	k      int
	pl     Placement
	// geo gives the hosts' coordinates on a generated torus or mesh; nil
	// elsewhere.
	geo *geometry
	// direct: leaf switches are cabled to each other (a torus, mesh or
	// other direct network): the host set is cut by hop distances.
	direct bool
	// parts lists, for the routing-aware order of a direct network, the
	// slots of every node of the recursion that first spans at most
	// partLeaves leaves.
	parts    [][]int32
	key      []int64 // per slot: the sort key of the current cut
	pull     []int64 // per rank: its partners' outside pull towards part A
	at       []int32 // per rank: its host's slot once placed, else −1
	reg      []int32 // per rank: the block it was last cut into (b.regions), −1 = none
	regions  []region
	stamp    int32   // partition counter, for region's cache
	count    []int32 // per leaf: scratch for medoid
	leafList []int32 // scratch for medoid
	// code and depth place every slot in the recursion, down to its part:
	// bit 63−i of code is the side taken at depth i.
	code  []uint64
	depth []uint8
}

// partLeaves is the number of leaf switches a part of the final
// routing-aware descent on a direct network spans at most.
const partLeaves = 4

func placeBisect(p *Problem) (Placement, error) {
	b := p.bisection()
	n := p.Comm.Ranks
	s, err := newSearcher(p, b.pl)
	if err != nil {
		return b.pl, nil // too large to score incrementally: the bisection as it is
	}
	if b.direct {
		return s.descendKeepingCuts(b, 40*n), nil
	}
	return s.descendInGroups(20 * n), nil
}

// bisection runs the recursive bisection; its placement is b.pl.
func (p *Problem) bisection() *bisector {
	n := p.Comm.Ranks
	leaves, leafAt, dist := p.leafDistances()
	b := &bisector{p: p, g: p.graphOf(), part: make([]int8, n), gain: make([]int64, n),
		leafAt: leafAt, dist: dist, k: len(leaves), pl: make(Placement, n), key: make([]int64, len(p.order)),
		code: make([]uint64, len(p.order)), depth: make([]uint8, len(p.order))}
	for i := range b.part {
		b.part[i] = -1
	}
	b.geo = p.gridGeometry()
	b.direct = b.geo != nil || p.leavesCabled(leaves)
	ranks := make([]int32, n)
	slots := make([]int32, n)
	for i := range ranks {
		ranks[i], slots[i] = int32(i), int32(i)
	}
	b.pull, b.at, b.reg = make([]int64, n), make([]int32, n), make([]int32, n)
	for i := range b.at {
		b.at[i], b.reg[i] = -1, -1
	}
	b.split(ranks, slots, !b.direct, 0, 0)
	return b
}

// split places ranks onto the hosts at the positions slots of the
// linear_bfs order (len(ranks) = len(slots)). inPart says that an
// enclosing node of the recursion is a part already; code and depth give
// the node's place in the recursion down to the parts (inside a part,
// and below depth 63, the children keep the node's code and depth).
func (b *bisector) split(ranks, slots []int32, inPart bool, code uint64, depth int) {
	if !inPart && b.leavesIn(slots) <= partLeaves {
		b.parts = append(b.parts, slices.Clone(slots))
		inPart = true
	}
	if len(slots) == 1 {
		b.pl[ranks[0]] = b.p.order[slots[0]]
		b.at[ranks[0]] = slots[0]
		b.code[slots[0]], b.depth[slots[0]] = code, uint8(depth)
		return
	}
	var mid int
	switch {
	case b.geo != nil:
		mid = b.cutGrid(slots)
	case b.direct:
		mid = b.cutDistance(slots)
	default:
		mid = b.boundary(slots)
	}
	a := b.partition(ranks, mid, b.medoid(slots[:mid]), b.medoid(slots[mid:]))
	ra := int32(len(b.regions))
	b.regions = append(b.regions, region{slots: slots[:mid]}, region{slots: slots[mid:]})
	for i, v := range ranks {
		if i < len(a) {
			b.reg[v] = ra
		} else {
			b.reg[v] = ra + 1
		}
	}
	if inPart || depth >= 63 {
		b.split(ranks[:len(a)], slots[:mid], inPart, code, depth)
		b.split(ranks[len(a):], slots[mid:], inPart, code, depth)
		return
	}
	b.split(ranks[:len(a)], slots[:mid], inPart, code, depth+1)
	b.split(ranks[len(a):], slots[mid:], inPart, code|1<<(63-depth), depth+1)
}

// descendKeepingCuts improves the placement by budget candidate swaps,
// each taken when it improves the objective: every other one swaps two
// slots of one part (the leaf order: which of a few neighbouring leaf
// switches a rank takes, decided by the routing), the others swap two
// ranks anywhere but only when that does not raise the bisection's cost
// Σ traffic × treeDist (the order among places the bisection cannot tell
// apart).
func (s *searcher) descendKeepingCuts(b *bisector, budget int) Placement {
	parts := b.parts
	partOf := make([]int32, len(s.slotRank))
	for i := range partOf {
		partOf[i] = -1
	}
	for i, pt := range parts {
		for _, sl := range pt {
			partOf[sl] = int32(i)
		}
	}
	r := rng.New(s.p.Seed, searchStream+1)
	n := len(s.rankSlot)
	for i := range budget {
		u := int32(r.IntN(n))
		su := s.rankSlot[u]
		if i%2 == 0 {
			pt := parts[partOf[su]]
			if sv := pt[r.IntN(len(pt))]; sv != su {
				s.try(su, sv, improves)
			}
			continue
		}
		v := int32(r.IntN(n))
		sv := s.rankSlot[v]
		if u != v && b.swapCost(u, v, su, sv, s.rankSlot) <= 0 {
			s.try(su, sv, improves)
		}
	}
	return s.placement()
}

// treeDist returns the number of recursion nodes between the slots x and
// y, counted down to the parts (0 inside one part): the traffic between
// their ranks leaves that many nodes, and the sum over all nodes of the
// traffic leaving it is what the recursion keeps low.
func (b *bisector) treeDist(x, y int32) int64 {
	common := min(bits.LeadingZeros64(b.code[x]^b.code[y]), int(b.depth[x]), int(b.depth[y]))
	return int64(b.depth[x]) + int64(b.depth[y]) - 2*int64(common)
}

// swapCost returns the change of Σ traffic × treeDist when the ranks u
// and v (on slots su and sv) trade places.
func (b *bisector) swapCost(u, v, su, sv int32, slotOf []int32) int64 {
	g := b.g
	var d int64
	for e := g.Start[u]; e < g.Start[u+1]; e++ {
		if q := g.Adj[e]; q != v {
			d += g.W[e] * (b.treeDist(sv, slotOf[q]) - b.treeDist(su, slotOf[q]))
		}
	}
	for e := g.Start[v]; e < g.Start[v+1]; e++ {
		if q := g.Adj[e]; q != u {
			d += g.W[e] * (b.treeDist(su, slotOf[q]) - b.treeDist(sv, slotOf[q]))
		}
	}
	return d
}

// medoid returns a slot of slots on the leaf with the least total hop
// distance to all of slots (the lowest such leaf): the middle of a part.
func (b *bisector) medoid(slots []int32) int32 {
	if b.count == nil {
		b.count = make([]int32, b.k)
	}
	leaves := b.leafList[:0]
	for _, s := range slots {
		l := b.leafAt[s]
		if b.count[l] == 0 {
			leaves = append(leaves, l)
		}
		b.count[l]++
	}
	b.leafList = leaves
	best, bestCost := int32(-1), int64(0)
	for _, c := range leaves {
		var cost int64
		row := b.dist[int(c)*b.k:]
		for _, l := range leaves {
			cost += int64(b.count[l]) * int64(row[l])
		}
		if best < 0 || cost < bestCost || cost == bestCost && c < best {
			best, bestCost = c, cost
		}
	}
	for _, l := range leaves {
		b.count[l] = 0
	}
	for _, s := range slots {
		if b.leafAt[s] == best {
			return s
		}
	}
	panic("unreachable")
}

// region is a block of hosts the recursion cut, with its ranks not placed
// yet: the mean hops from its hosts to the current halves' middles.
type region struct {
	slots  []int32
	stamp  int32
	pullAB int64
}

// pullScale is the unit of regionPull: 1/pullScale hop.
const pullScale = 16

// regionPull returns the mean over the hosts of region r of the hops to
// leaf lb minus those to leaf la, in 1/pullScale hops (cached for the
// current partition).
func (b *bisector) regionPull(r int32, la, lb int) int64 {
	rg := &b.regions[r]
	if rg.stamp != b.stamp {
		var s int64
		for _, sl := range rg.slots {
			row := int(b.leafAt[sl]) * b.k
			s += int64(b.dist[row+lb] - b.dist[row+la])
		}
		rg.stamp, rg.pullAB = b.stamp, s*pullScale/int64(len(rg.slots))
	}
	return rg.pullAB
}

// leavesIn returns the number of distinct leaves of slots, counted up to
// partLeaves + 1.
func (b *bisector) leavesIn(slots []int32) int {
	var seen [partLeaves + 1]int32
	n := 0
	for _, s := range slots {
		l := b.leafAt[s]
		if slices.Contains(seen[:n], l) {
			continue
		}
		seen[n] = l
		if n++; n > partLeaves {
			break
		}
	}
	return n
}

// boundary returns where to halve the host positions slots (ascending and
// contiguous in the linear_bfs order): among the boundaries between leaf
// switches inside the range, those between the most distant leaves (pods
// before leaves), the one nearest the middle; inside one leaf the middle.
func (b *bisector) boundary(slots []int32) int {
	mid := len(slots) / 2
	best, bestD := mid, int32(-1)
	for i := 1; i < len(slots); i++ {
		la, lb := b.leafAt[slots[i-1]], b.leafAt[slots[i]]
		if la == lb {
			continue
		}
		d := b.hops(la, lb)
		if d > bestD || d == bestD && abs(i-mid) < abs(best-mid) {
			best, bestD = i, d
		}
	}
	return best
}

// sortByKey sorts slots by b.key, ties by slot.
func (b *bisector) sortByKey(slots []int32) {
	slices.SortFunc(slots, func(x, y int32) int {
		if b.key[x] != b.key[y] {
			if b.key[x] < b.key[y] {
				return -1
			}
			return 1
		}
		return int(x - y)
	})
}

// cutGrid cuts slots across the dimension in which they span the most
// coordinates (the first such dimension): a plane of the torus or mesh.
func (b *bisector) cutGrid(slots []int32) int {
	g := b.geo
	dim, most := 0, 0
	for d := range g.dims {
		if n := g.spread(slots, d); n > most {
			dim, most = d, n
		}
	}
	for _, s := range slots {
		// The cut dimension first, then the others in order.
		k := int64(g.at(s, dim))
		for d := range g.dims {
			if d != dim {
				k = k*int64(g.size[d]) + int64(g.at(s, d))
			}
		}
		b.key[s] = k
	}
	return b.cutSorted(slots, func(x, y int32) bool {
		return g.at(x, dim) != g.at(y, dim)
	})
}

// cutSorted sorts slots by b.key and returns the position nearest the
// middle where differ says two neighbours lie on different sides; the
// middle if they never do.
func (b *bisector) cutSorted(slots []int32, differ func(x, y int32) bool) int {
	b.sortByKey(slots)
	mid := len(slots) / 2
	best := -1
	for i := 1; i < len(slots); i++ {
		if differ(slots[i-1], slots[i]) && (best < 0 || abs(i-mid) < abs(best-mid)) {
			best = i
		}
	}
	if best < 0 {
		return mid
	}
	return best
}

// cutDistance cuts slots of a direct network without coordinates by hop
// distances: from two far-apart leaves a (the farthest from the first
// slot's leaf) and c (the farthest from a), the hosts sorted by
// d(a, ·) − d(c, ·), then by d(a, ·) and leaf, are cut between leaves
// nearest the middle.
func (b *bisector) cutDistance(slots []int32) int {
	far := func(from int32) int32 {
		best := from
		for _, s := range slots {
			if l := b.leafAt[s]; b.hops(from, l) > b.hops(from, best) || b.hops(from, l) == b.hops(from, best) && l < best {
				best = l
			}
		}
		return best
	}
	a := far(b.leafAt[slots[0]])
	c := far(a)
	k := int64(b.k)
	for _, s := range slots {
		l := b.leafAt[s]
		da, dc := int64(b.hops(a, l)), int64(b.hops(c, l))
		b.key[s] = ((da-dc+k)*k+da)*k + int64(l)
	}
	return b.cutSorted(slots, func(x, y int32) bool { return b.leafAt[x] != b.leafAt[y] })
}

// hops returns the hop distance between the leaves x and y.
func (b *bisector) hops(x, y int32) int32 { return b.dist[int(x)*b.k+int(y)] }

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// partition reorders ranks so that its first size ranks are part A, the
// rest part B, with little traffic between them, and returns part A.
//
// Ranks outside the set pull their partners towards the nearer half
// (terminal propagation): a rank's traffic to a rank outside costs the
// hops from that rank's host to the middle host, repA or repB, of the half
// it goes to; for a rank not placed yet, the mean hops from the hosts of
// the block it was cut into.
func (b *bisector) partition(ranks []int32, size int, repA, repB int32) []int32 {
	g := b.g
	for _, v := range ranks {
		b.part[v] = 1
	}
	la, lb := int(b.leafAt[repA]), int(b.leafAt[repB])
	b.stamp++
	// Graph growing: A starts at a least-connected rank and takes the rank
	// with the largest gain (weight to A minus weight to the rest of B,
	// plus its pull towards A).
	for _, v := range ranks {
		var s, pull int64
		for e := g.Start[v]; e < g.Start[v+1]; e++ {
			q := g.Adj[e]
			if b.part[q] >= 0 {
				s += g.W[e]
				continue
			}
			if b.at[q] >= 0 {
				row := int(b.leafAt[b.at[q]]) * b.k
				pull += g.W[e] * int64(b.dist[row+lb]-b.dist[row+la]) * pullScale
			} else if r := b.reg[q]; r >= 0 {
				pull += g.W[e] * b.regionPull(r, la, lb)
			}
		}
		pull /= pullScale
		b.pull[v] = pull
		b.gain[v] = pull - s
	}
	h := &gainHeap{}
	taken := 0
	next := 0 // next seed candidate in ranks
	for taken < size {
		var v int32 = -1
		for h.Len() > 0 {
			it := heap.Pop(h).(gainItem)
			if b.part[it.v] == 1 && b.gain[it.v] == it.gain {
				v = it.v
				break
			}
		}
		if v < 0 { // a new component: its least-connected rank
			for ; b.part[ranks[next]] != 1; next++ {
			}
			v = ranks[next]
			for _, u := range ranks[next:] {
				if b.part[u] == 1 && b.gain[u] > b.gain[v] {
					v = u
				}
			}
		}
		b.part[v] = 0
		taken++
		for e := g.Start[v]; e < g.Start[v+1]; e++ {
			if u := g.Adj[e]; b.part[u] == 1 {
				b.gain[u] += 2 * g.W[e]
				heap.Push(h, gainItem{b.gain[u], u})
			}
		}
	}
	b.refine(ranks)
	slices.SortStableFunc(ranks, func(x, y int32) int { return int(b.part[x]) - int(b.part[y]) })
	for _, v := range ranks {
		b.part[v] = -1
	}

	return ranks[:size]
}

// refine improves the cut by Kernighan–Lin swaps: D(v) is v's weight to
// the other part minus its weight to its own, less its pull towards its
// own part; swapping a ∈ A and b ∈ B gains D(a) + D(b) − 2w(a, b). A pass
// takes, for each rank of A by falling D, the best gaining partner among
// the 16 ranks of B of largest D; passes repeat while they swap.
func (b *bisector) refine(ranks []int32) {
	g := b.g
	d := b.gain
	computeD := func(v int32) {
		var s int64
		for e := g.Start[v]; e < g.Start[v+1]; e++ {
			if q := b.part[g.Adj[e]]; q >= 0 {
				if q == b.part[v] {
					s -= g.W[e]
				} else {
					s += g.W[e]
				}
			}
		}
		if b.part[v] == 0 {
			s -= b.pull[v]
		} else {
			s += b.pull[v]
		}
		d[v] = s
	}
	for _, v := range ranks {
		computeD(v)
	}
	weight := func(x, y int32) int64 {
		for e := g.Start[x]; e < g.Start[x+1]; e++ {
			if g.Adj[e] == y {
				return g.W[e]
			}
		}
		return 0
	}
	const candidates = 16
	var as, bs []int32
	for pass := 0; pass < 8; pass++ {
		as, bs = as[:0], bs[:0]
		for _, v := range ranks {
			if b.part[v] == 0 {
				as = append(as, v)
			} else {
				bs = append(bs, v)
			}
		}
		byD := func(x, y int32) int {
			if d[x] != d[y] {
				if d[x] > d[y] {
					return -1
				}
				return 1
			}
			return int(x - y)
		}
		slices.SortFunc(as, byD)
		slices.SortFunc(bs, byD)
		bs = bs[:min(len(bs), candidates)]
		swapped := false
		if len(bs) == 0 {
			break
		}
		for _, x := range as {
			if b.part[x] != 0 {
				continue
			}
			if d[x]+d[bs[0]] <= 0 {
				break
			}
			best, bestGain := int32(-1), int64(0)
			for _, y := range bs {
				if b.part[y] != 1 {
					continue
				}
				if gn := d[x] + d[y] - 2*weight(x, y); gn > bestGain {
					best, bestGain = y, gn
				}
			}
			if best < 0 {
				continue
			}
			b.part[x], b.part[best] = 1, 0
			swapped = true
			for _, v := range [2]int32{x, best} {
				computeD(v)
				for e := g.Start[v]; e < g.Start[v+1]; e++ {
					if u := g.Adj[e]; b.part[u] >= 0 {
						computeD(u)
					}
				}
			}
		}
		if !swapped {
			break
		}
	}
}

// gainItem is a rank with its growing gain at the time it was pushed.
type gainItem struct {
	gain int64
	v    int32
}

// gainHeap pops the largest gain, then the lowest rank.
type gainHeap []gainItem

func (h gainHeap) Len() int { return len(h) }
func (h gainHeap) Less(i, j int) bool {
	if h[i].gain != h[j].gain {
		return h[i].gain > h[j].gain
	}
	return h[i].v < h[j].v
}
func (h gainHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *gainHeap) Push(x any)   { *h = append(*h, x.(gainItem)) }
func (h *gainHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

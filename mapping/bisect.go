package mapping

import (
	"container/heap"
	"slices"
)

func init() {
	register(&Strategy{
		Name: "bisect",
		Doc: "recursive bisection: the hosts in linear_bfs order are halved at the widest boundary (pods, then leaf " +
			"switches) near the middle, the ranks split into parts of those sizes with the least traffic between them " +
			"(graph growing plus Kernighan–Lin swaps), recursively (LibTopoMap's recursive bisection); then the order " +
			"inside each leaf switch by swaps that lower the objective (the routing decides which up-link a rank's traffic takes)",
		Place: placeBisect,
	})
}

// bisector holds the state of one recursive bisection.
type bisector struct {
	p      *Problem
	g      *Graph
	part   []int8  // per rank: 0 = A, 1 = B, −1 = outside the current set
	gain   []int64 // per rank: growing gain, then Kernighan–Lin D
	leafAt []int32
	dist   []int32
	k      int
	pl     Placement
}

func placeBisect(p *Problem) (Placement, error) {
	n := p.Comm.Ranks
	leaves, leafAt, dist := p.leafDistances()
	b := &bisector{p: p, g: p.graphOf(), part: make([]int8, n), gain: make([]int64, n),
		leafAt: leafAt, dist: dist, k: len(leaves), pl: make(Placement, n)}
	for i := range b.part {
		b.part[i] = -1
	}
	ranks := make([]int32, n)
	for i := range ranks {
		ranks[i] = int32(i)
	}
	b.split(ranks, 0, n)
	s, err := newSearcher(p, b.pl)
	if err != nil {
		return b.pl, nil // too large to score incrementally: the bisection as it is
	}
	return s.descendInGroups(20 * n), nil
}

// split places ranks onto the hosts at positions lo … hi−1 of the
// linear_bfs order (len(ranks) = hi − lo).
func (b *bisector) split(ranks []int32, lo, hi int) {
	if hi-lo == 1 {
		b.pl[ranks[0]] = b.p.order[lo]
		return
	}
	mid := b.boundary(lo, hi)
	a := b.partition(ranks, mid-lo)
	b.split(ranks[:len(a)], lo, mid)
	b.split(ranks[len(a):], mid, hi)
}

// boundary returns where to halve the host positions lo … hi−1: among the
// boundaries between leaf switches inside the range, those between the
// most distant leaves (pods before leaves), the one nearest the middle;
// inside one leaf the middle.
func (b *bisector) boundary(lo, hi int) int {
	mid := (lo + hi) / 2
	best, bestD := mid, int32(-1)
	for i := lo + 1; i < hi; i++ {
		la, lb := b.leafAt[i-1], b.leafAt[i]
		if la == lb {
			continue
		}
		d := b.dist[int(la)*b.k+int(lb)]
		if d > bestD || d == bestD && abs(i-mid) < abs(best-mid) {
			best, bestD = i, d
		}
	}
	return best
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// partition reorders ranks so that its first size ranks are part A, the
// rest part B, with little traffic between them, and returns part A.
func (b *bisector) partition(ranks []int32, size int) []int32 {
	g := b.g
	for _, v := range ranks {
		b.part[v] = 1
	}
	// Graph growing: A starts at a least-connected rank and takes the rank
	// with the largest gain (weight to A minus weight to the rest of B).
	for _, v := range ranks {
		var s int64
		for e := g.Start[v]; e < g.Start[v+1]; e++ {
			if b.part[g.Adj[e]] >= 0 {
				s += g.W[e]
			}
		}
		b.gain[v] = -s
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
// the other part minus its weight to its own; swapping a ∈ A and b ∈ B
// gains D(a) + D(b) − 2w(a, b).
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

package patterns

import (
	"fmt"

	"orcs/rng"
)

func init() {
	for _, x := range []int{2, 4, 6} {
		name := fmt.Sprintf("%dneighbor", x)
		Register(name, fmt.Sprintf("1 level: greedy nearest neighbours of degree %d (groups of %d ranks), both directions", x, x+1),
			genNeighbor(x, false), false)
		registerORCS2(name, genNeighbor(x, true))
	}
}

// genNeighbor returns the ORCS Xneighbor generator for degree x (capped at
// n−1). For i ascending, each free neighbour slot of i is filled with the
// next k > i that has a free slot and is not yet a neighbour of i; the link
// is made both ways and emitted as (i → k) then (k → i). The result is a
// sequence of disjoint groups of x+1 fully connected ranks.
//
// With orcs2 the same links are emitted in ORCS 2.0's order: ORCS 2.0 first
// fills every rank's slots, each rank keeping its neighbours in the order
// the links were made, and then emits, for every rank i ascending,
// (i → neighbour) for its neighbours in slot order. Rank i's links to lower
// ranks are made while those are processed, in ascending order, and its
// links to higher ranks while i is, ascending too, so the result is the
// pairs sorted by source, then destination; the two directions of a link
// lie apart. The order matters where ORCS 2.0's rules depend on it
// (get_cable_cong, dep_max_delay).
func genNeighbor(x int, orcs2 bool) Generator {
	return func(n int, _ *rng.Stream, _ []Level) []Level {
		x := min(x, n-1)
		deg := make([]int, n)
		nbrs := make([]int, n*x) // nbrs[i*x : i*x+deg[i]] are i's neighbours
		isNbr := func(i, k int) bool {
			for _, v := range nbrs[i*x : i*x+deg[i]] {
				if v == k {
					return true
				}
			}
			return false
		}
		var b builder
		for i := range n {
			// Skipped candidates stay unusable for i (degrees only grow and
			// a new neighbour stays one), so k only moves forward.
			k := i + 1
			for deg[i] < x {
				for k < n && (deg[k] >= x || isNbr(i, k)) {
					k++
				}
				if k == n {
					break
				}
				nbrs[i*x+deg[i]] = k
				nbrs[k*x+deg[k]] = i
				deg[i]++
				deg[k]++
				if !orcs2 {
					b.add(i, k)
					b.add(k, i)
				}
				k++
			}
		}
		if orcs2 {
			for i := range n {
				for _, k := range nbrs[i*x : i*x+deg[i]] {
					b.add(i, k)
				}
			}
		}
		b.end()
		return b.levels()
	}
}

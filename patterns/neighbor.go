package patterns

import "orcs/rng"

func init() {
	Register("2neighbor", "1 level: greedy nearest neighbours of degree 2 (groups of 3 ranks), both directions", genNeighbor(2), false)
	Register("4neighbor", "1 level: greedy nearest neighbours of degree 4 (groups of 5 ranks), both directions", genNeighbor(4), false)
	Register("6neighbor", "1 level: greedy nearest neighbours of degree 6 (groups of 7 ranks), both directions", genNeighbor(6), false)
}

// genNeighbor returns the ORCS Xneighbor generator for degree x (capped at
// n−1). For i ascending, each free neighbour slot of i is filled with the
// next k > i that has a free slot and is not yet a neighbour of i; the link
// is made both ways and emitted as (i → k) then (k → i). The result is a
// sequence of disjoint groups of x+1 fully connected ranks.
func genNeighbor(x int) Generator {
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
				b.add(i, k)
				b.add(k, i)
				k++
			}
		}
		b.end()
		return b.levels()
	}
}

package patterns

import "orcs/rng"

func init() {
	Register("alltoall", "n−1 levels: level l has (i → (i+l+1) mod n) for every i", genAlltoall, false)
}

// genAlltoall returns the shifted all-to-all exchange: level l = 0 … n−2 has
// (i → (i+l+1) mod n) for every rank i ascending, so every ordered pair of
// distinct ranks occurs exactly once.
func genAlltoall(n int, _ *rng.Stream, _ []Level) []Level {
	b := builder{pairs: make([]Pair, 0, n*(n-1))}
	for l := 0; l < n-1; l++ {
		for i := range n {
			b.add(i, (i+l+1)%n)
		}
		b.end()
	}
	return b.levels()
}

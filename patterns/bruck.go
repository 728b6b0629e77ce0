package patterns

import "orcs/rng"

func init() {
	Register("bruck", "⌈log2 n⌉ levels: level l has (i → (i+2^l) mod n) for every i", genBruck, false)
}

// genBruck returns the Bruck pattern: level l, with d = 2^l < n, has
// (i → (i+d) mod n) for every rank i ascending.
func genBruck(n int, _ *rng.Stream, _ []Level) []Level {
	var b builder
	for d := 1; d < n; d *= 2 {
		for i := range n {
			b.add(i, (i+d)%n)
		}
		b.end()
	}
	return b.levels()
}

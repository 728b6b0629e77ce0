package patterns

import "orcs/rng"

func init() {
	Register("tree", "⌈log2 n⌉ levels: binomial broadcast, level l has (i → i+2^l) for i < 2^l, i+2^l < n", genTree, false)
}

// genTree returns the binomial broadcast tree rooted at rank 0: level l,
// with d = 2^l, has (i → i+d) for i = 0 … d−1 with i+d < n.
func genTree(n int, _ *rng.Stream, _ []Level) []Level {
	var b builder
	for l := range ceilLog2(n) {
		d := 1 << l
		for i := 0; i < d && i+d < n; i++ {
			b.add(i, i+d)
		}
		b.end()
	}
	return b.levels()
}

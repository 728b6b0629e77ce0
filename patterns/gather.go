package patterns

import "orcs/rng"

func init() {
	Register("gather", "1 level: (i → 0) for i = 1 … n−1", genGather, false)
	Register("scatter", "1 level: (0 → i) for i = 1 … n−1", genScatter, false)
}

// genGather returns one level in which every rank i > 0 sends to rank 0.
func genGather(n int, _ *rng.Stream, _ []Level) []Level {
	var b builder
	for i := 1; i < n; i++ {
		b.add(i, 0)
	}
	b.end()
	return b.levels()
}

// genScatter returns one level in which rank 0 sends to every rank i > 0.
func genScatter(n int, _ *rng.Stream, _ []Level) []Level {
	var b builder
	for i := 1; i < n; i++ {
		b.add(0, i)
	}
	b.end()
	return b.levels()
}

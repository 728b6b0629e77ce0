package patterns

import "orcs/rng"

func init() {
	Register("ring", "n levels: level l has the single pair (l → (l+1) mod n)", genRing, false)
}

// genRing returns n levels; level l holds the single pair (l → (l+1) mod n).
// For n = 1 that pair would be a self-send, so the one level is empty.
func genRing(n int, _ *rng.Stream, _ []Level) []Level {
	var b builder
	for l := range n {
		if dst := (l + 1) % n; dst != l {
			b.add(l, dst)
		}
		b.end()
	}
	return b.levels()
}

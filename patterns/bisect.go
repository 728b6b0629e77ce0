package patterns

import "orcs/rng"

func init() {
	Register("bisect", "1 level: (2i+1 → 2i) for i < ⌊n/2⌋; one direction, an odd n leaves the last rank idle", genBisect, false)
	Register("bisect_fb_sym", "1 level: (c → c+1) and (c+1 → c) for every even c < n−1", genBisectFBSym, false)
}

// genBisect returns one level with (2i+1 → 2i) for i = 0 … ⌊n/2⌋−1.
func genBisect(n int, _ *rng.Stream, _ []Level) []Level {
	var b builder
	for i := 0; i < n/2; i++ {
		b.add(2*i+1, 2*i)
	}
	b.end()
	return b.levels()
}

// genBisectFBSym returns one level with (c → c+1) then (c+1 → c) for every
// even c < n−1, c ascending.
func genBisectFBSym(n int, _ *rng.Stream, _ []Level) []Level {
	var b builder
	for c := 0; c < n-1; c += 2 {
		b.add(c, c+1)
		b.add(c+1, c)
	}
	b.end()
	return b.levels()
}

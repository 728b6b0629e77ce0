package patterns

import "orcs/rng"

func init() {
	Register("rand", "1 level: a uniformly random derangement (every rank sends once and receives once, never to itself)", genRand, true)
}

// genRand draws a uniformly random derangement of 0 … n−1 and returns it as
// one level (i → π(i)) for i ascending. For n < 2 no derangement exists and
// the level is empty.
//
// It samples by rejection: a Fisher–Yates shuffle is abandoned as soon as a
// position that has become final is a fixed point. Accepting only complete
// shuffles without fixed points makes every derangement equally likely; about
// e ≈ 2.72 shuffles are needed on average.
func genRand(n int, r *rng.Stream, scratch []Level) []Level {
	out := reuse(scratch, 1)
	if n < 2 {
		return out
	}
	lv := out[0]
	if cap(lv) < n {
		lv = make(Level, n)
	}
	lv = lv[:n]
	for i := range lv {
		lv[i] = Pair{int32(i), int32(i)}
	}
	for !shuffleDerangement(lv, r) {
	}
	out[0] = lv
	return out
}

// shuffleDerangement shuffles the Dst fields of lv (any permutation of
// 0 … n−1) uniformly and reports whether the result has no fixed point. It
// stops early, leaving a permutation, as soon as a fixed point is certain.
func shuffleDerangement(lv Level, r *rng.Stream) bool {
	for i := len(lv) - 1; i > 0; i-- {
		j := r.IntN(i + 1)
		lv[i].Dst, lv[j].Dst = lv[j].Dst, lv[i].Dst
		if lv[i].Dst == int32(i) { // position i is final
			return false
		}
	}
	return lv[0].Dst != 0
}

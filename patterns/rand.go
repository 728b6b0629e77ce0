package patterns

import "orcs/rng"

func init() {
	Register("rand", "1 level: a uniformly random derangement (every rank sends once and receives once, never to itself)", genRand, true)
	registerORCS2("rand", genRandORCS2)
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

// genRandORCS2 draws the rand level with ORCS 2.0's algorithm, which yields
// a derangement that is not uniformly distributed (for n = 3 the two
// derangements come out with probabilities 3/8 and 5/8). Every random
// choice is a uniform integer drawn from r.
//
// ORCS 2.0 keeps a list of the destinations not yet taken, initially
// 0 … n−1 in order. For every source s = 0, 1, …, n−1 it draws a position
// uniformly in the list; if the destination there is not s, it emits
// (s → destination) and removes it from the list. If it is s, it draws
// again, unless s is the last rank: then s is the only destination left,
// and ORCS picks one of the pairs already emitted uniformly, gives that pair
// the destination n−1 and emits (n−1 → the pair's old destination) last.
// For n < 2 the level is empty (ORCS 2.0 failed there).
func genRandORCS2(n int, r *rng.Stream, scratch []Level) []Level {
	out := reuse(scratch, 1)
	if n < 2 {
		return out
	}
	lv := out[0]
	free := make([]int32, n)
	for i := range free {
		free[i] = int32(i)
	}
	for src := int32(0); src < int32(n); src++ {
		for {
			pos := r.IntN(len(free))
			if dst := free[pos]; dst != src {
				lv = append(lv, Pair{src, dst})
				free = append(free[:pos], free[pos+1:]...)
				break
			}
			if int(src) == n-1 {
				j := r.IntN(len(lv))
				lv = append(lv, Pair{src, lv[j].Dst})
				lv[j].Dst = src
				break
			}
		}
	}
	out[0] = lv
	return out
}

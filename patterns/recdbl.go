package patterns

import "orcs/rng"

func init() {
	Register("recdbl", "recursive doubling on the largest power of two P ≤ n, plus one level (i → i+P) if n > P", genRecdbl, false)
}

// genRecdbl returns recursive doubling. With P the largest power of two
// ≤ n, level l (d = 2^l < P) has, for k ascending with bit l of k clear and
// k+d < P, the exchange (k → k+d) then (k+d → k). If n > P one more level
// has (i → i+P) for i < n−P.
func genRecdbl(n int, _ *rng.Stream, _ []Level) []Level {
	p := 1
	for 2*p <= n {
		p *= 2
	}
	var b builder
	for d := 1; d < p; d *= 2 {
		for k := 0; k+d < p; k++ {
			if k&d == 0 {
				b.add(k, k+d)
				b.add(k+d, k)
			}
		}
		b.end()
	}
	if n > p {
		for i := 0; i < n-p; i++ {
			b.add(i, i+p)
		}
		b.end()
	}
	return b.levels()
}

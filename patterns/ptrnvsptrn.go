package patterns

import (
	"fmt"
	"sync"

	"orcs/rng"
)

const pvpName = "ptrnvsptrn"

func init() {
	registerCompiler(pvpName, "two patterns side by side: -f on ranks 0…z−1, -c (background, cycled) on z…n−1", compilePvP)
}

// compilePvP compiles ptrnvsptrn: the first pattern (spec.First) on ranks
// 0 … z−1 and the second (spec.Second) on ranks z … n−1, z = spec.Part.
func compilePvP(spec Spec, n int) (*Source, error) {
	z := spec.Part
	if z < 1 || z >= n {
		return nil, fmt.Errorf("%s: -z/--part_commsize %d out of range: need 1 ≤ z < commsize %d", pvpName, z, n)
	}
	first, second := spec.First, spec.Second
	if first == "" {
		first = DefaultName
	}
	if second == "" {
		second = DefaultName
	}
	if first == pvpName || second == pvpName {
		return nil, fmt.Errorf("%s: nested %s is not allowed (first %q, second %q)", pvpName, pvpName, first, second)
	}
	a, err := Compile(Spec{Name: first, ORCS2: spec.ORCS2}, z)
	if err != nil {
		return nil, fmt.Errorf("%s: first pattern: %w", pvpName, err)
	}
	b, err := Compile(Spec{Name: second, ORCS2: spec.ORCS2}, n-z)
	if err != nil {
		return nil, fmt.Errorf("%s: second pattern: %w", pvpName, err)
	}
	if !a.random && !b.random {
		s := fixedSource(merge(nil, a.fixed, b.fixed, int32(z)), n)
		s.first = z
		return s, nil
	}
	type scratch struct{ a, b []Level }
	pool := &sync.Pool{New: func() any { return new(scratch) }}
	gen := func(r *rng.Stream, out []Level) []Level {
		sc := pool.Get().(*scratch)
		la := a.Levels(r, sc.a)
		lb := b.Levels(r, sc.b)
		out = merge(out, la, lb, int32(z))
		if a.random {
			sc.a = la
		}
		if b.random {
			sc.b = lb
		}
		pool.Put(sc)
		return out
	}
	return &Source{n: n, first: z, random: true, gen: gen}, nil
}

// merge writes into out (reusing its capacity) the pattern whose level k is
// level k of a followed by level k mod len(b) of b with ranks shifted by z:
// while a still has levels, b restarts from its level 0 whenever it runs
// out; once a is exhausted b finishes the cycle it is in (or, when longer
// than a, runs to its end). It has pvpLevels levels.
func merge(out, a, b []Level, z int32) []Level {
	la, lb := len(a), len(b)
	out = reuse(out, pvpLevels(la, lb))
	for k := range out {
		lv := out[k]
		if k < la {
			lv = append(lv, a[k]...)
		}
		if lb > 0 {
			for _, p := range b[k%lb] {
				lv = append(lv, Pair{p.Src + z, p.Dst + z})
			}
		}
		out[k] = lv
	}
	return out
}

// pvpLevels returns the number of levels of ptrnvsptrn for a first pattern
// of la and a second of lb levels: lb·⌈la/lb⌉ (la if lb = 0, lb if la = 0),
// the spec's decision and ORCS 2.0's count. The second pattern is
// background traffic that keeps running while the first has levels; when
// the first ends, the second finishes the cycle it is in. It differs from
// max(la, lb) when 0 < lb < la and lb does not divide la: a first pattern of
// 3 levels against a second of 2 gives 4 levels, the last one with the
// second pattern's level 1 only.
//
// ORCS 2.0 asks both generators for one level at a time, the second at its
// own level counter, which it resets to 0 when the second pattern has no
// such level while the first still has one; the run ends at the first
// level for which both patterns are empty, which gives this count. (ORCS
// 2.0 also kept the second counter from one run to the next; as every run
// ends with the counter past the second pattern's end, a first pattern with
// levels resets it at once and runs are alike. Only with an empty first
// pattern did ORCS simulate nothing after its first run; here every run is
// alike.)
func pvpLevels(la, lb int) int {
	if la == 0 || lb == 0 {
		return max(la, lb)
	}
	return (la + lb - 1) / lb * lb
}

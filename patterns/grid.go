package patterns

import "orcs/rng"

func init() {
	Register("neighbor2d", "1 level: halo exchange on a balanced px×py torus (px ≥ py, row-major ranks), ±x then ±y", genGrid(2), false)
	Register("neighbor3d", "1 level: halo exchange on a balanced px×py×pz torus (px ≥ py ≥ pz, row-major ranks), ±x, ±y, ±z", genGrid(3), false)
}

// Dims returns the most balanced factorisation of n into d ≥ 1 factors, the
// largest first, like MPI_Dims_create: among all factorisations it picks the
// one with the smallest difference between the largest and the smallest
// factor, and among those the one that is lexicographically smallest. It
// returns nil for n < 1.
func Dims(n, d int) []int {
	if n < 1 || d < 1 {
		return nil
	}
	var best []int
	cur := make([]int, 0, d)
	// search fills cur with non-increasing factors whose product is m·prod(cur) = n.
	var search func(m, maxf int)
	search = func(m, maxf int) {
		if len(cur) == d-1 {
			if m > maxf {
				return
			}
			cand := append(append([]int(nil), cur...), m)
			if best == nil || better(cand, best) {
				best = cand
			}
			return
		}
		for f := min(m, maxf); f >= 1; f-- {
			if m%f == 0 {
				cur = append(cur, f)
				search(m/f, f)
				cur = cur[:len(cur)-1]
			}
		}
	}
	search(n, n)
	return best
}

// better reports whether the non-increasing factorisation a is more balanced
// than b (smaller spread, then lexicographically smaller).
func better(a, b []int) bool {
	sa, sb := a[0]-a[len(a)-1], b[0]-b[len(b)-1]
	if sa != sb {
		return sa < sb
	}
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// genGrid returns the nearest-neighbour halo exchange on a d-dimensional
// torus with dimensions Dims(n, d). Ranks are numbered row-major (the last
// coordinate varies fastest). Each rank i ascending sends to its +, −
// neighbour in dimension 0, then 1 (then 2), with wrap-around; pairs to
// itself and repeated pairs (dimension of size 1 or 2) are dropped.
func genGrid(d int) Generator {
	return func(n int, _ *rng.Stream, _ []Level) []Level {
		dims := Dims(n, d)
		stride := make([]int, d) // rank = Σ coord[k]·stride[k]
		s := 1
		for k := d - 1; k >= 0; k-- {
			stride[k] = s
			s *= dims[k]
		}
		var b builder
		seen := make([]int, 0, 2*d)
		for i := range n {
			seen = seen[:0]
			for k := range d {
				c := i / stride[k] % dims[k]
				base := i - c*stride[k]
				for _, step := range [2]int{1, dims[k] - 1} {
					j := base + (c+step)%dims[k]*stride[k]
					if j == i || contains(seen, j) {
						continue
					}
					seen = append(seen, j)
					b.add(i, j)
				}
			}
		}
		b.end()
		return b.levels()
	}
}

// contains reports whether s holds v.
func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

package patterns

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"orcs/rng"
)

// TestORCS2PairsValid: every pattern generated with Spec.ORCS2 has valid,
// distinct pairs, like the corrected ones.
func TestORCS2PairsValid(t *testing.T) {
	for n := 1; n <= propMaxN; n++ {
		for _, spec := range allSpecs(n) {
			spec.ORCS2 = true
			src, err := Compile(spec, n)
			if err != nil {
				t.Fatalf("Compile(%+v, %d): %v", spec, n, err)
			}
			for seed := range 3 {
				for k, l := range src.Levels(rng.New(uint64(seed), uint64(n)), nil) {
					seen := map[Pair]bool{}
					for _, p := range l {
						if p.Src < 0 || p.Dst < 0 || int(p.Src) >= n || int(p.Dst) >= n || p.Src == p.Dst || seen[p] && spec.Name != "nccl_tree_allreduce" {
							t.Fatalf("%+v n=%d level %d: bad or repeated pair %v", spec, n, k, p)
						}
						seen[p] = true
					}
				}
			}
		}
	}
}

// TestRandORCS2Derangement: ORCS 2.0's rand is a permutation without fixed
// points, in ascending source order.
func TestRandORCS2Derangement(t *testing.T) {
	for n := 1; n <= 33; n++ {
		src, err := Compile(Spec{Name: "rand", ORCS2: true}, n)
		if err != nil {
			t.Fatal(err)
		}
		var scratch []Level
		for seed := range 50 {
			scratch = src.Levels(rng.New(uint64(seed), 0), scratch)
			l := scratch[0]
			if len(scratch) != 1 || (n < 2 && len(l) != 0) || (n >= 2 && len(l) != n) {
				t.Fatalf("rand orcs2 n=%d: %v", n, scratch)
			}
			recv := make([]bool, n)
			for i, p := range l {
				if int(p.Src) != i || p.Dst == p.Src || recv[p.Dst] {
					t.Fatalf("rand orcs2 n=%d seed %d: not a derangement: %v", n, seed, l)
				}
				recv[p.Dst] = true
			}
		}
	}
}

// TestRandORCS2Distribution checks ORCS 2.0's rand on 3 ranks against its
// distribution worked out by hand. The free destinations start as [0 1 2].
//
//	Rank 0 draws among 3; drawing itself it draws again: 1 or 2, ½ each.
//	0→1 (free [0 2]): rank 1 draws 0 or 2, ½ each.
//	  1→0 (free [2]): rank 2 draws itself and, being last, swaps with one
//	    of the two pairs, ½ each: with 0→1 it gives 0→2 1→0 2→1, with 1→0
//	    it gives 0→1 1→2 2→0.
//	  1→2 (free [0]): 2→0, giving 0→1 1→2 2→0.
//	0→2 (free [0 1]): rank 1 redraws until it gets 0, then 2→1: 0→2 1→0 2→1.
//
// So P(0→1 1→2 2→0) = ½·(½·½ + ½) = 3/8 and P(0→2 1→0 2→1) = 5/8, where a
// uniform derangement (the default rand) gives ½ each.
func TestRandORCS2Distribution(t *testing.T) {
	const draws = 80000
	for _, c := range []struct {
		orcs2 bool
		want  float64
	}{{true, 3.0 / 8}, {false, 0.5}} {
		src, err := Compile(Spec{Name: "rand", ORCS2: c.orcs2}, 3)
		if err != nil {
			t.Fatal(err)
		}
		r := rng.New(77, 0)
		var scratch []Level
		cycle := 0
		for range draws {
			scratch = src.Levels(r, scratch)
			if scratch[0][0].Dst == 1 {
				cycle++
			}
		}
		// Standard deviation of the fraction: √(p(1−p)/draws) < 0.0018.
		if got := float64(cycle) / draws; math.Abs(got-c.want) > 0.01 {
			t.Errorf("rand orcs2=%v n=3: P(0→1 1→2 2→0) = %.4f, want %.4f", c.orcs2, got, c.want)
		}
	}
}

// TestNeighborORCS2Order: ORCS 2.0 emits every rank's neighbours in the
// order its links were made. Rank i's links to lower ranks are made while
// those ranks are processed (ascending), its links to higher ones while i is
// (ascending too), so the ORCS 2.0 order is simply by source, then by
// destination. For 2neighbor on 6 ranks (groups {0,1,2}, {3,4,5}):
func TestNeighborORCS2Order(t *testing.T) {
	want := Level{{0, 1}, {0, 2}, {1, 0}, {1, 2}, {2, 0}, {2, 1}, {3, 4}, {3, 5}, {4, 3}, {4, 5}, {5, 3}, {5, 4}}
	if got := mustLevels(t, Spec{Name: "2neighbor", ORCS2: true}, 6)[0]; !slices.Equal(got, want) {
		t.Errorf("2neighbor orcs2 n=6 = %v, want %v", got, want)
	}
	// The corrected generator emits both directions of a link together.
	corrected := Level{{0, 1}, {1, 0}, {0, 2}, {2, 0}, {1, 2}, {2, 1}, {3, 4}, {4, 3}, {3, 5}, {5, 3}, {4, 5}, {5, 4}}
	if got := mustLevels(t, Spec{Name: "2neighbor"}, 6)[0]; !slices.Equal(got, corrected) {
		t.Errorf("2neighbor n=6 = %v, want %v", got, corrected)
	}
	// For every size and degree: the same pairs, sorted.
	for _, x := range []int{2, 4, 6} {
		name := fmt.Sprintf("%dneighbor", x)
		for n := 1; n <= propMaxN; n++ {
			got := mustLevels(t, Spec{Name: name, ORCS2: true}, n)[0]
			sorted := slices.Clone(mustLevels(t, Spec{Name: name}, n)[0])
			slices.SortFunc(sorted, func(a, b Pair) int {
				if a.Src != b.Src {
					return int(a.Src - b.Src)
				}
				return int(a.Dst - b.Dst)
			})
			if !slices.Equal(got, sorted) {
				t.Fatalf("%s orcs2 n=%d = %v, want %v", name, n, got, sorted)
			}
		}
	}
}

// TestPvPLevelsORCS2: -f tree -z 6 (3 levels) against a tree on the other 3
// ranks (2 levels: 0→1, then 0→2). ORCS 2.0 lets the second finish its
// cycle, so a fourth level carries its level 1 alone; the default does the
// same (the spec's decision), with or without --compat orcs2.
func TestPvPLevelsORCS2(t *testing.T) {
	spec := Spec{Name: pvpName, First: "tree", Second: "tree", Part: 6}
	want := []Level{
		{{0, 1}, {6, 7}},
		{{0, 2}, {1, 3}, {6, 8}},
		{{0, 4}, {1, 5}, {6, 7}},
		{{6, 8}},
	}
	if got := mustLevels(t, spec, 9); !equalLevels(got, want) {
		t.Errorf("default: %v, want %v", got, want)
	}
	spec.ORCS2 = true
	if got := mustLevels(t, spec, 9); !equalLevels(got, want) {
		t.Errorf("orcs2: %v, want %v", got, want)
	}
	for _, c := range [][3]int{{3, 2, 4}, {5, 2, 6}, {4, 2, 4}, {1, 3, 3}, {3, 1, 3}, {0, 2, 2}, {2, 0, 2}, {0, 0, 0}} {
		if got := pvpLevels(c[0], c[1]); got != c[2] {
			t.Errorf("pvpLevels(%d, %d) = %d, want %d", c[0], c[1], got, c[2])
		}
	}
}

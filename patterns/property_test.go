package patterns

import (
	"fmt"
	"sync"
	"testing"

	"orcs/rng"
)

// propMaxN is the largest commsize the property tests try.
const propMaxN = 40

// allSpecs returns every registered pattern plus ptrnvsptrn combinations
// for commsize n (those with an invalid z for n are left out).
func allSpecs(n int) []Spec {
	var specs []Spec
	for _, name := range Names() {
		if name != pvpName {
			specs = append(specs, Spec{Name: name})
		}
	}
	for _, f := range []string{"", "tree", "rand", "null", "ring", "alltoall"} {
		for _, c := range []string{"", "bisect_fb_sym", "rand", "null", "recdbl"} {
			for _, z := range []int{1, 3, n / 2, n - 1} {
				if z >= 1 && z < n {
					specs = append(specs, Spec{Name: pvpName, First: f, Second: c, Part: z})
				}
			}
		}
	}
	return specs
}

// forAll calls check with the levels of every spec of allSpecs for
// n = 1 … propMaxN (random ones for a few seeds).
func forAll(t *testing.T, check func(t *testing.T, spec Spec, n int, levels []Level)) {
	for n := 1; n <= propMaxN; n++ {
		for _, spec := range allSpecs(n) {
			src, err := Compile(spec, n)
			if err != nil {
				t.Fatalf("Compile(%+v, %d): %v", spec, n, err)
			}
			runs := 1
			if src.Random() {
				runs = 5
			}
			for seed := range runs {
				check(t, spec, n, src.Levels(rng.New(uint64(seed), uint64(n)), nil))
			}
		}
	}
}

func TestPairsValid(t *testing.T) {
	forAll(t, func(t *testing.T, spec Spec, n int, levels []Level) {
		for k, l := range levels {
			seen := map[Pair]bool{}
			for _, p := range l {
				if p.Src < 0 || p.Dst < 0 || int(p.Src) >= n || int(p.Dst) >= n || p.Src == p.Dst {
					t.Fatalf("%+v n=%d level %d: invalid pair %v", spec, n, k, p)
				}
				// the double binary tree runs two channels per rail: on few
				// nodes both trees can join the same two GPUs
				if seen[p] && spec.Name != "nccl_tree_allreduce" {
					t.Fatalf("%+v n=%d level %d: duplicate pair %v", spec, n, k, p)
				}
				seen[p] = true
			}
		}
	})
}

// TestLevelCounts checks the number of levels (and pairs, where the table
// fixes it) against the spec's table.
func TestLevelCounts(t *testing.T) {
	for n := 1; n <= propMaxN; n++ {
		p, log2P := 1, 0
		for 2*p <= n {
			p, log2P = 2*p, log2P+1
		}
		recdbl := log2P
		if n > p {
			recdbl++
		}
		wantLevels := map[string]int{
			"null": 0, "rand": 1, "bisect": 1, "bisect_fb_sym": 1, "tree": ceilLog2(n), "bruck": ceilLog2(n),
			"gather": 1, "scatter": 1, "ring": n, "recdbl": recdbl, "2neighbor": 1, "4neighbor": 1, "6neighbor": 1,
			"alltoall": n - 1, "neighbor2d": 1, "neighbor3d": 1,
			// NCCL collectives with Rails 0, taken as 1: every rank a node
			"nccl_ring_allreduce": 1, "nccl_ring_allgather": 1, "nccl_ring_reducescatter": 1,
			"nccl_tree_allreduce": 1, "nccl_alltoall": n - 1, "nccl_alltoall_pxn": n - 1,
		}
		pairsPerLevel := map[string]int{
			"bisect": n / 2, "bisect_fb_sym": n / 2 * 2, "gather": n - 1, "scatter": n - 1,
			"bruck": n, "alltoall": n, "rand": n, "ring": 1,
		}
		if n == 1 {
			pairsPerLevel["rand"], pairsPerLevel["ring"] = 0, 0
		}
		for name, want := range wantLevels {
			levels := mustLevels(t, Spec{Name: name}, n)
			if len(levels) != want {
				t.Errorf("%s n=%d: %d levels, want %d", name, n, len(levels), want)
			}
			if pp, ok := pairsPerLevel[name]; ok {
				for k, l := range levels {
					if len(l) != pp {
						t.Errorf("%s n=%d level %d: %d pairs, want %d", name, n, k, len(l), pp)
					}
				}
			}
		}
		if len(wantLevels) != len(Names())-1 {
			t.Fatalf("level count table covers %d patterns, registry has %d besides ptrnvsptrn", len(wantLevels), len(Names())-1)
		}
	}
}

// TestSymmetric checks that patterns made of exchanges have (b → a) in the
// level of every (a → b).
func TestSymmetric(t *testing.T) {
	for _, name := range []string{"bisect_fb_sym", "2neighbor", "4neighbor", "6neighbor", "neighbor2d", "neighbor3d"} {
		for n := 1; n <= propMaxN; n++ {
			for k, l := range mustLevels(t, Spec{Name: name}, n) {
				set := map[Pair]bool{}
				for _, p := range l {
					set[p] = true
				}
				for _, p := range l {
					if !set[Pair{p.Dst, p.Src}] {
						t.Errorf("%s n=%d level %d: %v without its reverse", name, n, k, p)
					}
				}
			}
		}
	}
}

// TestNeighborGroups checks that Xneighbor forms disjoint cliques of X+1
// consecutive ranks (X capped at n−1).
func TestNeighborGroups(t *testing.T) {
	for _, x := range []int{2, 4, 6} {
		for n := 1; n <= propMaxN; n++ {
			levels := mustLevels(t, Spec{Name: fmt.Sprintf("%dneighbor", x)}, n)
			g := min(x, n-1) + 1
			set := map[Pair]bool{}
			for _, p := range levels[0] {
				set[p] = true
			}
			want := 0
			for i := range n {
				for k := range n {
					same := i != k && i/g == k/g
					want += btoi(same)
					if set[Pair{int32(i), int32(k)}] != same {
						t.Fatalf("%dneighbor n=%d: pair %d→%d present = %v, want %v", x, n, i, k, !same, same)
					}
				}
			}
			if len(levels[0]) != want {
				t.Fatalf("%dneighbor n=%d: %d pairs, want %d", x, n, len(levels[0]), want)
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestRingShape(t *testing.T) {
	for n := 2; n <= propMaxN; n++ {
		levels := mustLevels(t, Spec{Name: "ring"}, n)
		if len(levels) != n {
			t.Fatalf("ring n=%d: %d levels", n, len(levels))
		}
		for l, lv := range levels {
			if len(lv) != 1 || lv[0] != (Pair{int32(l), int32((l + 1) % n)}) {
				t.Fatalf("ring n=%d level %d = %v", n, l, lv)
			}
		}
	}
}

func TestAlltoallEveryPairOnce(t *testing.T) {
	for n := 1; n <= propMaxN; n++ {
		count := map[Pair]int{}
		for _, l := range mustLevels(t, Spec{Name: "alltoall"}, n) {
			for _, p := range l {
				count[p]++
			}
		}
		for i := range n {
			for k := range n {
				want := btoi(i != k)
				if c := count[Pair{int32(i), int32(k)}]; c != want {
					t.Fatalf("alltoall n=%d: pair %d→%d occurs %d times, want %d", n, i, k, c, want)
				}
			}
		}
	}
}

// TestGridDegree checks that on neighbor2d/3d every rank sends to as many
// ranks as it has distinct neighbours on the torus of Dims(n, d).
func TestGridDegree(t *testing.T) {
	for d, name := range map[int]string{2: "neighbor2d", 3: "neighbor3d"} {
		for n := 1; n <= propMaxN; n++ {
			dims := Dims(n, d)
			prod, want := 1, 0
			for k, p := range dims {
				prod *= p
				if k > 0 && p > dims[k-1] {
					t.Fatalf("Dims(%d, %d) = %v not descending", n, d, dims)
				}
				want += min(p-1, 2)
			}
			if prod != n {
				t.Fatalf("Dims(%d, %d) = %v", n, d, dims)
			}
			deg := make([]int, n)
			for _, p := range mustLevels(t, Spec{Name: name}, n)[0] {
				deg[p.Src]++
			}
			for i, got := range deg {
				if got != want {
					t.Fatalf("%s n=%d dims %v: rank %d sends %d messages, want %d", name, n, dims, i, got, want)
				}
			}
		}
	}
}

// TestDimsBalanced compares Dims with an exhaustive search for d = 2, 3.
func TestDimsBalanced(t *testing.T) {
	for n := 1; n <= 300; n++ {
		spread2 := n
		for b := 1; b*b <= n; b++ {
			if n%b == 0 {
				spread2 = min(spread2, n/b-b)
			}
		}
		spread3 := n
		for c := 1; c*c*c <= n; c++ {
			for b := c; c*b*b <= n; b++ {
				if n%(b*c) == 0 {
					spread3 = min(spread3, n/(b*c)-c)
				}
			}
		}
		if d := Dims(n, 2); d[0]-d[1] != spread2 {
			t.Errorf("Dims(%d, 2) = %v, best spread is %d", n, d, spread2)
		}
		if d := Dims(n, 3); d[0]-d[2] != spread3 {
			t.Errorf("Dims(%d, 3) = %v, best spread is %d", n, d, spread3)
		}
	}
}

// TestPvPStructure checks ptrnvsptrn against its two halves.
func TestPvPStructure(t *testing.T) {
	for n := 2; n <= propMaxN; n++ {
		for _, spec := range allSpecs(n) {
			if spec.Name != pvpName {
				continue
			}
			z := spec.Part
			src, err := Compile(spec, n)
			if err != nil {
				t.Fatal(err)
			}
			first, second := spec.First, spec.Second
			if first == "" {
				first = "bisect"
			}
			if second == "" {
				second = "bisect"
			}
			// Draw the halves from the same stream in the same order as Levels.
			got := src.Levels(rng.New(9, uint64(n)), nil)
			r := rng.New(9, uint64(n))
			a := mustCompile(t, first, z).Levels(r, nil)
			b := mustCompile(t, second, n-z).Levels(r, nil)
			// The second pattern finishes its cycle: the smallest multiple
			// of len(b) that is at least max(len(a), len(b)).
			levels := max(len(a), len(b))
			for len(a) > 0 && len(b) > 0 && levels%len(b) != 0 {
				levels++
			}
			if len(got) != levels {
				t.Fatalf("%+v n=%d: %d levels, want %d (first %d, second %d)", spec, n, len(got), levels, len(a), len(b))
			}
			for k, l := range got {
				var want Level
				if k < len(a) {
					want = append(want, a[k]...)
				}
				if len(b) > 0 {
					for _, p := range b[k%len(b)] {
						want = append(want, Pair{p.Src + int32(z), p.Dst + int32(z)})
					}
				}
				if !equalLevels([]Level{l}, []Level{want}) {
					t.Fatalf("%+v n=%d level %d = %v, want %v", spec, n, k, l, want)
				}
			}
			if src.FirstRanks() != z {
				t.Fatalf("%+v n=%d: FirstRanks %d", spec, n, src.FirstRanks())
			}
		}
	}
}

func mustCompile(t *testing.T, name string, n int) *Source {
	t.Helper()
	src, err := Compile(Spec{Name: name}, n)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// TestRandDerangement checks that rand is a permutation without fixed
// points in ascending source order, for many seeds and sizes.
func TestRandDerangement(t *testing.T) {
	for n := 1; n <= 33; n++ {
		src := mustCompile(t, "rand", n)
		var scratch []Level
		for seed := range 50 {
			scratch = src.Levels(rng.New(uint64(seed), 0), scratch)
			if len(scratch) != 1 {
				t.Fatalf("rand n=%d: %d levels", n, len(scratch))
			}
			l := scratch[0]
			if n < 2 {
				if len(l) != 0 {
					t.Fatalf("rand n=%d: %v", n, l)
				}
				continue
			}
			if len(l) != n {
				t.Fatalf("rand n=%d: %d pairs", n, len(l))
			}
			recv := make([]bool, n)
			for i, p := range l {
				if int(p.Src) != i || p.Dst == p.Src || recv[p.Dst] {
					t.Fatalf("rand n=%d seed %d: not a derangement: %v", n, seed, l)
				}
				recv[p.Dst] = true
			}
		}
	}
}

// TestRandUniform runs a chi-square test of rand n=4 over its 9
// derangements: 90000 draws against the 0.999 quantile of chi2(8) = 26.12.
func TestRandUniform(t *testing.T) {
	const draws = 90000
	src := mustCompile(t, "rand", 4)
	r := rng.New(2024, 0)
	count := map[[4]int32]int{}
	var scratch []Level
	for range draws {
		scratch = src.Levels(r, scratch)
		var key [4]int32
		for i, p := range scratch[0] {
			key[i] = p.Dst
		}
		count[key]++
	}
	if len(count) != 9 {
		t.Fatalf("rand n=4 produced %d distinct permutations, want the 9 derangements: %v", len(count), count)
	}
	exp := float64(draws) / 9
	chi := 0.0
	for _, c := range count {
		chi += (float64(c) - exp) * (float64(c) - exp) / exp
	}
	if chi > 26.12 {
		t.Errorf("chi-square %.2f > 26.12: rand is not uniform over derangements: %v", chi, count)
	}
}

// TestRandomScratch checks that the result of a random pattern depends
// only on the stream, not on the scratch passed in, and that a reused
// scratch keeps allocations at zero.
func TestRandomScratch(t *testing.T) {
	for _, spec := range []Spec{{Name: "rand"}, {Name: pvpName, First: "tree", Second: "rand", Part: 5}, {Name: pvpName, First: "rand", Second: "ring", Part: 20}} {
		src, err := Compile(spec, 30)
		if err != nil {
			t.Fatal(err)
		}
		var scratch []Level
		for seed := range 20 {
			fresh := src.Levels(rng.New(uint64(seed), 1), nil)
			want := make([]Level, len(fresh))
			for k := range fresh {
				want[k] = append(Level(nil), fresh[k]...)
			}
			scratch = src.Levels(rng.New(uint64(seed), 1), scratch)
			if !equalLevels(scratch, want) {
				t.Fatalf("%+v seed %d: with scratch %v, without %v", spec, seed, scratch, want)
			}
		}
		r := rng.New(5, 5)
		if allocs := testing.AllocsPerRun(100, func() { scratch = src.Levels(r, scratch) }); allocs > 0 {
			t.Errorf("%+v: %.1f allocations per run with reused scratch", spec, allocs)
		}
	}
}

// TestDeterministicShared checks that deterministic patterns return the
// same cached slice every time.
func TestDeterministicShared(t *testing.T) {
	src := mustCompile(t, "recdbl", 12)
	a, b := src.Levels(nil, nil), src.Levels(rng.New(1, 1), make([]Level, 3))
	if &a[0][0] != &b[0][0] {
		t.Error("recdbl levels are not cached")
	}
	if allocs := testing.AllocsPerRun(10, func() { src.Levels(nil, nil) }); allocs != 0 {
		t.Errorf("deterministic Levels allocates %.1f times", allocs)
	}
}

// TestConcurrentLevels runs a random ptrnvsptrn from several goroutines
// and compares with a serial computation (run with -race).
func TestConcurrentLevels(t *testing.T) {
	src, err := Compile(Spec{Name: pvpName, First: "rand", Second: "rand", Part: 7}, 16)
	if err != nil {
		t.Fatal(err)
	}
	const workers, runs = 4, 50
	want := make([][]Level, runs)
	for i := range runs {
		want[i] = src.Levels(rng.New(3, uint64(i)), nil)
	}
	var wg sync.WaitGroup
	errs := make(chan string, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var scratch []Level
			for i := w; i < runs; i += workers {
				scratch = src.Levels(rng.New(3, uint64(i)), scratch)
				if !equalLevels(scratch, want[i]) {
					errs <- fmt.Sprintf("run %d: %v, want %v", i, scratch, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

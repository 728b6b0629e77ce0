package patterns

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"orcs/rng"
)

// lv builds a level from src, dst, src, dst, … .
func lv(ranks ...int32) Level {
	if len(ranks)%2 != 0 {
		panic("lv: odd number of ranks")
	}
	l := Level{}
	for i := 0; i < len(ranks); i += 2 {
		l = append(l, Pair{ranks[i], ranks[i+1]})
	}
	return l
}

// equalLevels reports whether a and b hold the same pairs in the same
// levels (nil and empty levels are equal).
func equalLevels(a, b []Level) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if len(a[k]) != len(b[k]) {
			return false
		}
		for i := range a[k] {
			if a[k][i] != b[k][i] {
				return false
			}
		}
	}
	return true
}

// mustLevels compiles spec for n and returns the levels of one run.
func mustLevels(t *testing.T, spec Spec, n int) []Level {
	t.Helper()
	src, err := Compile(spec, n)
	if err != nil {
		t.Fatalf("Compile(%+v, %d): %v", spec, n, err)
	}
	return src.Levels(rng.New(1, 0), nil)
}

// neighborCliques returns the Xneighbor level for groups of g ranks starting
// at the given bases: for i ascending inside a group, (i → k) then (k → i) for
// every k > i of the group.
func neighborCliques(g int32, bases ...int32) Level {
	l := Level{}
	for _, b := range bases {
		for i := b; i < b+g; i++ {
			for k := i + 1; k < b+g; k++ {
				l = append(l, Pair{i, k}, Pair{k, i})
			}
		}
	}
	return l
}

// TestHandChecked compares patterns worked out by hand from the spec table.
func TestHandChecked(t *testing.T) {
	tests := []struct {
		spec Spec
		n    int
		want []Level
	}{
		// P = 4: two exchange levels on ranks 0…3, then (i → i+4) for i < 2.
		{Spec{Name: "recdbl"}, 6, []Level{lv(0, 1, 1, 0, 2, 3, 3, 2), lv(0, 2, 2, 0, 1, 3, 3, 1), lv(0, 4, 1, 5)}},
		{Spec{Name: "recdbl"}, 4, []Level{lv(0, 1, 1, 0, 2, 3, 3, 2), lv(0, 2, 2, 0, 1, 3, 3, 1)}},
		{Spec{Name: "recdbl"}, 1, []Level{}},
		{Spec{Name: "recdbl"}, 3, []Level{lv(0, 1, 1, 0), lv(0, 2)}},
		// ⌈log2 5⌉ = 3 levels; 1+4 = 5 is not < 5.
		{Spec{Name: "tree"}, 5, []Level{lv(0, 1), lv(0, 2, 1, 3), lv(0, 4)}},
		{Spec{Name: "tree"}, 8, []Level{lv(0, 1), lv(0, 2, 1, 3), lv(0, 4, 1, 5, 2, 6, 3, 7)}},
		{Spec{Name: "tree"}, 1, []Level{}},
		// Two disjoint cliques of 5.
		{Spec{Name: "4neighbor"}, 10, []Level{neighborCliques(5, 0, 5)}},
		{Spec{Name: "4neighbor"}, 3, []Level{neighborCliques(3, 0)}}, // X capped at n−1 = 2
		{Spec{Name: "2neighbor"}, 7, []Level{lv(0, 1, 1, 0, 0, 2, 2, 0, 1, 2, 2, 1, 3, 4, 4, 3, 3, 5, 5, 3, 4, 5, 5, 4)}},
		{Spec{Name: "6neighbor"}, 9, []Level{append(neighborCliques(7, 0), lv(7, 8, 8, 7)...)}},
		{Spec{Name: "6neighbor"}, 1, []Level{{}}},
		// tree on 0…2 (2 levels), bisect on 3…7 cycled.
		{Spec{Name: "ptrnvsptrn", First: "tree", Second: "bisect", Part: 3}, 8,
			[]Level{lv(0, 1, 4, 3, 6, 5), lv(0, 2, 4, 3, 6, 5)}},
		// The manual's example (with the spec's bisect direction).
		{Spec{Name: "ptrnvsptrn", First: "scatter", Part: 4}, 8, []Level{lv(0, 1, 0, 2, 0, 3, 5, 4, 7, 6)}},
		// Second longer than first: it just continues.
		{Spec{Name: "ptrnvsptrn", First: "ring", Second: "tree", Part: 2}, 8,
			[]Level{lv(0, 1, 2, 3), lv(1, 0, 2, 4, 3, 5), lv(2, 6, 3, 7)}},
		// First longer than second: bruck (3 levels) with ring (2 levels)
		// cycling; the ring finishes its second cycle alone (4 levels).
		{Spec{Name: "ptrnvsptrn", First: "bruck", Second: "ring", Part: 5}, 7,
			[]Level{lv(0, 1, 1, 2, 2, 3, 3, 4, 4, 0, 5, 6), lv(0, 2, 1, 3, 2, 4, 3, 0, 4, 1, 6, 5), lv(0, 4, 1, 0, 2, 1, 3, 2, 4, 3, 5, 6), lv(6, 5)}},
		{Spec{Name: "ptrnvsptrn", First: "tree", Second: "null", Part: 4}, 8, []Level{lv(0, 1), lv(0, 2, 1, 3)}},
		{Spec{Name: "ptrnvsptrn", First: "null", Part: 2}, 6, []Level{lv(3, 2, 5, 4)}},
		{Spec{Name: "ptrnvsptrn", First: "null", Second: "null", Part: 2}, 6, []Level{}},
		{Spec{Name: "ptrnvsptrn", Part: 1}, 3, []Level{lv(2, 1)}}, // bisect on 1 rank is one empty level
		{Spec{Name: "bisect"}, 5, []Level{lv(1, 0, 3, 2)}},
		{Spec{}, 4, []Level{lv(1, 0, 3, 2)}}, // empty name = bisect
		{Spec{Name: "bisect"}, 1, []Level{{}}},
		{Spec{Name: "bisect_fb_sym"}, 5, []Level{lv(0, 1, 1, 0, 2, 3, 3, 2)}},
		{Spec{Name: "bruck"}, 5, []Level{lv(0, 1, 1, 2, 2, 3, 3, 4, 4, 0), lv(0, 2, 1, 3, 2, 4, 3, 0, 4, 1), lv(0, 4, 1, 0, 2, 1, 3, 2, 4, 3)}},
		{Spec{Name: "gather"}, 4, []Level{lv(1, 0, 2, 0, 3, 0)}},
		{Spec{Name: "scatter"}, 4, []Level{lv(0, 1, 0, 2, 0, 3)}},
		{Spec{Name: "ring"}, 3, []Level{lv(0, 1), lv(1, 2), lv(2, 0)}},
		{Spec{Name: "ring"}, 1, []Level{{}}},
		{Spec{Name: "null"}, 5, []Level{}},
		{Spec{Name: "alltoall"}, 3, []Level{lv(0, 1, 1, 2, 2, 0), lv(0, 2, 1, 0, 2, 1)}},
		{Spec{Name: "alltoall"}, 1, []Level{}},
		// 3×2 torus, rank = 2x + y: +x, −x, +y (−y is the same rank as +y).
		{Spec{Name: "neighbor2d"}, 6, []Level{lv(0, 2, 0, 4, 0, 1, 1, 3, 1, 5, 1, 0, 2, 4, 2, 0, 2, 3,
			3, 5, 3, 1, 3, 2, 4, 0, 4, 2, 4, 5, 5, 1, 5, 3, 5, 4)}},
		// 3×1: a ring in both directions.
		{Spec{Name: "neighbor2d"}, 3, []Level{lv(0, 1, 0, 2, 1, 2, 1, 0, 2, 0, 2, 1)}},
		{Spec{Name: "neighbor2d"}, 1, []Level{{}}},
		// 2×2×2: rank i talks to i^4, i^2, i^1.
		{Spec{Name: "neighbor3d"}, 8, []Level{lv(0, 4, 0, 2, 0, 1, 1, 5, 1, 3, 1, 0, 2, 6, 2, 0, 2, 3, 3, 7, 3, 1, 3, 2,
			4, 0, 4, 6, 4, 5, 5, 1, 5, 7, 5, 4, 6, 2, 6, 4, 6, 7, 7, 3, 7, 5, 7, 6)}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s_%s_%s_z%d_n%d", tt.spec.Name, tt.spec.First, tt.spec.Second, tt.spec.Part, tt.n), func(t *testing.T) {
			got := mustLevels(t, tt.spec, tt.n)
			if !equalLevels(got, tt.want) {
				t.Errorf("got  %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestDims(t *testing.T) {
	tests := []struct {
		n, d int
		want []int
	}{
		{1, 2, []int{1, 1}}, {1, 3, []int{1, 1, 1}}, {7, 2, []int{7, 1}}, {7, 3, []int{7, 1, 1}},
		{8, 2, []int{4, 2}}, {12, 2, []int{4, 3}}, {16, 2, []int{4, 4}}, {16, 3, []int{4, 2, 2}},
		{12, 3, []int{3, 2, 2}}, {30, 3, []int{5, 3, 2}}, {36, 3, []int{4, 3, 3}}, {64, 3, []int{4, 4, 4}},
		{17, 1, []int{17}}, {0, 2, nil},
	}
	for _, tt := range tests {
		if got := Dims(tt.n, tt.d); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Dims(%d, %d) = %v, want %v", tt.n, tt.d, got, tt.want)
		}
	}
}

// TestPrintFormat checks the --printptrn format byte for byte.
func TestPrintFormat(t *testing.T) {
	name := func(r int) string { return fmt.Sprintf("H%d", r) }
	tests := []struct {
		levels []Level
		want   string
	}{
		{[]Level{lv(1, 0, 3, 2)},
			"\nUsed Pattern:\n=================\n" +
				"    1 -> 0       |   H1 -> H0\n" +
				"    3 -> 2       |   H3 -> H2\n" +
				"=================\n"},
		{[]Level{lv(12345, 7), {}, lv(0, 123456)},
			"\nUsed Pattern:\n=================\n" +
				" 12345 -> 7       |   H12345 -> H7\n" +
				"=================\n" +
				"Pattern empty!\n" +
				"\nUsed Pattern:\n=================\n" +
				"    0 -> 123456   |   H0 -> H123456\n" +
				"=================\n"},
		{nil, "Pattern empty!\n"},
		{[]Level{}, "Pattern empty!\n"},
		{[]Level{{}, {}}, "Pattern empty!\nPattern empty!\n"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		if err := Print(&buf, tt.levels, name); err != nil {
			t.Fatal(err)
		}
		if buf.String() != tt.want {
			t.Errorf("Print(%v):\n%q\nwant\n%q", tt.levels, buf.String(), tt.want)
		}
	}
	var buf bytes.Buffer
	if err := Print(&buf, []Level{lv(2, 1)}, nil); err != nil {
		t.Fatal(err)
	}
	if want := "    2 -> 1       |   2 -> 1\n"; !strings.Contains(buf.String(), want) {
		t.Errorf("Print with nil name = %q, want a line %q", buf.String(), want)
	}
}

func TestCompileErrors(t *testing.T) {
	valid := "2neighbor, 4neighbor, 6neighbor, alltoall, bisect, bisect_fb_sym, bruck, gather, " +
		"nccl_alltoall, nccl_alltoall_pxn, nccl_ring_allgather, nccl_ring_allreduce, nccl_ring_reducescatter, nccl_tree_allreduce, " +
		"neighbor2d, neighbor3d, null, ptrnvsptrn, rand, recdbl, ring, scatter, tree, file:PATH)"
	tests := []struct {
		spec Spec
		n    int
		want string
	}{
		{Spec{Name: "foo"}, 4, `unknown pattern "foo" (known: ` + valid},
		{Spec{Name: "ringg"}, 4, `unknown pattern "ringg" (known: ` + valid + `; did you mean "ring"?`},
		{Spec{Name: "Bisect"}, 4, `unknown pattern "Bisect" (known: ` + valid + `; did you mean "bisect"?`},
		{Spec{Name: "bisect"}, 0, "commsize 0: a pattern needs at least 1 rank"},
		{Spec{Name: "ptrnvsptrn"}, 8, "ptrnvsptrn: -z/--part_commsize 0 out of range: need 1 ≤ z < commsize 8"},
		{Spec{Name: "ptrnvsptrn", Part: 8}, 8, "ptrnvsptrn: -z/--part_commsize 8 out of range: need 1 ≤ z < commsize 8"},
		{Spec{Name: "ptrnvsptrn", Part: -1}, 8, "ptrnvsptrn: -z/--part_commsize -1 out of range: need 1 ≤ z < commsize 8"},
		{Spec{Name: "ptrnvsptrn", First: "ptrnvsptrn", Part: 4}, 8,
			`ptrnvsptrn: nested ptrnvsptrn is not allowed (first "ptrnvsptrn", second "bisect")`},
		{Spec{Name: "ptrnvsptrn", Second: "ptrnvsptrn", Part: 4}, 8,
			`ptrnvsptrn: nested ptrnvsptrn is not allowed (first "bisect", second "ptrnvsptrn")`},
		{Spec{Name: "ptrnvsptrn", First: "nope", Part: 4}, 8, `ptrnvsptrn: first pattern: unknown pattern "nope" (known: ` + valid},
		{Spec{Name: "ptrnvsptrn", Second: "nope", Part: 4}, 8, `ptrnvsptrn: second pattern: unknown pattern "nope" (known: ` + valid},
		{Spec{Name: "file:testdata/patterns/sample.txt"}, 5, "testdata/patterns/sample.txt:7: rank 5 out of range for commsize 5"},
		{Spec{Name: "file:testdata/patterns/bad.txt"}, 50, `testdata/patterns/bad.txt:3: bad rank "x"`},
		{Spec{Name: "ptrnvsptrn", First: "file:testdata/patterns/sample.txt", Part: 5}, 8,
			"ptrnvsptrn: first pattern: testdata/patterns/sample.txt:7: rank 5 out of range for commsize 5"},
	}
	for _, tt := range tests {
		src, err := Compile(tt.spec, tt.n)
		if err == nil {
			t.Errorf("Compile(%+v, %d) = %v, want error %q", tt.spec, tt.n, src, tt.want)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("Compile(%+v, %d) error\n%q\nwant\n%q", tt.spec, tt.n, err, tt.want)
		}
	}
	if _, err := Compile(Spec{Name: "file:testdata/patterns/missing.txt"}, 4); err == nil ||
		!strings.HasPrefix(err.Error(), "pattern file:testdata/patterns/missing.txt: open: ") {
		t.Errorf("missing file: error %v", err)
	}
}

func TestCompileFile(t *testing.T) {
	got := mustLevels(t, Spec{Name: "file:testdata/patterns/sample.txt"}, 6)
	want := []Level{lv(0, 1, 2, 3), lv(1, 0, 3, 5), lv(4, 0)}
	if !equalLevels(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	got = mustLevels(t, Spec{Name: "ptrnvsptrn", First: "file:testdata/patterns/sample.txt", Second: "gather", Part: 6}, 9)
	want = []Level{lv(0, 1, 2, 3, 7, 6, 8, 6), lv(1, 0, 3, 5, 7, 6, 8, 6), lv(4, 0, 7, 6, 8, 6)}
	if !equalLevels(got, want) {
		t.Errorf("ptrnvsptrn with file: got %v, want %v", got, want)
	}
}

func TestSourceAccessors(t *testing.T) {
	tests := []struct {
		spec          Spec
		n, firstRanks int
		random        bool
	}{
		{Spec{Name: "rand"}, 7, 7, true},
		{Spec{Name: "tree"}, 7, 7, false},
		{Spec{Name: "ptrnvsptrn", Part: 3}, 7, 3, false},
		{Spec{Name: "ptrnvsptrn", First: "rand", Part: 3}, 7, 3, true},
		{Spec{Name: "ptrnvsptrn", Second: "rand", Part: 2}, 7, 2, true},
		{Spec{Name: "file:testdata/patterns/sample.txt"}, 7, 7, false},
	}
	for _, tt := range tests {
		src, err := Compile(tt.spec, tt.n)
		if err != nil {
			t.Fatal(err)
		}
		if src.FirstRanks() != tt.firstRanks || src.Random() != tt.random || src.Commsize() != tt.n {
			t.Errorf("%+v n=%d: FirstRanks %d Random %v Commsize %d, want %d %v %d", tt.spec, tt.n,
				src.FirstRanks(), src.Random(), src.Commsize(), tt.firstRanks, tt.random, tt.n)
		}
	}
}

func TestNames(t *testing.T) {
	want := []string{"2neighbor", "4neighbor", "6neighbor", "alltoall", "bisect", "bisect_fb_sym", "bruck",
		"gather", "nccl_alltoall", "nccl_alltoall_pxn", "nccl_ring_allgather", "nccl_ring_allreduce",
		"nccl_ring_reducescatter", "nccl_tree_allreduce", "neighbor2d", "neighbor3d", "null", "ptrnvsptrn", "rand", "recdbl", "ring", "scatter", "tree"}
	if got := Names(); !reflect.DeepEqual(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	for _, name := range want {
		if doc, ok := Doc(name); !ok || doc == "" {
			t.Errorf("Doc(%q) = %q, %v", name, doc, ok)
		}
	}
	if _, ok := Doc("nope"); ok {
		t.Error(`Doc("nope") ok`)
	}
}

func TestRegisterPanics(t *testing.T) {
	gen := func(int, *rng.Stream, []Level) []Level { return nil }
	for _, name := range []string{"bisect", "", "file:x", "a b"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", name)
				}
			}()
			Register(name, "doc", gen, false)
		}()
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Register with nil generator did not panic")
			}
		}()
		Register("nilgen", "doc", nil, false)
	}()
}

func TestLevelsRandomNeedsStream(t *testing.T) {
	src, err := Compile(Spec{Name: "rand"}, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Error("Levels(nil, nil) of rand did not panic")
		}
	}()
	src.Levels(nil, nil)
}

// TestPvPFinishesCycle: by default (as in ORCS 2.0 and the spec's
// decision) the background pattern finishes the cycle it is in when the
// first pattern ends: lb·⌈la/lb⌉ levels when la > lb, else lb. Worked by
// hand with ring on both sides (ring on m ranks: level l is l → l+1 mod m):
//
//	-f ring -z 3, -c ring on 2 ranks (n = 5): la = 3, lb = 2 → 2·⌈3/2⌉ = 4
//	  L0: 0→1 (first), 3→4 (second's L0)
//	  L1: 1→2,         4→3 (second's L1)
//	  L2: 2→0,         3→4 (second restarts: L0)
//	  L3: –            4→3 (second finishes its cycle: L1)
//	-f ring -z 4, -c ring on 2 ranks (n = 6): la = 4, lb = 2 → 4 (2 divides 4)
//	-f ring -z 2, -c ring on 3 ranks (n = 5): la = 2 < lb = 3 → 3
//	-f ring -z 5, -c ring on 3 ranks (n = 8): la = 5, lb = 3 → 3·⌈5/3⌉ = 6
func TestPvPFinishesCycle(t *testing.T) {
	tests := []struct {
		z, n int
		want []Level
	}{
		{3, 5, []Level{lv(0, 1, 3, 4), lv(1, 2, 4, 3), lv(2, 0, 3, 4), lv(4, 3)}},
		{4, 6, []Level{lv(0, 1, 4, 5), lv(1, 2, 5, 4), lv(2, 3, 4, 5), lv(3, 0, 5, 4)}},
		{2, 5, []Level{lv(0, 1, 2, 3), lv(1, 0, 3, 4), lv(4, 2)}},
		{5, 8, []Level{lv(0, 1, 5, 6), lv(1, 2, 6, 7), lv(2, 3, 7, 5), lv(3, 4, 5, 6), lv(4, 0, 6, 7), lv(7, 5)}},
	}
	for _, tt := range tests {
		spec := Spec{Name: pvpName, First: "ring", Second: "ring", Part: tt.z}
		if got := mustLevels(t, spec, tt.n); !equalLevels(got, tt.want) {
			t.Errorf("ring vs ring, z=%d n=%d: %v, want %v", tt.z, tt.n, got, tt.want)
		}
		spec.ORCS2 = true
		if got := mustLevels(t, spec, tt.n); !equalLevels(got, tt.want) {
			t.Errorf("ring vs ring, z=%d n=%d, orcs2: %v, want %v", tt.z, tt.n, got, tt.want)
		}
	}
}

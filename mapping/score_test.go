package mapping

import (
	"strings"
	"testing"

	"orcs/gen"
	"orcs/lft"
	"orcs/patterns"
	"orcs/rng"
)

func fabric(t testing.TB, spec string) *lft.Fabric {
	t.Helper()
	f, err := gen.Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func problem(t testing.TB, f *lft.Fabric, c *Comm) *Problem {
	t.Helper()
	p, err := NewProblem(f, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestScoreHandDerived: hosts 0, 1 on leaf L0 and 2, 3 on leaf L1 under one
// spine S (fattree2:leaves=2,hosts=2,up=1); every route between the leaves
// is host→L0→S→L1→host. The objectives below are counted by hand.
func TestScoreHandDerived(t *testing.T) {
	f := fabric(t, "fattree2:leaves=2,hosts=2,up=1")
	// Level 0: 0→2 and 1→3 (both over L0→S and S→L1); level 1: 0→1.
	two := &Comm{Ranks: 4, Levels: 2, Unit: "routes", Msgs: []Message{
		{Src: 0, Dst: 2, Level: 0, Weight: 1}, {Src: 1, Dst: 3, Level: 0, Weight: 1},
		{Src: 0, Dst: 1, Level: 1, Weight: 1}}}
	// One level of bytes: 0→2 3 bytes, 1→3 5 bytes.
	bytes := &Comm{Ranks: 4, Levels: 1, Unit: "bytes", Msgs: []Message{
		{Src: 0, Dst: 2, Weight: 3}, {Src: 1, Dst: 3, Weight: 5}}}
	for _, tc := range []struct {
		name string
		c    *Comm
		pl   Placement
		want Objective
	}{
		// Level 0: L0→S and S→L1 carry 2, four host cables 1: max 2, Σ² 4+4+4·1 = 12,
		// 8 hops. Level 1: H0→L0, L0→H1 carry 1: max 1, Σ² 2, 2 hops.
		// All levels: H0→L0 2, L0→S 2, S→L1 2, H1→L0, L1→H2, L1→H3, L0→H1 1: Σ² 16.
		{"linear", two, Placement{0, 1, 2, 3}, Objective{Congestion: 3, SumSq: 14, SumSqJob: 16, MaxLoad: 2, LeafUp: 2, Hops: 10}},
		// Ranks 1 and 2 exchanged: level 0 stays inside the leaves (4 cables of 1),
		// level 1 crosses (4 cables of 1); H0→L0 is used by both levels.
		{"swapped", two, Placement{0, 2, 1, 3}, Objective{Congestion: 2, SumSq: 8, SumSqJob: 10, MaxLoad: 1, LeafUp: 1, Hops: 8}},
		// 3 + 5 bytes share L0→S and S→L1: max 8; Σ² 64+64+9+9+25+25 = 196.
		{"bytes", bytes, Placement{0, 1, 2, 3}, Objective{Congestion: 8, SumSq: 196, SumSqJob: 196, MaxLoad: 8, LeafUp: 8, Hops: 8}},
		// Ranks on 0, 2, 1, 3: 0→2 runs H0→H1 and 1→3 runs H2→H3, inside the leaves.
		{"bytes local", bytes, Placement{0, 2, 1, 3}, Objective{Congestion: 5, SumSq: 9 + 9 + 25 + 25, SumSqJob: 68, MaxLoad: 5, LeafUp: 0, Hops: 4}},
	} {
		p := problem(t, f, tc.c)
		if got := p.Score(tc.pl); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestModeOrders(t *testing.T) {
	a := Objective{Congestion: 3, SumSq: 10, SumSqJob: 50}
	b := Objective{Congestion: 4, SumSq: 8, SumSqJob: 40}
	c := Objective{Congestion: 3, SumSq: 10, SumSqJob: 49}
	for _, tc := range []struct {
		m    Mode
		x, y Objective
		want bool
	}{
		{ByCongestion, a, b, true}, {ByCongestion, b, a, false}, {BySumSq, b, a, true}, {BySumSq, a, b, false},
		{ByCongestion, c, a, true}, {ByCongestion, a, c, false}, {BySumSq, c, a, true}, {ByCongestion, a, a, false},
	} {
		if got := tc.m.Better(tc.x, tc.y); got != tc.want {
			t.Errorf("%s: %+v better than %+v = %v", tc.m, tc.x, tc.y, got)
		}
	}
	for _, s := range []string{"congestion", "max", "sumsq"} {
		if _, err := ParseMode(s); err != nil {
			t.Error(err)
		}
	}
	if _, err := ParseMode("hops"); err == nil || !strings.Contains(err.Error(), "known: congestion, sumsq") {
		t.Errorf("got %v", err)
	}
}

// randomTraffic returns a sparse traffic matrix: every rank sends to deg
// random other ranks 1 … 1000 bytes.
func randomTraffic(n, deg int, seed uint64) *Comm {
	r := rng.New(seed, 0)
	c := &Comm{Ranks: n, Levels: 1, Unit: "bytes"}
	seen := map[[2]int32]bool{}
	for s := range n {
		for range deg {
			d := r.IntN(n)
			if d == s || seen[[2]int32{int32(s), int32(d)}] {
				continue
			}
			seen[[2]int32{int32(s), int32(d)}] = true
			c.Msgs = append(c.Msgs, Message{Src: int32(s), Dst: int32(d), Weight: int64(1 + r.IntN(1000))})
		}
	}
	return c
}

// TestIncrementalMatchesScore: after every swap search evaluates, taken
// or undone, the loads it keeps give the objective Score computes from
// scratch (on levels, on bytes, with free hosts).
func TestIncrementalMatchesScore(t *testing.T) {
	f := fabric(t, "fattree2:leaves=6,hosts=4,up=2")
	pat, err := PatternComm(patterns.Spec{Name: "bruck"}, 20)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]*Comm{"bruck": pat, "traffic": randomTraffic(20, 3, 5)} {
		p := problem(t, f, c)
		start, _ := p.Place("random")
		s, err := newSearcher(p, start)
		if err != nil {
			t.Fatal(err)
		}
		r := rng.New(9, 9)
		for i := range 2000 {
			a, b := int32(r.IntN(24)), int32(r.IntN(24))
			old := s.current()
			c, sq := s.swap(a, b)
			if i%2 == 0 {
				s.undo(a, b, old.SumSq, old.SumSqJob)
			} else {
				s.congestion = c
				s.sumsq = sq
				s.commit()
			}
			want := p.Score(s.placement())
			if got := s.current(); got.Congestion != want.Congestion || got.SumSq != want.SumSq || got.SumSqJob != want.SumSqJob {
				t.Fatalf("%s: step %d: incremental %+v, from scratch %+v", name, i, got, want)
			}
		}
	}
}

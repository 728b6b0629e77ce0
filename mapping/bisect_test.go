package mapping

import (
	"fmt"
	"slices"
	"testing"

	"orcs/gen"
	"orcs/patterns"
	"orcs/rng"
)

// cliques returns a job of k cliques of size ranks each that talk only
// inside, numbered round-robin: rank r is in clique r mod k.
func cliques(k, size int) *Comm {
	c := &Comm{Ranks: k * size, Levels: 1, Unit: "bytes"}
	for a := range c.Ranks {
		for b := range c.Ranks {
			if a != b && a%k == b%k {
				c.Msgs = append(c.Msgs, Message{Src: int32(a), Dst: int32(b), Weight: 1})
			}
		}
	}
	return c
}

// TestBisectTorusQuadrants: four cliques of 16 ranks on a 4×4 torus with 4
// hosts per switch. Cut across its planes by the generator's coordinates,
// the torus falls into four 2×2 quadrants of 16 hosts; bisect puts each
// clique on one, so that every route of a clique stays on its own four
// switches (dimension-order routing inside a 2×2 block never leaves it).
// Cut by hop distances (the same torus, not recognised), each clique still
// gets four whole switches of its own.
func TestBisectTorusQuadrants(t *testing.T) {
	for _, anonymous := range []bool{false, true} {
		f := fabric(t, "torus:dims=4x4,hosts=4")
		if anonymous {
			f.GraphName = ""
		}
		p := problem(t, f, cliques(4, 16))
		pl, err := p.Place("bisect")
		if err != nil {
			t.Fatal(err)
		}
		switches := make([]map[int32]bool, 4)
		owner := map[int32]int{}
		for r, h := range pl {
			if switches[r%4] == nil {
				switches[r%4] = map[int32]bool{}
			}
			sw := p.leafOf(h)
			switches[r%4][sw] = true
			if o, ok := owner[sw]; ok && o != r%4 {
				t.Fatalf("coordinates %v: cliques %d and %d share switch %s", !anonymous, o, r%4, f.Nodes[sw].Name)
			}
			owner[sw] = r % 4
		}
		if anonymous {
			continue
		}
		var path []int32
		for _, m := range p.Comm.Msgs {
			own := switches[m.Src%4]
			path, _ = f.AppendRoute(path[:0], pl[m.Src], pl[m.Dst])
			for _, l := range path {
				if to := f.Links[l].To; f.HostIndex(to) < 0 && !own[to] {
					t.Fatalf("route %d→%d of clique %d passes switch %s", m.Src, m.Dst, m.Src%4, f.Nodes[to].Name)
				}
			}
		}
	}
}

// TestBisectStencil: the halo exchange of an 8×8 torus of ranks
// (neighbor2d, 256 messages), numbered in a scrambled order, on an 8×8
// torus with one host per switch. Every route walks at least 3 cables
// (768 in all, the identity embedding). Each half the bisection cuts is
// turned towards the partners its ranks have among the ranks placed
// already, so bisect walks fewer cables than linear, greedy and rcm, with
// a lower sum of squared loads.
func TestBisectStencil(t *testing.T) {
	c, err := PatternComm(patterns.Spec{Name: "neighbor2d"}, 64)
	if err != nil {
		t.Fatal(err)
	}
	perm := make([]int32, 64)
	for i := range perm {
		perm[i] = int32(i)
	}
	rng.New(3, 0).ShuffleInt32(perm)
	for i := range c.Msgs {
		c.Msgs[i].Src, c.Msgs[i].Dst = perm[c.Msgs[i].Src], perm[c.Msgs[i].Dst]
	}
	p := problem(t, fabric(t, "torus:dims=8x8,hosts=1"), c)
	pl, err := p.Place("bisect")
	if err != nil {
		t.Fatal(err)
	}
	o := p.Score(pl)
	if o.Hops < 768 {
		t.Fatalf("bisect: %d cables walked, fewer than 3 a route (%+v)", o.Hops, o)
	}
	for _, s := range []string{"linear", "greedy", "rcm"} {
		pl, _ := p.Place(s)
		if os := p.Score(pl); os.Hops <= o.Hops || os.SumSq <= o.SumSq {
			t.Errorf("%s %+v walks no more cables or has no larger sum of squares than bisect %+v", s, os, o)
		}
	}
}

// slotsOf returns the slot (position in the linear_bfs order) of every
// rank of pl.
func slotsOf(p *Problem, pl Placement) []int32 {
	at := map[int32]int32{}
	for i, h := range p.order {
		at[h] = int32(i)
	}
	s := make([]int32, len(pl))
	for r, h := range pl {
		s[r] = at[h]
	}
	return s
}

// cost returns Σ traffic × treeDist over all pairs of ranks, the ranks on
// the slots slotOf: what the recursion keeps low.
func (b *bisector) cost(slotOf []int32) int64 {
	g := b.g
	var c int64
	for u := range int32(len(g.Start) - 1) {
		for e := g.Start[u]; e < g.Start[u+1]; e++ {
			if q := g.Adj[e]; q > u {
				c += g.W[e] * b.treeDist(slotOf[u], slotOf[q])
			}
		}
	}
	return c
}

// TestBisectTreeDist: a chain 0–1–…–15 on a ring of 16 switches with one
// host each. The ring is cut into halves of 8 switches, those into parts
// of 4 neighbouring switches (the parts of the routing's order): two slots
// of one part are 0 recursion nodes apart, of sibling parts 2 (each leaves
// its part), of parts in different halves 4. The chain's balanced cuts of
// one edge keep ranks 4i … 4i+3 on one part: cost 2 + 4 + 2 = 8 (the
// edges 3–4, 7–8, 11–12). Swapping ranks 3 and 4 moves 2–3 and 4–5 across
// two sibling parts (+2 each); swapping 0 and 1 changes nothing.
func TestBisectTreeDist(t *testing.T) {
	c := &Comm{Ranks: 16, Levels: 1, Unit: "bytes"}
	for r := range int32(15) {
		c.Msgs = append(c.Msgs, Message{Src: r, Dst: r + 1, Weight: 1})
	}
	p := problem(t, fabric(t, "torus:dims=16,hosts=1"), c)
	b := p.bisection()
	if b.geo == nil || !b.direct {
		t.Fatalf("the generated ring is not recognised as a grid")
	}
	slot := slotsOf(p, b.pl)
	for part := range 4 {
		var xs []int
		for r := 4 * part; r < 4*part+4; r++ {
			xs = append(xs, int(b.geo.at(slot[r], 0)))
			if d := b.treeDist(slot[4*part], slot[r]); d != 0 {
				t.Errorf("treeDist of ranks %d, %d = %d, want 0", 4*part, r, d)
			}
		}
		slices.Sort(xs)
		gaps := 0 // an arc of 4 switches of the ring: one gap between its ends
		for i := range xs {
			if (xs[(i+1)%4]-xs[i]+16)%16 != 1 {
				gaps++
			}
		}
		if gaps != 1 {
			t.Errorf("ranks %d…%d on switches %v, not 4 neighbours", 4*part, 4*part+3, xs)
		}
	}
	for _, tc := range []struct{ a, b, want int }{{3, 4, 2}, {11, 12, 2}, {7, 8, 4}, {0, 15, 4}} {
		if d := b.treeDist(slot[tc.a], slot[tc.b]); d != int64(tc.want) {
			t.Errorf("treeDist of ranks %d, %d = %d, want %d", tc.a, tc.b, d, tc.want)
		}
	}
	if got := b.cost(slot); got != 8 {
		t.Errorf("cost %d, want 8", got)
	}
	if got := b.swapCost(3, 4, slot[3], slot[4], slot); got != 4 {
		t.Errorf("swapCost(3, 4) = %d, want 4", got)
	}
	if got := b.swapCost(0, 1, slot[0], slot[1], slot); got != 0 {
		t.Errorf("swapCost(0, 1) = %d, want 0", got)
	}
}

// TestBisectKeepsItsCost: on a torus the swaps after the bisection never
// raise its cost, Σ traffic × treeDist, and two runs give the same
// placement.
func TestBisectKeepsItsCost(t *testing.T) {
	for _, spec := range []string{"torus:dims=4x4,hosts=4", "torus:dims=4x4x4,hosts=1"} {
		for seed := uint64(1); seed <= 3; seed++ {
			p := problem(t, fabric(t, spec), randomTraffic(64, 2+int(seed), seed))
			b := p.bisection()
			before := b.cost(slotsOf(p, b.pl))
			pl, err := p.Place("bisect")
			if err != nil {
				t.Fatal(err)
			}
			if after := b.cost(slotsOf(p, pl)); after > before {
				t.Errorf("%s seed %d: the bisection's cost rose from %d to %d", spec, seed, before, after)
			}
			again, _ := p.Place("bisect")
			if !slices.Equal(pl, again) {
				t.Errorf("%s seed %d: two runs differ", spec, seed)
			}
		}
	}
}

// TestBisectChainOnRing: a chain of n ranks, numbered in a scrambled
// order, on a ring of n switches with one host each. The bisection alone
// (no swaps after it) lays the chain around the ring: each half is turned
// towards the partners of its ranks outside — placed, or in the block they
// were cut into — so every message crosses exactly one switch-to-switch
// cable, 3 cables a route, 3(n−1) in all; for 10 scrambles each.
func TestBisectChainOnRing(t *testing.T) {
	for _, n := range []int{8, 16, 32} {
		for seed := uint64(1); seed <= 10; seed++ {
			perm := make([]int32, n)
			for i := range perm {
				perm[i] = int32(i)
			}
			rng.New(seed, 0).ShuffleInt32(perm)
			c := &Comm{Ranks: n, Levels: 1, Unit: "bytes"}
			for r := 0; r+1 < n; r++ {
				c.Msgs = append(c.Msgs, Message{Src: perm[r], Dst: perm[r+1], Weight: 1})
			}
			p := problem(t, fabric(t, fmt.Sprintf("torus:dims=%d,hosts=1", n)), c)
			if o := p.Score(p.bisection().pl); o.Hops != int64(3*(n-1)) {
				t.Errorf("ring of %d, scramble %d: %d cables walked, want %d", n, seed, o.Hops, 3*(n-1))
			}
		}
	}
}

// TestBisectCutAndMiddle: on a 2×8 torus with one host per switch the
// first cut goes across the longer side, y: halves of 2×4 switches, y in
// 4 consecutive values each (the ring of 8 cut twice). The middle of the
// half y ∈ {0…3}, the switch with the least total hops to its 8 hosts,
// lies at y = 1 or 2: (1+0+1+2)·2 + 4 = 12 hops (4 hosts in the other
// column, one hop more each), against (0+1+2+3)·2 + 4 = 16 at y = 0 or 3.
func TestBisectCutAndMiddle(t *testing.T) {
	p := problem(t, fabric(t, "torus:dims=2x8,hosts=1"), randomTraffic(16, 2, 1))
	b := p.bisection()
	slots := make([]int32, 16)
	for i := range slots {
		slots[i] = int32(i)
	}
	mid := b.cutGrid(slots)
	if mid != 8 {
		t.Fatalf("cut at %d of 16", mid)
	}
	var ys []int
	for _, s := range slots[:8] {
		ys = append(ys, int(b.geo.at(s, 1)))
	}
	slices.Sort(ys)
	ys = slices.Compact(ys)
	gaps := 0
	for i := range ys {
		if (ys[(i+1)%len(ys)]-ys[i]+8)%8 != 1 {
			gaps++
		}
	}
	if len(ys) != 4 || gaps != 1 {
		t.Fatalf("first half on rows %v, want 4 consecutive ones", ys)
	}
	var low []int32
	for _, s := range slots {
		if int(b.geo.at(s, 1)) < 4 {
			low = append(low, s)
		}
	}
	if y := int(b.geo.at(b.medoid(low), 1)); y != 1 && y != 2 {
		t.Errorf("middle of rows 0…3 at row %d, want 1 or 2", y)
	}
}

// TestBisectGivenNetwork: with the generator's network given (what orcs
// map passes for -i gen:SPEC), bisect uses its coordinates without
// recognising the fabric again: a fabric whose graph name is gone places
// as the recognised one does, on the planes of the torus.
func TestBisectGivenNetwork(t *testing.T) {
	const spec = "torus:dims=4x4x2,hosts=2"
	c := randomTraffic(64, 3, 1)
	want, err := problem(t, fabric(t, spec), c).Place("bisect")
	if err != nil {
		t.Fatal(err)
	}
	n, err := gen.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	n.Fabric.GraphName = ""
	p := problem(t, n.Fabric, c)
	p.Network = n
	got, err := p.Place("bisect")
	if err != nil {
		t.Fatal(err)
	}
	if p.gridGeometry() == nil || !slices.Equal(got, want) {
		t.Errorf("with the network given: %v, recognised: %v", got, want)
	}
}

package mapping

import (
	"testing"

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

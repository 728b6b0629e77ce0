package analyze

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"orcs/internal/randfabric"
	"orcs/lft"
	"orcs/patterns"
)

// TestFusedWalkRandomFabrics walks levels of every kind (all pairs, a
// host with itself included; the pairs of the linked hosts only; random
// pairs; permutations with ranks kept in place, one-to-one and counted)
// on random fabrics (randfabric.Tables), some with hosts that no link
// reaches and tables with holes, loops and dead ends, with one walker for all the levels
// of a fabric: the fused walk (inner or link words) must give the
// RouteBatch's congestion, failures and hops, and leave no load behind.
func TestFusedWalkRandomFabrics(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	inner := 0
	for it := range 300 {
		f := randfabric.Tables(r, randfabric.Spec{Switches: 1 + r.IntN(6), Hosts: 2 + r.IntN(20), Isolated: it % 3 / 2,
			Miss: []float64{0, 0, 0.1, 0.3}[it%4]})
		if !f.PrepareWalks(1 << 40) {
			t.Fatal("no entry routes")
		}
		if e, ok := f.LinkEntries(); ok && e.Inner != nil {
			inner++
		}
		H := f.NumHosts()
		perm := make([]int32, H)
		for i := range perm {
			perm[i] = int32(i)
		}
		var all, linked, rnd patterns.Level
		for s := range int32(H) {
			for d := range int32(H) {
				all = append(all, patterns.Pair{Src: s, Dst: d})
			}
		}
		var fused, batch Walker
		fused.Init(f, false)
		batch.Init(f, false)
		for lv := range 8 {
			r.Shuffle(H, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			linked, rnd = linked[:0], rnd[:0]
			for _, p := range all {
				if f.HostName(int(perm[p.Src]))[0] == 'H' {
					linked = append(linked, p)
				}
			}
			for range r.IntN(3 * H) {
				rnd = append(rnd, patterns.Pair{Src: int32(r.IntN(H)), Dst: int32(r.IntN(H))})
			}
			var pm patterns.Level
			for s, d := range r.Perm(H) {
				pm = append(pm, patterns.Pair{Src: int32(s), Dst: int32(d)})
			}
			for _, c := range []struct {
				name     string
				lv       patterns.Level
				oneToOne bool
			}{{"all pairs", all, false}, {"linked hosts", linked, false}, {"random pairs", rnd, false},
				{"permutation", pm, true}, {"permutation counted", pm, false}, {"a few of a permutation", pm[:1+r.IntN(H)], true}} {
				name := fmt.Sprintf("fabric %d level %d, %s", it, lv, c.name)
				wf, ff := fused.level(c.lv, perm, c.oneToOne)
				wf = slices.Clone(wf)
				fusedWalk = false
				wb, fb := batch.level(c.lv, perm, false)
				fusedWalk = true
				if !slices.Equal(wf, wb) || ff != fb || fused.Hops != batch.Hops {
					t.Fatalf("%s: fused %v, %d failed, %d hops; batch %v, %d, %d", name, wf, ff, fused.Hops, wb, fb, batch.Hops)
				}
				for l, n := range fused.load[:cap(fused.load)] {
					if n != 0 {
						t.Fatalf("%s: link %d keeps load %d", name, l, n)
					}
				}
				for q, n := range fused.slotLoad {
					if n != 0 {
						t.Fatalf("%s: slot %d keeps load %d", name, q, n)
					}
				}
			}
		}
	}
	if inner < 100 {
		t.Errorf("only %d of 300 fabrics have inner words", inner)
	}
}

// TestInnerWordsAtTheLinkLimit: fabrics of 65 532 to 65 536 links (a core
// switch over 200 leaves of 162 or 163 hosts, and unused links from the
// core to a leaf): inner words up to 65 534 links (InnerMissing and
// LinkPad, 65 534 and 65 535, are no link), link words at 65 535,
// position words from 65 536 on; the fused walk gives the RouteBatch's congestion on each.
func TestInnerWordsAtTheLinkLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("five fabrics of 65 536 links")
	}
	r := rand.New(rand.NewPCG(7, 8))
	const leaves, H = 200, (65532 - 2*200) / 2
	for _, c := range []struct {
		extra        int // unused links from the core to leaf 0
		links, inner bool
		description  string
	}{{0, true, true, "65 532"}, {1, true, true, "65 533"}, {2, true, true, "65 534"}, {3, true, false, "65 535"}, {4, false, false, "65 536"}} {
		b := lft.NewBuilder()
		core := b.Node("core", lft.Switch)
		leaf, up, down := make([]int32, leaves), make([]int32, leaves), make([]int32, leaves)
		for i := range leaf {
			leaf[i] = b.Node(fmt.Sprintf("L%d", i), lft.Switch)
			up[i], down[i] = b.Link(leaf[i], core, 0, 0), b.Link(core, leaf[i], 0, 0)
		}
		for range c.extra {
			b.Link(core, leaf[0], 0, 0)
		}
		toHost := make([]int32, H)
		for h := range H {
			v := b.Node(fmt.Sprintf("H%d", h), lft.Host)
			b.Route(b.Link(v, leaf[h%leaves], 0, 0), lft.AnyDest)
			toHost[h] = b.Link(leaf[h%leaves], v, 0, 0)
		}
		for h := range H {
			d := b.Dest(fmt.Sprintf("H%d", h))
			b.Route(toHost[h], d)
			b.Route(down[h%leaves], d)
			for i := range leaves {
				if i != h%leaves {
					b.Route(up[i], d)
				}
			}
		}
		f, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		if !f.PrepareWalks(1 << 40) {
			t.Fatalf("%s links: no entry routes", c.description)
		}
		e, ok := f.LinkEntries()
		if ok != c.links || (e.Inner != nil) != c.inner {
			t.Fatalf("%s links: link or inner words %v (inner %v), want %v (inner %v)", c.description, ok, e.Inner != nil, c.links, c.inner)
		}
		perm := make([]int32, H)
		for i := range perm {
			perm[i] = int32(i)
		}
		r.Shuffle(H, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		var lv patterns.Level
		for s, d := range r.Perm(H) {
			lv = append(lv, patterns.Pair{Src: int32(s), Dst: int32(d)})
		}
		levelBoth(t, c.description+" links, a permutation", f, lv, perm, true, true)
		levelBoth(t, c.description+" links, a permutation counted", f, lv[:5000], perm, false, true)
	}
}

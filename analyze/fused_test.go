package analyze

import (
	"slices"
	"strconv"
	"testing"

	"orcs/gen"
	"orcs/lft"
	"orcs/patterns"
	"orcs/rng"
)

// levelBoth walks lv with the fused walk and with the RouteBatch's walk
// and fails when the congestion, the failed routes or the hops differ, or
// a walk leaves a load behind. A level whose hosts' links are not counted
// leaves the pairs' first links unset: they are set beforehand to the
// level's busiest link, so that a walk reading them is caught.
func levelBoth(t *testing.T, name string, f *lft.Fabric, lv patterns.Level, perm []int32, oneToOne, wantFused bool) {
	t.Helper()
	var fused, batch Walker
	fused.Init(f, false)
	batch.Init(f, false)
	if oneToOne {
		busy := busiestLink(f, lv, perm)
		fused.fusedScratch(len(lv))
		for i := range fused.first {
			fused.first[i] = busy
		}
	}
	wf, okf := fused.levelFused(lv, perm, oneToOne)
	if okf != wantFused {
		t.Fatalf("%s: fused walk taken %v, want %v", name, okf, wantFused)
	}
	if !okf {
		wf, _ = fused.level(lv, perm, oneToOne)
	}
	fusedWalk = false
	wb, failed := batch.level(lv, perm, false)
	fusedWalk = true
	if !slices.Equal(wf, wb) {
		t.Fatalf("%s: fused walk's congestion %v, the batch's %v", name, wf, wb)
	}
	if wantFused && failed != 0 {
		t.Fatalf("%s: %d routes failed, yet the fused walk took the level", name, failed)
	}
	if fused.Hops != batch.Hops {
		t.Fatalf("%s: fused walk %d hops, batch %d", name, fused.Hops, batch.Hops)
	}
	for l, c := range fused.load[:cap(fused.load)] { // the pads' counters too
		if c != 0 {
			t.Fatalf("%s: link %d keeps load %d after the level", name, l, c)
		}
	}
	for q, c := range fused.slotLoad { // position words count by slot
		if c != 0 {
			t.Fatalf("%s: slot %d keeps load %d after the level", name, q, c)
		}
	}
}

// busiestLink returns the link that most routes of lv take (the
// RouteBatch's walk).
func busiestLink(f *lft.Fabric, lv patterns.Level, perm []int32) int32 {
	var k Walker
	k.Init(f, false)
	fusedWalk = false
	k.level(lv, perm, false)
	fusedWalk = true
	n := make([]int, len(f.Links))
	busy := int32(0)
	for _, l := range k.batch.Path() {
		if n[l]++; n[l] > n[busy] {
			busy = l
		}
	}
	return busy
}

// TestFusedWalkMatchesBatch compares the fused walk with the RouteBatch's
// on inner words (64 and 4096 hosts), link words (81 hosts in four levels
// with routes of 8 links) and position words (13 824 hosts, 82 944
// links; 10 000 hosts in four levels, 80 000 links, whose routes decode
// seven links): levels where every rank sends and receives at most once
// (bisect_fb_sym, recdbl's, a permutation where some ranks send to
// themselves; the hosts' own links not counted) and levels where they do
// not (gather, random pairs with ranks sending to themselves), each with
// the hosts shuffled as runs shuffle them.
func TestFusedWalkMatchesBatch(t *testing.T) {
	for _, c := range []struct {
		spec             string
		positions, inner bool
	}{{"kary:k=4,n=3", false, true}, {"kary:k=3,n=4", false, false}, {"kary:k=16,n=3", false, true}, {"kary:k=24,n=3", true, false}, {"kary:k=10,n=4", true, false}} {
		f, err := gen.Generate(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		H := f.NumHosts()
		if !f.PrepareWalks(int64(H) * int64(H)) {
			t.Fatalf("%s: no entry routes", c.spec)
		}
		if e, ok := f.LinkEntries(); ok == c.positions || (e.Inner != nil) != c.inner {
			t.Fatalf("%s: link or inner words %v (inner %v), want %v (inner %v)", c.spec, ok, e.Inner != nil, !c.positions, c.inner)
		}
		if _, ok := f.PositionEntries(); ok != c.positions {
			t.Fatalf("%s: position words %v, want %v", c.spec, ok, c.positions)
		}
		st := rng.New(7, 1)
		perm := make([]int32, H)
		for i := range perm {
			perm[i] = int32(i)
		}
		levels := map[string]struct {
			lv       patterns.Level
			oneToOne bool
		}{}
		for _, name := range []string{"bisect_fb_sym", "recdbl", "gather"} {
			src, err := patterns.Compile(patterns.Spec{Name: name}, H)
			if err != nil {
				t.Fatal(err)
			}
			all := src.Levels(nil, nil)
			lv := all[len(all)/2]
			levels[name] = struct {
				lv       patterns.Level
				oneToOne bool
			}{lv, oneToOne(lv, 1, make([]int32, H), make([]int32, H))}
		}
		if !levels["bisect_fb_sym"].oneToOne || levels["gather"].oneToOne {
			t.Fatalf("oneToOne: bisect_fb_sym %v, gather %v", levels["bisect_fb_sym"].oneToOne, levels["gather"].oneToOne)
		}
		var rnd patterns.Level
		for range 3 * H {
			rnd = append(rnd, patterns.Pair{Src: int32(st.IntN(H)), Dst: int32(st.IntN(H))})
		}
		levels["a few pairs"] = struct { // loads taken back route by route
			lv       patterns.Level
			oneToOne bool
		}{levels["bisect_fb_sym"].lv[:8], true}
		levels["random pairs"] = struct {
			lv       patterns.Level
			oneToOne bool
		}{rnd, false}
		// A permutation that keeps every fifth rank in place.
		moved := []int32{}
		for i := range int32(H) {
			if i%5 != 0 {
				moved = append(moved, i)
			}
		}
		to := slices.Clone(moved)
		st.ShuffleInt32(to)
		var selfPairs patterns.Level
		for i := range int32(H) {
			selfPairs = append(selfPairs, patterns.Pair{Src: i, Dst: i})
		}
		for j, i := range moved {
			selfPairs[i].Dst = to[j]
		}
		if !oneToOne(selfPairs, 1, make([]int32, H), make([]int32, H)) {
			t.Fatal("a permutation is not one-to-one")
		}
		levels["a permutation with ranks kept"] = struct {
			lv       patterns.Level
			oneToOne bool
		}{selfPairs, true}
		for r := range 3 {
			st.ShuffleInt32(perm)
			for name, l := range levels {
				levelBoth(t, c.spec+" "+name+" run "+strconv.Itoa(r), f, l.lv, perm, l.oneToOne, true)
				if l.oneToOne { // also counted in full
					levelBoth(t, c.spec+" "+name+" counted run "+strconv.Itoa(r), f, l.lv, perm, false, true)
				}
			}
		}
	}
}

// TestFusedWalkLeavesFailingLevels walks a level with a route that
// fails (a star whose switch has no entry towards one host) next to
// routes that do not: the fused walk must hand the whole level back,
// with nothing counted, to the RouteBatch, which reports the failure.
func TestFusedWalkLeavesFailingLevels(t *testing.T) {
	n := 6
	f := starFabricWithout(t, n, n-1)
	if !f.PrepareWalks(int64(n * n)) {
		t.Fatal("no entry routes")
	}
	perm := []int32{0, 1, 2, 3, 4, 5}
	ok := patterns.Level{{Src: 0, Dst: 1}, {Src: 1, Dst: 0}, {Src: 2, Dst: 3}, {Src: 3, Dst: 2}}
	levelBoth(t, "routes that work", f, ok, perm, true, true)
	fails := append(slices.Clone(ok), patterns.Pair{Src: 4, Dst: 5}, patterns.Pair{Src: 5, Dst: 4})
	levelBoth(t, "a route that fails", f, fails, perm, true, false)
	levelBoth(t, "a route that fails, counted", f, fails, perm, false, false)
}

// TestNewMarksOneToOneLevels: New marks the levels of a fixed pattern in
// which every rank sends and receives at most once (only those may leave
// the hosts' own cables uncounted), level by level, and no level of a
// random pattern.
func TestNewMarksOneToOneLevels(t *testing.T) {
	f, err := gen.Generate("kary:k=4,n=2")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pattern string
		level   int
		want    []bool
	}{
		{"bisect_fb_sym", -1, []bool{true}},
		{"recdbl", -1, []bool{true, true, true, true}},
		{"recdbl", 2, []bool{true}},
		{"6neighbor", -1, []bool{false}}, // every rank sends to several neighbours
		{"rand", -1, nil},
	} {
		s, err := New(f, Config{Pattern: patterns.Spec{Name: c.pattern}, Metric: "hist_acc_band",
			Runs: 1, Seed: 1, Threads: 1, Level: c.level})
		if err != nil {
			t.Fatalf("%s: %v", c.pattern, err)
		}
		if !slices.Equal(s.oneToOne, c.want) {
			t.Errorf("%s level %d: one-to-one levels %v, want %v", c.pattern, c.level, s.oneToOne, c.want)
		}
	}
}

// TestCountEntries checks countEntries against a loop over each word's
// links, for words of every length 0 to 7 (0: a pad word, or a pair of a
// host with itself) with and without the last link left out, links that
// repeat within and across words and a link one place past the counted
// ones: exactly the counted links gain, the pad's counter stays 0.
func TestCountEntries(t *testing.T) {
	st := rng.New(3, 1)
	lp := new([lft.LinkPad + 1]int32)
	want := make([]int32, 16)
	for _, skip := range []int{0, 1} {
		for range 200 {
			ent := make([][8]uint16, st.IntN(12))
			clear(want)
			for i := range ent {
				n := st.IntN(8)
				wd := [8]uint16{uint16(n), lft.LinkPad, lft.LinkPad, lft.LinkPad, lft.LinkPad, lft.LinkPad, lft.LinkPad, lft.LinkPad}
				for j := 1; j <= n; j++ {
					wd[j] = uint16(st.IntN(len(want)))
				}
				for j := 1; j <= n-skip; j++ {
					want[wd[j]]++
				}
				ent[i] = wd
			}
			countEntries(lp, ent, skip, make([]uint16, 7*len(ent)))
			if !slices.Equal(lp[:len(want)], want) || lp[lft.LinkPad] != 0 {
				t.Fatalf("skip %d, words %v: loads %v (pad %d), want %v", skip, ent, lp[:len(want)], lp[lft.LinkPad], want)
			}
			clear(lp[:len(want)])
		}
	}
}

// TestCongestionOneToOne checks congestionOneToOne against the largest
// load of each word's counted links (all but the last, the link into the
// destination host, which reads 0), or 1, for words of every length 0 to
// 7 and loads up to 9 on the counted links only.
func TestCongestionOneToOne(t *testing.T) {
	st := rng.New(5, 1)
	lp := new([lft.LinkPad + 1]int32)
	for range 2000 {
		n := st.IntN(8)
		wd := [8]uint16{uint16(n), lft.LinkPad, lft.LinkPad, lft.LinkPad, lft.LinkPad, lft.LinkPad, lft.LinkPad, lft.LinkPad}
		want := int32(min(n, 1))
		for j := 1; j <= n; j++ {
			wd[j] = uint16(10*j + st.IntN(10)) // distinct links
			if j < n {
				lp[wd[j]] = int32(st.IntN(10))
				want = max(want, lp[wd[j]])
			}
		}
		if got := congestionOneToOne(lp, &wd); got != want {
			t.Fatalf("word %v, loads %v: congestion %d, want %d", wd, lp[:80], got, want)
		}
		clear(lp[:80])
	}
}

package analyze

import (
	"unsafe"

	"orcs/internal/prefetch"
	"orcs/lft"
	"orcs/patterns"
)

// The fused level walk. When the fabric has entry routes for every host
// (lft.Fabric.LinkEntries, PositionEntries) and no summed map is asked
// for, a level is walked in short loops over arrays of the level's size
// instead of through a RouteBatch's path: where each pair's entry is,
// then each entry read (with the lines of the next block asked for
// ahead), then the loads counted from the entries kept, then each route's
// congestion from them. No route is written out link by link and read
// again.
//
// A level whose ranks each send at most one message and receive at most
// one (a permutation such as bisect_fb_sym, known once for a fixed
// pattern: Analysis.oneToOne) needs no count on the hosts' own links: a
// host's link to its switch carries only its own route and the link into
// a host only the route to it (entry routes never pass through a host),
// so both carry exactly 1, and a route's congestion is the largest load
// of its switch-to-switch links, or 1. Those loads are neither counted
// nor read. A level with a pair the entries do not hold (a failed route,
// or one that passes through a host or is too long for a word) is walked
// again by the RouteBatch, all of it, so the counts stay those of the
// batch.

// fusedWalk turns the fused walk on; a variable for tests and
// benchmarks, which compare it with the RouteBatch's walk.
var fusedWalk = true

// fusedAhead is how many entries ahead the fused walk asks for their
// lines (64 rather than lft's gather's 32: 1.06× faster at 10 648 hosts;
// 128 no faster).
const fusedAhead = 64

// prefetchAbove is the size of the entry words (bytes) above which the
// fused walk asks for their lines ahead: smaller words stay in the
// processor's caches, where the requests cost more than they save.
const prefetchAbove = 1 << 20

// levelsOneToOne tells, for each of levels (those a run walks, drawn from
// src), whether it is oneToOne, for runs that map its ranks onto hosts;
// nil when src is random or hosts repeat.
func levelsOneToOne(src *patterns.Source, levels []patterns.Level, hosts []int32, numHosts int) []bool {
	if src.Random() {
		return nil
	}
	seen := make([]bool, numHosts)
	for _, h := range hosts {
		if seen[h] {
			return nil
		}
		seen[h] = true
	}
	one := make([]bool, len(levels))
	sent, got := make([]int32, len(hosts)), make([]int32, len(hosts))
	for i, lv := range levels {
		one[i] = oneToOne(lv, int32(i+1), sent, got)
	}
	return one
}

// oneToOne tells whether every rank of lv sends at most once and receives
// at most once; sent and got hold, per rank, the stamp of the last level
// that saw it send or receive, and take stamp for lv.
func oneToOne(lv patterns.Level, stamp int32, sent, got []int32) bool {
	for _, p := range lv {
		if sent[p.Src] == stamp || got[p.Dst] == stamp {
			return false
		}
		sent[p.Src], got[p.Dst] = stamp, stamp
	}
	return true
}

// levelFused walks the level as the fused walk does and returns each
// pair's congestion, or false (nothing counted) when the fabric has no
// entry routes, a summed map is kept, or a pair's route is not in them.
func (k *Walker) levelFused(lv patterns.Level, perm []int32, oneToOne bool) ([]int32, bool) {
	if k.Sum != nil || !fusedWalk {
		return nil, false
	}
	if e, ok := k.f.LinkEntries(); ok {
		if e.Inner != nil {
			return k.levelInner(lv, perm, e, oneToOne)
		}
		return k.levelLinks(lv, perm, e, oneToOne)
	}
	if e, ok := k.f.PositionEntries(); ok {
		return k.levelPositions(lv, perm, e, oneToOne)
	}
	return nil, false
}

// fusedScratch sizes the walker's per-pair scratch for n pairs.
func (k *Walker) fusedScratch(n int) {
	if cap(k.at) < n {
		k.at = make([]int32, n)
		k.first = make([]int32, n)
	}
	if cap(k.w) < n {
		k.w = make([]int32, n)
	}
	k.at, k.first, k.w = k.at[:n], k.first[:n], k.w[:n]
}

// where sets k.at[i] to the entry index of pair i (host row start + d,
// or -1 for a pair of a host with itself) and, when hostLinks, k.first[i]
// to its first link (a level that does not count the hosts' own links
// needs none); it reports false if a pair of distinct hosts has no entry
// row.
func (k *Walker) where(lv patterns.Level, perm, at, hostLink []int32, hostLinks bool) bool {
	xs, first := k.at[:len(lv)], k.first[:len(lv)]
	for i, p := range lv {
		s, d := perm[p.Src], perm[p.Dst]
		a := at[s]
		x := a + d
		if s == d {
			x = -1
		} else if a < 0 {
			return false
		}
		xs[i] = x
	}
	if hostLinks { // a loop of its own: a branch per pair above cost more
		sourceLinks(lv, perm, hostLink, first)
	}
	return true
}

// sourceLinks sets first[i] to the link of pair i's source host.
func sourceLinks(lv patterns.Level, perm, hostLink, first []int32) {
	first = first[:len(lv)]
	for i, p := range lv {
		first[i] = hostLink[perm[p.Src]]
	}
}

// levelLinks is levelFused over link words. The loads are read through
// an array of 65 536 counters (the walker's loads, grown), so a word's
// seven links are read without a bounds check and without a branch on
// the route's length: the places past its end (lft.LinkPad) read a
// counter that stays 0.
func (k *Walker) levelLinks(lv patterns.Level, perm []int32, e lft.LinkEntries, oneToOne bool) ([]int32, bool) {
	n := len(lv)
	k.fusedScratch(n)
	if cap(k.lw) < n {
		k.lw = make([][8]uint16, n)
	}
	ent := k.lw[:n]
	if !k.where(lv, perm, e.At, e.HostLink, !oneToOne) {
		return nil, false
	}
	at, first, words, lp := k.at, k.first, e.Words, k.paddedLoads()
	skip := 0
	if oneToOne {
		skip = 1
	}
	ahead := len(words)*int(unsafe.Sizeof(words[0])) > prefetchAbove
	base := uintptr(unsafe.Pointer(unsafe.SliceData(words)))
	pad := [8]uint16{0, lft.LinkPad, lft.LinkPad, lft.LinkPad, lft.LinkPad, lft.LinkPad, lft.LinkPad, lft.LinkPad}
	// The words are gathered first, in a loop of independent loads (many
	// misses in flight), and checked before anything is counted.
	hops, missing := 0, false
	for c := 0; c < n; c += fusedAhead {
		end := min(c+fusedAhead, n)
		if ahead {
			askAhead(at[end:min(end+fusedAhead, n)], base, 16)
		}
		for i := c; i < end; i++ {
			wd := pad
			if x := at[i]; x >= 0 {
				wd = words[x]
				hops += 1 + int(wd[0])
				missing = missing || wd[0] == 0
			} else {
				first[i] = lft.LinkPad
			}
			ent[i] = wd
		}
	}
	if missing {
		return nil, false
	}
	if skip == 0 {
		for i := range ent {
			if ent[i][0] != 0 {
				lp[first[i]]++
			}
		}
	}
	if cap(k.lpath) < 7*n {
		k.lpath = make([]uint16, 7*n)
	}
	counted := countEntries(lp, ent, skip, k.lpath[:7*n])
	w := k.w[:len(ent)]
	if skip == 0 {
		for i := range ent {
			wd := &ent[i]
			w[i] = max(lp[first[i]], lp[wd[1]], lp[wd[2]], lp[wd[3]], lp[wd[4]], lp[wd[5]], lp[wd[6]], lp[wd[7]])
		}
	} else {
		// The link into the destination host was not counted: it reads 0,
		// and the route's congestion is at least 1.
		for i := range ent {
			w[i] = congestionOneToOne(lp, &ent[i])
		}
	}
	if skip == 0 { // the hosts' links, or the pad (a pair of a host with itself)
		k.endLevel(hops, counted, first)
	} else {
		k.endLevel(hops, counted)
	}
	return w, true
}

// paddedLoads returns the walker's loads as an array of 65 536 counters
// (grown once), so that link words and inner words are counted and read
// without bounds checks, their pads included.
func (k *Walker) paddedLoads() *[lft.LinkPad + 1]int32 {
	if cap(k.load) < lft.LinkPad+1 {
		k.load = make([]int32, len(k.load), lft.LinkPad+1)
	}
	return (*[lft.LinkPad + 1]int32)(k.load[:lft.LinkPad+1])
}

// endLevel adds a fused level's hops and sets its loads back to 0: all of
// them at once when the level's hops are a quarter of the fabric's links or
// more, else those of links and of hostLinks (the pads' counters among
// them).
func (k *Walker) endLevel(hops int, links []uint16, hostLinks ...[]int32) {
	k.Hops += int64(hops)
	if 4*hops >= len(k.load) {
		clear(k.load)
		return
	}
	lp := k.paddedLoads()
	zeroLinks(lp, links)
	for _, ls := range hostLinks {
		for _, l := range ls {
			lp[l] = 0
		}
	}
}

// levelInner is levelFused over inner words. A route's links between
// switches are the four 16-bit places of its word, counted as the flat
// walk counts a path (the level's words read as one array of links); the
// places past a route's links (LinkPad) are counted too, into a counter
// that is set back before any congestion is read, and show how many
// places were no link. A pair whose route is not in the words
// (lft.InnerNone) shows in the counter of lft.InnerMissing once the words
// are counted, and the level is handed back before anything else is
// counted (a host that no link reaches has no link in HostIn). A level
// that counts the hosts' own links counts each pair's first link (the
// source's) and last (the one into the destination) as well.
func (k *Walker) levelInner(lv patterns.Level, perm []int32, e lft.LinkEntries, oneToOne bool) ([]int32, bool) {
	n := len(lv)
	k.fusedScratch(n)
	if cap(k.iw) < n {
		k.iw = make([]uint64, n)
	}
	ent := k.iw[:n]
	var self int
	if len(e.Inner)*8 > prefetchAbove {
		if !k.where(lv, perm, e.At, e.HostLink, !oneToOne) {
			return nil, false
		}
		self = gatherInner(k.at, e.Inner, ent)
	} else {
		var ok bool
		if self, ok = whereInner(lv, perm, e.At, e.Inner, ent); !ok {
			return nil, false
		}
		if !oneToOne {
			sourceLinks(lv, perm, e.HostLink, k.first)
		}
	}
	lp := k.paddedLoads()
	links := unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(ent))), 4*n)
	for _, l := range links {
		lp[l]++
	}
	if lp[lft.InnerMissing] != 0 { // before any host's link is looked up
		zeroLinks(lp, links)
		return nil, false
	}
	if oneToOne {
		return k.innerOneToOne(lp, lv, perm, links, ent, self)
	}
	return k.innerCounted(lp, lv, perm, e, links, ent, self)
}

// gatherInner reads the inner word of each pair i at at[i] (all LinkPad
// for a pair of a host with itself, at[i] < 0) into ent, in a loop of
// independent loads with the lines of the next block asked for ahead,
// and returns the number of pairs of a host with itself.
func gatherInner(at []int32, words, ent []uint64) (self int) {
	n := len(ent)
	at = at[:n]
	ahead := len(words)*8 > prefetchAbove
	base := uintptr(unsafe.Pointer(unsafe.SliceData(words)))
	for c := 0; c < n; c += fusedAhead {
		end := min(c+fusedAhead, n)
		if ahead {
			askAhead(at[end:min(end+fusedAhead, n)], base, 8)
		}
		self += gatherInnerBlock(at[c:end], words, ent[c:end])
	}
	return self
}

// gatherInnerBlock is gatherInner's loop over one block: a function of
// its own, not inlined, as beside the call that asks for the next block
// the compiler kept the loop's slices on the stack and read them again
// for every pair.
//
//go:noinline
func gatherInnerBlock(at []int32, words, ent []uint64) (self int) {
	ent = ent[:len(at)]
	for i, x := range at {
		wd := uint64(innerPads)
		if x >= 0 {
			wd = words[x]
		} else {
			self++
		}
		ent[i] = wd
	}
	return self
}

// whereInner is where and gatherInner in one loop, for words that stay
// in the caches (no lines to ask for ahead): it sets ent[i] to pair i's
// word (innerPads for a pair of a host with itself) and returns the number
// of those pairs, or false if a pair of distinct hosts has no entry row.
// Not inlined, and without the entry indices that where keeps: with them
// the loop had more values alive than registers and read two of them from
// the stack at every pair (1.03× slower).
//
//go:noinline
func whereInner(lv patterns.Level, perm, at []int32, words, ent []uint64) (self int, ok bool) {
	ent = ent[:len(lv)]
	for i, p := range lv {
		s, d := perm[p.Src], perm[p.Dst]
		a, wd := at[s], uint64(innerPads)
		if s != d {
			if a < 0 {
				return 0, false
			}
			wd = words[a+d]
		} else {
			self++
		}
		ent[i] = wd
	}
	return self, true
}

// askAhead asks for the lines of the entries at (at most fusedAhead of
// them; those < 0 are none) of an array at base whose entries take size
// bytes.
func askAhead(at []int32, base, size uintptr) {
	prefetch.Indexed(base, at[:min(len(at), fusedAhead)], size)
}

// innerPads is the inner word of no link.
const innerPads = lft.LinkPad * 0x0001_0001_0001_0001

// innerOneToOne ends levelInner in a oneToOne level, the words' links
// counted: the hosts' links are not counted, and a route's congestion is
// the largest load of its word's links, or 1.
func (k *Walker) innerOneToOne(lp *[lft.LinkPad + 1]int32, lv patterns.Level, perm []int32, links []uint16, ent []uint64, self int) ([]int32, bool) {
	// Each pair counted four places, those of a pair of a host with
	// itself all pads; a route has two links more than its word.
	n := len(ent)
	hops := 6*(n-self) - (int(lp[lft.LinkPad]) - 4*self)
	// A route's congestion is at least 1: the places past its links read
	// 1 (a route of no link between switches reads 1 four times).
	lp[lft.LinkPad] = 1
	w := k.w[:n]
	congestionInner(lp, ent, w)
	lp[lft.LinkPad] = 0
	if self > 0 {
		for i, p := range lv {
			if perm[p.Src] == perm[p.Dst] {
				w[i] = 0
			}
		}
	}
	k.endLevel(hops, links)
	return w, true
}

// congestionInner sets w[i] to the largest load of the links of inner
// word ent[i] (a loop of its own, with few values alive, so that they
// stay in registers; not inlined, where the compiler spilled them).
//
//go:noinline
func congestionInner(lp *[lft.LinkPad + 1]int32, ent []uint64, w []int32) {
	w = w[:len(ent)]
	for i, wd := range ent {
		a, b := lp[uint16(wd)], lp[uint16(wd>>16)]
		c, d := lp[uint16(wd>>32)], lp[uint16(wd>>48)]
		w[i] = max(max(a, b), max(c, d))
	}
}

// innerCounted ends levelInner in a level that counts the hosts' own
// links, the words' links counted: it counts each pair's first link (the
// source's, which where found) and last (the one into the destination),
// and a route's congestion is the largest load of the six.
func (k *Walker) innerCounted(lp *[lft.LinkPad + 1]int32, lv patterns.Level, perm []int32, e lft.LinkEntries, links []uint16, ent []uint64, self int) ([]int32, bool) {
	n := len(ent)
	if cap(k.last) < n {
		k.last = make([]int32, n)
	}
	first, last := k.first[:n], k.last[:n]
	for i, p := range lv {
		last[i] = lft.LinkPad
		if d := perm[p.Dst]; d != perm[p.Src] {
			last[i] = e.HostIn[d]
		} else {
			first[i] = lft.LinkPad
		}
	}
	for i := range first {
		lp[first[i]]++
		lp[last[i]]++
	}
	// A pair of a host with itself counted six pads.
	hops := 6*(n-self) - (int(lp[lft.LinkPad]) - 6*self)
	lp[lft.LinkPad] = 0
	w := k.w[:n]
	for i, wd := range ent {
		w[i] = max(lp[first[i]], lp[last[i]], lp[uint16(wd)], lp[uint16(wd>>16)], lp[uint16(wd>>32)], lp[uint16(wd>>48)])
	}
	k.endLevel(hops, links, first, last)
	return w, true
}

// zeroLinks sets the loads of links back to 0.
func zeroLinks(lp *[lft.LinkPad + 1]int32, links []uint16) {
	for _, l := range links {
		lp[l] = 0
	}
}

// countEntries adds 1 to the loads of links wd[1 … wd[0]−skip] of every
// word wd of ent, through the array of 65 536 counters (no bounds checks).
// The links are first laid out back to back in path (7·len(ent) places):
// each word's seven places are copied, and the next word's copy starts
// right after the links counted, over the rest. Then one loop counts
// them as the flat walk counts a path: no branch on a route's length. It
// returns the links counted, back to back.
func countEntries(lp *[lft.LinkPad + 1]int32, ent [][8]uint16, skip int, path []uint16) []uint16 {
	path = path[:len(path):len(path)] // no place past those given is written
	p := 0
	for i := range ent {
		wd := &ent[i]
		*(*[7]uint16)(path[p : p+7]) = [7]uint16(wd[1:8])
		p += max(int(wd[0]&7)-skip, 0) // a word holds at most seven links
	}
	for _, l := range path[:p] {
		lp[l]++
	}
	return path[:p]
}

// congestionOneToOne returns the congestion of the route of word wd in a
// level whose hosts' links are not counted: the largest load of its
// links, or 1. The link into the destination host and the places past the
// route's end read 0, so the first four places are read whatever the
// length; the other three only for routes of more than five links (a
// three-level fat tree's have at most five after the first).
func congestionOneToOne(lp *[lft.LinkPad + 1]int32, wd *[8]uint16) int32 {
	x := max(int32(min(wd[0], 1)), lp[wd[1]], lp[wd[2]], lp[wd[3]], lp[wd[4]])
	if wd[0] > 5 {
		x = max(x, lp[wd[5]], lp[wd[6]], lp[wd[7]])
	}
	return x
}

// countLinks adds 1 to the loads of links wd[1 … n]: a switch on the
// number whose cases count every link at once (a fat tree's routes have
// few lengths, so the branch is well predicted).
func countLinks[T uint16 | int32](load []int32, wd *[8]T, n int) {
	switch n {
	case 1:
		load[wd[1]]++
	case 2:
		load[wd[1]]++
		load[wd[2]]++
	case 3:
		load[wd[1]]++
		load[wd[2]]++
		load[wd[3]]++
	case 4:
		load[wd[1]]++
		load[wd[2]]++
		load[wd[3]]++
		load[wd[4]]++
	case 5:
		load[wd[1]]++
		load[wd[2]]++
		load[wd[3]]++
		load[wd[4]]++
		load[wd[5]]++
	case 6:
		load[wd[1]]++
		load[wd[2]]++
		load[wd[3]]++
		load[wd[4]]++
		load[wd[5]]++
		load[wd[6]]++
	case 7:
		load[wd[1]]++
		load[wd[2]]++
		load[wd[3]]++
		load[wd[4]]++
		load[wd[5]]++
		load[wd[6]]++
		load[wd[7]]++
	}
}

// maxLinks returns the largest load of links wd[1 … n] (0 for n ≤ 0).
func maxLinks[T uint16 | int32](load []int32, wd *[8]T, n int) int32 {
	switch n {
	case 1:
		return load[wd[1]]
	case 2:
		return max(load[wd[1]], load[wd[2]])
	case 3:
		return max(load[wd[1]], load[wd[2]], load[wd[3]])
	case 4:
		return max(load[wd[1]], load[wd[2]], load[wd[3]], load[wd[4]])
	case 5:
		return max(load[wd[1]], load[wd[2]], load[wd[3]], load[wd[4]], load[wd[5]])
	case 6:
		return max(load[wd[1]], load[wd[2]], load[wd[3]], load[wd[4]], load[wd[5]], load[wd[6]])
	case 7:
		return max(load[wd[1]], load[wd[2]], load[wd[3]], load[wd[4]], load[wd[5]], load[wd[6]], load[wd[7]])
	}
	return 0
}

// levelPositions is levelFused over position words. The block numbers
// (8 MB at 65 536 hosts) are read with the lines of the next chunk of
// pairs asked for ahead, and the words are decoded a chunk of pairs at a
// time, one step through the slots for every pair of the chunk before
// the next step: the steps of one route depend on each other, those of a
// chunk's routes do not, so their loads overlap. The loads are counted by
// slot (k.slotLoad: a switch's out-port stands for its link, host s's
// own link is slot len(e.Next)+s), so a step reads only the next slot
// (e.Next, 4 bytes), not the link.
func (k *Walker) levelPositions(lv patterns.Level, perm []int32, e lft.PositionEntries, oneToOne bool) ([]int32, bool) {
	n := len(lv)
	k.fusedScratch(n)
	if cap(k.pw) < n {
		k.pw = make([][8]int32, n)
		k.base = make([]int32, n)
		k.low = make([]int32, n)
	}
	ent, bases, low := k.pw[:n], k.base[:n], k.low[:n]
	if len(k.slotLoad) != len(e.Next)+len(e.At) {
		k.slotLoad = make([]int32, len(e.Next)+len(e.At))
	}
	at, first, load := k.at, k.first, k.slotLoad
	block := e.Block
	if !wherePositions(lv, perm, e, at, low, first, bases) {
		return nil, false
	}
	skip := 0
	if oneToOne {
		skip = 1
	}
	hops := 0
	var wds [fusedAhead]uint64
	var cur [fusedAhead]int32
	blockAt := uintptr(unsafe.Pointer(unsafe.SliceData(block)))
	askAhead(at[:min(fusedAhead, n)], blockAt, 4)
	askAhead(at[min(fusedAhead, n):min(2*fusedAhead, n)], blockAt, 4)
	for c := 0; c < n; c += fusedAhead {
		end := min(c+fusedAhead, n)
		// The block numbers of the chunk after the next, and the words
		// of the next (its block numbers were asked for a chunk ago).
		next := min(end+fusedAhead, n)
		askAhead(at[next:min(next+fusedAhead, n)], blockAt, 4)
		askWords(e, at[end:next], low[end:next])
		steps := k.positionWords(e, c, end, wds[:end-c], cur[:end-c])
		if steps < 0 {
			k.undoPositions(ent[:c], first[:c], skip)
			return nil, false
		}
		// A level that does not count the hosts' links reads no route's
		// last link (the one into its destination): one step less.
		decodeSteps(e.Next, ent[c:end], wds[:end-c], cur[:end-c], steps-skip)
		hops += countPositions(load, ent[c:end], first[c:end], skip)
	}
	w := k.w
	congestionPositions(load, ent, first, w, skip)
	k.Hops += int64(hops)
	if 4*hops >= len(load) {
		clear(load)
	} else {
		k.undoPositions(ent, first, skip)
	}
	return w, true
}

// askWords asks for the lines of the position words of the pairs whose
// block numbers are at (those < 0 are none) and places in their block
// low (at most fusedAhead of them).
func askWords(e lft.PositionEntries, at, low []int32) {
	var addrs [fusedAhead]uintptr
	base := uintptr(unsafe.Pointer(unsafe.SliceData(e.Words)))
	block := e.Block
	low = low[:len(at)]
	j := 0
	for i, x := range at[:min(len(at), fusedAhead)] {
		if x >= 0 {
			addrs[j] = base + uintptr(int32(block[x])<<6|low[i])*8
			j++
		}
	}
	prefetch.Lines(addrs[:j])
}

// wherePositions sets, for every pair i of the level, at[i] to the index
// of its block number (−1 for a pair of a host with itself), low[i] to the
// destination's place in the block, first[i] to the slot of the source's
// link (len(e.Next)+s, see levelPositions) and bases[i] to its first
// slot; it reports false if a pair of distinct hosts has no entry row.
// Not inlined, as the loops below: in one function the compiler kept
// their values on the stack.
//
//go:noinline
func wherePositions(lv patterns.Level, perm []int32, e lft.PositionEntries, at, low, first, bases []int32) bool {
	eat := e.At
	at, low = at[:len(lv)], low[:len(lv)]
	for i, p := range lv {
		s, d := perm[p.Src], perm[p.Dst]
		a, x := eat[s], int32(-1)
		if s != d {
			if a < 0 {
				return false
			}
			x = a + d>>6
		}
		at[i], low[i] = x, d&63
	}
	// A loop of its own, with fewer values alive.
	base, hostSlots := e.Base, int32(len(e.Next))
	first, bases = first[:len(lv)], bases[:len(lv)]
	for i, p := range lv {
		s := perm[p.Src]
		first[i], bases[i] = hostSlots+s, base[s]
	}
	return true
}

// countPositions counts the links of the decoded routes ent (the first,
// first[i], too unless skip is 1) and returns their hops.
//
//go:noinline
func countPositions(load []int32, ent [][8]int32, first []int32, skip int) (hops int) {
	first = first[:len(ent)]
	for i := range ent {
		r := &ent[i]
		if r[0] == 0 {
			continue
		}
		hops += 1 + int(r[0])
		if skip == 0 {
			load[first[i]]++
		}
		countLinks(load, r, int(r[0])-skip)
	}
	return hops
}

// congestionPositions sets w[i] to the congestion of decoded route ent[i]:
// the largest load of its links (the first, first[i], too unless skip is
// 1, when it is at least 1), 0 for a pair of a host with itself.
//
//go:noinline
func congestionPositions(load []int32, ent [][8]int32, first, w []int32, skip int) {
	first, w = first[:len(ent)], w[:len(ent)]
	for i := range ent {
		r := &ent[i]
		m := maxLinks(load, r, int(r[0])-skip)
		if r[0] != 0 {
			if skip == 0 {
				m = max(m, load[first[i]])
			} else {
				m = max(m, 1)
			}
		}
		w[i] = m
	}
}

// positionWords reads the words of pairs c … end−1 into wds, their first
// slots into cur and their lengths into k.pw[i][0] (0 for a pair of a
// host with itself), and returns the most positions of a word, or −1 if a
// pair of distinct hosts has none.
func (k *Walker) positionWords(e lft.PositionEntries, c, end int, wds []uint64, cur []int32) int {
	words, block := e.Words, e.Block
	at, low, bases, ent := k.at[c:end], k.low[c:end], k.base[c:end], k.pw[c:end]
	steps, sentinel := 0, int32(len(e.Next)-1)
	for i, x := range at {
		wd, slot := uint64(0), sentinel
		if x >= 0 {
			if wd = words[int32(block[x])<<6|low[i]]; wd == 0 {
				return -1
			}
			slot = bases[i] + int32(wd>>8&0xff)
		}
		wds[i], cur[i], ent[i][0] = wd, slot, int32(wd&0xff)
		steps = max(steps, int(wd&0xff))
	}
	return steps
}

// decodeSteps sets slots 1 … steps of ent[i] from word wds[i] whose first
// slot is cur[i], a step for every pair before the next step.
func decodeSteps(next []int32, ent [][8]int32, wds []uint64, cur []int32, steps int) {
	for j := 1; j <= min(steps, 7); j++ {
		decodeStep(next, ent, wds, cur, j, 8*uint(j+1))
	}
}

// decodeStep sets slot j of every ent[i] and moves cur[i] on by the
// word's next position: a function of its own, not inlined, as in
// levelPositions the compiler read the loop's index and bound from the
// stack at every pair.
//
//go:noinline
func decodeStep(next []int32, ent [][8]int32, wds []uint64, cur []int32, j int, shift uint) {
	ent, wds = ent[:len(cur)], wds[:len(cur)]
	for i, c := range cur {
		ent[i][j&7] = c
		cur[i] = next[c] + int32(wds[i]>>shift&0xff)
	}
}

// undoPositions is undo for decoded position words (their loads by slot).
func (k *Walker) undoPositions(ent [][8]int32, first []int32, skip int) {
	load := k.slotLoad
	for i := range ent {
		r := &ent[i]
		if r[0] == 0 {
			continue
		}
		if skip == 0 {
			load[first[i]] = 0
		}
		for _, l := range r[1 : 1+int(r[0])-skip] {
			load[l] = 0
		}
	}
}

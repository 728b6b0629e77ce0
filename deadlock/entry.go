package deadlock

import (
	"orcs/internal/workers"
	"orcs/lft"
)

// Walking every ordered pair costs hosts² steps even where each of them is
// one bit of the graph: a host's first cable (its link to its switch, the
// entry switch) leads on to the entry switch's next hop towards the
// destination, a dependency of its own per pair. Where every path is on
// SL 0 and VL 0 (no SL file, no SL2VL tables), without LMC spread and with
// hosts that send everything over one link to a switch, the routes split
// in two parts that are built apart (buildByEntry):
//
//   - a host's cable depends on the entry switch's links towards the
//     destinations other than itself: per entry switch, how many
//     destinations each of its out-links leads to, once; a host then
//     depends on every out-link with a count, less its own destination;
//   - per destination, the rest of the routes starts at the next hop of
//     every entry switch with a source host other than the destination,
//     walked as walkTo walks them (each channel once per destination).
//
// This is hosts × entry switches steps instead of hosts², and gives the
// same channels and dependencies bit for bit (TestEntryWalkSame).

// entries returns, when buildByEntry applies, each host's one link (-1:
// the host has no route), else nil.
func (g *graph) entries() []int32 {
	f := g.f
	if f.LMCSpread() || g.lanes.sl != nil || g.lanes.hasTables() || g.K != 1 || g.vlOf[0] != 0 {
		return nil
	}
	e := make([]int32, g.H)
	for h := range e {
		row, a := f.Row(f.HostNode(h))
		if row != nil || a >= 0 && f.SwitchIndex(g.to[a]) < 0 {
			return nil
		}
		e[h] = a
	}
	return e
}

// buildByEntry fills the workers' rows and channel sets as walkTo over
// every destination would, given the hosts' links e (see entries).
func (g *graph) buildByEntry(pool []*worker, threads int, e []int32) {
	f := g.f
	kept := g.H
	for _, x := range g.leave {
		if x {
			kept--
		}
	}
	// The entry switches (ascending node) and their source hosts.
	first := make([]int32, len(f.Nodes)) // node → its index among the entry switches + 1, or 0
	var sw []int32                       // entry switch nodes
	var start []int32                    // per entry switch: first of its hosts in srcs
	for h, a := range e {
		if a >= 0 && (g.leave == nil || !g.leave[h]) {
			first[g.to[a]] = 1
		}
	}
	for v := range first {
		if first[v] != 0 {
			sw = append(sw, int32(v))
			first[v] = int32(len(sw))
		}
	}
	start = make([]int32, len(sw)+1)
	for h, a := range e {
		if a >= 0 && (g.leave == nil || !g.leave[h]) {
			start[first[g.to[a]]]++
		}
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	srcs := make([]int32, start[len(sw)])
	fill := append([]int32(nil), start[:len(sw)]...)
	for h, a := range e {
		if a >= 0 && (g.leave == nil || !g.leave[h]) {
			i := first[g.to[a]] - 1
			srcs[fill[i]] = int32(h)
			fill[i]++
		}
	}

	// The hosts' cables: per entry switch, its row once.
	rows := make([][]int32, len(pool))
	counts := make([][]int32, len(pool))
	workers.Run(nil, threads, len(sw), func(t, i int) error {
		w, v := pool[t], sw[i]
		row, _ := f.RowInto(rows[t], v)
		rows[t] = row
		n := len(f.OutLinks(v))
		if cap(counts[t]) < n {
			counts[t] = make([]int32, n)
		}
		cnt := counts[t][:n]
		clear(cnt)
		for d, b := range row {
			if b >= 0 && (g.leave == nil || !g.leave[d]) {
				cnt[g.outSlot[b]]++
			}
		}
		if kept < 2 {
			return nil // no host has another destination
		}
		for _, s := range srcs[start[i]:start[i+1]] {
			a := e[s]
			w.used[a>>6] |= 1 << (a & 63)
			own := int32(-1)
			if b := row[s]; b >= 0 {
				own = g.outSlot[b]
			}
			for j, c := range cnt {
				if c == 0 || c == 1 && int32(j) == own {
					continue
				}
				bit := g.bitBase[a] + int64(j)
				w.bits[bit>>6] |= 1 << (bit & 63)
			}
		}
		return nil
	})

	// The rest of the routes, per destination.
	links := make([]entryLink, len(f.Links))
	for l := range links {
		links[l] = entryLink{to: g.to[l], outSlot: g.outSlot[l], bitBase: g.bitBase[l]}
	}
	for _, w := range pool {
		w.nodeGen, w.nodeNext = make([]int32, len(f.Nodes)), make([]int32, len(f.Nodes))
	}
	workers.Run(nil, threads, g.H, func(t, d int) error {
		if g.leave != nil && g.leave[d] {
			return nil
		}
		w := pool[t]
		w.gen++
		dst := int32(d)
		target := f.HostNode(d)
		own := int32(-1) // d's entry switch
		if a := e[d]; a >= 0 {
			own = g.to[a]
		}
		for i, v := range sw {
			n := start[i+1] - start[i]
			if v == own {
				n--
			}
			if n <= 0 {
				continue
			}
			if b := w.next(f, v, dst); b >= 0 {
				g.walkEntry(w, links, dst, target, b)
			}
		}
		return nil
	})
}

// entryLink is what walkEntry reads of a link, in one place.
type entryLink struct {
	to, outSlot int32
	bitBase     int64
}

// next is node v's next hop towards host dst, looked up once per
// destination (the generation w.gen).
func (w *worker) next(f *lft.Fabric, v, dst int32) int32 {
	if w.nodeGen[v] != w.gen {
		w.nodeGen[v], w.nodeNext[v] = w.gen, f.NextHop(dst, v, dst) // no LMC spread: any source
	}
	return w.nodeNext[v]
}

// walkEntry is walkOn where buildByEntry applies (one VL, every hop
// known): it follows the route towards host dst (whose node is target)
// from link a on. With one VL a channel is its link, and the route after
// a node is the same whatever link it came in by: a walk records the
// dependency of its link on the next and stops at a node whose next hop
// an earlier walk towards dst took (walked on from there), instead of
// stamping every channel.
func (g *graph) walkEntry(w *worker, links []entryLink, dst, target, a int32) {
	f := g.f
	for {
		w.used[a>>6] |= 1 << (a & 63)
		la := &links[a]
		v := la.to
		if v == target {
			return
		}
		seen := w.nodeGen[v] == w.gen
		b := w.next(f, v, dst)
		if b < 0 {
			return
		}
		bit := la.bitBase + int64(links[b].outSlot)
		w.bits[bit>>6] |= 1 << (bit & 63)
		if seen {
			return
		}
		a = b
	}
}

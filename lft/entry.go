package lft

import (
	"runtime"
	"sync"
)

// Entry routes. A route leaves its source host over one link and then
// follows switch tables; on a large fabric each of those table reads is a
// cache miss of its own, one after the other, since every hop needs the
// previous one's result. But the route from the switch a host's link
// reaches (its entry switch) depends only on that switch, the destination
// and the LID offset: so the walk keeps, for every entry switch and
// destination, the out-link positions of the whole route from there,
// packed in one 64-bit word. A route then costs one load of a word that
// does not depend on any other route (the loads of a level's routes
// overlap), and its hops follow from small arrays that stay in the cache.
// On fat trees, where only leaves are entry switches, the words take
// 8·leaves·hosts bytes: 2.7 times the port tables.

// entryRoutes holds the entry routes of a fabric.
type entryRoutes struct {
	// words[(k*E+e)*H+d] is the route word of entry switch row e towards
	// host d at LID offset k: its low byte is the number n of positions
	// (1 … 7), then the n positions, from the entry switch on. A word of 0
	// means the walk must use the tables (a failing route, a route through
	// another host, a longer route, or a position above 254).
	words []uint64
	// linkEntry[l] is the row of the switch link l reaches, if it is an
	// entry switch, else -1.
	linkEntry []int32
	// rowBase[e] is the first slot of entry row e's switch.
	rowBase []int32
	// out[slot] is the link of a slot, and nextBase[slot] the first slot
	// of the switch the slot's link reaches; both have one more slot, the
	// sentinel, that links reaching a host and the sentinel itself lead to.
	out, nextBase []int32
	rows          int // E
	// links, when every link id fits 16 bits, holds each word's route as
	// links: element 0 the number of links after the first, then those.
	links [][8]uint16
}

// gatherByRowAbove is the number of route words from which a walk reads
// them row by row. A variable for tests.
var gatherByRowAbove = 1 << 22

var useLinkWords = true

// entryWordPositions is the most positions a route word holds.
const entryWordPositions = 7

// entryRoutesUpTo is the memory (bytes) up to which a fabric compiles its
// entry routes; beyond it walks read the switch tables hop by hop. A
// variable for tests.
var entryRoutesUpTo = 1 << 30

// entryRoutes returns the fabric's entry routes, compiled on first use, or
// nil when they would take more than entryRoutesUpTo.
func (f *Fabric) entryRoutes() *entryRoutes {
	f.entryOnce.Do(func() { f.entry = f.compileEntryRoutes() })
	return f.entry
}

// compileEntryRoutes builds the route words, the rows of several entry
// switches at once.
func (f *Fabric) compileEntryRoutes() *entryRoutes {
	H, S := len(f.hosts), len(f.switches)
	if H == 0 || S == 0 {
		return nil
	}
	r := &entryRoutes{linkEntry: make([]int32, len(f.Links))}
	rowOf := make([]int32, S)
	for s := range rowOf {
		rowOf[s] = -1
	}
	for h := range f.hosts {
		v := f.hosts[h]
		for _, l := range f.outLinks[f.outStart[v]:f.outStart[v+1]] {
			if s := f.slotNext[f.linkSlot[l]]; s >= 0 && rowOf[s] < 0 {
				rowOf[s] = int32(len(r.rowBase))
				r.rowBase = append(r.rowBase, f.swBase[s])
			}
		}
	}
	r.rows = len(r.rowBase)
	offsets := f.tab.offsets(S * H)
	if n := offsets * r.rows * H; n == 0 || 8*n > entryRoutesUpTo {
		return nil
	}
	for l := range f.Links {
		r.linkEntry[l] = -1
		if s := f.slotNext[f.linkSlot[l]]; s >= 0 {
			r.linkEntry[l] = rowOf[s]
		}
	}
	// The slots, and one more: the sentinel slot, where the positions past
	// a route's end lead.
	sentinel := int32(len(f.outLinks))
	r.out = append(append(make([]int32, 0, sentinel+1), f.outLinks...), 0)
	r.nextBase = make([]int32, sentinel+1)
	for slot, s := range f.slotNext {
		r.nextBase[slot] = sentinel
		if s >= 0 {
			r.nextBase[slot] = f.swBase[s]
		}
	}
	r.nextBase[sentinel] = sentinel
	entrySwitch := make([]int32, r.rows)
	for s, e := range rowOf {
		if e >= 0 {
			entrySwitch[e] = int32(s)
		}
	}
	r.words = hugeWords(offsets * r.rows * H)
	jobs := offsets * r.rows
	var next sync.Mutex
	job := 0
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), jobs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				next.Lock()
				j := job
				job++
				next.Unlock()
				if j >= jobs {
					return
				}
				k, e := j/r.rows, j%r.rows
				row := r.words[j*H : (j+1)*H]
				if f.tab.narrow != nil {
					fillEntryRow(f, f.tab.narrow, k*S*H, entrySwitch[e], row)
				} else {
					fillEntryRow(f, f.tab.wide, k*S*H, entrySwitch[e], row)
				}
			}
		}()
	}
	wg.Wait()
	if len(f.Links) < 1<<16 && useLinkWords {
		r.links = make([][8]uint16, len(r.words))
		for x, w := range r.words {
			if w == 0 {
				continue
			}
			slot := r.rowBase[(x/H)%r.rows]
			lw := &r.links[x]
			m := int(w & 0xff)
			lw[0] = uint16(m)
			for k := 1; ; k++ {
				w >>= 8
				slot += int32(w & 0xff)
				lw[k] = uint16(f.outLinks[slot])
				if k == m {
					break
				}
				slot = r.nextBase[slot]
			}
		}
		r.words = nil
	}
	return r
}

// fillEntryRow sets the route words from switch index s towards every host
// over the tables of offset off (see entryRoutes.words).
func fillEntryRow[T portEntry](f *Fabric, tab []T, off int, s int32, row []uint64) {
	H := len(f.hosts)
	for d := range row {
		word, n := uint64(0), 0
		at := s
		for {
			p := tab[off+int(at)*H+d]
			if p == noPort[T]() || p >= 255 || n == entryWordPositions {
				word, n = 0, 0
				break
			}
			n++
			word |= uint64(p) << (8 * n)
			next := f.slotNext[f.swBase[at]+int32(p)]
			if next >= 0 {
				at = next
				continue
			}
			if ^next != int32(d) { // through another host: the tables decide
				word, n = 0, 0
			}
			break
		}
		row[d] = word | uint64(n)
	}
}

// walkEntry is RouteBatch.Walk over entry routes: it appends the routes of
// the pairs to the batch's path and ends, walking the few whose word is 0
// through the tables, and returns the number of failed routes.
func (b *RouteBatch) walkEntry(f *Fabric, r *entryRoutes, src, dst, load []int32) int {
	n := len(src)
	if cap(b.words) < n {
		b.words = make([]uint64, n)
		b.first = make([]int32, n)
	}
	words, first := b.words[:n], b.first[:n]
	if cap(b.at) < n {
		b.at = make([]int, n)
		b.order = make([]int32, n)
	}
	at := b.at[:n]
	H := len(f.hosts)
	// Where every pair's word is.
	for i := range src {
		s, d := src[i], dst[i]
		at[i], first[i] = -1, -1
		if s == d {
			continue
		}
		l := f.hostLink(s, d)
		first[i] = l
		if l < 0 {
			continue
		}
		e := r.linkEntry[l]
		if e < 0 {
			continue
		}
		k := 0
		if f.spreadMask != nil {
			k = int(s & f.spreadMask[d])
		}
		at[i] = (k*r.rows+int(e))*H + int(d)
	}
	// Then the words: loads that depend on no other route. Words far
	// beyond the caches are read row by row (a counting sort of the pairs
	// by row), so that the reads of a row share its pages.
	if r.links != nil {
		return b.walkLinkWords(f, r, src, dst, load, at, first)
	}
	rows := len(r.words) / H
	if len(r.words) >= gatherByRowAbove && n >= rows {
		cnt := b.cnt[:0]
		cnt = append(cnt, make([]int32, rows+1)...)
		for _, x := range at {
			if x >= 0 {
				cnt[x/H+1]++
			}
		}
		for j := 1; j <= rows; j++ {
			cnt[j] += cnt[j-1]
		}
		order := b.order[:cnt[rows]]
		for i, x := range at {
			words[i] = 0
			if x >= 0 {
				order[cnt[x/H]] = int32(i)
				cnt[x/H]++
			}
		}
		for _, i := range order {
			words[i] = r.words[at[i]]
		}
		b.cnt = cnt
	} else {
		for i, x := range at {
			words[i] = 0
			if x >= 0 {
				words[i] = r.words[x]
			}
		}
	}
	path, ends := b.path[:0], b.ends[:0]
	failed := 0
	outLinks, nextBase, rowBase, linkEntry := r.out, r.nextBase, r.rowBase, r.linkEntry
	for i, w := range words {
		l := first[i]
		switch {
		case w != 0:
			path = append(path, l)
			// All seven positions, those past the route's end included
			// (they are 0 and lead to the sentinel slot): a walk without
			// branches, whose routes overlap in the processor.
			slot := rowBase[linkEntry[l]] + int32(w>>8&0xff)
			l1 := outLinks[slot]
			slot = nextBase[slot] + int32(w>>16&0xff)
			l2 := outLinks[slot]
			slot = nextBase[slot] + int32(w>>24&0xff)
			l3 := outLinks[slot]
			slot = nextBase[slot] + int32(w>>32&0xff)
			l4 := outLinks[slot]
			slot = nextBase[slot] + int32(w>>40&0xff)
			l5 := outLinks[slot]
			slot = nextBase[slot] + int32(w>>48&0xff)
			l6 := outLinks[slot]
			slot = nextBase[slot] + int32(w>>56)
			j := len(path)
			path = append(path, l, l1, l2, l3, l4, l5, l6, outLinks[slot])
			path = path[:j+1+int(w&7)]
		case l >= 0 && src[i] != dst[i]:
			start := len(path)
			var st RouteStatus
			if path, st = f.AppendRoute(path, src[i], dst[i]); st != RouteOK {
				path = path[:start]
				failed++
			}
		case src[i] != dst[i]:
			failed++
		}
		ends = append(ends, int32(len(path)))
	}
	if load != nil {
		for _, l := range path {
			load[l]++
		}
	}
	b.path, b.ends = path, ends
	return failed
}

func (b *RouteBatch) walkLinkWords(f *Fabric, r *entryRoutes, src, dst, load []int32, at []int, first []int32) int {
	n := len(src)
	if cap(b.lw) < n {
		b.lw = make([][8]uint16, n)
	}
	lw := b.lw[:n]
	H := len(f.hosts)
	rows := len(r.links) / H
	if len(r.links) >= gatherByRowAbove && n >= rows {
		cnt := b.cnt[:0]
		cnt = append(cnt, make([]int32, rows+1)...)
		for _, x := range at {
			if x >= 0 {
				cnt[x/H+1]++
			}
		}
		for j := 1; j <= rows; j++ {
			cnt[j] += cnt[j-1]
		}
		order := b.order[:cnt[rows]]
		for i, x := range at {
			lw[i][0] = 0
			if x >= 0 {
				order[cnt[x/H]] = int32(i)
				cnt[x/H]++
			}
		}
		for _, i := range order {
			lw[i] = r.links[at[i]]
		}
		b.cnt = cnt
	} else {
		for i, x := range at {
			lw[i][0] = 0
			if x >= 0 {
				lw[i] = r.links[x]
			}
		}
	}
	path, ends := b.path[:0], b.ends[:0]
	failed := 0
	for i := range lw {
		l := first[i]
		e := &lw[i]
		switch {
		case e[0] != 0:
			j := len(path)
			if cap(path)-j < 8 {
				path = append(path, make([]int32, 8)...)
			}
			p := path[j : j+8 : j+8]
			p[0], p[1], p[2], p[3] = l, int32(e[1]), int32(e[2]), int32(e[3])
			p[4], p[5], p[6], p[7] = int32(e[4]), int32(e[5]), int32(e[6]), int32(e[7])
			path = path[:j+1+int(e[0]&7)]
		case l >= 0 && src[i] != dst[i]:
			start := len(path)
			var st RouteStatus
			if path, st = f.AppendRoute(path, src[i], dst[i]); st != RouteOK {
				path = path[:start]
				failed++
			}
		case src[i] != dst[i]:
			failed++
		}
		ends = append(ends, int32(len(path)))
	}
	if load != nil {
		for _, l := range path {
			load[l]++
		}
	}
	b.path, b.ends = path, ends
	return failed
}

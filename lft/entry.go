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
	// nextBase[slot] is the first slot of the switch the slot's link
	// reaches, or -1 when it reaches a host.
	nextBase []int32
	rows     int // E
}

// gatherByRowAbove is the number of route words from which a walk reads
// them row by row. A variable for tests.
var gatherByRowAbove = 1 << 22

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
	r := &entryRoutes{linkEntry: make([]int32, len(f.Links)), nextBase: make([]int32, len(f.outLinks))}
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
	for slot, s := range f.slotNext {
		r.nextBase[slot] = -1
		if s >= 0 {
			r.nextBase[slot] = f.swBase[s]
		}
	}
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
	outLinks, nextBase, rowBase, linkEntry := f.outLinks, r.nextBase, r.rowBase, r.linkEntry
	for i, w := range words {
		l := first[i]
		switch {
		case w != 0:
			path = append(path, l)
			slot := rowBase[linkEntry[l]]
			for m := w & 0xff; ; {
				w >>= 8
				slot += int32(w & 0xff)
				path = append(path, outLinks[slot])
				if m--; m == 0 {
					break
				}
				slot = nextBase[slot]
			}
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

package lft

import (
	"errors"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"orcs/internal/prefetch"

	"orcs/internal/hugemem"
	"orcs/internal/workers"
)

// Entry routes. A route leaves its source host over one link and then
// follows switch tables; on a large fabric each table read is a cache miss
// of its own, one after the other, since every hop needs the previous
// one's result. But the route from the switch a host's link reaches (its
// entry switch) depends only on that switch, the destination and the LID
// offset. So a fabric that is about to walk many routes (PrepareWalks)
// keeps, for every entry switch and destination, the whole route from
// there in one word. A route then costs one load that depends on no other
// route (the loads of a level's routes overlap) and a few reads of small
// arrays that stay in the caches; the words are decoded without branches.
//
// Three kinds of word: with at most 65 534 links, when every route from
// an entry switch crosses at most four links between switches and ends on
// the link into its host that hostInLinks gives (a three-level fat tree's
// routes), 8 bytes holding those inner links (uint64: up to four 16-bit
// links, then LinkPad; the first and last links of a route are the hosts'); with
// fewer than 65 536 links, 16 bytes holding the
// links themselves ([8]uint16: the number of links after the host's, then
// those links, then LinkPad); else 8 bytes holding the out-link positions (uint64: the
// number n of positions in the low byte, then the n positions), each next
// slot found from the previous one. On fat trees, where only leaves are
// entry switches, inner words take 8·leaves·hosts bytes (link words 16).
// The walks of a three-level fat tree read one inner word a route where
// they read a link word: half the memory, and a word whose links are
// counted without a branch on the route's length. Position words
// are kept like the tables (see table.go): a row of an entry switch in
// blocks of 64 destinations, each distinct block once, since the ports of
// a route from two leaves to a destination outside both their pods are
// the same: 65 536 hosts' 2 048 leaves take 8 MB of block numbers and a
// few blocks instead of 1 GiB of words.

// entryRoutes holds the entry routes of a fabric. Exactly one of links,
// inner and words is non-nil. The route of entry switch row e towards host
// d at LID offset k is links[(k*rows+e)*H+d], inner[(k*rows+e)*H+d]
// (where InnerNone stands for a zero entry), or words[wordIdx[(k*rows+e)*
// blocks+d/64]*64+d%64] (words: the distinct blocks). A zero entry means
// the walk must use the tables: the route fails, passes through another
// host, has more than entryPositions positions, or (words) a position
// above 254.
type entryRoutes struct {
	links [][8]uint16
	inner []uint64
	// hostIn[h] is the link into host h that its routes end on, or -1
	// (inner words only).
	hostIn  []int32
	words   []uint64
	wordIdx []uint32
	blocks  int // blocks of 64 destinations a row
	rows    int // entry switches
	// linkEntry[l] is the row of the switch link l reaches, if it is an
	// entry switch, else -1.
	linkEntry []int32
	// hostAt[h] is where the entries of host h's entry switch start (in
	// links, or in wordIdx), or -1 when its link does not reach one; nil
	// unless every host has one link and there is no LMC spread.
	hostAt []int32
	// rowBase[e] is the first slot of entry row e's switch.
	rowBase []int32
	// slots[slot] holds the link of a slot and the first slot of the
	// switch the link reaches, side by side (one cache line a hop); it has
	// one more slot, the sentinel, that links reaching a host and the
	// sentinel itself lead to (the positions past a route's end are 0: they
	// stay on the sentinel).
	slots []entrySlot
	// view is the PositionEntries of the words, made on first use.
	view atomic.Pointer[PositionEntries]
}

// entrySlot is a slot of an entry route walk: its link, and the first slot
// of the switch the link reaches.
type entrySlot struct{ link, next int32 }

// entryPositions is the most switches a route from its entry switch
// crosses for its word to hold it (a 3-level fat tree's routes cross 5).
const entryPositions = 7

// Sizes deciding the walk, variables for tests: entryRoutesUpTo is the
// memory (bytes) up to which a fabric compiles entry routes; linkWordsBelow
// the number of links below which its words hold links, innerWordsBelow
// the number below which they may be inner words.
var (
	entryRoutesUpTo = 512 << 20
	linkWordsBelow  = 1 << 16
	innerWordsBelow = InnerMissing + 1 // no link is numbered InnerMissing or LinkPad
)

// PrepareWalks tells the fabric that about routes routes are going to be
// walked (RouteBatch.Walk). If that pays for compiling its entry routes
// (they cost about as much as walking a quarter of their entries by the
// tables) and they fit in 512 MiB (inner and link words: before they are
// compiled; position words: as they are), the fabric compiles them, once, on
// several goroutines; walks after it use them. It reports whether walks
// use entry routes. Safe for concurrent use; the routes walked are the
// same either way.
func (f *Fabric) PrepareWalks(routes int64) bool {
	if f.entry.Load() != nil {
		return true
	}
	entrySwitch, _ := f.entrySwitches()
	n, _ := f.entryEntries(len(entrySwitch))
	if n == 0 || routes < int64(n)/4 {
		return false
	}
	f.entryOnce.Do(func() { f.entry.Store(f.compileEntryRoutes()) })
	return f.entry.Load() != nil
}

// entrySwitches returns the entry switches (switch indices, in order of
// the hosts) and every switch's row among them, or −1.
func (f *Fabric) entrySwitches() (entrySwitch, rowOf []int32) {
	rowOf = make([]int32, len(f.switches))
	for s := range rowOf {
		rowOf[s] = -1
	}
	for _, v := range f.hosts {
		for _, l := range f.outLinks[f.outStart[v]:f.outStart[v+1]] {
			if s := f.slotNext[f.linkSlot[l]]; s >= 0 && rowOf[s] < 0 {
				rowOf[s] = int32(len(entrySwitch))
				entrySwitch = append(entrySwitch, s)
			}
		}
	}
	return entrySwitch, rowOf
}

// wordKind is the kind of word that entry routes are compiled into.
type wordKind int

const (
	positionWords wordKind = iota // fabrics of 65 536 links or more
	linkWords                     // fewer links
	innerWords                    // at most 65 534: link words where a route does not fit
)

// entryEntries returns the number of entries of entry routes over rows
// entry switches and the kind of their words, or 0 entries when inner or
// link words would take more than entryRoutesUpTo (position words, kept in
// distinct blocks, are measured as they are compiled; link words that
// inner words fall back to, when they are compiled).
func (f *Fabric) entryEntries(rows int) (n int, kind wordKind) {
	n = f.tab.offsets(len(f.switches)) * rows * len(f.hosts)
	switch {
	case len(f.Links) >= linkWordsBelow:
		kind = positionWords
	case len(f.Links) < innerWordsBelow:
		kind = innerWords
	default:
		kind = linkWords
	}
	if (kind == innerWords && n*8 > entryRoutesUpTo) || (kind == linkWords && n*16 > entryRoutesUpTo) || n >= 1<<31 { // entries are indexed by int32
		return 0, kind
	}
	return n, kind
}

// compileEntryRoutes builds the entry routes, the rows of several entry
// switches at once, or returns nil when they are too large.
func (f *Fabric) compileEntryRoutes() *entryRoutes {
	entrySwitch, rowOf := f.entrySwitches()
	n, kind := f.entryEntries(len(entrySwitch))
	if n == 0 {
		return nil
	}
	H, S := len(f.hosts), len(f.switches)
	r := &entryRoutes{linkEntry: make([]int32, len(f.Links)), rows: len(entrySwitch)}
	for _, s := range entrySwitch {
		r.rowBase = append(r.rowBase, f.swBase[s])
	}
	for l := range f.Links {
		r.linkEntry[l] = -1
		if s := f.slotNext[f.linkSlot[l]]; s >= 0 {
			r.linkEntry[l] = rowOf[s]
		}
	}
	rowLen := int32(H) // links a row
	if kind == positionWords {
		r.blocks = (H + blockMask) >> blockBits
		rowLen = int32(r.blocks)
	}
	if f.hostUniform && f.spreadMask == nil {
		r.hostAt = make([]int32, H)
		for h, l := range f.hostTab {
			r.hostAt[h] = -1
			if l >= 0 && r.linkEntry[l] >= 0 {
				r.hostAt[h] = r.linkEntry[l] * rowLen
			}
		}
	}
	sentinel := int32(len(f.outLinks))
	r.slots = make([]entrySlot, sentinel+1)
	for slot, s := range f.slotNext {
		r.slots[slot] = entrySlot{f.outLinks[slot], sentinel}
		if s >= 0 {
			r.slots[slot].next = f.swBase[s]
		}
	}
	r.slots[sentinel] = entrySlot{0, sentinel}
	// Link and inner words go on huge pages (random reads over them then
	// miss the TLB less: 7 % faster walks on 21 952 hosts), released with r.
	var pool *wordPool
	var innerMem *hugemem.Arena
	compileLinks := func() {
		mem := new(hugemem.Arena)
		hugemem.ReleaseWith(mem, r)
		r.links = hugemem.Make[[8]uint16](mem, n, n)
	}
	switch kind {
	case innerWords:
		r.hostIn = f.hostInLinks()
		innerMem = new(hugemem.Arena)
		r.inner = hugemem.Make[uint64](innerMem, n, n)
	case linkWords:
		compileLinks()
	default:
		r.wordIdx = make([]uint32, n/H*r.blocks)
		pool = newWordPool(entryRoutesUpTo / 8)
	}
	// One job per LID offset and block of destinations: within a block the
	// table lines of every switch stay in the cache from one destination to
	// the next.
	blocks := (H + blockMask) >> blockBits
	offsets := n / (r.rows * H)
	jobs := offsets * blocks
	threads := runtime.GOMAXPROCS(0)
	scratch := make([]*suffixes, workers.Count(threads, jobs))
	compile := func(t, j int) error {
		if scratch[t] == nil {
			scratch[t] = &suffixes{memo: make([]uint64, S), words: make([]uint64, r.rows)}
			if pool != nil {
				scratch[t].block = make([]uint64, r.rows*blockLen)
				scratch[t].hash = make([]uint64, r.rows)
			}
		}
		c := scratch[t]
		k, d0 := j/blocks, j%blocks<<blockBits
		clear(c.block)
		for d := d0; d < min(H, d0+blockLen); d++ {
			if f.tab.narrow != nil {
				resolveEntries(f, f.tab.narrow, k*S, int32(d), entrySwitch, c)
			} else {
				resolveEntries(f, f.tab.wide, k*S, int32(d), entrySwitch, c)
			}
			for e, w := range c.words {
				switch i := (k*r.rows+e)*H + d; {
				case pool != nil:
					c.block[e<<blockBits+d-d0] = w
				case r.inner != nil:
					lw := r.linkWord(r.rowBase[e], w)
					iw, ok := innerWord(&lw, r.hostIn[d])
					if !ok {
						return errNotInner
					}
					r.inner[i] = iw
				default:
					r.links[i] = r.linkWord(r.rowBase[e], w)
				}
			}
		}
		if pool == nil {
			return nil
		}
		for e := range r.rows {
			c.hash[e] = blockHash(c.block[e<<blockBits : (e+1)<<blockBits])
		}
		return pool.add(c.block, c.hash, r.wordIdx[k*r.rows*r.blocks+j%blocks:], r.blocks)
	}
	err := workers.Run(nil, threads, jobs, compile)
	if r.inner != nil {
		if err == nil {
			hugemem.ReleaseWith(innerMem, r)
		} else { // a route does not fit an inner word: link words
			innerMem.Release()
			r.inner, r.hostIn = nil, nil
			if n*16 > entryRoutesUpTo {
				return nil
			}
			compileLinks()
			err = workers.Run(nil, threads, jobs, compile)
		}
	}
	if err != nil {
		return nil // the words would take more than entryRoutesUpTo
	}
	if pool != nil {
		r.words = pool.words
	}
	return r
}

// errNotInner stops a compile of inner words at a route that does not fit
// one.
var errNotInner = errors.New("a route does not fit an inner word")

// innerWord returns the inner word of link word lw, whose route must end
// on link in (the destination's link from hostInLinks), or false when the
// route has more than four links between switches or ends elsewhere.
func innerWord(lw *[8]uint16, in int32) (uint64, bool) {
	m := int(lw[0])
	switch {
	case m == 0:
		return InnerNone, true
	case m-1 > 4 || int32(lw[m]) != in:
		return 0, false
	}
	w := uint64(0)
	for k := 4; k >= 1; k-- {
		l := uint64(LinkPad)
		if k < m {
			l = uint64(lw[k])
		}
		w = w<<16 | l
	}
	return w, true
}

// hostInLinks returns, for every host, a link that reaches it, or -1.
// (innerWord checks that a route ends on it.)
func (f *Fabric) hostInLinks() []int32 {
	in := make([]int32, len(f.hosts))
	for h := range in {
		in[h] = -1
	}
	for l, ln := range f.Links {
		if h := f.hostOf[ln.To]; h >= 0 {
			in[h] = int32(l)
		}
	}
	return in
}

// wordPool keeps the distinct blocks of position words as compile jobs
// hand them in.
type wordPool struct {
	mu    sync.Mutex
	words []uint64
	set   blockSet
	limit int // the most words
}

func newWordPool(limit int) *wordPool {
	return &wordPool{limit: limit}
}

// errWordsTooLarge stops a compile whose words outgrow the pool's limit.
var errWordsTooLarge = errors.New("entry routes too large")

// add numbers the blocks of 64 words of block (hash: their hashes), one
// per entry switch row, and writes the numbers to idx[0], idx[stride],
// idx[2·stride], …
func (p *wordPool) add(block, hash []uint64, idx []uint32, stride int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for e, h := range hash {
		blk := block[e<<blockBits : (e+1)<<blockBits]
		id, found := findBlock(&p.set, p.words, blk, h, uint32(len(p.words)>>blockBits))
		if !found {
			if len(p.words)+blockLen > p.limit {
				return errWordsTooLarge
			}
			p.words = append(p.words, blk...)
		}
		idx[e*stride] = id
	}
	return nil
}

// entryAt returns where the entry of entry row row (k·rows + e) towards
// host d is in links or words.
func (r *entryRoutes) entryAt(row, d int32, H int) int32 {
	if r.wordIdx == nil {
		return row*int32(H) + d
	}
	return int32(r.wordIdx[int(row)*r.blocks+int(d>>blockBits)])<<blockBits | d&blockMask
}

// suffixes is the scratch of resolveEntries: memo holds, per switch, the
// position word of its route to the destination (see entryRoutes), or
// unresolved, or onStack while it waits for the next switch's; words the
// words of the entry switches.
type suffixes struct {
	memo, words []uint64
	stack       []int32
	block, hash []uint64 // position words: the job's blocks and their hashes
}

const (
	unresolved = ^uint64(0)
	onStack    = ^uint64(0) - 1
)

// resolveEntries sets c.words to the position words of the entry switches
// towards host d over the tables whose switch 0 is row row0 (pool: the
// tables' blocks). Each switch's route is
// resolved once: its word is its own position followed by the positions of
// the next switch's word, so switches whose routes meet share the work.
// A route that fails, loops, reaches another host, has a position above
// 254 or more than entryPositions positions gets 0.
func resolveEntries[T portEntry](f *Fabric, pool []T, row0 int, d int32, entrySwitch []int32, c *suffixes) {
	idx, blocks := f.tab.idx, f.tab.blocks
	ib, low := row0*blocks+int(d>>blockBits), int(d&blockMask)
	memo := c.memo
	for i := range memo {
		memo[i] = unresolved
	}
	for e, s := range entrySwitch {
		stack := append(c.stack[:0], s)
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			p := pool[int(idx[ib+int(v)*blocks])<<blockBits|low]
			word := uint64(0)
			if p != noPort[T]() && p < 255 {
				next := f.slotNext[f.swBase[v]+int32(p)]
				switch {
				case next < 0: // a host: the route ends if it is d
					if ^next == d {
						word = 1 | uint64(p)<<8
					}
				case memo[next] == unresolved:
					memo[v] = onStack
					stack = append(stack, next)
					continue
				case memo[next] == onStack: // a loop
				default:
					if m := memo[next]; m != 0 && m&0xff < entryPositions {
						word = (m&0xff + 1) | uint64(p)<<8 | m>>8<<16
					}
				}
			}
			memo[v] = word
			stack = stack[:len(stack)-1]
		}
		c.stack = stack
		c.words[e] = memo[s]
	}
}

// linkWord turns the position word w of an entry switch whose first slot
// is base into a link word.
func (r *entryRoutes) linkWord(base int32, w uint64) [8]uint16 {
	var lw [8]uint16
	if w == 0 {
		return lw
	}
	m := int(w & 0xff)
	lw[0] = uint16(m)
	slot := base
	for k := 1; k <= m; k++ {
		w >>= 8
		slot += int32(w & 0xff)
		lw[k] = uint16(r.slots[slot].link)
		slot = r.slots[slot].next
	}
	for k := m + 1; k < len(lw); k++ {
		lw[k] = LinkPad
	}
	return lw
}

// walkEntry is RouteBatch.Walk over entry routes: it sets the batch's path
// and ends to the routes of the pairs, walking those whose entry is zero
// through the tables, adds them to load (if not nil) and returns the
// number of failed routes.
func (b *RouteBatch) walkEntry(f *Fabric, r *entryRoutes, src, dst, load []int32) int {
	n, H := len(src), len(f.hosts)
	if cap(b.at) < n {
		b.at = make([]int32, n)
		b.first = make([]int32, n)
	}
	at, first := b.at[:n], b.first[:n]
	// Where each pair's entry is (-1: none), and its first link.
	switch {
	case r.hostAt != nil && r.wordIdx != nil: // hosts of one link each, no LMC spread
		hostTab, hostAt, idx := f.hostTab, r.hostAt, r.wordIdx
		for i := range src {
			s, d := src[i], dst[i]
			x := int32(-1)
			if s != d && hostAt[s] >= 0 {
				x = int32(idx[hostAt[s]+d>>blockBits])<<blockBits | d&blockMask
			}
			at[i], first[i] = x, hostTab[s]
		}
	case r.hostAt != nil:
		hostTab, hostAt := f.hostTab, r.hostAt
		for i := range src {
			s, d := src[i], dst[i]
			x := hostAt[s] + d
			if s == d || hostAt[s] < 0 {
				x = -1
			}
			at[i], first[i] = x, hostTab[s]
		}
	default:
		for i := range src {
			s, d := src[i], dst[i]
			x, l := int32(-1), int32(-1)
			if s != d {
				if l = f.hostLink(s, d); l >= 0 {
					if e := r.linkEntry[l]; e >= 0 {
						k := int32(0)
						if f.spreadMask != nil {
							k = s & f.spreadMask[d]
						}
						x = r.entryAt(k*int32(r.rows)+e, d, H)
					}
				}
			}
			at[i], first[i] = x, l
		}
	}
	var failed int
	if r.links != nil {
		if cap(b.links) < n {
			b.links = make([][8]uint16, n)
		}
		entries := b.links[:n]
		gather(b, r.links, entries)
		failed = b.decodeLinks(f, entries, src, dst)
	} else {
		if cap(b.words) < n {
			b.words = make([]uint64, n)
		}
		entries := b.words[:n]
		if r.inner != nil {
			gather(b, r.inner, entries)
			failed = b.decodeInner(f, r.hostIn, entries, src, dst)
		} else {
			gather(b, r.words, entries)
			failed = b.decodeWords(f, r, entries, src, dst)
		}
	}
	if load != nil {
		for _, l := range b.path {
			load[l]++
		}
	}
	return failed
}

// gather reads the entries of the pairs (b.at) from table into entries:
// loads that depend on no other route, in a loop of their own so that
// they overlap. The lines of the next gatherAhead entries are asked for
// (prefetch) before the loads of this block: the processor keeps more
// misses in flight than the loads of the loop alone give it (the walk of
// 4096 and 10 648 hosts ran 25–35 % faster). Reading them row by row,
// after a counting sort of the pairs, was faster only without huge pages.
func gather[T any](b *RouteBatch, table, entries []T) {
	var zero T
	at := b.at[:len(entries)]
	base, size := uintptr(unsafe.Pointer(unsafe.SliceData(table))), unsafe.Sizeof(zero)
	var addrs [gatherAhead]uintptr
	for c := 0; c < len(at); c += gatherAhead {
		k := 0
		for _, x := range at[min(c+gatherAhead, len(at)):min(c+2*gatherAhead, len(at))] {
			if x >= 0 {
				addrs[k] = base + uintptr(x)*size
				k++
			}
		}
		prefetch.Lines(addrs[:k])
		for i := c; i < min(c+gatherAhead, len(at)); i++ {
			x := at[i]
			entries[i] = zero
			if x >= 0 {
				entries[i] = table[x]
			}
		}
	}
}

// gatherAhead is how many entries ahead gather asks for their lines.
const gatherAhead = 32

// decodeScratch returns the batch's path, grown to room for n routes of
// per links and a route's worth more, at its capacity, and its ends for
// n routes.
func (b *RouteBatch) decodeScratch(n, per int) (path, ends []int32) {
	if need := per*n + 8; cap(b.path) < need {
		b.path = make([]int32, need)
	}
	if cap(b.ends) < n {
		b.ends = make([]int32, n)
	}
	return b.path[:cap(b.path)], b.ends[:n]
}

// withRoom returns path (at its capacity) grown to at least n places, as
// after long routes through the tables.
func withRoom(path []int32, n int) []int32 {
	if n > len(path) {
		path = append(path, make([]int32, n-len(path))...)
		path = path[:cap(path)]
	}
	return path
}

// decodeLinks sets the batch's path and ends from link words: each word is
// copied whole, as one array of 8 links (those past the route's end
// overwritten by the next route), into a path that has room for them.
func (b *RouteBatch) decodeLinks(f *Fabric, entries [][8]uint16, src, dst []int32) int {
	first := b.first[:len(entries)]
	path, ends := b.decodeScratch(len(entries), 8)
	failed, j := 0, 0
	for i := range entries {
		e := &entries[i]
		switch {
		case e[0] != 0:
			path = withRoom(path, j+8)
			p := (*[8]int32)(path[j : j+8])
			p[0], p[1], p[2], p[3] = first[i], int32(e[1]), int32(e[2]), int32(e[3])
			p[4], p[5], p[6], p[7] = int32(e[4]), int32(e[5]), int32(e[6]), int32(e[7])
			j += 1 + int(e[0]&7)
		case src[i] != dst[i]:
			path, j, failed = b.walkTablesAt(f, path, j, src[i], dst[i], failed)
		}
		ends[i] = int32(j)
	}
	b.path, b.ends = path[:j], ends
	return failed
}

// decodeInner sets the batch's path and ends from inner words: the
// source's link, the word's four links, the link into the destination
// over the first LinkPad; no branch on a route's length.
func (b *RouteBatch) decodeInner(f *Fabric, hostIn []int32, entries []uint64, src, dst []int32) int {
	first := b.first[:len(entries)]
	path, ends := b.decodeScratch(len(entries), 6)
	failed, j := 0, 0
	for i, w := range entries {
		switch {
		case w != 0 && w != InnerNone: // 0: gather's pair without an entry (no route has a word of 0)
			path = withRoom(path, j+6)
			p := (*[6]int32)(path[j : j+6])
			p[0], p[1], p[2] = first[i], int32(uint16(w)), int32(uint16(w>>16))
			p[3], p[4] = int32(uint16(w>>32)), int32(uint16(w>>48))
			j += 1 + innerLinks(w)
			path[j] = hostIn[dst[i]]
			j++
		case src[i] != dst[i]:
			path, j, failed = b.walkTablesAt(f, path, j, src[i], dst[i], failed)
		}
		ends[i] = int32(j)
	}
	b.path, b.ends = path[:j], ends
	return failed
}

// innerLinks returns the number of links of inner word w, its places
// that are not LinkPad (those are the last ones): 4 less the places that
// are 0 once w is flipped, each found by the borrow it takes from its
// top bit (a borrow into a place above a zero place reaches only places
// that are zero as well, so none is counted that is not).
func innerLinks(w uint64) int {
	const ones, tops = 0x0001_0001_0001_0001, 0x8000_8000_8000_8000
	x := ^w
	return 4 - bits.OnesCount64((x-ones)&^x&tops)
}

// decodeWords sets the batch's path and ends from position words: all
// seven positions are followed, those past the route's end to the
// sentinel slot, without a branch.
func (b *RouteBatch) decodeWords(f *Fabric, r *entryRoutes, entries []uint64, src, dst []int32) int {
	path, ends, first := b.path[:0], b.ends[:0], b.first[:len(entries)]
	failed := 0
	slots, rowBase, linkEntry := r.slots, r.rowBase, r.linkEntry
	for i, w := range entries {
		l := first[i]
		switch {
		case w != 0:
			sl := &slots[rowBase[linkEntry[l]]+int32(w>>8&0xff)]
			l1 := sl.link
			sl = &slots[sl.next+int32(w>>16&0xff)]
			l2 := sl.link
			sl = &slots[sl.next+int32(w>>24&0xff)]
			l3 := sl.link
			sl = &slots[sl.next+int32(w>>32&0xff)]
			l4 := sl.link
			sl = &slots[sl.next+int32(w>>40&0xff)]
			l5 := sl.link
			sl = &slots[sl.next+int32(w>>48&0xff)]
			l6 := sl.link
			sl = &slots[sl.next+int32(w>>56)]
			j := len(path)
			path = append(path, l, l1, l2, l3, l4, l5, l6, sl.link)
			path = path[:j+1+int(w&7)]
		case src[i] != dst[i]:
			path, failed = b.walkTables(f, path, src[i], dst[i], failed)
		}
		ends = append(ends, int32(len(path)))
	}
	b.path, b.ends = path, ends
	return failed
}

// walkTablesAt is walkTables for a decoder that keeps its path at its
// capacity and the path's end at j: the route goes after path[:j], and
// the path comes back at its capacity with its new end.
func (b *RouteBatch) walkTablesAt(f *Fabric, path []int32, j int, src, dst int32, failed int) ([]int32, int, int) {
	p, failed := b.walkTables(f, path[:j], src, dst, failed)
	return p[:cap(p)], len(p), failed
}

// walkTables appends the route of a pair without an entry, walked through
// the tables, and counts it in failed if it fails (appending nothing).
func (b *RouteBatch) walkTables(f *Fabric, path []int32, src, dst int32, failed int) ([]int32, int) {
	start := len(path)
	path, st := f.AppendRoute(path, src, dst)
	if st != RouteOK {
		return path[:start], failed + 1
	}
	return path, failed
}

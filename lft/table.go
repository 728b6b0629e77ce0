package lft

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// The forwarding tables are compiled to output ports, not links: the entry
// of switch s towards host d is the position, among s's out-links, of the
// link it takes. A position fits one byte when no switch has more than 255
// out-links (the InfiniBand radix limit is 254), so a hop reads one byte;
// larger radices fall back to two bytes. The out-links of a node are
// contiguous in the CSR arrays (a link's "slot"), so the next link of a
// walk is swBase[s] + port.
//
// A table row (one switch at one LID offset) is cut into blocks of 64
// destinations (64 bytes: a cache line of one-byte entries), and every
// distinct block is kept once, in a pool: the entry of row r towards d is
// pool[idx[r·blocks + d/64]·64 + d mod 64]. Routing engines route whole
// leaves and pods alike (a d-mod-k fat tree's leaf sends the hosts of
// every other leaf up the same way), so the pool holds a few blocks where
// the rows hold millions: 65 536 hosts on 5 120 switches take 21 MB of
// block numbers and 0.3 MB of blocks instead of 335 MB of entries. Tables
// without such repetition keep one block per row block, and pay the
// numbers, 1/16 of a one-byte table. A hop reads the row's block number
// and then the entry: two loads, both from arrays that stay in the caches
// far longer than one flat table would.

// portEntry is a table entry: the out-link position of a switch, or
// noPort[T] when the switch has no route to the destination.
type portEntry interface{ ~uint8 | ~uint16 }

// noPort returns the "no route" entry of table type T (all bits set).
func noPort[T portEntry]() T { return ^T(0) }

// blockBits is log2 of the destinations of a table block.
const (
	blockBits = 6
	blockLen  = 1 << blockBits
	blockMask = blockLen - 1
)

// tables holds the compiled switch tables of every LID offset: row
// k·S + s is switch s at offset k. Exactly one of narrow and wide (the
// pool of blocks) is non-nil. Until compact, every row block has a block
// of its own (idx[i] = i), so that rows can be written.
type tables struct {
	rows, blocks int // rows; blocks per row (⌈hosts/64⌉)
	idx          []uint32
	narrow       []uint8
	wide         []uint16
	compacted    bool
}

// offsets returns the number of LID offsets whose tables are held, for S
// switches.
func (t *tables) offsets(S int) int {
	if S == 0 {
		return 0
	}
	return t.rows / S
}

// bytes returns the memory the tables take: block numbers and pool.
func (t *tables) bytes() int { return 4*len(t.idx) + len(t.narrow) + 2*len(t.wide) }

// at returns the entry of row towards host d as a position, or -1 for no
// route.
func (t *tables) at(row int, d int32) int32 {
	i := int(t.idx[row*t.blocks+int(d>>blockBits)])<<blockBits | int(d&blockMask)
	if t.narrow != nil {
		if p := t.narrow[i]; p != noPort[uint8]() {
			return int32(p)
		}
		return -1
	}
	if p := t.wide[i]; p != noPort[uint16]() {
		return int32(p)
	}
	return -1
}

// set sets the entry of row towards host d to position p (-1: no route);
// only before compact.
func (t *tables) set(row int, d int32, p int32) {
	if t.compacted {
		panic("lft: write to compacted tables")
	}
	i := row*t.blocks<<blockBits + int(d)
	if t.narrow != nil {
		t.narrow[i] = uint8(p) // -1 becomes the all-ones "no route"
		return
	}
	t.wide[i] = uint16(p)
}

// rowStart returns where row's entries start in the pool, before compact:
// the row's H entries are contiguous there.
func (t *tables) rowStart(row int) int { return row * t.blocks << blockBits }

// newTables allocates rows rows of entries towards hosts hosts, all "no
// route", wide enough for switches of up to maxRadix out-links, every row
// block with a block of its own.
func newTables(rows, hosts, maxRadix int) tables {
	t := tables{rows: rows, blocks: (hosts + blockMask) >> blockBits}
	n := rows * t.blocks
	t.idx = make([]uint32, n)
	for i := range t.idx {
		t.idx[i] = uint32(i)
	}
	if maxRadix < int(noPort[uint8]()) {
		t.narrow = make([]uint8, n<<blockBits)
		fillNoPort(t.narrow)
		return t
	}
	t.wide = make([]uint16, n<<blockBits)
	fillNoPort(t.wide)
	return t
}

// newBlockTables returns compacted tables of rows rows towards hosts hosts
// with block numbers only (all 0) and an empty pool of the width that
// newTables would choose, for rows that go straight into distinct blocks
// (fillRowBlocks).
func newBlockTables(rows, hosts, maxRadix int) tables {
	t := tables{rows: rows, blocks: (hosts + blockMask) >> blockBits, compacted: true}
	t.idx = make([]uint32, rows*t.blocks)
	if maxRadix < int(noPort[uint8]()) {
		t.narrow = []uint8{}
	} else {
		t.wide = []uint16{}
	}
	return t
}

// blockPool numbers distinct blocks by content as they come: pool holds
// block number i at pool[i·64:], in the order of first appearance.
type blockPool[T blockEntry] struct {
	set  blockSet
	pool []T
}

// add returns the number of blk (whose hash is h), adding it to the pool
// when it is new.
func (p *blockPool[T]) add(blk []T, h uint64) uint32 {
	id, found := findBlock(&p.set, p.pool, blk, h, uint32(len(p.pool)>>blockBits))
	if !found {
		p.pool = append(p.pool, blk...)
	}
	return id
}

// fillNoPort sets every entry of s to "no route", doubling copies.
func fillNoPort[T portEntry](s []T) {
	if len(s) == 0 {
		return
	}
	s[0] = noPort[T]()
	for i := 1; i < len(s); i *= 2 {
		copy(s[i:], s[:i])
	}
}

// compact keeps every distinct block once: blocks are numbered in the
// order of their first row block, so the same tables compact the same way.
func (t *tables) compact() {
	if t.compacted {
		return
	}
	if t.narrow != nil {
		t.narrow = compactPool(t.idx, t.narrow)
	} else {
		t.wide = compactPool(t.idx, t.wide)
	}
	t.compacted = true
}

// compactPool renumbers the blocks of idx (each its own, idx[i] = i) so
// that equal blocks share a number, moves the distinct blocks to the front
// of pool, in place, and returns them in a pool of their own size.
func compactPool[T portEntry](idx []uint32, pool []T) []T {
	var set blockSet
	n := uint32(0)
	for i := range idx {
		blk := pool[i<<blockBits : (i+1)<<blockBits]
		id, found := findBlock(&set, pool, blk, blockHash(blk), n)
		idx[i] = id
		if found {
			continue
		}
		copy(pool[n<<blockBits:], blk)
		n++
	}
	return append([]T(nil), pool[:n<<blockBits]...)
}

// blockSet numbers distinct blocks of blockLen entries by content, for
// findBlock.
type blockSet struct {
	first     map[uint64]uint32 // block hash → first block with it
	byContent map[string]uint32 // blocks whose hash an earlier, different block has
}

// findBlock returns the number of the block of pool (the distinct blocks
// so far, in number order) equal to blk, whose hash is h, and true; else
// it gives blk the number n, which the caller appends to pool, and returns
// n and false.
func findBlock[T blockEntry](set *blockSet, pool, blk []T, h uint64, n uint32) (uint32, bool) {
	if set.first == nil {
		set.first = make(map[uint64]uint32)
	}
	id, ok := set.first[h]
	switch {
	case !ok:
		set.first[h] = n
	case slices.Equal(pool[id<<blockBits:(id+1)<<blockBits], blk):
		return id, true
	default: // a hash collision: tell the blocks apart by content
		if set.byContent == nil {
			set.byContent = make(map[string]uint32)
		}
		key := blockKey(blk)
		if id, ok := set.byContent[key]; ok {
			return id, true
		}
		set.byContent[key] = n
	}
	return n, false
}

// blockEntry is an entry of a block: a table's, or an entry route's
// position word (entry.go).
type blockEntry interface{ ~uint8 | ~uint16 | ~uint64 }

// blockHash is FNV-1a over the entries of a block.
func blockHash[T blockEntry](blk []T) uint64 {
	h := uint64(14695981039346656037)
	for _, v := range blk {
		h = (h ^ uint64(v)) * 1099511628211
	}
	return h
}

// blockKey returns the entries of a block as a string, eight bytes each.
func blockKey[T blockEntry](blk []T) string {
	b := make([]byte, 0, 8*len(blk))
	for _, v := range blk {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	return string(b)
}

// maxRadix returns the largest number of out-links of a switch.
func (f *Fabric) maxRadix() int {
	m := 0
	for _, v := range f.switches {
		m = max(m, int(f.outStart[v+1]-f.outStart[v]))
	}
	return m
}

// TableBytes returns the memory the compiled switch tables take, all LID
// offsets included.
func (f *Fabric) TableBytes() int { return f.tab.bytes() }

// lidOffset returns the LID offset whose tables route src to dst: 0
// without LMC spread.
func (f *Fabric) lidOffset(src, dst int32) int {
	if f.spreadMask == nil {
		return 0
	}
	return int(src & f.spreadMask[dst])
}

// switchLink returns the link switch index s takes at LID offset k
// towards host dst, or -1.
func (f *Fabric) switchLink(k int, s, dst int32) int32 {
	p := f.tab.at(k*len(f.switches)+int(s), dst)
	if p < 0 {
		return -1
	}
	return f.outLinks[f.swBase[s]+p]
}

// blockLinks appends to buf the links of block b (destinations 64·b …)
// of switch index s at LID offset k, -1 for no route, and returns it.
func (f *Fabric) blockLinks(buf []int32, k int, s int32, b int) []int32 {
	t := &f.tab
	i := int(t.idx[(k*len(f.switches)+int(s))*t.blocks+b]) << blockBits
	n := min(blockLen, len(f.hosts)-b*blockLen)
	out := f.outLinks[f.swBase[s]:]
	if t.narrow != nil {
		for _, p := range t.narrow[i : i+n] {
			l := int32(-1)
			if p != noPort[uint8]() {
				l = out[p]
			}
			buf = append(buf, l)
		}
		return buf
	}
	for _, p := range t.wide[i : i+n] {
		l := int32(-1)
		if p != noPort[uint16]() {
			l = out[p]
		}
		buf = append(buf, l)
	}
	return buf
}

// portOf returns the position of link l among the out-links of its node.
func (f *Fabric) portOf(l int32) int32 { return f.linkSlot[l] - f.outStart[f.Links[l].From] }

// setSwitchLink sets the entry of switch index s towards host d at LID
// offset k to link l (-1: no route); l must leave switch s. Only while
// the fabric is built.
func (f *Fabric) setSwitchLink(k int, s, d, l int32) error {
	p := int32(-1)
	if l >= 0 {
		var err error
		if p, err = f.switchPort(s, l); err != nil {
			return err
		}
	}
	f.tab.set(k*len(f.switches)+int(s), d, p)
	return nil
}

// switchPort returns the position of link l among the out-links of switch
// index s, or an error when l does not leave s.
func (f *Fabric) switchPort(s, l int32) (int32, error) {
	if l >= int32(len(f.Links)) || f.Links[l].From != f.switches[s] {
		return -1, fmt.Errorf("link %d does not leave switch %s", l, f.Nodes[f.switches[s]].Name)
	}
	return f.portOf(l), nil
}

// linkTablesUpTo is the size (bytes) up to which a fabric also keeps its
// switch tables as links, int32 entries: such tables stay in the
// processor's fastest caches, where a hop that reads the link at once (one
// load instead of the block's, the port's, the switch's base slot and the
// slot's link) costs less. A variable for tests.
var linkTablesUpTo = 512 << 10

// compileLinkTables derives the link tables of a small fabric from its
// port tables (all LID offsets), and each link's far end: entry
// (k·S + s)·H + d.
func (f *Fabric) compileLinkTables() {
	H := len(f.hosts)
	n := f.tab.rows * H
	if n == 0 || 4*n > linkTablesUpTo {
		f.linkTab, f.linkNext = nil, nil
		return
	}
	S := len(f.switches)
	f.linkTab = make([]int32, n)
	for row := range f.tab.rows {
		for d := range H {
			f.linkTab[row*H+d] = f.switchLink(row/S, int32(row%S), int32(d))
		}
	}
	f.linkNext = make([]int32, len(f.Links))
	for l := range f.Links {
		f.linkNext[l] = f.slotNext[f.linkSlot[l]]
	}
}

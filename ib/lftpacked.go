package ib

import "slices"

// A dump of a large fabric lists every LID in every switch's table: 110
// million lines for 32 768 hosts. Held as LFTEntry values (8 bytes each)
// its tables would take more memory than the fabric's compiled ones, so
// the readers that feed Build (ReadPair, ReadFiles) pack each table as it
// is read: one byte per LID of the header's range (the out port, or
// noPort) in the parser's scratch while the table is open, then, at its
// trailer, in blocks of 64 LIDs, each distinct block of the table once
// (routing engines route whole leaves alike: a fat tree's table holds a
// few distinct blocks), and the lines of its entries as runs of
// consecutive lines. A table whose LIDs come out of order keeps its
// entries.

// noPort marks a LID without an entry in a packed table. Out port 255 is
// no route in the dumps (dump_fts -a), so no entry has it.
const noPort = 255

// lidBlockBits is log2 of the LIDs of a block of portBlocks.
const (
	lidBlockBits = 6
	lidBlockLen  = 1 << lidBlockBits
)

// portBlocks is a table's out ports by LID (noPort: no entry) in blocks
// of 64 LIDs: the port of lid is blocks[idx[lid/64]·64 + lid mod 64], and
// every distinct block is in blocks once. LIDs from size on (up to the end
// of the last block) have no entry.
type portBlocks struct {
	idx    []uint16
	blocks []uint8
	size   int
}

// at returns the out port of lid, or noPort.
func (b *portBlocks) at(lid int) uint8 {
	if lid < 0 || lid >= b.size {
		return noPort
	}
	return b.blocks[int(b.idx[lid>>lidBlockBits])<<lidBlockBits|lid&(lidBlockLen-1)]
}

// block returns the ports of LIDs 64i…64i+63.
func (b *portBlocks) block(i int) []uint8 {
	k := int(b.idx[i]) << lidBlockBits
	return b.blocks[k : k+lidBlockLen : k+lidBlockLen]
}

// packPorts returns ports (by LID, noPort: no entry) in blocks.
func packPorts(ports []uint8) portBlocks {
	var k blockPacker
	return k.pack(ports)
}

// blockPacker packs tables into blocks one after the other, keeping its
// map of block contents and its buffer of blocks for the next table: a
// reader packs thousands of tables, and a map and a grown buffer per
// table were most of what it allocated.
type blockPacker struct {
	byContent map[[lidBlockLen]uint8]uint16
	blocks    []uint8
	ports     []uint8 // a table's ports by LID while LFT.pack packs it
}

// pack returns ports (by LID, noPort: no entry) in blocks.
func (k *blockPacker) pack(ports []uint8) portBlocks {
	n := (len(ports) + lidBlockLen - 1) >> lidBlockBits
	b := portBlocks{idx: make([]uint16, n), size: len(ports)}
	blocks := k.blocks[:0]
	clear(k.byContent)
	var (
		blk  [lidBlockLen]uint8
		prev = -1 // the number of the block before
	)
	for i := range n {
		lo := i << lidBlockBits
		if c := copy(blk[:], ports[lo:]); c < lidBlockLen {
			for j := c; j < lidBlockLen; j++ {
				blk[j] = noPort
			}
		}
		// Neighbouring blocks are often alike: the one before first.
		if prev >= 0 && [lidBlockLen]uint8(blocks[prev<<lidBlockBits:]) == blk {
			b.idx[i] = uint16(prev)
			continue
		}
		if k.byContent == nil {
			k.byContent = make(map[[lidBlockLen]uint8]uint16)
		}
		id, ok := k.byContent[blk]
		if !ok {
			id = uint16(len(blocks) >> lidBlockBits)
			k.byContent[blk] = id
			blocks = append(blocks, blk[:]...)
		}
		b.idx[i], prev = id, int(id)
	}
	k.blocks = blocks
	b.blocks = slices.Clone(blocks)
	return b
}

// packedLFT is a table's entries packed: the out port of each LID (ports
// while the table is open, then its blocks). Entries come in ascending LID
// order, which is their order in the file; entry k is on line first+k,
// unless jumps says otherwise.
type packedLFT struct {
	ports []uint8 // by LID while the table is read (the parser's), nil after seal
	portBlocks
	n     int32 // entries
	first int32 // line of the first entry
	jumps []lineJump
}

// lineJump: entry rank (in ascending LID order) is on line line, and the
// entries after it on the lines after it, up to the next jump.
type lineJump struct{ rank, line int32 }

// newPackedLFT returns an empty open packed table for LIDs 0…top, whose
// ports are the start of scratch (grown when short; the caller keeps the
// result for the next table).
func newPackedLFT(top int, scratch *[]uint8) *packedLFT {
	if cap(*scratch) < top+1 {
		*scratch = make([]uint8, top+1)
	}
	p := &packedLFT{ports: (*scratch)[:top+1]}
	for i := range p.ports {
		p.ports[i] = noPort
	}
	return p
}

// seal moves an open packed table's ports into blocks (with k, or a
// packer of its own when k is nil) and lets go of them.
func (p *packedLFT) seal(k *blockPacker) {
	if p.ports != nil {
		if k == nil {
			k = new(blockPacker)
		}
		p.portBlocks = k.pack(p.ports)
		p.ports = nil
	}
}

// port returns the out port of lid, or noPort.
func (p *packedLFT) port(lid int) uint8 {
	if p.ports != nil {
		if lid < 0 || lid >= len(p.ports) {
			return noPort
		}
		return p.ports[lid]
	}
	return p.at(lid)
}

// eachBlock calls fn with the ports of LIDs base…base+len(ports)-1, for
// every LID of the table in ascending order, until fn returns false.
func (p *packedLFT) eachBlock(fn func(base int, ports []uint8) bool) {
	if p.ports != nil {
		fn(0, p.ports)
		return
	}
	for i := range p.idx {
		if !fn(i<<lidBlockBits, p.block(i)) {
			return
		}
	}
}

// add adds entry e, above every LID added before; last is the line of the
// entry before.
func (p *packedLFT) add(e LFTEntry, last int32) {
	p.ports[e.LID] = e.Port
	switch {
	case p.n == 0:
		p.first = e.Line
	case e.Line != last+1:
		p.jumps = append(p.jumps, lineJump{p.n, e.Line})
	}
	p.n++
}

// unpack turns the open packed table t back into its Entries, marking
// their LIDs seen in table p.blockNo, for a table whose LIDs come out of
// order.
func (p *unicastParser) unpack(t *LFT) {
	var es []LFTEntry
	t.Each(func(e LFTEntry) bool {
		es = append(es, e)
		return true
	})
	for _, e := range es {
		if int(e.LID) >= len(p.seen) {
			grown := make([]int32, max(int(e.LID)+1, 2*len(p.seen)))
			copy(grown, p.seen)
			p.seen = grown
		}
		p.seen[e.LID] = p.blockNo
	}
	t.packed, t.Entries = nil, es
}

// pack packs t's entries with k (nil: a packer of its own) and drops
// Entries, when they come in ascending LID order (they do in OpenSM's and
// the diagnostics' output); a table that lists LIDs in another order keeps
// its entries as they are.
func (t *LFT) pack(k *blockPacker) {
	es := t.Entries
	for i := 1; i < len(es); i++ {
		if es[i].LID <= es[i-1].LID {
			t.Entries = append([]LFTEntry(nil), es...)
			return
		}
	}
	size := t.Top + 1
	if len(es) > 0 {
		size = max(size, int(es[len(es)-1].LID)+1)
	}
	if k == nil {
		k = new(blockPacker)
	}
	if cap(k.ports) < size {
		k.ports = make([]uint8, size)
	}
	ports := k.ports[:size]
	for i := range ports {
		ports[i] = noPort
	}
	p := &packedLFT{ports: ports, n: int32(len(es))}
	for k, e := range es {
		p.ports[e.LID] = e.Port
		switch {
		case k == 0:
			p.first = e.Line
		case e.Line != es[k-1].Line+1:
			p.jumps = append(p.jumps, lineJump{int32(k), e.Line})
		}
	}
	p.seal(k)
	t.packed, t.Entries = p, nil
}

// Each calls fn for every entry of the table in file order, whether the
// table holds its Entries or is packed (as the tables of ReadPair and
// ReadFiles are), until fn returns false.
func (t *LFT) Each(fn func(e LFTEntry) bool) {
	p := t.packed
	if p == nil {
		for _, e := range t.Entries {
			if !fn(e) {
				return
			}
		}
		return
	}
	line, rank, j := p.first, int32(0), 0
	p.eachBlock(func(base int, ports []uint8) bool {
		for i, port := range ports {
			if port == noPort {
				continue
			}
			if j < len(p.jumps) && p.jumps[j].rank == rank {
				line = p.jumps[j].line
				j++
			}
			if !fn(LFTEntry{LID: uint16(base + i), Port: port, Line: line}) {
				return false
			}
			line++
			rank++
		}
		return true
	})
}

// Len returns the number of entries of the table.
func (t *LFT) Len() int {
	if t.packed != nil {
		return int(t.packed.n)
	}
	return len(t.Entries)
}

// lidPorts returns the table's out ports by LID in blocks: the packed
// table's own, or for a table that keeps its entries new ones up to its
// highest LID. The caller only reads them.
func (t *LFT) lidPorts() *portBlocks {
	if p := t.packed; p != nil {
		p.seal(nil)
		return &p.portBlocks
	}
	top := -1
	for _, e := range t.Entries {
		top = max(top, int(e.LID))
	}
	ports := make([]uint8, top+1)
	for i := range ports {
		ports[i] = noPort
	}
	for _, e := range t.Entries {
		ports[e.LID] = e.Port
	}
	b := packPorts(ports)
	return &b
}

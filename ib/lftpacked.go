package ib

// A dump of a large fabric lists every LID in every switch's table: 110
// million lines for 32 768 hosts. Held as LFTEntry values (8 bytes each)
// its tables would take more memory than the fabric's compiled ones, so
// the readers that feed Build (ReadPair, ReadFiles) pack each table as it
// is read: one byte per LID of the header's range (the out port, or
// noPort), and the lines of its entries as runs of consecutive lines. A
// table whose LIDs come out of order keeps its entries.

// noPort marks a LID without an entry in a packed table. Out port 255 is
// no route in the dumps (dump_fts -a), so no entry has it.
const noPort = 255

// packedLFT is a table's entries packed: ports[lid] is the out port of lid
// or noPort. Entries come in ascending LID order, which is their order in
// the file; entry k is on line first+k, unless jumps says otherwise.
type packedLFT struct {
	ports []uint8
	n     int32 // entries
	first int32 // line of the first entry
	jumps []lineJump
}

// lineJump: entry rank (in ascending LID order) is on line line, and the
// entries after it on the lines after it, up to the next jump.
type lineJump struct{ rank, line int32 }

// newPackedLFT returns an empty packed table for LIDs 0…top.
func newPackedLFT(top int) *packedLFT {
	p := &packedLFT{ports: make([]uint8, top+1)}
	for i := range p.ports {
		p.ports[i] = noPort
	}
	return p
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

// pack packs t's entries and drops Entries, when they come in ascending
// LID order (they do in OpenSM's and the diagnostics' output); a table
// that lists LIDs in another order keeps its entries as they are.
func (t *LFT) pack() {
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
	p := &packedLFT{ports: make([]uint8, size), n: int32(len(es))}
	for i := range p.ports {
		p.ports[i] = noPort
	}
	for k, e := range es {
		p.ports[e.LID] = e.Port
		switch {
		case k == 0:
			p.first = e.Line
		case e.Line != es[k-1].Line+1:
			p.jumps = append(p.jumps, lineJump{int32(k), e.Line})
		}
	}
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
	for lid, port := range p.ports {
		if port == noPort {
			continue
		}
		if j < len(p.jumps) && p.jumps[j].rank == rank {
			line = p.jumps[j].line
			j++
		}
		if !fn(LFTEntry{LID: uint16(lid), Port: port, Line: line}) {
			return
		}
		line++
		rank++
	}
}

// Len returns the number of entries of the table.
func (t *LFT) Len() int {
	if t.packed != nil {
		return int(t.packed.n)
	}
	return len(t.Entries)
}

// portsByLID returns the table's out ports by LID (noPort: no entry): the
// packed table's own, or for a table that keeps its entries a new slice
// up to its highest LID. The caller only reads it.
func (t *LFT) portsByLID() []uint8 {
	if t.packed != nil {
		return t.packed.ports
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
	return ports
}

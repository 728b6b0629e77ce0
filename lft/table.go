package lft

import "fmt"

// The forwarding tables are compiled to output ports, not links: entry
// s*H+d of a table is the position, among switch s's out-links, of the
// link it takes towards host d. A position fits one byte when no switch has
// more than 255 out-links (the InfiniBand radix limit is 254), so a hop
// reads one byte from a table a quarter the size of a link table; larger
// radices fall back to two bytes. The out-links of a node are contiguous
// in the CSR arrays (a link's "slot"), so the next link of a walk is
// swBase[s] + port: one table load per hop, as with link tables.

// portEntry is a table entry: the out-link position of a switch, or
// noPort[T] when the switch has no route to the destination.
type portEntry interface{ ~uint8 | ~uint16 }

// noPort returns the "no route" entry of table type T (all bits set).
func noPort[T portEntry]() T { return ^T(0) }

// tables holds the compiled switch tables of every LID offset: offset k's
// table starts at k*S*H. Exactly one of narrow and wide is non-nil.
type tables struct {
	narrow []uint8
	wide   []uint16
}

// offsets returns the number of offset tables held.
func (t *tables) offsets(size int) int {
	if size == 0 {
		return 0
	}
	if t.narrow != nil {
		return len(t.narrow) / size
	}
	return len(t.wide) / size
}

// bytes returns the memory the tables take.
func (t *tables) bytes() int { return len(t.narrow) + 2*len(t.wide) }

// port returns entry i as a position, or -1 for no route.
func (t *tables) port(i int) int32 {
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

// setPort sets entry i to position p (-1: no route).
func (t *tables) setPort(i int, p int32) {
	if t.narrow != nil {
		t.narrow[i] = uint8(p) // -1 becomes the all-ones "no route"
		return
	}
	t.wide[i] = uint16(p)
}

// newTables allocates n entries, all "no route", wide enough for switches
// of up to maxRadix out-links.
func newTables(n, maxRadix int) tables {
	if maxRadix < int(noPort[uint8]()) {
		t := make([]uint8, n)
		for i := range t {
			t[i] = noPort[uint8]()
		}
		return tables{narrow: t}
	}
	t := make([]uint16, n)
	for i := range t {
		t[i] = noPort[uint16]()
	}
	return tables{wide: t}
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

// tableOffset returns where the switch table of routes from src to dst
// starts: 0 without LMC spread.
func (f *Fabric) tableOffset(src, dst int32) int {
	if f.spreadMask == nil {
		return 0
	}
	return int(src&f.spreadMask[dst]) * len(f.switches) * len(f.hosts)
}

// switchLink returns the link switch index s takes at table offset off
// towards host dst, or -1.
func (f *Fabric) switchLink(off int, s, dst int32) int32 {
	p := f.tab.port(off + int(s)*len(f.hosts) + int(dst))
	if p < 0 {
		return -1
	}
	return f.outLinks[f.swBase[s]+p]
}

// portOf returns the position of link l among the out-links of its node.
func (f *Fabric) portOf(l int32) int32 { return f.linkSlot[l] - f.outStart[f.Links[l].From] }

// setSwitchLink sets the entry of switch index s towards host d at table
// offset off to link l (-1: no route); l must leave switch s.
func (f *Fabric) setSwitchLink(off int, s, d, l int32) error {
	p := int32(-1)
	if l >= 0 {
		if l >= int32(len(f.Links)) || f.Links[l].From != f.switches[s] {
			return fmt.Errorf("link %d does not leave switch %s", l, f.Nodes[f.switches[s]].Name)
		}
		p = f.portOf(l)
	}
	f.tab.setPort(off+int(s)*len(f.hosts)+int(d), p)
	return nil
}

// linkTablesUpTo is the size (bytes) up to which a fabric also keeps its
// switch tables as links, int32 entries: such tables stay in the
// processor's fastest caches, where a hop that reads the link at once (one
// load instead of the port's, the switch's base slot and the slot's link)
// costs less; beyond it the tables of ports are the smaller and faster.
// A variable for tests.
var linkTablesUpTo = 512 << 10

// compileLinkTables derives the link tables of a small fabric from its
// port tables (all LID offsets), and each link's far end.
func (f *Fabric) compileLinkTables() {
	size := len(f.switches) * len(f.hosts)
	n := f.tab.offsets(size) * size
	if size == 0 || 4*n > linkTablesUpTo {
		f.linkTab, f.linkNext = nil, nil
		return
	}
	f.linkTab = make([]int32, n)
	for i := range f.linkTab {
		s := int32(i % size / len(f.hosts))
		if p := f.tab.port(i); p >= 0 {
			f.linkTab[i] = f.outLinks[f.swBase[s]+p]
		} else {
			f.linkTab[i] = -1
		}
	}
	f.linkNext = make([]int32, len(f.Links))
	for l := range f.Links {
		f.linkNext[l] = f.slotNext[f.linkSlot[l]]
	}
}

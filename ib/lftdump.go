package ib

import (
	"bytes"

	"orcs/infile"
	"orcs/lft"
)

// ReadLFTDump parses forwarding tables in the "Unicast lids" grammar:
// OpenSM's opensm-lfts.dump, and the output of dump_fts and ibroute
// (infiniband-diags), the tables read back from the switches. OpenSM
// writes per switch a header, one line per routed LID and a trailer,
//
//	Unicast lids [0-<top>] of switch Lid <lid> guid 0x<guid> ('<desc>'):
//	0x<lid> <port> # <Channel Adapter|Switch|Router> portguid 0x<guid>: '<desc>'
//	<top> lids dumped
//
// Unrouted LIDs have no line; out port 0 is the switch itself. The labels
// after '#' name the port that owns each LID; Build checks them against
// the topology (or takes LIDs from them when the topology has none). The
// dump_fts/ibroute dialect differs only in the header, the column titles,
// the labels and the trailer:
//
//	Unicast lids [0x0-0x<top>] of switch DR path slid 0; dlid 0; <path> guid 0x<guid> (<desc>):
//	  Lid  Out   Destination
//	       Port     Info
//	0x<lid> <port> : (<Channel Adapter|Switch|Router> portguid 0x<guid>: '<desc>')
//	0x<lid> <port> : (path #2 out of 2: portguid 0x<guid>)
//	<n> valid lids dumped
//
// (ibroute names the switch by "Lid <n>" instead of the DR path). With -a
// they list every LID from 0, unrouted ones as `0x<lid> 255 : (illegal
// port)`, and the trailer reads "<n> lids dumped": LID 0, out port 255 and
// "illegal port" entries are no routes.
// infiniband-diags 44.0 skips the last LID of a switch whose LinearFDBTop
// is a multiple of 64. The table then lacks an entry for the top of its
// header's range; Build reports that clearly when the LID is a host's.
//
// A table without a header, a table without its trailer (a truncated
// dump), a trailer that disagrees with the table, a LID listed twice in one
// table, a LID outside the header's range and an out port above 255 are
// errors, located at the offending line.
//
// Routing.Format tells the dialect found: FormatDumpFTS when the first
// header gives its range in hexadecimal, as dump_fts and ibroute do.
func ReadLFTDump(data []byte, file string) (*Routing, error) {
	return readUnicast(newLines(data, file))
}

// readUnicast parses the "Unicast lids [..] of switch ..." grammar of
// opensm-lfts.dump, dump_fts and ibroute.
func readUnicast(r *lines) (*Routing, error) { return readUnicastAs(r, false) }

// readUnicastAs is readUnicast; packed keeps every table packed (see
// LFT.Each) instead of its Entries.
func readUnicastAs(r *lines, packed bool) (rt *Routing, err error) {
	defer func() {
		if e := r.readErr(); e != nil {
			rt, err = nil, e
		}
	}()
	p := newUnicastParser(r, packed)
	for {
		if p.cur != nil && p.packed {
			p.fastEntries()
		}
		l, ok := r.next()
		if !ok {
			break
		}
		if err := p.line(l); err != nil {
			return nil, err
		}
	}
	return p.finish()
}

// unicastParser is the state of a reader of the "Unicast lids" grammar
// between two lines.
type unicastParser struct {
	r       *lines
	rt      *Routing
	cur     *LFT // open table, nil between tables
	seen    []int32
	blockNo int32
	hint    int
	listed  int  // entry lines of the open table, unrouted ones included
	packed  bool // pack every table as it is read (LFT.Each)
	// lastLID and lastLine are those of the open table's last entry, when
	// it is packed.
	lastLID  uint16
	lastLine int32
	// scratch holds the open packed table's ports (newPackedLFT), packer
	// packs them at the table's trailer.
	scratch []uint8
	packer  blockPacker

	// labelText holds by LID the text after the out port of the last line
	// whose label was parsed: a line with the same text has the same label.
	labelText [][]byte

	// conflict is the LID and line of a label that contradicts an earlier
	// one, with its GUID, when that was the error.
	conflict     LFTEntry
	conflictGUID uint64
}

// labelConflict is the error for a LID labelled guid at line but old at
// line prev.
func labelConflict(file string, lid uint16, line int, guid, old uint64, prev int) *infile.ParseError {
	return infile.Errorf(file, line, "LID 0x%04x is port 0x%016x here but port 0x%016x at line %d", lid, guid, old, prev)
}

func newUnicastParser(r *lines, packed bool) *unicastParser {
	return &unicastParser{r: r, rt: &Routing{File: r.file, Format: FormatLFTDump}, packed: packed}
}

// line parses the next line (not noise) of the input.
func (p *unicastParser) line(l []byte) error {
	r, rt, cur := p.r, p.rt, p.cur
	if len(l) == 0 {
		return nil
	}
	switch {
	case len(l) > 2 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X'):
		if cur == nil {
			return r.errorf("entry %s outside a switch table (no \"Unicast lids\" header before it)", tok(l))
		}
		e, rest, quick := quickUnicastEntry(l)
		known := quick && int(e.LID) < len(p.labelText) && p.labelText[e.LID] != nil && bytes.Equal(rest, p.labelText[e.LID])
		var (
			guid uint64
			kind lft.NodeKind
		)
		if known {
			// The label of an earlier line for the LID, checked then.
			e.Line = int32(r.n)
		} else {
			var routed bool
			var err error
			e, guid, kind, routed, err = parseUnicastEntry(r, l)
			if err != nil {
				return err
			}
			if !routed {
				p.listed++
				return nil
			}
		}
		p.listed++
		if int(e.LID) > cur.Top {
			return r.errorf("LID 0x%04x beyond the range [0-%d] of the table's header (line %d)", e.LID, cur.Top, cur.Line)
		}
		if pk := cur.packed; pk != nil && pk.ports[e.LID] != noPort {
			return r.errorf("LID 0x%04x listed twice in the table of switch 0x%016x", e.LID, cur.GUID)
		}
		if pk := cur.packed; pk != nil && pk.n > 0 && e.LID < p.lastLID {
			p.unpack(cur) // LIDs out of order: the entries as they come
		}
		if pk := cur.packed; pk != nil {
			pk.add(e, p.lastLine)
			p.lastLID, p.lastLine = e.LID, e.Line
		} else {
			if int(e.LID) >= len(p.seen) {
				grown := make([]int32, max(int(e.LID)+1, 2*len(p.seen)))
				copy(grown, p.seen)
				p.seen = grown
			}
			if p.seen[e.LID] == p.blockNo {
				return r.errorf("LID 0x%04x listed twice in the table of switch 0x%016x", e.LID, cur.GUID)
			}
			p.seen[e.LID] = p.blockNo
			cur.Entries = append(cur.Entries, e)
		}
		if guid != 0 {
			if prev, old := rt.setLabel(e.LID, guid, kind, r.n); prev != 0 {
				p.conflict = LFTEntry{LID: e.LID, Line: int32(r.n)}
				p.conflictGUID = guid
				return labelConflict(r.file, e.LID, r.n, guid, old, prev)
			}
			if quick {
				if len(p.labelText) == 0 {
					p.labelText = make([][]byte, maxUnicastLID+1)
				}
				p.labelText[e.LID] = append(p.labelText[e.LID][:0], rest...)
			}
		}
	case bytes.HasPrefix(l, []byte("Unicast lids [")):
		if cur != nil {
			return r.errorf("new table before the trailer of switch 0x%016x (line %d): truncated table", cur.GUID, cur.Line).With(ErrTruncated)
		}
		t, err := parseUnicastHeader(r, l)
		if err != nil {
			return err
		}
		if len(rt.Switches) == 0 && t.readBack {
			rt.Format = FormatDumpFTS
		}
		if p.packed {
			t.packed = newPackedLFT(t.Top, &p.scratch)
		} else {
			t.Entries = make([]LFTEntry, 0, p.hint)
		}
		rt.Switches = append(rt.Switches, t)
		p.cur = &rt.Switches[len(rt.Switches)-1]
		p.blockNo++
		p.listed = 0
	default:
		t := trimBlank(l)
		if len(t) == 0 {
			return nil
		}
		c := cursor{b: t}
		if w := c.word(); (string(w) == "Lid" || string(w) == "Port") && cur != nil && p.listed == 0 {
			return nil // dump_fts column titles
		}
		if bytes.HasPrefix(t, []byte("*** WARNING ***: this command has been replaced by dump_fts")) {
			return nil // the banner dump_lfts prints after dump_fts's output
		}
		c = cursor{b: t}
		n, isNum := c.dec()
		if !isNum {
			return r.errorf("unexpected line %s", tok(t))
		}
		if cur == nil {
			return r.errorf("trailer %s outside a switch table", tok(t))
		}
		c.blank()
		valid := c.lit("valid")
		c.blank()
		if !c.lit("lids dumped") || len(trimBlank(c.rest())) != 0 {
			return r.errorf("unexpected line %s (want \"<n> lids dumped\")", tok(t))
		}
		// dump_fts and ibroute count the entry lines ("valid" ones, or
		// all of them with -a); OpenSM gives the top of the range.
		if (valid || cur.readBack) && n != p.listed {
			what := "lids dumped"
			if valid {
				what = "valid lids"
			}
			return r.errorf("trailer says %d %s, the table of switch 0x%016x (line %d) has %d entries: truncated or edited",
				n, what, cur.GUID, cur.Line, p.listed)
		}
		if !valid && !cur.readBack && n != cur.Top {
			return r.errorf("trailer says %d lids dumped, the header of switch 0x%016x (line %d) says [0-%d]",
				n, cur.GUID, cur.Line, cur.Top)
		}
		p.hint = len(cur.Entries)
		if cur.packed != nil {
			cur.packed.seal(&p.packer)
		} else if p.packed {
			cur.pack(&p.packer)
		}
		p.cur = nil
	}
	return nil
}

// fastEntries takes, from an input held in memory, the entry lines of the
// open packed table that line would take by the shortcuts alone: the usual
// shape (quickUnicastEntry), a LID above the table's last and in its
// range, the text of the LID's last parsed label. It stops before any
// other line (a header, a trailer, noise, a carriage return, a new label,
// an error), which line then reads; the lines it takes end up as line
// leaves them. A loop over the bytes, without the calls of lines.next and
// line for each of the tables' 66-byte lines.
func (p *unicastParser) fastEntries() {
	r, pk := p.r, p.cur.packed
	if r.src != nil || r.hold || pk == nil || pk.ports == nil || len(p.labelText) == 0 {
		return
	}
	data, top := r.data, p.cur.Top
	phys, lastLID, lastLine, n := r.phys, p.lastLID, p.lastLine, pk.n
	top = min(top, maxUnicastLID, len(p.labelText)-1, len(pk.ports)-1)
	for len(data) > 12 {
		// "0x<4 hex> <3 digits> " (quickUnicastEntry's shape; its check of
		// the label's first byte is the label comparison's), read with a
		// table and without a branch per digit. The line ends where the
		// LID's label text says it does: it is taken when the label text
		// and a line break follow the port.
		d := data[:12:12]
		lid, hexOK := hex4(d[2:6])
		port, decOK := dec3(d[7:10])
		if d[0] != '0' || d[1] != 'x' || d[6] != ' ' || d[10] != ' ' || !hexOK || !decOK {
			break
		}
		if lid == 0 || lid > top || port > 254 || pk.ports[lid] != noPort || n > 0 && lid < int(lastLID) {
			break
		}
		label := p.labelText[lid]
		i := 11 + len(label)
		if len(label) == 0 || i >= len(data) || data[i] != '\n' || label[len(label)-1] == '\r' || !bytes.Equal(data[11:i], label) {
			break
		}
		phys++
		line := int32(phys)
		pk.ports[lid] = uint8(port)
		switch {
		case n == 0:
			pk.first = line
		case line != lastLine+1:
			pk.jumps = append(pk.jumps, lineJump{n, line})
		}
		n++
		lastLID, lastLine = uint16(lid), line
		p.listed++
		data = data[i+1:]
	}
	if phys > r.phys {
		r.phys, r.n = phys, phys
	}
	r.data, p.lastLID, p.lastLine, pk.n = data, lastLID, lastLine, n
}

// finish ends the input: a table without its trailer, or no table at all,
// is an error.
func (p *unicastParser) finish() (*Routing, error) {
	r := p.r
	if cur := p.cur; cur != nil {
		return nil, r.errorf("truncated dump: the table of switch 0x%016x (line %d) has no \"lids dumped\" trailer", cur.GUID, cur.Line).With(ErrTruncated)
	}
	if len(p.rt.Switches) == 0 {
		return nil, r.errorf("no switch tables (want \"Unicast lids [...] of switch ...\" headers)")
	}
	p.rt.Warnings = r.warnings()
	return p.rt, nil
}

// quickUnicastEntry splits an entry line of the usual shape,
// "0x<4 hex digits> <3 decimal digits> <rest>", into its LID and port and
// the rest (the label). ok is false for any other line, which
// parseUnicastEntry then reads.
func quickUnicastEntry(l []byte) (e LFTEntry, rest []byte, ok bool) {
	if len(l) < 12 || l[6] != ' ' || l[10] != ' ' || l[11] == ' ' || l[11] == '\t' {
		return e, nil, false
	}
	lid, hexOK := hex4(l[2:6])
	port, decOK := dec3(l[7:10])
	if !hexOK || !decOK {
		return e, nil, false
	}
	if lid == 0 || lid > maxUnicastLID || port > 254 {
		return e, nil, false
	}
	return LFTEntry{LID: uint16(lid), Port: uint8(port)}, l[11:], true
}

// parseUnicastHeader parses
//
//	Unicast lids [<lo>-<top>] of switch (Lid <n>|DR path ...) guid 0x<guid> (<desc>):
func parseUnicastHeader(r *lines, l []byte) (LFT, error) {
	c := cursor{b: l}
	c.lit("Unicast lids [")
	var t LFT
	t.Line = r.n
	t.readBack = bytes.HasPrefix(c.rest(), []byte("0x")) // dump_fts and ibroute write the range in hex
	if _, ok := c.number(); !ok || !c.lit("-") {
		return t, r.errorf("bad LID range in header %s", tok(l))
	}
	top, ok := c.number()
	if !ok || !c.lit("]") {
		return t, r.errorf("bad LID range in header %s", tok(l))
	}
	if top > maxUnicastLID {
		return t, r.errorf("header range top %d beyond the last unicast LID 0x%04x", top, maxUnicastLID)
	}
	t.Top = int(top)
	if !c.lit(" of switch ") {
		return t, r.errorf("want \"of switch\" in header %s", tok(l))
	}
	switch {
	case c.lit("Lid "):
		lid, ok := c.dec()
		if !ok || lid > maxUnicastLID {
			return t, r.errorf("bad switch LID in header %s", tok(l))
		}
		t.LID = uint16(lid)
	case c.lit("DR path "):
	default:
		return t, r.errorf("want \"Lid\" or \"DR path\" after \"of switch\" in header %s", tok(l))
	}
	i := bytes.Index(c.rest(), []byte(" guid 0x"))
	if i < 0 {
		return t, r.errorf("no switch GUID in header %s", tok(l))
	}
	c.i += i + len(" guid ")
	g, ok := c.hex0x()
	if !ok || g == 0 {
		return t, r.errorf("bad switch GUID in header %s", tok(l))
	}
	t.GUID = g
	rest := c.rest()
	if !bytes.HasPrefix(rest, []byte(" (")) || !bytes.HasSuffix(rest, []byte("):")) || len(rest) < 4 {
		return t, r.errorf("want \" (<description>):\" at the end of header %s", tok(l))
	}
	desc := rest[2 : len(rest)-2]
	if len(desc) >= 2 && desc[0] == '\'' && desc[len(desc)-1] == '\'' {
		desc = desc[1 : len(desc)-1]
	}
	t.Desc = string(desc)
	return t, nil
}

// parseUnicastEntry parses an entry line,
//
//	0x<lid> <port> # <kind> portguid 0x<guid>: '<desc>'     (opensm-lfts.dump)
//	0x<lid> <port> : (<kind> portguid 0x<guid>: '<desc>')   (dump_fts, ibroute)
//	0x<lid> <port> : (path #k out of n: portguid 0x<guid>)  (further LIDs of an LMC range)
//	0x<lid> 255 : (illegal port)                            (dump_fts -a, ibroute -a)
//
// and returns the labelled port GUID (0 when the label names none).
// routed is false for the entries that dump_fts -a and ibroute -a add:
// LID 0, out port 255 and "illegal port" labels mean that the switch has
// no route for the LID.
func parseUnicastEntry(r *lines, l []byte) (e LFTEntry, guid uint64, kind lft.NodeKind, routed bool, err error) {
	c := cursor{b: l}
	lid, ok := c.hex0x()
	if !ok {
		return e, 0, 0, false, r.errorf("bad LID %s", tok(c.field()))
	}
	if lid > maxUnicastLID {
		return e, 0, 0, false, r.errorf("LID 0x%04x is not a unicast LID", lid)
	}
	if !c.blank() {
		return e, 0, 0, false, r.errorf("bad LID %s", tok(l))
	}
	port, ok := c.dec()
	if !ok {
		return e, 0, 0, false, r.errorf("LID 0x%04x: bad out port %s", lid, tok(c.field()))
	}
	if port > 255 {
		return e, 0, 0, false, r.errorf("LID 0x%04x: out port %d out of range 0-%d", lid, port, MaxPorts)
	}
	e = LFTEntry{LID: uint16(lid), Port: uint8(port), Line: int32(r.n)}
	c.blank()
	if c.done() {
		return e, 0, 0, lid != 0 && port != 255, nil
	}
	if c.peek() != '#' && c.peek() != ':' {
		return e, 0, 0, false, r.errorf("LID 0x%04x: unexpected %s after the out port", lid, tok(c.rest()))
	}
	rest := c.rest()
	if lid == 0 || port == 255 {
		return e, 0, 0, false, nil
	}
	lc := cursor{b: rest, i: 1}
	lc.blank()
	lc.lit("(")
	kind = lft.NodeKind(255) // the further LIDs of an LMC range name no kind
	switch {
	case lc.lit("Channel Adapter "):
		kind = lft.Host
	case lc.lit("Switch "):
		kind = lft.Switch
	case lc.lit("Router "):
		kind = lft.Router
	case bytes.Contains(rest, []byte("illegal port")):
		return e, 0, 0, false, nil // "(illegal port)", "(path #k - illegal port)"
	}
	i := bytes.Index(rest, []byte("portguid 0x"))
	if i < 0 {
		return e, 0, 0, true, nil
	}
	g := cursor{b: rest, i: i + len("portguid ")}
	guid, ok = g.hex0x()
	if !ok || g.peek() != ':' && g.peek() != ')' {
		return e, 0, 0, false, r.errorf("LID 0x%04x: bad port GUID in %s", lid, tok(rest))
	}
	return e, guid, kind, true, nil
}

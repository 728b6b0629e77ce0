package ib

import (
	"bytes"
	"io"

	"orcs/internal/workers"
)

// ReadFDBs parses OpenSM's opensm.fdbs (or ibdiagnet.fdbs, whose header
// reads osm_ucast_mgr_dump_ucast_routes): per switch a header, a column
// line and every LID from 1 to the top,
//
//	dump_ucast_routes: Switch 0x<guid>
//	LID    : Port : Hops : Optimal
//	0x<LID> : <port> : <hops> : yes
//	0x<LID> : <port> : HOPS UNKNOWN
//	0x<LID> : UNREACHABLE
//
// (the Optimal column may also hold a note such as "No 0 hop path possible
// via port 5!"). UNREACHABLE LIDs, LID 0 and out port 255 (no route) get
// no entry. The file names no ports, so Build needs a topology that gives
// LIDs (ibnetdiscover, a subnet list, ibdiagnet2.db_csv). Entries outside
// a table, LIDs that do not increase, out ports above 255 and a last table
// that stops short of the others (a truncated file) are errors.
func ReadFDBs(data []byte, file string) (*Routing, error) {
	return readFDBs(newLines(data, file))
}

func readFDBs(r *lines) (*Routing, error) { return readFDBsAs(r, false) }

// readFDBsAs is readFDBs; packed packs every table when it ends (see
// LFT.Each).
func readFDBsAs(r *lines, packed bool) (rt *Routing, err error) {
	defer func() {
		if e := r.readErr(); e != nil {
			rt, err = nil, e
		}
	}()
	p := &fdbsParser{r: r, rt: &Routing{File: r.file, Format: FormatFDBs}, packed: packed}
	if err := p.all(); err != nil {
		return nil, err
	}
	return p.finish()
}

// fdbsParser is the state of a reader of .fdbs tables: the tables read,
// the open one and the longest one.
type fdbsParser struct {
	r                  *lines
	rt                 *Routing
	cur                *LFT
	last               int // last LID listed in the open table
	hint               int
	maxTop, maxTopLine int
	// packed packs each table when it ends, its entries read into scratch.
	packed  bool
	scratch []LFTEntry
	packer  blockPacker
	fast    int // lines fastEntries took
}

// closeTable ends the open table.
func (p *fdbsParser) closeTable() error {
	cur := p.cur
	if cur == nil {
		return nil
	}
	if p.last == 0 {
		return p.r.errorAt(cur.Line, "table of switch 0x%016x has no entries: truncated file", cur.GUID).With(ErrTruncated)
	}
	cur.Top = p.last
	if p.last > p.maxTop {
		p.maxTop, p.maxTopLine = p.last, cur.Line
	}
	p.hint = len(cur.Entries)
	if p.packed {
		p.scratch = cur.Entries[:0]
		cur.pack(&p.packer)
	}
	return nil
}

// all reads every line of p's input and closes the last table.
func (p *fdbsParser) all() error {
	r, rt := p.r, p.rt
	for {
		p.fastEntries()
		l, ok := r.nextHex()
		if !ok {
			if l, ok = r.next(); !ok {
				break
			}
		}
		if len(l) > 2 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X') {
			if p.cur == nil {
				return r.errorf("entry %s outside a switch table (no \"dump_ucast_routes: Switch\" header before it)", tok(l))
			}
			lid, port, routed, ok := fdbEntryAsWritten(l)
			if !ok {
				var err error
				if lid, port, routed, err = parseFDBEntry(r, l); err != nil {
					return err
				}
			}
			if lid == 0 {
				continue // LID 0 is nobody's: no route
			}
			if lid <= p.last {
				return r.errorf("LID 0x%04X after 0x%04X: LIDs must increase within a table", lid, p.last)
			}
			p.last = lid
			if routed {
				p.cur.Entries = append(p.cur.Entries, LFTEntry{LID: uint16(lid), Port: uint8(port), Line: int32(r.n)})
			}
			continue
		}
		t := trimBlank(l)
		if len(t) == 0 {
			continue
		}
		if i := bytes.Index(t, fdbsHeader); i >= 0 {
			if err := p.closeTable(); err != nil {
				return err
			}
			c := cursor{b: t, i: i + len(fdbsHeader)}
			g, ok := c.hex0x()
			if !ok || g == 0 || !c.done() {
				return r.errorf("bad switch GUID in %s", tok(t))
			}
			es := p.scratch[:0]
			if !p.packed || cap(es) == 0 {
				es = make([]LFTEntry, 0, p.hint)
			}
			rt.Switches = append(rt.Switches, LFT{GUID: g, Line: r.n, Entries: es})
			p.cur = &rt.Switches[len(rt.Switches)-1]
			p.last = 0
			continue
		}
		if bytes.HasPrefix(t, []byte("LID")) && bytes.Contains(t, []byte("Port")) {
			continue // column titles
		}
		return r.errorf("unexpected line %s", tok(t))
	}
	return p.closeTable()
}

// fastEntries takes, from an input held in memory, the entry lines of the
// open table as OpenSM writes them (fdbEntryAsWritten's two shapes, each
// ending in a bare line break) whose LIDs go up, in one loop over the
// bytes: the lines are 26 or 20 bytes long, so no search for their ends.
// It stops before any other line (a header, a carriage return, another
// spacing, LID 0, a LID out of order or range), which all then reads as
// before; the lines it takes end up as all leaves them.
func (p *fdbsParser) fastEntries() {
	r, cur := p.r, p.cur
	if cur == nil || r.src != nil || r.hold || r.phys == 0 {
		return
	}
	data, phys, last := r.data, r.phys, p.last
	es := cur.Entries
	for len(data) >= 21 {
		d := data[:21:21]
		lid, hexOK := hex4(d[2:6])
		if d[0] != '0' || d[1] != 'x' || string(d[6:9]) != " : " || !hexOK {
			break
		}
		if lid <= last || lid > maxUnicastLID { // LID 0 too: last is 0 or more
			break
		}
		if d[20] == '\n' && string(d[9:20]) == "UNREACHABLE" {
			phys++
			last = lid
			data = data[21:]
			continue
		}
		if len(data) < 27 {
			break
		}
		e := data[:27:27]
		port, decOK := dec3(e[9:12])
		if e[26] != '\n' || string(e[12:16]) != "  : " || string(e[18:26]) != "   : yes" ||
			!decOK || e[16]-'0' > 9 || e[17]-'0' > 9 {
			break
		}
		if port > 255 {
			break
		}
		phys++
		last = lid
		if port != 255 {
			es = append(es, LFTEntry{LID: uint16(lid), Port: uint8(port), Line: int32(phys)})
		}
		data = data[27:]
	}
	if phys > r.phys {
		p.fast += phys - r.phys
		r.data, r.phys, r.n, p.last, cur.Entries = data, phys, phys, last, es
	}
}

// fdbsHeader is on the first line of every table.
var fdbsHeader = []byte("dump_ucast_routes: Switch ")

// finish checks the file as a whole: tables, and a last table as long as
// the longest (else the file was cut).
func (p *fdbsParser) finish() (*Routing, error) {
	r, rt := p.r, p.rt
	if len(rt.Switches) == 0 {
		return nil, r.errorf("no switch tables (want \"dump_ucast_routes: Switch 0x...\" headers)")
	}
	if lt := &rt.Switches[len(rt.Switches)-1]; lt.Top < p.maxTop {
		return nil, r.errorf("truncated file: the last table (switch 0x%016x, line %d) ends at LID 0x%04X, the table at line %d goes to 0x%04X",
			lt.GUID, lt.Line, lt.Top, p.maxTopLine, p.maxTop).With(ErrTruncated)
	}
	rt.Warnings = r.warnings()
	return rt, nil
}

// fdbEntryAsWritten reads an entry line as OpenSM writes it,
// `0x<4 hex> : <3 digits>  : <2 digits>   : yes` or `0x<4 hex> : UNREACHABLE`,
// in place; ok is false for any other line, which parseFDBEntry reads.
func fdbEntryAsWritten(l []byte) (lid, port int, routed, ok bool) {
	if len(l) != 26 && len(l) != 20 || string(l[6:9]) != " : " {
		return 0, 0, false, false
	}
	lid, hexOK := hex4(l[2:6])
	if !hexOK || lid > maxUnicastLID {
		return 0, 0, false, false
	}
	if len(l) == 20 {
		return lid, 0, false, string(l[9:]) == "UNREACHABLE"
	}
	if string(l[12:16]) != "  : " || string(l[18:]) != "   : yes" {
		return 0, 0, false, false
	}
	port, decOK := dec3(l[9:12])
	if !decOK || port > 255 || l[16] < '0' || l[16] > '9' || l[17] < '0' || l[17] > '9' {
		return 0, 0, false, false
	}
	return lid, port, port != 255, true
}

// parseFDBEntry parses `0x<lid> : <port> : <hops> : <optimal>`,
// `0x<lid> : <port> : HOPS UNKNOWN` or `0x<lid> : UNREACHABLE`.
func parseFDBEntry(r *lines, l []byte) (lid, port int, routed bool, err error) {
	c := cursor{b: l}
	v, ok := c.hex0x()
	if !ok {
		return 0, 0, false, r.errorf("bad LID %s", tok(c.field()))
	}
	if v > maxUnicastLID {
		return 0, 0, false, r.errorf("LID 0x%04X is not a unicast LID", v)
	}
	lid = int(v)
	c.blank()
	if !c.lit(":") {
		return 0, 0, false, r.errorf("LID 0x%04X: want ':' after the LID, got %s", lid, tok(c.rest()))
	}
	c.blank()
	if c.lit("UNREACHABLE") {
		if len(trimBlank(c.rest())) != 0 {
			return 0, 0, false, r.errorf("LID 0x%04X: unexpected %s after UNREACHABLE", lid, tok(c.rest()))
		}
		return lid, 0, false, nil
	}
	port, ok = c.dec()
	if !ok {
		return 0, 0, false, r.errorf("LID 0x%04X: bad out port %s", lid, tok(c.field()))
	}
	if port > 255 {
		return 0, 0, false, r.errorf("LID 0x%04X: out port %d out of range 0-%d", lid, port, MaxPorts)
	}
	routed = port != 255 // 255: no route
	c.blank()
	if !c.lit(":") {
		return 0, 0, false, r.errorf("LID 0x%04X: want ': <hops>' after the port, got %s", lid, tok(c.rest()))
	}
	c.blank()
	if c.lit("HOPS UNKNOWN") {
		if len(trimBlank(c.rest())) != 0 {
			return 0, 0, false, r.errorf("LID 0x%04X: unexpected %s after HOPS UNKNOWN", lid, tok(c.rest()))
		}
		return lid, port, routed, nil
	}
	if _, ok := c.dec(); !ok {
		return 0, 0, false, r.errorf("LID 0x%04X: bad hop count %s", lid, tok(c.field()))
	}
	c.blank()
	if !c.lit(":") {
		return 0, 0, false, r.errorf("LID 0x%04X: want ': <optimal>' after the hops, got %s", lid, tok(c.rest()))
	}
	// "yes", or OpenSM's note on a better path ("No 0 hop path possible via port 5!").
	if len(trimBlank(c.rest())) == 0 {
		return 0, 0, false, r.errorf("LID 0x%04X: empty Optimal column", lid)
	}
	return lid, port, routed, nil
}

// An opensm.fdbs lists every LID of every switch: 2.9 GB for a 32 768-host
// fat tree. A plain file of it is read on all cores, window by
// window as the lfts dump (readWindows), each window cut at table headers
// into pieces. The lines of each piece are counted first, so that every
// piece is parsed from its real first line: its entries, messages and
// skipped lines are those of the line by line reader. Tables do not cross
// pieces; the pieces are then joined in file order, and the first error
// in that order is the file's.

// fdbsStart starts the tables of an .fdbs file: a line that holds
// "dump_ucast_routes: Switch " and that the reader takes for a header
// (not an entry, not a pasted message).
var fdbsStart = tableStart{mark: fdbsHeader, line: func(l []byte) bool {
	if k := len(l); k > 0 && l[k-1] == '\r' {
		l = l[:k-1]
	}
	return !(len(l) > 2 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X')) && noise(l) == ""
}}

// readFDBsParallel reads src window by window on threads goroutines.
func readFDBsParallel(src io.Reader, name string, packed bool, threads int) (*Routing, error) {
	m := &fdbsParser{r: &lines{file: name}, rt: &Routing{File: name, Format: FormatFDBs}}
	last := make([]*fdbsParser, 2*threads) // the parser of each place's piece before
	base := 0
	err := readWindows(src, name, threads, fdbsStart, func() (int, int) { return base, m.r.n }, func(w []byte, ts tableStart) error {
		cuts := splitPieces(w, 2*threads, ts)
		bases := make([]int, len(cuts)+1)
		workers.Run(nil, threads, len(cuts), func(_, i int) error {
			bases[i+1] = bytes.Count(cuts[i], []byte{'\n'})
			return nil
		})
		bases[0] = base
		for i := range cuts {
			bases[i+1] += bases[i]
		}
		pieces := make([]*fdbsParser, len(cuts))
		errs := make([]error, len(cuts))
		workers.Run(nil, threads, len(cuts), func(_, i int) error {
			r := newLines(cuts[i], name)
			r.phys, r.n = bases[i], bases[i]
			p := &fdbsParser{r: r, rt: &Routing{File: name, Format: FormatFDBs}, hint: m.hint, packed: packed}
			if prev := last[i]; prev != nil {
				// The entry buffer and the packer of the piece before
				// at the same place: a table's worth each.
				p.scratch, p.packer = prev.scratch, prev.packer
			}
			last[i] = p
			pieces[i], errs[i] = p, p.all()
			return nil
		})
		for i, p := range pieces {
			if errs[i] != nil {
				return errs[i]
			}
			m.join(p, bases[i])
		}
		base = bases[len(cuts)]
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m.finish()
}

// join adds the tables and skipped lines of a piece that starts after
// line base.
func (m *fdbsParser) join(p *fdbsParser, base int) {
	m.rt.Switches = append(m.rt.Switches, p.rt.Switches...)
	if p.maxTop > m.maxTop {
		m.maxTop, m.maxTopLine = p.maxTop, p.maxTopLine
	}
	if len(p.rt.Switches) > 0 {
		m.hint = p.hint
	}
	if p.r.n > base {
		m.r.n = p.r.n
	}
	for _, n := range p.r.notes {
		if len(m.r.notes) < maxNotes {
			m.r.notes = append(m.r.notes, n)
		}
	}
	m.r.skipped += p.r.skipped
}

package ib

import (
	"bytes"
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

func readFDBs(r *lines) (rt *Routing, err error) {
	defer func() {
		if e := r.readErr(); e != nil {
			rt, err = nil, e
		}
	}()
	rt = &Routing{File: r.file, Format: FormatFDBs}
	var cur *LFT
	last := 0 // last LID listed in the open table
	hint := 0
	maxTop, maxTopLine := 0, 0
	closeTable := func() error {
		if cur == nil {
			return nil
		}
		if last == 0 {
			return r.errorAt(cur.Line, "table of switch 0x%016x has no entries: truncated file", cur.GUID).With(ErrTruncated)
		}
		cur.Top = last
		if last > maxTop {
			maxTop, maxTopLine = last, cur.Line
		}
		hint = len(cur.Entries)
		return nil
	}
	for {
		l, ok := r.next()
		if !ok {
			break
		}
		if len(l) > 2 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X') {
			if cur == nil {
				return nil, r.errorf("entry %s outside a switch table (no \"dump_ucast_routes: Switch\" header before it)", tok(l))
			}
			lid, port, routed, err := parseFDBEntry(r, l)
			if err != nil {
				return nil, err
			}
			if lid == 0 {
				continue // LID 0 is nobody's: no route
			}
			if lid <= last {
				return nil, r.errorf("LID 0x%04X after 0x%04X: LIDs must increase within a table", lid, last)
			}
			last = lid
			if routed {
				cur.Entries = append(cur.Entries, LFTEntry{LID: uint16(lid), Port: uint8(port), Line: int32(r.n)})
			}
			continue
		}
		t := trimBlank(l)
		if len(t) == 0 {
			continue
		}
		if i := bytes.Index(t, []byte("dump_ucast_routes: Switch ")); i >= 0 {
			if err := closeTable(); err != nil {
				return nil, err
			}
			c := cursor{b: t, i: i + len("dump_ucast_routes: Switch ")}
			g, ok := c.hex0x()
			if !ok || g == 0 || !c.done() {
				return nil, r.errorf("bad switch GUID in %s", tok(t))
			}
			rt.Switches = append(rt.Switches, LFT{GUID: g, Line: r.n, Entries: make([]LFTEntry, 0, hint)})
			cur = &rt.Switches[len(rt.Switches)-1]
			last = 0
			continue
		}
		if bytes.HasPrefix(t, []byte("LID")) && bytes.Contains(t, []byte("Port")) {
			continue // column titles
		}
		return nil, r.errorf("unexpected line %s", tok(t))
	}
	if err := closeTable(); err != nil {
		return nil, err
	}
	if len(rt.Switches) == 0 {
		return nil, r.errorf("no switch tables (want \"dump_ucast_routes: Switch 0x...\" headers)")
	}
	if lt := &rt.Switches[len(rt.Switches)-1]; lt.Top < maxTop {
		return nil, r.errorf("truncated file: the last table (switch 0x%016x, line %d) ends at LID 0x%04X, the table at line %d goes to 0x%04X",
			lt.GUID, lt.Line, lt.Top, maxTopLine, maxTop).With(ErrTruncated)
	}
	rt.Warnings = r.warnings()
	return rt, nil
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

package ib

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"

	"orcs/infile"
)

// This file reads what a credit-loop check needs beside the forwarding
// tables: the service level (SL) of each path, as the subnet administrator
// answers PathRecord queries (saquery PR), and the SL-to-VL tables of the
// ports (opensm-sl2vl.dump, smpquery sl2vl). OpenSM writes no per-path SL
// file: with OpenSM running, `saquery PR` (every path) or
// `saquery PR --slid S --dlid D` (one path) prints the records read here.
// The dfsssp engine also logs the SL layer of every pair of LIDs it routes
// ("route from src_lid=S to dest_lid=D on vl=V", OpenSM's debug level for
// osm_ucast_dfsssp.c): one pass over its log gives every path at once.

// NumSLs is the number of InfiniBand service levels (and SL2VL entries).
const NumSLs = 16

// PathSL is one PathRecord: the SL the subnet manager gives packets from
// SLID to DLID.
type PathSL struct {
	SLID, DLID uint16
	SL         uint8
	// Line is the line of the record's "PathRecord dump:" header, or of
	// its log line.
	Line int
	// Log says the record is a line of an OpenSM log (dfsssp's layers),
	// where a later routing of the same pair replaces an earlier one.
	Log bool
}

// dfssspRoute marks a line of OpenSM's log with the layer dfsssp gave a
// pair of LIDs (osm_ucast_dfsssp.c, vltable_print, debug level).
var dfssspRoute = []byte("route from src_lid=")

// isLogLine reports whether a line looks like a line of OpenSM's log
// ("Mon DD hh:mm:ss usec [thread] 0xLL -> text").
func isLogLine(l []byte) bool {
	i := bytes.Index(l, []byte("] 0x"))
	return i > 0 && bytes.Contains(l[i:], []byte(" -> ")) || bytes.Contains(l, dfssspRoute)
}

// parseDFSSSPRoute reads "route from src_lid=S to dest_lid=D on vl=V" at
// the end of a log line; ok is false when the line is another one.
func parseDFSSSPRoute(l []byte) (p PathSL, ok bool, err error) {
	i := bytes.Index(l, dfssspRoute)
	if i < 0 {
		return p, false, nil
	}
	f := bytes.Fields(l[i+len("route from "):])
	if len(f) != 5 || !bytes.Equal(f[1], []byte("to")) || !bytes.Equal(f[3], []byte("on")) {
		return p, true, fmt.Errorf("want \"route from src_lid=S to dest_lid=D on vl=V\"")
	}
	for _, x := range []struct {
		key   string
		field []byte
		limit uint64
	}{{"src_lid=", f[0], 0xffff}, {"dest_lid=", f[2], 0xffff}, {"vl=", f[4], NumSLs - 1}} {
		v, ok := parseUint(bytes.TrimPrefix(x.field, []byte(x.key)))
		if !bytes.HasPrefix(x.field, []byte(x.key)) || !ok || v > x.limit {
			return p, true, fmt.Errorf("%s: want %sN with N up to %d", tok(x.field), x.key, x.limit)
		}
		switch x.key {
		case "src_lid=":
			p.SLID = uint16(v)
		case "dest_lid=":
			p.DLID = uint16(v)
		default:
			p.SL = uint8(v)
		}
	}
	return p, true, nil
}

// ScanPathSLs reads saquery PathRecord output ("PathRecord dump:" records
// of `name....value` lines, of which slid, dlid and sl are used), or an
// OpenSM log with dfsssp's layers (its other lines are skipped), from r and
// calls fn for every record in file order; an error of fn stops the scan
// and is returned. Records whose LIDs are not unicast LIDs are errors: a
// SLID or DLID of 0 is what a truncated multi-packet SA answer looks like.
// file names the input in errors.
func ScanPathSLs(r io.Reader, file string, fn func(PathSL) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var (
		cur      PathSL
		have     uint8 // bits: 1 slid, 2 dlid, 4 sl
		inRecord bool
		isLog    bool
		n        int
		records  int
	)
	finish := func() error {
		if !inRecord {
			return nil
		}
		if have != 7 {
			missing := ""
			for i, name := range []string{"slid", "dlid", "sl"} {
				if have&(1<<i) == 0 {
					missing += " " + name
				}
			}
			return infile.Errorf(file, cur.Line, "PathRecord without%s", missing).With(ErrTruncated)
		}
		for _, l := range []struct {
			name string
			lid  uint16
		}{{"slid", cur.SLID}, {"dlid", cur.DLID}} {
			if l.lid == 0 || l.lid > maxUnicastLID {
				return infile.Errorf(file, cur.Line, "PathRecord with %s %d: not a unicast LID (a truncated SA answer? "+
					"under libumad2sim query one path at a time: saquery PR --slid S --dlid D)", l.name, l.lid)
			}
		}
		records++
		return fn(cur)
	}
	for sc.Scan() {
		n++
		l := bytes.TrimSpace(sc.Bytes())
		if len(l) == 0 {
			continue
		}
		if records == 0 && !inRecord && !isLog && isLogLine(l) {
			isLog = true
		}
		if isLog {
			p, ok, err := parseDFSSSPRoute(l)
			if err != nil {
				return infile.Errorf(file, n, "%v", err).With(ErrFormat)
			}
			if !ok {
				continue
			}
			for _, x := range []struct {
				name string
				lid  uint16
			}{{"src_lid", p.SLID}, {"dest_lid", p.DLID}} {
				if x.lid == 0 || x.lid > maxUnicastLID {
					return infile.Errorf(file, n, "%s %d: not a unicast LID", x.name, x.lid).With(ErrFormat)
				}
			}
			p.Line, p.Log = n, true
			records++
			if err := fn(p); err != nil {
				return err
			}
			continue
		}
		if bytes.Equal(l, []byte("PathRecord dump:")) {
			if err := finish(); err != nil {
				return err
			}
			cur, have, inRecord = PathSL{Line: n}, 0, true
			continue
		}
		dot := bytes.IndexByte(l, '.')
		if !inRecord || dot <= 0 {
			return infile.Errorf(file, n, "unexpected line %s: want saquery PathRecord output (\"PathRecord dump:\" records)", tok(l)).With(ErrFormat)
		}
		name, value := l[:dot], bytes.TrimLeft(l[dot:], ".")
		var bit uint8
		var limit uint64
		switch string(name) {
		case "slid":
			bit, limit = 1, 0xffff
		case "dlid":
			bit, limit = 2, 0xffff
		case "sl":
			bit, limit = 4, NumSLs-1
		default:
			continue
		}
		v, ok := parseUint(value)
		if !ok || v > limit {
			return infile.Errorf(file, n, "%s %s: want a number up to %d", name, tok(value), limit)
		}
		switch bit {
		case 1:
			cur.SLID = uint16(v)
		case 2:
			cur.DLID = uint16(v)
		case 4:
			cur.SL = uint8(v)
		}
		have |= bit
	}
	if err := sc.Err(); err != nil {
		return infile.Errorf(file, 0, "after line %d: %w", n, err).With(ErrTruncated)
	}
	if err := finish(); err != nil {
		return err
	}
	if records == 0 && isLog {
		return infile.Errorf(file, 0, "an OpenSM log without dfsssp's path layers (\"route from src_lid=S to dest_lid=D on vl=V\"): "+
			"route with dfsssp and per_module_logging_file naming a file with the line \"osm_ucast_dfsssp.c 0x0f\"").With(ErrFormat)
	}
	if records == 0 {
		return infile.Errorf(file, 0, "no PathRecords: want saquery PathRecord output").With(ErrFormat)
	}
	return nil
}

// ReadPathSLs reads saquery PathRecord output held in memory (see
// ScanPathSLs).
func ReadPathSLs(data []byte, file string) ([]PathSL, error) {
	var out []PathSL
	err := ScanPathSLs(bytes.NewReader(data), file, func(p PathSL) error {
		out = append(out, p)
		return nil
	})
	return out, err
}

// ScanPathSLsFile is ScanPathSLs on a file ("-" for standard input, gzip
// accepted).
func ScanPathSLsFile(path string, fn func(PathSL) error) error {
	br, done, err := infile.Open(path)
	if err != nil {
		return err
	}
	defer done()
	return ScanPathSLs(br, infile.Name(path), fn)
}

// parseUint parses a decimal number or a hexadecimal one with 0x.
func parseUint(b []byte) (uint64, bool) {
	base := 10
	if len(b) > 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X') {
		b, base = b[2:], 16
	}
	v, err := strconv.ParseUint(string(b), base, 64)
	return v, err == nil
}

// SL2VLEntry is one SL-to-VL table of a port: the VL of a packet of service
// level sl that enters the node on port In and leaves on port Out is
// VL[sl]. A CA port has one table, In = Out = 0.
type SL2VLEntry struct {
	In, Out uint8
	VL      [NumSLs]uint8
	// Line is the entry's line in its file.
	Line int
}

// SL2VLNode is the SL-to-VL tables of one node (a switch, or one port of a
// CA) as a file gives them.
type SL2VLNode struct {
	// PortGUID is the GUID of the port the tables are listed under (a
	// switch's port 0) in opensm-sl2vl.dump; 0 in smpquery output.
	PortGUID uint64
	// LID is the base LID of that port.
	LID uint16
	// Kind is the node type opensm-sl2vl.dump names ("Switch", "Channel
	// Adapter", "Router"); "" in smpquery output.
	Kind string
	// Desc is the node description in opensm-sl2vl.dump, else "".
	Desc    string
	Entries []SL2VLEntry
	// Line is the line that first names the node.
	Line int
}

// SL2VL is a file of SL-to-VL tables.
type SL2VL struct {
	File string
	// Format is "opensm-sl2vl.dump" or "smpquery sl2vl".
	Format string
	// Nodes are in file order; smpquery blocks of the same LID are merged.
	Nodes []SL2VLNode
}

// ReadSL2VL reads SL-to-VL tables in either format OpenSM and
// infiniband-diags write, recognised by content:
//
//   - opensm-sl2vl.dump (OpenSM with the routing dump flag, when QoS is on
//     or the engine sets SL2VL tables itself, as torus-2QoS does):
//     `Switch 0x<port GUID>, base LID <L>, "<desc>"` (or `Channel
//     Adapter`), `#` comment lines, then `<in> <out> : <16 VLs>` lines;
//   - the output of one or more `smpquery sl2vl <LID> [<port>]` runs:
//     `# SL2VL table: Lid <L>`, then `ports: in <in>, out <out>: | v0| …|v15|`
//     lines.
func ReadSL2VL(data []byte, file string) (*SL2VL, error) {
	s := &SL2VL{File: file}
	byLID := map[uint16]int{} // smpquery: node index by LID
	cur := -1
	n := 0
	for len(data) > 0 {
		var l []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			l, data = data, nil
		}
		n++
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		var err error
		switch {
		case bytes.HasPrefix(l, []byte("# SL2VL table:")):
			if err = s.setFormat("smpquery sl2vl", n); err != nil {
				return nil, err
			}
			c := &cursor{b: l[len("# SL2VL table:"):]}
			c.blank()
			lid, ok := 0, c.lit("Lid")
			if ok {
				c.blank()
				lid, ok = c.dec()
				c.blank()
			}
			if !ok || !c.done() || lid <= 0 || lid > 0xffff {
				return nil, infile.Errorf(file, n, "SL2VL table header %s: want \"# SL2VL table: Lid <LID>\"", tok(l))
			}
			i, seen := byLID[uint16(lid)]
			if !seen {
				i = len(s.Nodes)
				byLID[uint16(lid)] = i
				s.Nodes = append(s.Nodes, SL2VLNode{LID: uint16(lid), Line: n})
			}
			cur = i
		case bytes.HasPrefix(l, []byte("ports:")):
			if s.Format != "smpquery sl2vl" || cur < 0 {
				return nil, infile.Errorf(file, n, "SL2VL line before any \"# SL2VL table: Lid <LID>\" header").With(ErrFormat)
			}
			e, err := parseSMPSL2VL(l, file, n)
			if err != nil {
				return nil, err
			}
			s.Nodes[cur].Entries = append(s.Nodes[cur].Entries, e)
		case l[0] == '#':
			continue // column titles and separators of both formats
		case bytes.HasPrefix(l, []byte("Switch ")) || bytes.HasPrefix(l, []byte("Channel Adapter ")) ||
			bytes.HasPrefix(l, []byte("Router ")):
			if err = s.setFormat("opensm-sl2vl.dump", n); err != nil {
				return nil, err
			}
			node, err := parseOSMSL2VLHeader(l, file, n)
			if err != nil {
				return nil, err
			}
			cur = len(s.Nodes)
			s.Nodes = append(s.Nodes, node)
		default:
			if s.Format != "opensm-sl2vl.dump" || cur < 0 {
				return nil, infile.Errorf(file, n, "unexpected line %s: want opensm-sl2vl.dump or smpquery sl2vl output", tok(l)).With(ErrFormat)
			}
			e, err := parseOSMSL2VL(l, file, n)
			if err != nil {
				return nil, err
			}
			s.Nodes[cur].Entries = append(s.Nodes[cur].Entries, e)
		}
	}
	if len(s.Nodes) == 0 {
		return nil, infile.Errorf(file, 0, "no SL2VL tables: want opensm-sl2vl.dump or smpquery sl2vl output").With(ErrFormat)
	}
	for _, nd := range s.Nodes {
		if len(nd.Entries) == 0 {
			return nil, infile.Errorf(file, nd.Line, "SL2VL tables of LID %d: no entries", nd.LID).With(ErrTruncated)
		}
	}
	return s, nil
}

// ReadSL2VLFile reads SL-to-VL tables from a file ("-" for standard input,
// gzip accepted), at most lim's bytes (see SL2VLLimit); see ReadSL2VL.
func ReadSL2VLFile(path string, lim infile.Limit) (*SL2VL, error) {
	data, err := infile.ReadAllLimit(path, lim)
	if err != nil {
		return nil, err
	}
	return ReadSL2VL(data, infile.Name(path))
}

// setFormat records the file's format and refuses a mix of both.
func (s *SL2VL) setFormat(f string, line int) error {
	if s.Format != "" && s.Format != f {
		return infile.Errorf(s.File, line, "a %s line in %s output", f, s.Format).With(ErrFormat)
	}
	s.Format = f
	return nil
}

// parseOSMSL2VLHeader parses `Switch 0x<guid>, base LID <L>, "<desc>"`.
func parseOSMSL2VLHeader(l []byte, file string, n int) (SL2VLNode, error) {
	nd := SL2VLNode{Line: n}
	c := &cursor{b: l}
	for _, k := range []string{"Channel Adapter", "Switch", "Router"} {
		if c.lit(k) {
			nd.Kind = k
			break
		}
	}
	bad := func() (SL2VLNode, error) {
		return nd, infile.Errorf(file, n, "SL2VL header %s: want %s 0x<port GUID>, base LID <LID>, \"<description>\"", tok(l), nd.Kind)
	}
	c.blank()
	guid, ok := c.hex0x()
	if !ok || !c.lit(",") {
		return bad()
	}
	c.blank()
	if !c.lit("base LID") {
		return bad()
	}
	c.blank()
	lid, ok := c.dec()
	if !ok || lid > 0xffff || !c.lit(",") {
		return bad()
	}
	c.blank()
	rest := c.rest()
	if len(rest) < 2 || rest[0] != '"' || rest[len(rest)-1] != '"' {
		return bad()
	}
	nd.PortGUID, nd.LID, nd.Desc = guid, uint16(lid), string(rest[1:len(rest)-1])
	return nd, nil
}

// parseOSMSL2VL parses `<in> <out> : v0 v1 … v15`.
func parseOSMSL2VL(l []byte, file string, n int) (SL2VLEntry, error) {
	e := SL2VLEntry{Line: n}
	c := &cursor{b: l}
	in, ok1 := c.dec()
	c.blank()
	out, ok2 := c.dec()
	c.blank()
	if !ok1 || !ok2 || in > 255 || out > 255 || !c.lit(":") {
		return e, infile.Errorf(file, n, "SL2VL line %s: want <in port> <out port> : <16 VLs>", tok(l))
	}
	e.In, e.Out = uint8(in), uint8(out)
	for sl := 0; sl < NumSLs; sl++ {
		c.blank()
		vl, ok := c.dec()
		if !ok || vl > 15 {
			return e, infile.Errorf(file, n, "SL2VL line %s: want 16 VLs (0-15)", tok(l))
		}
		e.VL[sl] = uint8(vl)
	}
	c.blank()
	if !c.done() {
		return e, infile.Errorf(file, n, "SL2VL line %s: more than 16 VLs", tok(l))
	}
	return e, nil
}

// parseSMPSL2VL parses `ports: in <in>, out <out>: | v0| v1| …|v15|`.
func parseSMPSL2VL(l []byte, file string, n int) (SL2VLEntry, error) {
	e := SL2VLEntry{Line: n}
	bad := func(what string) (SL2VLEntry, error) {
		return e, infile.Errorf(file, n, "SL2VL line %s: %s", tok(l), what)
	}
	c := &cursor{b: l, i: len("ports:")}
	c.blank()
	if !c.lit("in") {
		return bad("want \"ports: in <port>, out <port>: | <16 VLs> |\"")
	}
	c.blank()
	in, ok := c.dec()
	if !ok || in > 255 || !c.lit(",") {
		return bad("want \"ports: in <port>, out <port>: | <16 VLs> |\"")
	}
	c.blank()
	if !c.lit("out") {
		return bad("want \"ports: in <port>, out <port>: | <16 VLs> |\"")
	}
	c.blank()
	out, ok := c.dec()
	if !ok || out > 255 || !c.lit(":") {
		return bad("want \"ports: in <port>, out <port>: | <16 VLs> |\"")
	}
	e.In, e.Out = uint8(in), uint8(out)
	for sl := 0; sl < NumSLs; sl++ {
		c.blank()
		if !c.lit("|") {
			return bad(fmt.Sprintf("want 16 VLs separated by |, found %d", sl))
		}
		c.blank()
		vl, ok := c.dec()
		if !ok || vl > 15 {
			return bad(fmt.Sprintf("want 16 VLs (0-15), found %d", sl))
		}
		e.VL[sl] = uint8(vl)
	}
	c.blank()
	if !c.lit("|") {
		return bad("want a closing | after 16 VLs")
	}
	c.blank()
	if !c.done() {
		return bad("more than 16 VLs")
	}
	return e, nil
}

// sl2vlLineBytes bounds one table line of either format: OpenSM's
// "<in> <out> : <16 VLs>" or smpquery's "ports: in I, out O: | v0| …|v15|".
const sl2vlLineBytes = 128

// SL2VLLimit bounds the SL-to-VL tables of a fabric whose nodes have the
// given numbers of ports: a table line per pair of a node's ports (port 0
// included) and a header per node, with 1 MiB for comments.
func SL2VLLimit(ports []int) infile.Limit {
	n := int64(1 << 20)
	for _, p := range ports {
		n += int64(p+1)*int64(p+1)*sl2vlLineBytes + 4*sl2vlLineBytes
	}
	return infile.Limit{Bytes: n, Why: fmt.Sprintf("the SL2VL tables of a fabric of %d nodes (a line per pair of a node's ports)", len(ports))}
}

package ib

import (
	"bytes"
	"path/filepath"
	"sort"

	"orcs/infile"
	"orcs/lft"
)

// ReadSimNet parses an ibsim net file. The grammar is ibsim's:
//
//	Switch <nports> "<nodeid>" [# "<nodedesc>" [enhanced|base] port 0 lid <L> lmc <M>]
//	[<port>] "<remote nodeid>"[<remote port>] [w=<width>] [s=<speed>] [e=<speed>]
//	Hca|Ca|Rt <nports> "<nodeid>" [# "<nodedesc>"]
//	[<port>] "<remote nodeid>"[<remote port>] [# lid <L> lmc <M> ...]
//
// Records end at a line that is not a port line; a line starting with '#'
// is a comment; lines ibsim ignores are ignored ("[ext N]", an external
// port number that ibnetdiscover may write after a port number, is
// skipped). The directives switchguid=, caguid= (or hcaguids=) and rtguid=
// set the GUID counter of their kind ('=' absolute, '+' relative to the
// last absolute value): the next node of that kind gets the value, later
// ones continue from it. Without them the GUIDs are ibsim's: CA node GUIDs
// from 0x100000 advancing by nports+1, switch GUIDs from 0x200000
// advancing by 1. A CA port's GUID is the node GUID plus the port number
// (or the GUID in parentheses after the port, as ibnetdiscover writes it),
// a switch's port GUID its node GUID. The node description is the quoted
// text after '#', or the node id. Both ends of every cable must be listed,
// as ibsim requires. An include directive is refused here;
// ReadTopologyFile follows it.
//
// ibnetdiscover output is valid ibsim input and reads the same; use
// ReadNetDiscover for it, which also skips the -s trace.
func ReadSimNet(data []byte, file string) (*Topology, error) {
	return readNet(newLines(data, file), FormatIBSimNet, nil)
}

// readNet reads an ibsim net file or ibnetdiscover output; include
// resolves include directives (nil refuses them).
func readNet(r *lines, format Format, include func(name, from string) ([]byte, string, error)) (*Topology, error) {
	p := newNetParser(r.file, format, include)
	if err := p.parse(r, 0); err != nil {
		return nil, err
	}
	return p.finish()
}

// netParser reads the record grammar shared by ibsim net files and
// ibnetdiscover output.
type netParser struct {
	format  Format
	topo    *Topology
	ids     map[string]int
	byGUID  map[uint64]int
	pending []pendingPort
	// GUID counters as ibsim keeps them, per kind: next value and the last
	// absolute base.
	next, base [3]uint64
	set        [3]bool // the kind's counter was set by a directive
	port0GUID  uint64  // switchguid=X(Y): Y, for the next switch
	include    func(name, from string) ([]byte, string, error)
}

// pendingPort is a port line whose remote end is resolved at the end.
type pendingPort struct {
	node, port int // node index and port number
	remote     string
	remotePort int
	file       string
	line       int
}

const (
	kindCA = iota
	kindSwitch
	kindRouter
)

func newNetParser(file string, format Format, include func(name, from string) ([]byte, string, error)) *netParser {
	p := &netParser{
		format:  format,
		topo:    &Topology{File: file, Format: format},
		ids:     map[string]int{},
		byGUID:  map[uint64]int{},
		include: include,
	}
	p.next[kindCA], p.base[kindCA] = 0x100000, 0x100000
	p.next[kindSwitch], p.base[kindSwitch] = 0x200000, 0x200000
	return p
}

// parse reads one file (depth > 0 for included files).
func (p *netParser) parse(r *lines, depth int) (err error) {
	defer func() {
		if e := r.readErr(); e != nil {
			err = e
		}
		p.topo.Warnings = append(p.topo.Warnings, r.warnings()...)
	}()
	ibnd := p.format == FormatIBNetDiscover
	for {
		l, ok := r.next()
		if !ok {
			return nil
		}
		if len(l) == 0 || l[0] == '#' || isBlankLine(l) {
			continue
		}
		c := cursor{b: l}
		c.blank()
		if c.peek() == '[' || c.peek() == '@' {
			return r.errorf("port line %s outside a node record (a record starts with Switch, Hca, Ca or Rt)", tok(trimBlank(l)))
		}
		w := c.word()
		switch string(w) {
		case "Switch", "Hca", "Ca", "Rt":
			if !c.blank() {
				break
			}
			if err := p.record(r, string(w), &c); err != nil {
				return err
			}
			continue
		case "switchguid", "caguid", "hcaguids", "rtguid":
			if err := p.guidDirective(r, string(w), &c); err != nil {
				return err
			}
			continue
		case "vendid", "devid", "sysimgguid", "width", "speed":
			continue
		case "Chassis", "Non-Chassis", "Hostname":
			// ibnetdiscover -g: the chassis and non-chassis group headers,
			// and the host name of a Xsigo chassis.
			if ibnd {
				continue
			}
		case "DR":
			if ibnd && c.lit(" path") {
				continue
			}
		case "include":
			if ibnd {
				break
			}
			if err := p.includeFile(r, &c, depth); err != nil {
				return err
			}
			continue
		case "module":
			if !ibnd {
				return r.errorf("%s: module prefixes are not supported", tok(w))
			}
		case "do":
			if !ibnd {
				return r.errorf("%s: simulator commands in net files are not supported", tok(w))
			}
		case "pdebug":
			if !ibnd {
				continue
			}
		}
		if ibnd {
			return r.errorf("unexpected line %s in ibnetdiscover output", tok(trimBlank(l)))
		}
		// ibsim ignores every other line.
	}
}

// includeFile follows an include "<file>" directive.
func (p *netParser) includeFile(r *lines, c *cursor, depth int) error {
	c.blank()
	if !c.lit(`"`) {
		return r.errorf("include: want a quoted file name, got %s", tok(c.rest()))
	}
	name := c.until('"')
	if !c.lit(`"`) {
		return r.errorf("include: unterminated file name %s", tok(name))
	}
	if p.include == nil {
		return r.errorf("include %q: includes are only followed when reading a net file by name", name)
	}
	if depth >= 8 {
		return r.errorf("include %q: includes nested too deep", name)
	}
	data, path, err := p.include(string(name), r.file)
	if err != nil {
		return r.errorf("include %q: %v", name, err)
	}
	return p.parse(newLines(data, path), depth+1)
}

// guidDirective handles switchguid=, caguid=, hcaguids= and rtguid=.
func (p *netParser) guidDirective(r *lines, name string, c *cursor) error {
	kind := kindCA
	switch name {
	case "switchguid":
		kind = kindSwitch
	case "rtguid":
		kind = kindRouter
	}
	c.blank()
	relative := false
	switch {
	case c.lit("="):
	case c.lit("+"):
		relative = true
	default:
		return r.errorf("%s: want '=' or '+', got %s", name, tok(c.rest()))
	}
	c.blank()
	v, ok := c.number()
	if !ok {
		return r.errorf("%s: bad GUID %s", name, tok(c.rest()))
	}
	if relative {
		if !p.set[kind] && kind == kindRouter {
			return r.errorf("%s+: no %s= base set before", name, name)
		}
		p.next[kind] = p.base[kind] + v
	} else {
		p.base[kind], p.next[kind] = v, v
	}
	p.set[kind] = true
	if c.lit("(") {
		pg, ok := c.hex()
		if !ok || !c.lit(")") {
			return r.errorf("%s: bad port GUID in %s", name, tok(c.b))
		}
		if kind == kindSwitch {
			p.port0GUID = pg
		}
	}
	return nil
}

// record parses a node line and its port lines.
func (p *netParser) record(r *lines, keyword string, c *cursor) error {
	line := r.n
	var kind lft.NodeKind
	k := kindCA
	switch keyword {
	case "Switch":
		kind, k = lft.Switch, kindSwitch
	case "Rt":
		kind, k = lft.Router, kindRouter
	default:
		kind = lft.Host
	}
	nports, ok := c.dec()
	if !ok {
		return r.errorf("%s: want the number of ports, got %s", keyword, tok(c.rest()))
	}
	if nports < 1 || nports > MaxPorts {
		return r.errorf("%s %d: a node has 1 to %d ports", keyword, nports, MaxPorts)
	}
	c.blank()
	id, ok := quoted(c)
	if !ok {
		return r.errorf("%s %d: want the quoted node id, got %s", keyword, nports, tok(c.rest()))
	}
	if len(id) == 0 {
		return r.errorf("%s %d: empty node id", keyword, nports)
	}
	c.blank()
	n := TopoNode{Kind: kind, ID: string(id), NPorts: nports, Line: line, File: r.file}
	if c.lit("#") {
		desc, lid, lmc, hasLID, hasLMC, err := nodeTail(c)
		if err != "" {
			return r.errorf("node %s: %s", tok(id), err)
		}
		n.Desc = string(desc)
		if kind == lft.Switch {
			if hasLID {
				if lid > maxUnicastLID {
					return r.errorf("node %s: lid %d is not a unicast LID", tok(id), lid)
				}
				n.Port0.LID = uint16(lid)
			}
			if hasLMC {
				if lmc > 7 {
					return r.errorf("node %s: lmc %d out of range 0-7", tok(id), lmc)
				}
				n.Port0.LMC, n.Port0.LMCKnown = uint8(lmc), true
			}
		}
	} else if !c.done() {
		return r.errorf("node %s: unexpected %s after the node id", tok(id), tok(c.rest()))
	}
	if n.Desc == "" && p.format == FormatIBSimNet {
		n.Desc = n.ID // as ibsim does; ibnetdiscover's "" is an empty description
	}
	if prev, dup := p.ids[n.ID]; dup {
		return r.errorf("node id %s defined twice (first at line %d)", tok(id), p.topo.Nodes[prev].Line)
	}
	if kind == lft.Router && !p.set[kindRouter] {
		return r.errorf("router %s without rtguid=: ibsim gives routers no default GUIDs", tok(id))
	}
	n.GUID = p.next[k]
	if g, ok := idGUID(n.ID); ok && p.format == FormatIBNetDiscover {
		// The id of ibnetdiscover output is made from the node GUID. In
		// the ibnetdiscover file of ibdiagnet, switchguid= gives a chassis
		// switch's chassis GUID (the same for all its ASICs) and the node
		// GUID follows in parentheses, as the id does.
		n.GUID = g
	}
	if kind == lft.Switch {
		p.next[k]++
		n.Port0.GUID = n.GUID
		if p.port0GUID != 0 {
			n.Port0.GUID, p.port0GUID = p.port0GUID, 0
		}
	} else {
		p.next[k] += uint64(nports) + 1
	}
	n.Port0.Peer = -1
	if prev, dup := p.byGUID[n.GUID]; dup {
		return r.errorf("node %s has GUID 0x%016x, like node %s (line %d)", tok(id), n.GUID,
			tok([]byte(p.topo.Nodes[prev].ID)), p.topo.Nodes[prev].Line)
	}
	idx := len(p.topo.Nodes)
	p.ids[n.ID] = idx
	p.byGUID[n.GUID] = idx
	// Port lines.
	for {
		l, ok := r.peek()
		if !ok || len(l) == 0 {
			break
		}
		if l[0] == '#' {
			r.next()
			continue
		}
		pc := cursor{b: l}
		pc.blank()
		if pc.peek() == '@' {
			r.next()
			return r.errorf("port aliases ('@') are not supported")
		}
		if pc.peek() != '[' {
			break
		}
		r.next()
		port, err := p.portLine(r, &n, idx, &pc)
		if err != nil {
			return err
		}
		if prev := n.Port(port.Num); prev != nil {
			return r.errorf("port %d of %s listed twice (first at line %d)", port.Num, tok(id), prev.Line)
		}
		n.Ports = append(n.Ports, port)
		if k := len(n.Ports); k > 1 && n.Ports[k-2].Num > port.Num {
			sort.Slice(n.Ports, func(i, j int) bool { return n.Ports[i].Num < n.Ports[j].Num })
		}
	}
	p.topo.Nodes = append(p.topo.Nodes, n)
	return nil
}

// portLine parses `[p](guid) "remote"[rp](guid) opts # tail`.
func (p *netParser) portLine(r *lines, n *TopoNode, idx int, c *cursor) (TopoPort, error) {
	c.lit("[")
	num, ok := c.dec()
	if !ok || !c.lit("]") {
		return TopoPort{}, r.errorf("bad port number in %s", tok(trimBlank(c.b)))
	}
	if num < 1 || num > n.NPorts {
		return TopoPort{}, r.errorf("port %d out of range: %s %q has ports 1-%d", num, n.Kind, n.ID, n.NPorts)
	}
	pt := TopoPort{Num: num, Peer: -1, Line: r.n}
	if n.Kind == lft.Switch {
		pt.GUID = n.Port0.GUID
	} else {
		pt.GUID = n.GUID + uint64(num)
	}
	if !extPort(c) {
		return pt, r.errorf("port %d: bad external port number in %s", num, tok(trimBlank(c.b)))
	}
	if c.lit("(") {
		g, ok := c.hex()
		if !ok || !c.lit(")") {
			return pt, r.errorf("port %d: bad port GUID in %s", num, tok(trimBlank(c.b)))
		}
		pt.GUID = g
	}
	c.blank()
	remote, ok := quoted(c)
	if !ok || len(remote) == 0 {
		return pt, r.errorf("port %d: want the quoted remote node id, got %s", num, tok(c.rest()))
	}
	rport := 1 // ibsim's default
	if c.lit("[") {
		rport, ok = c.dec()
		if !ok || !c.lit("]") {
			return pt, r.errorf("port %d: bad remote port number after %s", num, tok(remote))
		}
		if rport < 1 || rport > MaxPorts {
			return pt, r.errorf("port %d: remote port %d out of range 1-%d", num, rport, MaxPorts)
		}
		if !extPort(c) {
			return pt, r.errorf("port %d: bad external port number in %s", num, tok(trimBlank(c.b)))
		}
	}
	if c.lit("(") {
		if _, ok := c.hex(); !ok || !c.lit(")") {
			return pt, r.errorf("port %d: bad remote port GUID in %s", num, tok(trimBlank(c.b)))
		}
	}
	// Options (w=, s=, e=) until the comment.
	var opt [3]uint64 // w, s, e; 0 when not given
	given := false
	for {
		c.blank()
		if c.done() || c.peek() == '#' {
			break
		}
		f := c.field()
		i := bytes.IndexByte(f, '=')
		if i <= 0 {
			return pt, r.errorf("port %d: unexpected %s (want w=N, s=N, e=N or a # comment)", num, tok(f))
		}
		if k := bytes.IndexByte([]byte("wse"), f[0]); k >= 0 && i == 1 {
			// ibsim's ranges: w= 1-31, s= 0-7 (0 is QDR), e= 0-15.
			lo, hi := [3]uint64{1, 0, 0}[k], [3]uint64{31, 7, 15}[k]
			vc := cursor{b: f[2:]}
			v, ok := vc.number()
			if !ok || !vc.done() || v < lo || v > hi {
				return pt, r.errorf("port %d: bad %s (want %c=N, a bit mask of %d to %d)", num, tok(f), f[0], lo, hi)
			}
			if k == 1 && v == 0 {
				v = 4
			}
			opt[k], given = v, true
		}
	}
	if c.peek() == '#' {
		pt.Rate = tailRate(c.rest())
	}
	if given {
		pt.Rate = optionRate(opt[0], opt[1], opt[2])
	}
	if c.lit("#") && n.Kind != lft.Switch {
		lid, lmc, hasLID, hasLMC, err := portTail(c)
		if err != "" {
			return pt, r.errorf("port %d: %s", num, err)
		}
		if hasLID {
			if lid > maxUnicastLID {
				return pt, r.errorf("port %d: lid %d is not a unicast LID", num, lid)
			}
			pt.LID = uint16(lid)
		}
		if hasLMC {
			if lmc > 7 {
				return pt, r.errorf("port %d: lmc %d out of range 0-7", num, lmc)
			}
			pt.LMC, pt.LMCKnown = uint8(lmc), true
		}
	}
	p.pending = append(p.pending, pendingPort{node: idx, port: num, remote: string(remote),
		remotePort: rport, file: r.file, line: r.n})
	return pt, nil
}

// tailRate returns the rate at the end of a port line's comment, after the
// remote description: ibnetdiscover ends every port line with the remote
// LID and the link's rate (`# "<remote desc>" lid 3 4xFDR10`), and ibsim
// reads the same words. A comment that ends otherwise gives the zero rate.
func tailRate(tail []byte) LinkRate {
	if q := bytes.LastIndexByte(tail, '"'); q >= 0 {
		tail = tail[q+1:]
	}
	// The last three fields as bytes.Fields splits them, without its
	// allocation when the tail is ASCII.
	var f [3][]byte // the last field first
	k, end := 0, len(tail)
	for ; k < 3; k++ {
		for end > 0 && asciiSpace[tail[end-1]] {
			end--
		}
		if end == 0 {
			break
		}
		start := end
		for start > 0 && !asciiSpace[tail[start-1]] {
			if tail[start-1] >= 0x80 {
				return tailRateFields(tail)
			}
			start--
		}
		f[k], end = tail[start:end], start
	}
	if k < 3 || string(f[2]) != "lid" {
		return LinkRate{}
	}
	return rateWord(f[0])
}

// asciiSpace marks the ASCII bytes that bytes.Fields splits at.
var asciiSpace = [256]bool{' ': true, '\t': true, '\n': true, '\v': true, '\f': true, '\r': true}

// tailRateFields is tailRate for a tail with bytes beyond ASCII, which
// may hold Unicode spaces.
func tailRateFields(tail []byte) LinkRate {
	f := bytes.Fields(tail)
	if len(f) < 3 || string(f[len(f)-3]) != "lid" {
		return LinkRate{}
	}
	return rateWord(f[len(f)-1])
}

// optionRate returns the rate at which ibsim runs a port with the options
// w= (enabled widths, a bit mask: 1 1x, 2 4x, 4 8x, 8 12x, 16 2x), s=
// (enabled speeds: 1 SDR, 2 DDR, 4 QDR) and e= (extended speeds: 1 FDR,
// 2 EDR, 4 HDR, 8 NDR), 0 for an option not given: the widest width and
// the fastest speed enabled, an extended speed before the others; 4x and
// SDR when not given (ibsim's defaults; checked with ibnetdiscover on
// testdata/ib/ratesopt).
func optionRate(w, s, e uint64) LinkRate {
	r := LinkRate{Width: 4, Speed: SDR}
	if w != 0 {
		for _, b := range []struct {
			bit   uint64
			lanes uint8
		}{{8, 12}, {4, 8}, {2, 4}, {16, 2}, {1, 1}} {
			if w&b.bit != 0 {
				r.Width = b.lanes
				break
			}
		}
	}
	switch {
	case e&8 != 0:
		r.Speed = NDR
	case e&4 != 0:
		r.Speed = HDR
	case e&2 != 0:
		r.Speed = EDR
	case e&1 != 0:
		r.Speed = FDR
	case s&4 != 0:
		r.Speed = QDR
	case s&2 != 0:
		r.Speed = DDR
	}
	return r
}

// idGUID returns the node GUID of an ibnetdiscover node id, "S-", "H-" or
// "R-" and 16 hexadecimal digits.
func idGUID(id string) (uint64, bool) {
	if len(id) != 18 || id[1] != '-' || id[0] != 'S' && id[0] != 'H' && id[0] != 'R' {
		return 0, false
	}
	c := cursor{b: []byte(id), i: 2}
	g, ok := c.hex()
	return g, ok && c.done()
}

// extPort skips the external port number "[ext N]" that ibnetdiscover
// writes after a port number of a switch with external port numbering. It
// reports false when the text is malformed.
func extPort(c *cursor) bool {
	if !c.lit("[ext ") {
		return true
	}
	_, ok := c.dec()
	return ok && c.lit("]")
}

// quoted reads a "..." string (no escapes, as the tools write them).
func quoted(c *cursor) ([]byte, bool) {
	if !c.lit(`"`) {
		return nil, false
	}
	s := c.until('"')
	if !c.lit(`"`) {
		return nil, false
	}
	return s, true
}

// nodeTail parses what follows '#' on a node line: an optional description
// (quoted, or bare up to a keyword) and "lid N", "lmc N" pairs among other
// words.
func nodeTail(c *cursor) (desc []byte, lid, lmc int, hasLID, hasLMC bool, err string) {
	c.blank()
	if c.peek() == '"' {
		d, ok := quoted(c)
		if !ok {
			return nil, 0, 0, false, false, "unterminated description " + tok(c.rest())
		}
		desc = d
	} else {
		rest := c.rest()
		end := len(rest)
		for _, kw := range []string{"enhanced port ", "base port ", "lid ", "lmc "} {
			if bytes.HasPrefix(rest, []byte(kw)) {
				end = 0
			} else if i := bytes.Index(rest, []byte(" "+kw)); i >= 0 && i < end {
				end = i
			}
		}
		desc = trimBlank(rest[:end])
		c.i += end
	}
	lid, lmc, hasLID, hasLMC, err = lidLMC(c)
	return
}

// portTail parses what follows '#' on a CA port line: "lid L lmc M" come
// first in ibnetdiscover output; later words (the remote description and
// its LID) are not the port's own.
func portTail(c *cursor) (lid, lmc int, hasLID, hasLMC bool, err string) {
	c.blank()
	save := c.i
	if w := c.word(); string(w) != "lid" {
		c.i = save
		return 0, 0, false, false, ""
	}
	c.i = save
	// Only the words before the first quote are about this port.
	rest := c.rest()
	if q := bytes.IndexByte(rest, '"'); q >= 0 {
		rest = rest[:q]
	}
	sub := cursor{b: rest}
	return lidLMC(&sub)
}

// lidLMC scans words for "lid N" and "lmc N" (the first of each).
func lidLMC(c *cursor) (lid, lmc int, hasLID, hasLMC bool, err string) {
	for {
		c.blank()
		if c.done() {
			return
		}
		w := c.field()
		switch string(w) {
		case "lid", "lmc":
			c.blank()
			v, ok := c.number()
			if !ok || v > 0xFFFF {
				return 0, 0, false, false, "bad number after " + string(w) + ": " + tok(c.rest())
			}
			if string(w) == "lid" && !hasLID {
				lid, hasLID = int(v), true
			} else if string(w) == "lmc" && !hasLMC {
				lmc, hasLMC = int(v), true
			}
		}
	}
}

// finish resolves the remote ends of every port and checks that both ends
// of each cable agree.
func (p *netParser) finish() (*Topology, error) {
	t := p.topo
	if len(t.Nodes) == 0 {
		return nil, infile.Errorf(t.File, 0, "no nodes (want Switch, Hca, Ca or Rt records)").With(ErrFormat)
	}
	for _, pp := range p.pending {
		ri, ok := p.ids[pp.remote]
		if !ok {
			return nil, infile.Errorf(pp.file, pp.line, "port %d connects to unknown node id %q", pp.port, pp.remote)
		}
		n, rn := &t.Nodes[pp.node], &t.Nodes[ri]
		if pp.remotePort > rn.NPorts {
			return nil, infile.Errorf(pp.file, pp.line, "port %d connects to port %d of %q, which has ports 1-%d", pp.port, pp.remotePort, pp.remote, rn.NPorts)
		}
		back := rn.Port(pp.remotePort)
		if back == nil {
			return nil, infile.Errorf(pp.file, pp.line, "port %d of %q connects to %q[%d], which does not list that port (both ends of a cable must be listed)", pp.port, n.ID, pp.remote, pp.remotePort)
		}
		pt := n.Port(pp.port)
		pt.Peer, pt.PeerPort = ri, pp.remotePort
	}
	// Both ends must agree.
	for i := range t.Nodes {
		n := &t.Nodes[i]
		for j := range n.Ports {
			pt := &n.Ports[j]
			rn := &t.Nodes[pt.Peer]
			back := rn.Port(pt.PeerPort)
			if back.Peer != i || back.PeerPort != pt.Num {
				return nil, infile.Errorf(p.fileOf(pt.Line, i), pt.Line, "port %d of %q connects to %q[%d], but that port connects to %q[%d] (line %d)", pt.Num, n.ID, rn.ID, pt.PeerPort,
					t.Nodes[back.Peer].ID, back.PeerPort, back.Line)
			}
		}
	}
	return t, nil
}

// fileOf returns the file that holds a node's record (included files keep
// their own names).
func (p *netParser) fileOf(line, node int) string {
	for _, pp := range p.pending {
		if pp.node == node && pp.line == line {
			return pp.file
		}
	}
	return p.topo.File
}

// includeFromDisk resolves an include directive relative to the including
// file's directory.
func includeFromDisk(name, from string) ([]byte, string, error) {
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(from), name)
	}
	data, err := infile.ReadAll(path)
	if err != nil {
		return nil, "", err
	}
	return data, path, nil
}

package ib

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"unsafe"

	"orcs/internal/hugemem"
	"orcs/internal/workers"
	"orcs/lft"
)

// ReadNetDiscover parses the output of ibnetdiscover, plain, with -s (the
// DR-path discovery trace that -s prints first is skipped) or with -g (the
// chassis and "Non-Chassis Nodes" headers are skipped, "[ext N]" external
// port numbers ignored), and the ibnetdiscover file of ibdiagnet. Node ids
// are those of the output ("S-<guid>", "H-<guid>"), descriptions the quoted
// text after '#'; node GUIDs come from the ids (ibdiagnet's switchguid=
// gives a chassis switch's chassis GUID, the same for all its ASICs) or
// else from the switchguid=/caguid=/rtguid= lines, port GUIDs from the
// port lines (a switch's from the parentheses of switchguid=), a switch's
// LID and LMC from its node line ("base port 0 lid L lmc M") and a CA
// port's from its port line ("# lid L lmc M ..."). The grammar is that of
// ReadSimNet (ibnetdiscover output is valid ibsim input), but lines that
// ibnetdiscover does not write are errors here, and `# ""` is an empty
// description (a node that did not answer), not the node id.
//
// Output as ibnetdiscover writes it is read on all cores (see
// readNetFast); anything else, and every error, goes through the line by
// line reader, which gives the messages.
func ReadNetDiscover(data []byte, file string) (*Topology, error) {
	return readNetDiscover(data, file, runtime.GOMAXPROCS(0))
}

// readNetDiscover is ReadNetDiscover on threads goroutines.
func readNetDiscover(data []byte, file string, threads int) (*Topology, error) {
	if t := readNetFast(data, file, threads); t != nil {
		return t, nil
	}
	return readNet(newLines(data, file), FormatIBNetDiscover, nil)
}

// readNetDiscoverFile reads the ibnetdiscover output of br (opened from
// path by infile.Open) whole and parses it with readNetFast. It returns
// nil when it cannot (standard input, a read error, output that the fast
// reader does not take), and the file must then be read line by line
// from its start: the messages, warnings and limits are that reader's.
func readNetDiscoverFile(br io.Reader, path, name string) *Topology {
	if path == "-" {
		return nil
	}
	// A plain file's text is held on huge pages, given back when the read
	// ends (the topology keeps none of it): 16 MB read into fresh memory
	// were 4 096 page faults, 60–100 ms on a virtual machine. A gzip
	// file's size says nothing of its text's: it grows on the heap.
	var mem hugemem.Arena
	defer mem.Release()
	var buf bytes.Buffer
	if fh, size := openPlain(path); fh != nil {
		fh.Close()
		buf = *bytes.NewBuffer(hugemem.Make[byte](&mem, 0, int(size)+bytes.MinRead))
	}
	if _, err := buf.ReadFrom(br); err != nil {
		return nil
	}
	return readNetFast(buf.Bytes(), name, runtime.GOMAXPROCS(0))
}

// The fast reader takes ibnetdiscover output as the tool writes it: every
// node id "S-", "H-" (or "R-") and 16 lower-case hexadecimal digits, the
// node GUID, so that a cable's far end is found by its GUID; no line that
// the line by line reader would skip or refuse. The text is cut at blank
// lines before a record ("vendid=", "Switch", "Ca", "Hca") into a piece per
// core; each piece is parsed on its own, counting its lines from 1, into
// its nodes, their ports and the far ends of the ports; the pieces are
// then joined in file order (lines moved behind those of the pieces
// before), the nodes found by GUID in one open-addressing table, and the
// cables resolved and checked on all cores. Any doubt (a router, a GUID
// directive left for the next piece, a line that may be noise, an error)
// gives up, and the line by line reader reads the whole text again.

// netPieceMin is the least bytes of a piece read on its own core
// (variable for tests).
var netPieceMin = 1 << 20

// netPiece is one piece of the text and what parsing it gave.
type netPiece struct {
	data  []byte
	nodes []netNode
	// chunks holds the ports of the nodes, each chunk as it was opened
	// (empty: a node's ports are sliced from it within its capacity);
	// ports is the last chunk, filled.
	chunks [][]TopoPort
	ports  []TopoPort
	// start is the open node's first port in ports.
	start int
	text  []byte  // the nodes' ids and descriptions, back to back
	ends  []int32 // per node: the end of its description in text
	lines int     // lines in the piece
	// rateWord is the rate word of the last port line read, rate its rate
	// (lines repeat it).
	rateWord []byte
	rate     LinkRate
	node0    int // the piece's first node in the file
	base     int // lines before the piece
	ok       bool
}

// netMaxLine bounds the lines and the runs of blank lines that the fast
// reader takes: well below the limits of a streamed input (maxLine, and
// infile.MaxBlank bytes of blank space), which only the line by line
// reader reports.
const netMaxLine = 1 << 16

// netNode is a node as a piece holds it, until join makes it a TopoNode.
type netNode struct {
	guid, port0GUID uint64
	// The node's ports are chunks[chunk][from : from+count]: indices, not
	// a slice, so that the collector has no pointer to look for in the
	// nodes.
	chunk, from, count int32
	line               int32
	nports             int16
	lid                uint16
	lmc                uint8
	lmcKnown           bool
	isSwitch           bool
}

// netChunk is the least number of ports of a further chunk (the first has
// room for every port line at a line's start): a node's ports are one
// slice of a chunk, so the chunks are never copied to grow. Until the
// cables are resolved, a port's Peer holds the far node's GUID and
// PeerPort the far port number plus the kind letter of the far id times
// peerKind.
const (
	netChunk = 8192
	peerKind = 1 << 16
)

// errNetSlow stops the fast reader's workers: the file goes to the line
// by line reader.
var errNetSlow = errors.New("left to the line by line reader")

// readNetFast reads ibnetdiscover output as the tool writes it on threads
// goroutines, or returns nil (see above).
func readNetFast(data []byte, file string, threads int) *Topology {
	if bytes.HasPrefix(data, utf8BOM) {
		return nil // a note for the line by line reader
	}
	n := max(1, min(threads, len(data)/netPieceMin))
	pieces := cutNetPieces(data, n)
	workers.Run(nil, threads, len(pieces), func(_, i int) error {
		pieces[i].parse(file)
		return nil
	})
	N, lines := 0, 0
	for i := range pieces {
		pc := &pieces[i]
		if !pc.ok {
			return nil
		}
		pc.node0, pc.base = N, lines
		N += len(pc.nodes)
		lines += pc.lines
	}
	if N == 0 {
		return nil
	}
	t := &Topology{File: file, Format: FormatIBNetDiscover, Nodes: make([]TopoNode, N)}
	hugemem.Advise(t.Nodes)
	workers.Run(nil, threads, len(pieces), func(_, i int) error {
		pieces[i].join(t.Nodes, file)
		return nil
	})
	tab := newGUIDIndex(N)
	for i := range t.Nodes {
		if !tab.add(t.Nodes[i].GUID, int32(i)) {
			return nil // a GUID twice
		}
	}
	// A piece that cannot resolve or check its cables leaves the whole
	// file to the line by line reader.
	if workers.Run(nil, threads, len(pieces), func(_, i int) error {
		if !pieces[i].resolve(t.Nodes, tab) {
			return errNetSlow
		}
		return nil
	}) != nil || workers.Run(nil, threads, len(pieces), func(_, i int) error {
		if !pieces[i].agree(t.Nodes) {
			return errNetSlow
		}
		return nil
	}) != nil {
		return nil
	}
	return t
}

// cutNetPieces cuts data into at most n pieces, each starting after a blank
// line at a record ("vendid=", "Switch", "Ca", "Hca").
func cutNetPieces(data []byte, n int) []netPiece {
	var pieces []netPiece
	start := 0
	for k := 1; k < n; k++ {
		cut := nextRecordStart(data, max(start, k*len(data)/n))
		if cut < 0 {
			break
		}
		if cut > start {
			pieces = append(pieces, netPiece{data: data[start:cut]})
			start = cut
		}
	}
	return append(pieces, netPiece{data: data[start:]})
}

// nextRecordStart returns the first offset from from on that starts a line
// after an empty line (ending "\n\n" or "\n\r\n") and begins a record, or -1.
func nextRecordStart(data []byte, from int) int {
	for {
		i := bytes.IndexByte(data[from:], '\n')
		if i < 0 {
			return -1
		}
		at := from + i + 1 // the line after a line break
		rest := data[at:]
		switch {
		case bytes.HasPrefix(rest, []byte("\n")):
			rest = rest[1:]
		case bytes.HasPrefix(rest, []byte("\r\n")):
			rest = rest[2:]
		default:
			from = at
			continue
		}
		if bytes.HasPrefix(rest, []byte("vendid=")) || nodeRecord(rest) {
			return len(data) - len(rest)
		}
		from = at
	}
}

// parse reads the piece's lines, setting ok when it holds only what the
// fast reader takes.
func (pc *netPiece) parse(file string) {
	d := pc.data
	// Room for the nodes and the port lines that start a line, counted
	// (appends and further chunks take any others; a node asks for room
	// for all its ports, connected or not, hence MaxPorts more), and for
	// an id of 18 bytes and a description of 14 per node.
	nodes, ports := countNetLines(d)
	nodes++
	pc.nodes = make([]netNode, 0, nodes)
	pc.text = make([]byte, 0, 32*nodes)
	pc.ends = make([]int32, 0, nodes)
	pc.newChunk(ports + MaxPorts)
	dir := netParser{format: FormatIBNetDiscover} // GUID directives: only their errors and port0GUID matter
	r := &lines{file: file}
	cur := -1 // the node whose port lines may follow
	n := 0
	blanks := 0 // bytes of the blank lines just read
	for len(d) > 0 {
		var l []byte
		if i := bytes.IndexByte(d, '\n'); i >= 0 {
			l, d = d[:i], d[i+1:]
		} else {
			l, d = d, nil
		}
		n++
		if len(l) > netMaxLine {
			return // the limits of a streamed file are the line reader's
		}
		if k := len(l); k > 0 && l[k-1] == '\r' {
			l = l[:k-1]
		}
		if isBlankLine(l) {
			if blanks += len(l) + 1; blanks > netMaxLine {
				return
			}
		} else {
			blanks = 0
		}
		if len(l) == 0 {
			pc.close(cur)
			cur = -1
			continue
		}
		if l[0] == '#' {
			continue // a comment, in a record or between them
		}
		if l[0] == '[' && cur >= 0 && pc.portShaped(l, cur, n) {
			continue // plainLine holds for it
		}
		if !plainLine(l) && noise(l) != "" {
			return
		}
		c := cursor{b: l}
		c.blank()
		if c.peek() == '[' {
			if cur < 0 || !pc.port(&c, cur, n) {
				return
			}
			continue
		}
		pc.close(cur)
		cur = -1
		if c.done() {
			continue
		}
		w := c.word()
		switch string(w) {
		case "Switch", "Ca", "Hca":
			pc.close(cur)
			if !c.blank() || !pc.node(&c, w[0] == 'S', n, &dir.port0GUID) {
				return
			}
			cur = len(pc.nodes) - 1
		case "switchguid", "caguid", "hcaguids":
			r.n = n
			name := "caguid" // the same kind as hcaguids
			if w[0] == 's' {
				name = "switchguid"
			}
			if dir.guidDirective(r, name, &c) != nil {
				return
			}
		case "vendid", "devid", "sysimgguid", "width", "speed", "Chassis", "Non-Chassis", "Hostname":
		case "DR":
			if !c.lit(" path") {
				return
			}
		default:
			return
		}
	}
	if dir.port0GUID != 0 {
		return // switchguid=X(Y) for a switch of the next piece
	}
	pc.close(cur)
	pc.lines = n
	pc.ok = true
}

// countNetLines counts, in one pass over the line breaks of d, the lines
// after a line break that start a node record ("Switch", "Ca", "Hca") and
// those that start with '[' (port lines).
func countNetLines(d []byte) (nodes, ports int) {
	for i := bytes.IndexByte(d, '\n'); i >= 0; {
		rest := d[i+1:]
		if len(rest) > 0 {
			switch rest[0] {
			case '[':
				ports++
			case 'S', 'C', 'H':
				if nodeRecord(rest) {
					nodes++
				}
			}
		}
		j := bytes.IndexByte(rest, '\n')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return nodes, ports
}

// nodeRecord reports whether line l starts as a node record's line does
// ("Switch", "Ca", "Hca").
func nodeRecord(l []byte) bool {
	return bytes.HasPrefix(l, []byte("Switch")) || bytes.HasPrefix(l, []byte("Ca")) || bytes.HasPrefix(l, []byte("Hca"))
}

// close ends the port lines of node cur (-1: none).
func (pc *netPiece) close(cur int) {
	if cur >= 0 && len(pc.ports) > pc.start {
		n := &pc.nodes[cur]
		n.chunk, n.from, n.count = int32(len(pc.chunks)-1), int32(pc.start), int32(len(pc.ports)-pc.start)
	}
	pc.start = len(pc.ports)
}

// newChunk opens a chunk with room for n ports.
func (pc *netPiece) newChunk(n int) {
	pc.ports = make([]TopoPort, 0, n)
	hugemem.Advise(pc.ports)
	pc.chunks = append(pc.chunks, pc.ports)
}

// plainLine reports, cheaply, that noise(l) is "" for a line of
// ibnetdiscover output; false means that it may not be.
func plainLine(l []byte) bool {
	switch l[0] {
	case ' ', '\t', '#', '{', '"':
		return true
	case '[':
		// "[user@host dir]# cmd" is a prompt.
		if j := bytes.IndexByte(l, ']'); j < 0 || bytes.IndexByte(l[:j], '@') >= 0 {
			return false
		}
	default:
		// A prompt word ("user@host:~$", "bash-5.1#") is name bytes up to
		// '@', ':', '~', '/', '#' or '$'; the libibmad messages start
		// with 'i'.
		i := 0
		for i < len(l) && isNameByte(l[i]) {
			i++
		}
		if i == 0 || l[0] == 'i' {
			return false
		}
		if i < len(l) {
			switch l[i] {
			case '@', ':', '~', '/', '#', '$':
				return false
			}
		}
	}
	// "<tool>: iberror: ..." and "<file>.c:<line>; ...": the first field
	// ends with ':' or ';'.
	c := cursor{b: l}
	f := c.field()
	return f[len(f)-1] != ':' && f[len(f)-1] != ';'
}

// quotedID reads blanks and a quoted node id of the fast reader's shape
// (netIDGUID) at c, and returns it with its GUID and kind letter.
func quotedID(c *cursor) (id []byte, g uint64, kind byte, ok bool) {
	c.blank()
	if id, ok = quoted(c); !ok {
		return nil, 0, 0, false
	}
	g, kind, ok = netIDGUID(id)
	return id, g, kind, ok
}

// netIDGUID returns the GUID and kind letter of an ibnetdiscover node id
// ("S-", "H-" or "R-" and 16 lower-case hexadecimal digits).
func netIDGUID(id []byte) (uint64, byte, bool) {
	if len(id) != 18 || id[1] != '-' || id[0] != 'S' && id[0] != 'H' && id[0] != 'R' {
		return 0, 0, false
	}
	var g uint64
	for _, b := range id[2:] {
		switch {
		case b >= '0' && b <= '9':
			g = g<<4 | uint64(b-'0')
		case b >= 'a' && b <= 'f':
			g = g<<4 | uint64(b-'a'+10)
		default:
			return 0, 0, false
		}
	}
	return g, id[0], true
}

// node parses a node line after its keyword, as netParser.record does.
func (pc *netPiece) node(c *cursor, isSwitch bool, line int, port0 *uint64) bool {
	nports, ok := c.dec()
	if !ok || nports < 1 || nports > MaxPorts {
		return false
	}
	id, g, _, ok := quotedID(c)
	if !ok {
		return false
	}
	c.blank()
	n := netNode{guid: g, nports: int16(nports), line: int32(line), isSwitch: isSwitch}
	var desc []byte
	if c.lit("#") {
		d, lid, lmc, hasLID, hasLMC, err := nodeTail(c)
		if err != "" {
			return false
		}
		desc = d
		if isSwitch {
			if hasLID {
				if lid > maxUnicastLID {
					return false
				}
				n.lid = uint16(lid)
			}
			if hasLMC {
				if lmc > 7 {
					return false
				}
				n.lmc, n.lmcKnown = uint8(lmc), true
			}
		}
	} else if !c.done() {
		return false
	}
	if isSwitch {
		n.port0GUID = g
		if *port0 != 0 {
			n.port0GUID, *port0 = *port0, 0
		}
	}
	pc.text = append(append(pc.text, id...), desc...)
	pc.ends = append(pc.ends, int32(len(pc.text)))
	if cap(pc.ports)-len(pc.ports) < nports {
		pc.newChunk(max(netChunk, nports))
	}
	pc.start = len(pc.ports)
	pc.nodes = append(pc.nodes, n)
	return true
}

// port parses a port line of node idx, as netParser.portLine does.
func (pc *netPiece) port(c *cursor, idx, line int) bool {
	c.lit("[")
	num, ok := c.dec()
	if !ok || !c.lit("]") {
		return false
	}
	n := &pc.nodes[idx]
	pt, ok := pc.openPort(n, num, line)
	if !ok || !extPort(c) {
		return false
	}
	if c.lit("(") {
		g, ok := c.hex()
		if !ok || !c.lit(")") {
			return false
		}
		pt.GUID = g
	}
	_, rg, kind, ok := quotedID(c)
	if !ok {
		return false
	}
	rport := 1
	if c.lit("[") {
		rport, ok = c.dec()
		if !ok || !c.lit("]") || rport < 1 || rport > MaxPorts || !extPort(c) {
			return false
		}
	}
	if c.lit("(") {
		if _, ok := c.hex(); !ok || !c.lit(")") {
			return false
		}
	}
	c.blank()
	if !c.done() && c.peek() != '#' {
		return false // w=, s=, e= options: not ibnetdiscover's
	}
	if c.peek() == '#' {
		pt.Rate = tailRate(c.rest())
	}
	if c.lit("#") && !n.isSwitch && !caPortTail(c, &pt) {
		return false
	}
	pt.Peer, pt.PeerPort = int(rg), rport+peerKind*int(kind)
	pc.ports = append(pc.ports, pt)
	return true
}

// caPortTail reads a CA port line's comment after its '#' at c into pt:
// its LID and LMC, if given; false if they are no unicast LID and LMC.
func caPortTail(c *cursor, pt *TopoPort) bool {
	lid, lmc, hasLID, hasLMC, err := portTail(c)
	if err != "" || hasLID && lid > maxUnicastLID || hasLMC && lmc > 7 {
		return false
	}
	if hasLID {
		pt.LID = uint16(lid)
	}
	if hasLMC {
		pt.LMC, pt.LMCKnown = uint8(lmc), true
	}
	return true
}

// openPort returns port num of node n at line, its GUID the switch's or
// the CA's node GUID plus num (a GUID in the line replaces it), or false
// when n has no port num or num does not come after the ports listed.
func (pc *netPiece) openPort(n *netNode, num, line int) (TopoPort, bool) {
	if num < 1 || num > int(n.nports) {
		return TopoPort{}, false
	}
	if k := len(pc.ports); k > pc.start && pc.ports[k-1].Num >= num {
		return TopoPort{}, false // listed twice, or out of order
	}
	pt := TopoPort{Num: num, Peer: -1, Line: line}
	if n.isSwitch {
		pt.GUID = n.port0GUID
	} else {
		pt.GUID = n.guid + uint64(num)
	}
	return pt, true
}

// portShaped parses a port line of node idx as ibnetdiscover writes it,
// byte by byte in one pass ("[3]\t\"S-…\"[1]\t\t# \"desc\" lid 5 4xSDR"; a
// CA's "[1](guid) \t\"S-…\"[4]\t\t# lid 24 lmc 0 …"): the local port, its
// GUID in parentheses, a blank, the far end's quoted id, port and GUID,
// blanks and a comment. It appends what port would and reports true only
// then; any other line (and every doubt) is left to port, unread. The
// blank after the local part makes plainLine true for the line.
func (pc *netPiece) portShaped(l []byte, idx, line int) bool {
	n := &pc.nodes[idx]
	i, num := 1, 0
	for ; i < len(l) && i < 4 && l[i] >= '0' && l[i] <= '9'; i++ {
		num = 10*num + int(l[i]-'0')
	}
	if i == 1 || i >= len(l) || l[i] != ']' {
		return false
	}
	pt, ok := pc.openPort(n, num, line)
	if !ok {
		return false
	}
	i++
	if i < len(l) && l[i] == '(' {
		g, j, ok := hexUntil(l, i+1, ')')
		if !ok {
			return false
		}
		pt.GUID, i = g, j+1
	}
	// At least one blank, then the far end's id: "S-", "H-" or "R-" and
	// 16 lower-case hexadecimal digits, quoted.
	j := i
	for j < len(l) && (l[j] == ' ' || l[j] == '\t') {
		j++
	}
	if j == i || len(l)-j < 20 || l[j] != '"' || l[j+2] != '-' || l[j+19] != '"' {
		return false
	}
	rg, kind, ok := netIDGUID(l[j+1 : j+19])
	if !ok {
		return false
	}
	i = j + 20
	rport := 1
	if i < len(l) && l[i] == '[' {
		rport = 0
		k := i + 1
		for ; k < len(l) && k < i+4 && l[k] >= '0' && l[k] <= '9'; k++ {
			rport = 10*rport + int(l[k]-'0')
		}
		if k == i+1 || k >= len(l) || l[k] != ']' || rport < 1 || rport > MaxPorts {
			return false
		}
		i = k + 1
	}
	if i < len(l) && l[i] == '(' {
		_, k, ok := hexUntil(l, i+1, ')')
		if !ok {
			return false
		}
		i = k + 1
	}
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	if i < len(l) {
		if l[i] != '#' {
			return false
		}
		pt.Rate = pc.lineRate(l[i:])
		if !n.isSwitch && !caPortTail(&cursor{b: l, i: i + 1}, &pt) {
			return false
		}
	}
	pt.Peer, pt.PeerPort = int(rg), rport+peerKind*int(kind)
	pc.ports = append(pc.ports, pt)
	return true
}

// hexUntil reads 1 to 16 hexadecimal digits of l from i up to the byte
// end, and returns their value and end's offset.
func hexUntil(l []byte, i int, end byte) (uint64, int, bool) {
	var g uint64
	j := i
	for ; j < len(l) && j < i+17; j++ {
		d := hexNibble[l[j]]
		if d >= 16 {
			break
		}
		g = g<<4 | uint64(d)
	}
	if j == i || j-i > 16 || j >= len(l) || l[j] != end {
		return 0, 0, false
	}
	return g, j, true
}

// lineRate is tailRate of a port line's comment tail: the rate word when
// the last three fields are "lid", a number and a word without quotes
// (as ibnetdiscover ends every port line), read from the end; the rate of
// the line before when the word is the same; else tailRate's answer.
func (pc *netPiece) lineRate(tail []byte) LinkRate {
	e := len(tail)
	w := e
	for w > 0 && !asciiSpace[tail[w-1]] && tail[w-1] != '"' && tail[w-1] < 0x80 {
		w--
	}
	d := w - 1
	for d > 0 && tail[d-1] >= '0' && tail[d-1] <= '9' {
		d--
	}
	if w == e || w < 1 || tail[w-1] != ' ' || d == w-1 || d < 5 || string(tail[d-5:d]) != " lid " {
		return tailRate(tail)
	}
	word := tail[w:]
	if string(word) != string(pc.rateWord) {
		pc.rateWord, pc.rate = word, rateWord(word)
	}
	return pc.rate
}

// join copies the piece's nodes into all, their lines moved behind the
// lines of the pieces before, their ids and descriptions made strings.
func (pc *netPiece) join(all []TopoNode, file string) {
	text := unsafe.String(unsafe.SliceData(pc.text), len(pc.text)) // never written again
	start := int32(0)
	for i := range pc.nodes {
		nn := &pc.nodes[i]
		n := &all[pc.node0+i]
		end := pc.ends[i]
		*n = TopoNode{Kind: lft.Host, ID: text[start : start+18], GUID: nn.guid, Desc: text[start+18 : end],
			NPorts: int(nn.nports), Line: int(nn.line) + pc.base, File: file}
		if nn.count > 0 {
			n.Ports = pc.chunks[nn.chunk][nn.from : nn.from+nn.count : nn.from+nn.count]
		}
		start = end
		n.Port0.Peer = -1
		if nn.isSwitch {
			n.Kind = lft.Switch
			n.Port0.GUID, n.Port0.LID, n.Port0.LMC, n.Port0.LMCKnown = nn.port0GUID, nn.lid, nn.lmc, nn.lmcKnown
		}
		for j := range n.Ports {
			n.Ports[j].Line += pc.base
		}
	}
	pc.nodes, pc.ports, pc.chunks = nil, nil, nil
}

// resolve finds the far end of every port of the piece; false when one is
// missing (an unknown id, a port the far node lacks or does not list).
func (pc *netPiece) resolve(all []TopoNode, tab *guidIndex) bool {
	for v := pc.node0; v < pc.node0+len(pc.ends); v++ {
		ports := all[v].Ports
		for i := range ports {
			pt := &ports[i]
			ri := tab.get(uint64(pt.Peer))
			if ri < 0 {
				return false
			}
			rn := &all[ri]
			kind, rport := byte(pt.PeerPort/peerKind), pt.PeerPort%peerKind
			if rn.ID[0] != kind || rport > rn.NPorts || peerPortOf(rn, rport) == nil {
				return false
			}
			pt.Peer, pt.PeerPort = int(ri), rport
		}
	}
	return true
}

// agree checks that the far end of every port of the piece leads back to
// it.
func (pc *netPiece) agree(all []TopoNode) bool {
	for i := range pc.ends {
		v := pc.node0 + i
		for _, pt := range all[v].Ports {
			back := peerPortOf(&all[pt.Peer], pt.PeerPort)
			if back.Peer != v || back.PeerPort != pt.Num {
				return false
			}
		}
	}
	return true
}

// peerPortOf is n.Port(num), at once when the ports below num are all
// connected (a switch's usually are).
func peerPortOf(n *TopoNode, num int) *TopoPort {
	if num <= len(n.Ports) && n.Ports[num-1].Num == num {
		return &n.Ports[num-1]
	}
	return n.Port(num)
}

// guidIndex finds a node by GUID: open addressing, linear probing.
type guidIndex struct {
	keys  []uint64
	vals  []int32 // node + 1, 0 for an empty slot
	shift uint
}

func newGUIDIndex(n int) *guidIndex {
	size, shift := 1, uint(64)
	for size < 2*n {
		size <<= 1
		shift--
	}
	return &guidIndex{keys: make([]uint64, size), vals: make([]int32, size), shift: shift}
}

func (t *guidIndex) slot(g uint64) int { return int((g * 0x9E3779B97F4A7C15) >> t.shift) }

// add records node v under g; false when g is there already.
func (t *guidIndex) add(g uint64, v int32) bool {
	mask := len(t.keys) - 1
	for i := t.slot(g) & mask; ; i = (i + 1) & mask {
		if t.vals[i] == 0 {
			t.keys[i], t.vals[i] = g, v+1
			return true
		}
		if t.keys[i] == g {
			return false
		}
	}
}

// get returns the node of g, or -1.
func (t *guidIndex) get(g uint64) int32 {
	mask := len(t.keys) - 1
	for i := t.slot(g) & mask; ; i = (i + 1) & mask {
		switch {
		case t.vals[i] == 0:
			return -1
		case t.keys[i] == g:
			return t.vals[i] - 1
		}
	}
}

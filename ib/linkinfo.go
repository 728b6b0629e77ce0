package ib

import (
	"bytes"

	"orcs/infile"
	"orcs/lft"
)

// ReadLinkInfo parses the output of iblinkinfo (infiniband-diags), plain
// or in line mode (-l). Plain, every node has a header and one line per
// port:
//
//	Switch: 0x<port guid> <desc>:
//	      <lid> <port>[<ext>] ==(<width> <speed> <state>/<phys state>)==>  <lid> <port>[<ext>] "<remote desc>" (<notes>)
//	CA: <desc>:
//	      0x<port guid> <lid> <port>[<ext>] ==(...)==>  <lid> <port>[<ext>] "<remote desc>" (<notes>)
//
// (Router: like CA:). In line mode every line stands alone and names the
// remote port GUID as well:
//
//	0x<port guid> "<desc, right-aligned>" <lid> <port>[<ext>] ==(...)==>  0x<port guid> <lid> <port>[<ext>] "<remote desc>" (<notes>)
//
// An unconnected port reads `==(...)==>  [  ] "" ( )` or
// `"Port not available"`. Plain output names the remote end by LID and
// port only, so the remote node must have a LID (run iblinkinfo once the
// SM brought the subnet up) and its own section (iblinkinfo
// --switches-only and old versions list switches only: use the full
// output or -l). Line mode gives no node types: a port GUID listed for
// several ports is a switch, one listed for one port a CA port (ports of
// one CA follow each other and share the description). Node GUIDs are
// derived as by ReadPortsReport; LMCs are not given.
func ReadLinkInfo(data []byte, file string) (*Topology, error) {
	return readLinkInfo(newLines(data, file))
}

// linkLine is a port line of iblinkinfo.
type linkLine struct {
	guid       uint64 // port GUID (CA lines, line mode), else 0
	desc       []byte // line mode: the node description
	lid        uint16
	port       int
	connected  bool
	rguid      uint64 // line mode: remote port GUID
	rlid       uint16
	rport      int
	rdesc      []byte
	line       int
	node       int // index in the topology
	lineMode   bool
	rate       LinkRate
	headerKind lft.NodeKind
}

func readLinkInfo(r *lines) (topo *Topology, err error) {
	defer func() {
		if e := r.readErr(); e != nil {
			topo, err = nil, e
		}
	}()
	t := &Topology{File: r.file, Format: FormatIBLinkInfo}
	var ports []linkLine
	cur := -1 // node of the open section (plain output)
	for {
		l, ok := r.next()
		if !ok {
			break
		}
		if isBlankLine(l) || l[0] == '#' {
			continue
		}
		if kind, guid, desc, ok := linkHeader(l); ok {
			n := TopoNode{Kind: kind, GUID: guid, Desc: string(desc), Line: r.n, File: r.file}
			n.Port0.Peer = -1
			if kind == lft.Switch {
				if guid == 0 {
					return nil, r.errorf("switch header without a port GUID: %s", tok(l))
				}
				n.Port0.GUID = guid
			}
			cur = len(t.Nodes)
			t.Nodes = append(t.Nodes, n)
			continue
		}
		p, err := parseLinkLine(r, l)
		if err != nil {
			return nil, err
		}
		if !p.lineMode {
			if cur < 0 {
				return nil, r.errorf("port line before any \"Switch:\" or \"CA:\" header: %s", tok(trimBlank(l)))
			}
			n := &t.Nodes[cur]
			p.node, p.headerKind = cur, n.Kind
			if n.Kind == lft.Switch {
				if p.guid != 0 {
					return nil, r.errorf("switch port line with a port GUID: %s", tok(trimBlank(l)))
				}
			} else if p.guid == 0 {
				return nil, r.errorf("%s port line without its port GUID: %s", kindWord(n.Kind), tok(trimBlank(l)))
			}
		} else if cur >= 0 {
			return nil, r.errorf("line-mode port line (iblinkinfo -l) after a section header: %s", tok(trimBlank(l)))
		}
		ports = append(ports, p)
	}
	if len(ports) == 0 {
		return nil, infile.Errorf(r.file, 0, "no ports listed").With(ErrFormat)
	}
	if cur < 0 {
		groupLineMode(t, ports, r.file)
	}
	if err := linkNodes(t, ports); err != nil {
		return nil, err
	}
	if err := linkRemotes(t, ports, r.file); err != nil {
		return nil, err
	}
	if err := checkCables(t); err != nil {
		return nil, err
	}
	t.Warnings = r.warnings()
	return t, nil
}

// linkHeader recognises a section header of plain iblinkinfo output.
func linkHeader(l []byte) (kind lft.NodeKind, guid uint64, desc []byte, ok bool) {
	if len(l) < 2 || l[len(l)-1] != ':' {
		return 0, 0, nil, false
	}
	c := cursor{b: l[:len(l)-1]}
	switch {
	case c.lit("Switch: "):
		kind = lft.Switch
		g, ok := c.hex0x()
		if !ok || !c.lit(" ") {
			return 0, 0, nil, false
		}
		guid = g
	case c.lit("CA: "):
		kind = lft.Host
	case c.lit("Router: "):
		kind = lft.Router
	default:
		return 0, 0, nil, false
	}
	return kind, guid, c.rest(), true
}

// parseLinkLine parses a port line, plain or in line mode.
func parseLinkLine(r *lines, l []byte) (p linkLine, err error) {
	p.line = r.n
	open := bytes.Index(l, []byte("==("))
	shut := bytes.Index(l, []byte(")==>"))
	if open < 0 || shut < open {
		return p, r.errorf("unexpected line %s (want a port line with ==(...)==>)", tok(trimBlank(l)))
	}
	// The local end, read from the right: <port>[<ext>], <lid>, then an
	// optional 0x<port guid> and, in line mode, "<desc>".
	local := trimBlank(l[:open])
	var ok bool
	if p.port, local, ok = lastPortField(local); !ok || p.port < 1 || p.port > MaxPorts {
		return p, r.errorf("bad port number in %s", tok(trimBlank(l[:open])))
	}
	var lid int
	if lid, local, ok = lastDecField(local); !ok || lid > maxUnicastLID {
		return p, r.errorf("port %d: bad LID in %s", p.port, tok(trimBlank(l[:open])))
	}
	p.lid = uint16(lid)
	c := cursor{b: local}
	if !c.done() {
		g, ok := c.hex0x()
		if !ok || g == 0 {
			return p, r.errorf("port %d: bad port GUID in %s", p.port, tok(local))
		}
		p.guid = g
		c.blank()
		if !c.done() {
			rest := c.rest()
			if len(rest) < 2 || rest[0] != '"' || rest[len(rest)-1] != '"' {
				return p, r.errorf("port %d: want the quoted node description, got %s", p.port, tok(rest))
			}
			p.desc, p.lineMode = trimBlank(rest[1:len(rest)-1]), true
		}
	}
	p.rate = linkFieldRate(l[open+len("==(") : shut])
	// The remote end.
	c = cursor{b: l, i: shut + len(")==>")}
	c.blank()
	switch {
	case c.lit(`"Port not available"`), c.peek() == '[' && bytes.HasPrefix(trimBlank(c.rest()), []byte(`[  ] "" ( )`)):
		return p, nil
	}
	rest := c.rest()
	q := bytes.IndexByte(rest, '"')
	e := bytes.LastIndex(rest, []byte(`" (`))
	if q < 0 || e <= q {
		return p, r.errorf("port %d: want the remote port and its quoted description after ==>, got %s", p.port, tok(rest))
	}
	p.rdesc = rest[q+1 : e]
	remote := trimBlank(rest[:q])
	if p.rport, remote, ok = lastPortField(remote); !ok || p.rport < 1 || p.rport > MaxPorts {
		return p, r.errorf("port %d: bad remote port number in %s", p.port, tok(rest[:q]))
	}
	if lid, remote, ok = lastDecField(remote); !ok || lid > maxUnicastLID {
		return p, r.errorf("port %d: bad remote LID in %s", p.port, tok(rest[:q]))
	}
	p.rlid = uint16(lid)
	if len(remote) > 0 {
		rc := cursor{b: remote}
		g, ok := rc.hex0x()
		if !ok || !rc.done() || g == 0 {
			return p, r.errorf("port %d: bad remote port GUID in %s", p.port, tok(remote))
		}
		p.rguid = g
	}
	if p.lineMode != (p.rguid != 0) {
		return p, r.errorf("port %d: a remote port GUID belongs to line mode (-l), with the node description", p.port)
	}
	p.connected = true
	return p, nil
}

// linkFieldRate reads the width and speed of iblinkinfo's link field,
// "<width> <speed> <state>/ <phys state>" ("4X 10.0 Gbps (FDR10) Active/
// LinkUp"); a down port's field, which has none, or a speed iblinkinfo
// could not name gives the zero rate.
func linkFieldRate(field []byte) LinkRate {
	f := bytes.Fields(field)
	end := len(f)
	for i, w := range f {
		if bytes.HasSuffix(w, []byte("/")) {
			end = i
			break
		}
	}
	if end < 3 {
		return LinkRate{}
	}
	rate, err := linkInfoRate(string(f[0]), string(bytes.Join(f[1:end], []byte(" "))))
	if err != nil {
		return LinkRate{}
	}
	return rate
}

// lastPortField splits "… <port>[<ext>]" into the port and what precedes
// (the external port number, blank or decimal, is dropped).
func lastPortField(b []byte) (int, []byte, bool) {
	if len(b) == 0 || b[len(b)-1] != ']' {
		return 0, nil, false
	}
	open := bytes.LastIndexByte(b, '[')
	if open < 0 {
		return 0, nil, false
	}
	if ext := trimBlank(b[open+1 : len(b)-1]); len(ext) > 0 {
		ec := cursor{b: ext}
		if _, ok := ec.dec(); !ok || !ec.done() {
			return 0, nil, false
		}
	}
	j := open
	for j > 0 && b[j-1] >= '0' && b[j-1] <= '9' {
		j--
	}
	c := cursor{b: b[j:open]}
	n, ok := c.dec()
	if !ok || !c.done() || j > 0 && b[j-1] != ' ' && b[j-1] != '\t' {
		return 0, nil, false
	}
	return n, trimBlank(b[:j]), true
}

// lastDecField splits "… <n>" into n and what precedes.
func lastDecField(b []byte) (int, []byte, bool) {
	i := bytes.LastIndexAny(b, " \t")
	c := cursor{b: b[i+1:]}
	n, ok := c.dec()
	if !ok || !c.done() {
		return 0, nil, false
	}
	return n, trimBlank(b[:i+1]), true
}

// groupLineMode makes the nodes of line-mode output: consecutive lines of
// one port GUID are a switch when they list several ports, else a CA
// port; consecutive CA ports with the same description and derived node
// GUID are one CA.
func groupLineMode(t *Topology, ports []linkLine, file string) {
	for i := 0; i < len(ports); {
		j := i + 1
		for j < len(ports) && ports[j].guid == ports[i].guid && bytes.Equal(ports[j].desc, ports[i].desc) {
			j++
		}
		p := &ports[i]
		switchLike := j-i > 1
		if !switchLike {
			if k := len(t.Nodes) - 1; i > 0 && k >= 0 && t.Nodes[k].Kind == lft.Host && t.Nodes[k].Desc == string(p.desc) &&
				t.Nodes[k].GUID == caNodeGUID(p.guid, p.port) && ports[i-1].node == k {
				p.node = k
				i = j
				continue
			}
		}
		n := TopoNode{Kind: lft.Host, GUID: caNodeGUID(p.guid, p.port), Desc: string(p.desc), Line: p.line, File: file}
		n.Port0.Peer = -1
		if switchLike {
			n.Kind, n.GUID, n.Port0.GUID = lft.Switch, p.guid, p.guid
		}
		for k := i; k < j; k++ {
			ports[k].node, ports[k].headerKind = len(t.Nodes), n.Kind
		}
		t.Nodes = append(t.Nodes, n)
		i = j
	}
}

// linkNodes gives every node its port count, LIDs, port GUIDs and (for
// CAs of plain output) node GUID, and lists its connected ports.
func linkNodes(t *Topology, ports []linkLine) error {
	for k := range ports {
		p := &ports[k]
		n := &t.Nodes[p.node]
		n.NPorts = max(n.NPorts, p.port)
		if n.Kind == lft.Switch {
			if n.Port0.LID == 0 {
				n.Port0.LID = p.lid
			} else if n.Port0.LID != p.lid {
				return infile.Errorf(t.fileOf(n), p.line, "%s has LID %d here, %d on another port line", nodeName(n), p.lid, n.Port0.LID)
			}
		} else if n.GUID == 0 {
			n.GUID = caNodeGUID(p.guid, p.port)
		}
		if !p.connected {
			continue
		}
		pt := TopoPort{Num: p.port, Peer: -1, Line: p.line, Rate: p.rate}
		if n.Kind == lft.Switch {
			pt.GUID = n.Port0.GUID
		} else {
			pt.GUID, pt.LID = p.guid, p.lid
		}
		n.Ports = append(n.Ports, pt)
	}
	return nil
}

// linkRemotes resolves the remote end of every connected port: by port
// GUID in line mode, else by LID and port number.
func linkRemotes(t *Topology, ports []linkLine, file string) error {
	type end struct{ node, port int }
	byGUID := map[uint64]end{} // port GUID → CA port, or switch (port 0)
	byLID := map[uint16]end{}
	for k := range ports {
		p := &ports[k]
		n := &t.Nodes[p.node]
		if n.Kind == lft.Switch {
			byGUID[n.Port0.GUID] = end{p.node, 0}
			if n.Port0.LID != 0 {
				byLID[n.Port0.LID] = end{p.node, 0}
			}
			continue
		}
		byGUID[p.guid] = end{p.node, p.port}
		if p.lid != 0 {
			byLID[p.lid] = end{p.node, p.port}
		}
	}
	for k := range ports {
		p := &ports[k]
		if !p.connected {
			continue
		}
		var e end
		var ok bool
		if p.rguid != 0 {
			e, ok = byGUID[p.rguid]
			if !ok {
				return infile.Errorf(file, p.line, "port %d connects to port GUID 0x%016x (%q), which the file does not list", p.port, p.rguid, p.rdesc)
			}
		} else {
			if p.rlid == 0 {
				return infile.Errorf(file, p.line, "port %d connects to %q, which has LID 0: plain iblinkinfo names remote ports by LID, so run it once the SM has assigned LIDs, or use iblinkinfo -l", p.port, p.rdesc)
			}
			e, ok = byLID[p.rlid]
			if !ok {
				return infile.Errorf(file, p.line, "port %d connects to LID %d (%q), which the file does not list: iblinkinfo --switches-only (and old versions) omit the CAs; give its full output or iblinkinfo -l", p.port, p.rlid, p.rdesc)
			}
		}
		if e.port != 0 && e.port != p.rport {
			return infile.Errorf(file, p.line, "port %d connects to port %d of %q, but that LID or GUID is its port %d", p.port, p.rport, p.rdesc, e.port)
		}
		pt := portAt(&t.Nodes[p.node], p.port, p.line)
		pt.Peer, pt.PeerPort = e.node, p.rport
	}
	return nil
}

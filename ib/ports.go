package ib

import (
	"bytes"
	"fmt"
	"sort"

	"orcs/infile"
	"orcs/lft"
)

// ReadPortsReport parses the ports report of ibnetdiscover -p: one line
// per port of every node, the node's ports from the highest number down,
//
//	<SW|CA|RT> <lid> <port> 0x<port guid> <width> <speed> - <SW|CA|RT> <lid> <port> 0x<port guid> ( '<desc>' - '<remote desc>' )
//	<SW|CA|RT> <lid> <port> 0x<port guid> <width> <speed>                                    '<desc>'
//
// (the second form is an unconnected port). A switch's LID is that of its
// port 0. The report gives port GUIDs, no node GUIDs: a switch's node GUID
// is taken to be its port GUID (as on every switch of the fixtures and of
// Mellanox/NVIDIA), a CA's is its port GUID minus the port number (the
// convention of ibsim and of adapters with one node GUID for two ports);
// ports of one CA are those with the same description and the same node
// GUID so derived. LMCs are not given. Both ends of every cable must be
// listed, and agree.
func ReadPortsReport(data []byte, file string) (*Topology, error) {
	return readPortsReport(newLines(data, file))
}

// caNodeGUID is the node GUID that ReadPortsReport and ReadLinkInfo assume
// for a CA whose port number port has GUID guid.
func caNodeGUID(guid uint64, port int) uint64 { return guid - uint64(port) }

// nodeKey identifies a node of a per-port report: its kind and the node
// GUID assumed for it.
type nodeKey struct {
	kind lft.NodeKind
	guid uint64
}

// keyOf returns the key of the node that owns port port with GUID guid.
func keyOf(kind lft.NodeKind, guid uint64, port int) nodeKey {
	if kind == lft.Switch {
		return nodeKey{kind, guid}
	}
	return nodeKey{kind, caNodeGUID(guid, port)}
}

// pendingEnd is a connected port whose remote end is resolved once the
// whole report is read.
type pendingEnd struct {
	node, port int
	remote     nodeKey
	rport      int
	line       int
}

func readPortsReport(r *lines) (topo *Topology, err error) {
	defer func() {
		if e := r.readErr(); e != nil {
			topo, err = nil, e
		}
	}()
	t := &Topology{File: r.file, Format: FormatIBNetDiscoverPorts}
	byKey := map[nodeKey]int{}
	var pending []pendingEnd
	for {
		l, ok := r.next()
		if !ok {
			break
		}
		if isBlankLine(l) || l[0] == '#' {
			continue
		}
		p, err := parsePortsLine(r, l)
		if err != nil {
			return nil, err
		}
		key := keyOf(p.kind, p.guid, p.port)
		i, seen := byKey[key]
		if seen && t.Nodes[i].Desc != string(p.desc) {
			return nil, r.errorf("port GUID 0x%016x: node %q here, %q at line %d", p.guid, p.desc, t.Nodes[i].Desc, t.Nodes[i].Line)
		}
		if !seen {
			i = len(t.Nodes)
			byKey[key] = i
			n := TopoNode{Kind: p.kind, GUID: key.guid, Desc: string(p.desc), Line: r.n, File: r.file}
			n.Port0.Peer = -1
			if p.kind == lft.Switch {
				n.Port0.GUID, n.Port0.LID = p.guid, p.lid
			}
			t.Nodes = append(t.Nodes, n)
		}
		n := &t.Nodes[i]
		n.NPorts = max(n.NPorts, p.port)
		if p.kind == lft.Switch && n.Port0.LID != p.lid {
			return nil, r.errorf("switch 0x%016x has LID %d here, %d at line %d", p.guid, p.lid, n.Port0.LID, n.Line)
		}
		if !p.connected {
			continue
		}
		pt := TopoPort{Num: p.port, GUID: p.guid, Peer: -1, Line: r.n, Rate: p.rate}
		if p.kind != lft.Switch {
			pt.LID = p.lid
		}
		n.Ports = append(n.Ports, pt)
		pending = append(pending, pendingEnd{node: i, port: p.port, remote: keyOf(p.rkind, p.rguid, p.rport), rport: p.rport, line: r.n})
	}
	if len(t.Nodes) == 0 {
		return nil, infile.Errorf(r.file, 0, "no ports listed").With(ErrFormat)
	}
	for _, pe := range pending {
		j, ok := byKey[pe.remote]
		if !ok {
			return nil, infile.Errorf(r.file, pe.line, "port %d connects to a %s (node GUID 0x%016x), which the report does not list", pe.port, kindWord(pe.remote.kind), pe.remote.guid)
		}
		pt := portAt(&t.Nodes[pe.node], pe.port, pe.line)
		pt.Peer, pt.PeerPort = j, pe.rport
	}
	if err := checkCables(t); err != nil {
		return nil, err
	}
	t.Warnings = r.warnings()
	return t, nil
}

// portAt returns the port of n listed at line (n's ports are not sorted
// yet, and may list a number twice).
func portAt(n *TopoNode, num, line int) *TopoPort {
	for k := range n.Ports {
		if n.Ports[k].Num == num && n.Ports[k].Line == line {
			return &n.Ports[k]
		}
	}
	return nil
}

// portsLine is one line of a ports report.
type portsLine struct {
	kind, rkind lft.NodeKind
	lid         uint16
	port, rport int
	guid, rguid uint64
	desc        []byte
	connected   bool
	rate        LinkRate
}

// parsePortsLine parses one line of ibnetdiscover -p.
func parsePortsLine(r *lines, l []byte) (p portsLine, err error) {
	c := cursor{b: l}
	c.blank()
	if p.kind, p.lid, p.port, p.guid, err = portsEnd(r, &c, false); err != nil {
		return p, err
	}
	c.blank()
	width := c.field()
	c.blank()
	speed := c.field()
	c.blank()
	if r, err := parseWidthSpeed(string(width), string(speed)); err == nil {
		p.rate = r // "4x ???" (a speed the tool cannot name) gives none
	}
	if c.lit("'") {
		rest := c.rest()
		if len(rest) == 0 || rest[len(rest)-1] != '\'' {
			return p, r.errorf("unterminated description %s", tok(rest))
		}
		p.desc = rest[:len(rest)-1]
		return p, nil
	}
	if !c.lit("- ") {
		return p, r.errorf("want \"- <remote port>\" or '<description>' after the speed, got %s", tok(c.rest()))
	}
	c.blank()
	if p.rkind, _, p.rport, p.rguid, err = portsEnd(r, &c, true); err != nil {
		return p, err
	}
	c.blank()
	rest := c.rest()
	mid := bytes.Index(rest, []byte("' - '"))
	if !bytes.HasPrefix(rest, []byte("( '")) || !bytes.HasSuffix(rest, []byte("' )")) || mid < 3 || mid+5 > len(rest)-3 {
		return p, r.errorf("want ( '<description>' - '<remote description>' ), got %s", tok(rest))
	}
	p.desc = rest[3:mid]
	p.connected = true
	return p, nil
}

// portsEnd parses "<type> <lid> <port> 0x<guid>" of a ports report.
func portsEnd(r *lines, c *cursor, remote bool) (kind lft.NodeKind, lid uint16, port int, guid uint64, err error) {
	which := "port"
	if remote {
		which = "remote port"
	}
	switch typ := c.field(); string(typ) {
	case "SW":
		kind = lft.Switch
	case "CA":
		kind = lft.Host
	case "RT":
		kind = lft.Router
	default:
		return 0, 0, 0, 0, r.errorf("%s: unknown node type %s (want SW, CA or RT)", which, tok(typ))
	}
	c.blank()
	v, ok := c.dec()
	if !ok || v > maxUnicastLID {
		return 0, 0, 0, 0, r.errorf("%s: bad LID %s", which, tok(c.field()))
	}
	c.blank()
	port, ok = c.dec()
	if !ok || port < 1 || port > MaxPorts {
		return 0, 0, 0, 0, r.errorf("%s: bad port number %s (want 1-%d)", which, tok(c.field()), MaxPorts)
	}
	c.blank()
	guid, ok = c.hex0x()
	if !ok || guid == 0 {
		return 0, 0, 0, 0, r.errorf("%s %d: bad port GUID %s", which, port, tok(c.field()))
	}
	return kind, uint16(v), port, guid, nil
}

// checkCables sorts every node's ports and checks the cables of a
// topology read from a per-port report: no port listed twice, and every
// cable listed from both ends the same way.
func checkCables(t *Topology) error {
	for i := range t.Nodes {
		n := &t.Nodes[i]
		sort.SliceStable(n.Ports, func(a, b int) bool { return n.Ports[a].Num < n.Ports[b].Num })
		for k := 1; k < len(n.Ports); k++ {
			if n.Ports[k].Num == n.Ports[k-1].Num {
				first, second := n.Ports[k-1].Line, n.Ports[k].Line
				return infile.Errorf(t.fileOf(n), max(first, second), "port %d of %s listed twice (first at line %d)", n.Ports[k].Num, nodeName(n), min(first, second))
			}
		}
	}
	for i := range t.Nodes {
		n := &t.Nodes[i]
		for k := range n.Ports {
			p := &n.Ports[k]
			rn := &t.Nodes[p.Peer]
			if p.PeerPort > rn.NPorts {
				return infile.Errorf(t.fileOf(n), p.Line, "port %d of %s connects to port %d of %s, which has ports 1-%d", p.Num, nodeName(n), p.PeerPort, nodeName(rn), rn.NPorts)
			}
			back := rn.Port(p.PeerPort)
			switch {
			case back == nil:
				return infile.Errorf(t.fileOf(n), p.Line, "port %d of %s connects to port %d of %s, which is not listed as connected", p.Num, nodeName(n), p.PeerPort, nodeName(rn))
			case back.Peer != i || back.PeerPort != p.Num:
				return infile.Errorf(t.fileOf(n), p.Line, "port %d of %s connects to port %d of %s, but that port connects to port %d of %s (line %d)",
					p.Num, nodeName(n), p.PeerPort, nodeName(rn), back.PeerPort, nodeName(&t.Nodes[back.Peer]), back.Line)
			}
		}
	}
	return nil
}

// nodeName names a node in messages: its description and node GUID.
func nodeName(n *TopoNode) string {
	return fmt.Sprintf("%s %q (0x%016x)", kindWord(n.Kind), n.Desc, n.GUID)
}

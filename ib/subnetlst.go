package ib

import (
	"bytes"
	"sort"

	"orcs/infile"
	"orcs/lft"
)

// ReadSubnetLst parses OpenSM's opensm-subnet.lst (or ibdiagnet.lst): one
// line per connected port and cable end,
//
//	{ <SW|CA|Rt>[-SM] Ports:<hex> SystemGUID:<hex> NodeGUID:<hex> PortGUID:<hex> VenID:<hex> DevID:<hex> Rev:<hex> {<desc>} LID:<hex> PN:<hex> } { <remote end> } PHY=.. LOG=.. SPD=..
//
// A switch's PortGUID and LID are those of its port 0. The file gives base
// LIDs only: every port's LMC is unknown (Build takes it from the
// routing dump). Each cable normally appears twice, once from each end;
// either appearance suffices, and the two must agree.
func ReadSubnetLst(data []byte, file string) (*Topology, error) {
	return readSubnetLst(newLines(data, file))
}

func readSubnetLst(r *lines) (topo *Topology, err error) {
	defer func() {
		if e := r.readErr(); e != nil {
			topo, err = nil, e
		}
	}()
	file := r.file
	t := &Topology{File: file, Format: FormatSubnetLst}
	byGUID := map[uint64]int{}
	type portKey struct{ node, port int }
	ports := map[portKey]int{} // → index in nodePorts[node]
	nodePorts := [][]TopoPort{}
	for {
		l, ok := r.next()
		if !ok {
			break
		}
		if isBlankLine(l) {
			continue
		}
		c := cursor{b: l}
		c.blank()
		var ends [2]lstEnd
		for e := 0; e < 2; e++ {
			if err := ends[e].parse(r, &c); err != nil {
				return nil, err
			}
		}
		// PHY= and SPD= give the link's rate; LOG= and anything else
		// after the two ends is not needed.
		var phy, spd string
		for _, w := range bytes.Fields(c.rest()) {
			if v, ok := bytes.CutPrefix(w, []byte("PHY=")); ok {
				phy = string(v)
			} else if v, ok := bytes.CutPrefix(w, []byte("SPD=")); ok {
				spd = string(v)
			}
		}
		rate := subnetLstRate(phy, spd)
		idx := [2]int{}
		for e := range ends {
			end := &ends[e]
			i, seen := byGUID[end.nodeGUID]
			if !seen {
				i = len(t.Nodes)
				byGUID[end.nodeGUID] = i
				n := TopoNode{Kind: end.kind, GUID: end.nodeGUID, Desc: string(end.desc), NPorts: end.nports, Line: r.n, File: r.file}
				n.Port0.Peer = -1
				if end.kind == lft.Switch {
					n.Port0.GUID, n.Port0.LID = end.portGUID, end.lid
				}
				t.Nodes = append(t.Nodes, n)
				nodePorts = append(nodePorts, nil)
			} else {
				n := &t.Nodes[i]
				if n.Kind != end.kind || n.NPorts != end.nports {
					return nil, r.errorf("node 0x%016x is a %s with %d ports here but a %s with %d ports at line %d",
						end.nodeGUID, end.kind, end.nports, n.Kind, n.NPorts, n.Line)
				}
				if end.kind == lft.Switch && (n.Port0.LID != end.lid || n.Port0.GUID != end.portGUID) {
					return nil, r.errorf("switch 0x%016x has LID 0x%04X port GUID 0x%016x here but LID 0x%04X port GUID 0x%016x at line %d",
						end.nodeGUID, end.lid, end.portGUID, n.Port0.LID, n.Port0.GUID, n.Line)
				}
			}
			idx[e] = i
		}
		for e := range ends {
			end, far := &ends[e], &ends[1-e]
			node, peer := idx[e], idx[1-e]
			pt := TopoPort{Num: end.pn, Peer: peer, PeerPort: far.pn, Line: r.n, Rate: rate}
			if end.kind != lft.Switch {
				pt.GUID, pt.LID = end.portGUID, end.lid
			} else {
				pt.GUID = end.portGUID
			}
			k := portKey{node, end.pn}
			if j, seen := ports[k]; seen {
				old := &nodePorts[node][j]
				if old.Peer != pt.Peer || old.PeerPort != pt.PeerPort || old.GUID != pt.GUID || old.LID != pt.LID {
					return nil, r.errorf("port %d of 0x%016x (%s) connects to 0x%016x[%d] here but to 0x%016x[%d] at line %d",
						end.pn, end.nodeGUID, tok(end.desc), t.Nodes[peer].GUID, far.pn,
						t.Nodes[old.Peer].GUID, old.PeerPort, old.Line)
				}
				continue
			}
			ports[k] = len(nodePorts[node])
			nodePorts[node] = append(nodePorts[node], pt)
		}
	}
	if len(t.Nodes) == 0 {
		return nil, infile.Errorf(file, 0, "no ports listed").With(ErrFormat)
	}
	t.Warnings = r.warnings()
	for i := range t.Nodes {
		ps := nodePorts[i]
		sort.Slice(ps, func(a, b int) bool { return ps[a].Num < ps[b].Num })
		t.Nodes[i].Ports = ps
	}
	return t, nil
}

// lstEnd is one end of a subnet list line.
type lstEnd struct {
	kind                       lft.NodeKind
	nports, pn                 int
	nodeGUID, portGUID         uint64
	lid                        uint16
	desc                       []byte
	hasNode, hasPort, hasPorts bool
}

// keyHex reads one `Key:hexvalue` field of a port description.
func keyHex(r *lines, c *cursor) (key []byte, v uint64, err error) {
	key = c.until(':')
	if !c.lit(":") {
		return nil, 0, r.errorf("want Key:value, got %s", tok(key))
	}
	v, ok := c.hex()
	if !ok {
		return nil, 0, r.errorf("%s: bad hexadecimal value %s", key, tok(c.field()))
	}
	return key, v, nil
}

// parse reads `{ TYPE Key:val ... {desc} LID:hex PN:hex }`.
func (e *lstEnd) parse(r *lines, c *cursor) error {
	c.blank()
	if !c.lit("{") {
		return r.errorf("want '{' to open a port description, got %s", tok(c.rest()))
	}
	c.blank()
	typ := c.field()
	switch string(bytes.TrimSuffix(typ, []byte("-SM"))) {
	case "SW":
		e.kind = lft.Switch
	case "CA":
		e.kind = lft.Host
	case "Rt":
		e.kind = lft.Router
	default:
		return r.errorf("unknown node type %s (want SW, CA or Rt)", tok(typ))
	}
	// Key:value fields up to the description in braces.
	for {
		c.blank()
		if c.done() {
			return r.errorf("line ends inside a port description")
		}
		if c.peek() == '{' {
			break
		}
		key, v, err := keyHex(r, c)
		if err != nil {
			return err
		}
		if c.peek() != ' ' && c.peek() != '\t' {
			return r.errorf("%s: bad hexadecimal value %s", key, tok(c.field()))
		}
		switch string(key) {
		case "Ports":
			if v < 1 || v > MaxPorts {
				return r.errorf("Ports:%X out of range 1-%d", v, MaxPorts)
			}
			e.nports, e.hasPorts = int(v), true
		case "NodeGUID":
			e.nodeGUID, e.hasNode = v, true
		case "PortGUID":
			e.portGUID, e.hasPort = v, true
		}
	}
	if !e.hasPorts || !e.hasNode || !e.hasPort {
		return r.errorf("port description without Ports:, NodeGUID: or PortGUID:")
	}
	c.lit("{")
	rest := c.rest()
	end := bytes.Index(rest, []byte("} LID:"))
	if end < 0 {
		return r.errorf("unterminated node description %s (want {desc} LID:)", tok(rest))
	}
	e.desc = rest[:end]
	c.i += end + 2
	var hasLID, hasPN bool
	for {
		c.blank()
		if c.done() {
			return r.errorf("line ends inside a port description (want '}')")
		}
		if c.lit("}") {
			break
		}
		key, v, err := keyHex(r, c)
		if err != nil {
			return err
		}
		switch string(key) {
		case "LID":
			if v > maxUnicastLID {
				return r.errorf("LID:%04X is not a unicast LID", v)
			}
			e.lid, hasLID = uint16(v), true
		case "PN":
			if v < 1 || int(v) > e.nports {
				return r.errorf("PN:%02X out of range: the node has ports 1-%d", v, e.nports)
			}
			e.pn, hasPN = int(v), true
		}
	}
	if !hasLID || !hasPN {
		return r.errorf("port description without LID: or PN:")
	}
	return nil
}

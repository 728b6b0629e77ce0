package ib

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"orcs/dot"
	"orcs/infile"
	"orcs/lft"
)

// MaxPorts is the largest number of ports of an InfiniBand node
// (port 255 is reserved), and so of a node of an ibsim net file.
const MaxPorts = 254

// IBSimMaxNodeID is the longest node id (in bytes) that ibsim 0.10 accepts;
// a longer one is cut and may collide with another. The node description
// that ibsim derives from it keeps at most 63 bytes.
const IBSimMaxNodeID = 64

// SimOptions controls PlanSimNet.
type SimOptions struct {
	// KeepPorts takes the port numbers from the links (Link.FromPort and
	// ToPort), as generators and InfiniBand dumps give them. Without it,
	// every node numbers its out-links 1, 2, … in link order, which is what
	// a dot file (which has no ports) needs.
	KeepPorts bool
	// KeepIdentity gives every node its GUID (Node.GUID) and its LID and
	// LMC (Node.LID, LMC) in the net file, so that the emulation has the
	// real fabric's node GUIDs and OpenSM keeps its LIDs (it keeps valid
	// LIDs a port already has). A GUID that two nodes share (the ports of
	// one multi-port HCA are separate hosts) is left to ibsim.
	KeepIdentity bool
	// File, NodeLines and LinkLines locate nodes and links in error
	// messages ("FILE:LINE: ..."): the line where each node first appears
	// and the line of each link (see dot.Lines). Either may be nil.
	File      string
	NodeLines []int
	LinkLines []int
}

// SimNet is the plan of a fabric as an ibsim net file: every directed
// link paired with its reverse into a cable, and a port number for every
// link end. Nodes keep their names as ibsim node ids, switches stay
// switches and hosts become one-port HCAs.
type SimNet struct {
	// Fabric is the fabric the plan is for.
	Fabric *lft.Fabric
	// Port[l] is the port of link l at its From node.
	Port []int32
	// Reverse[l] is the link that goes back over the same cable.
	Reverse []int32
	// NPorts[v] is the port count of node v: its highest port number.
	NPorts []int32
	// GUIDs[v] is node v's GUID in the net file, or 0 where ibsim assigns
	// one (nil: ibsim assigns every GUID).
	GUIDs []uint64

	byPort [][]int32 // node → port-1 → link leaving on it, -1 none
	lids   bool      // write the nodes' LIDs
}

// errorf formats an error about node v or link l (-1 for none), located
// by the lines of o when it has them.
func (o *SimOptions) errorf(f *lft.Fabric, v, l int32, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	line := 0
	switch {
	case l >= 0 && int(l) < len(o.LinkLines):
		line = o.LinkLines[l]
	case v >= 0 && int(v) < len(o.NodeLines):
		line = o.NodeLines[v]
	}
	switch {
	case o.File != "" && line > 0:
		return infile.Errorf(o.File, line, "%s", msg)
	case o.File != "":
		return fmt.Errorf("%s: %s", o.File, msg)
	}
	return fmt.Errorf("%s", msg)
}

// PlanSimNet pairs every link of f with its reverse link and numbers the
// ports. Without KeepPorts, the k-th link from a to b pairs with the k-th
// link from b to a (parallel cables pair up in order), and node v's port p
// is its p-th out-link. Every host must have exactly one link (a host is
// one HCA port); a switch has at most MaxPorts ports. A loopback cable (two
// ports of one switch, as real fabrics have them; ibsim and OpenSM take
// it) is two links of a switch to itself; without KeepPorts they pair in
// order (first with second, third with fourth). Node names must be usable
// as ibsim node ids: 1 to IBSimMaxNodeID bytes, no '"', '#' or control
// characters.
func PlanSimNet(f *lft.Fabric, opt SimOptions) (*SimNet, error) {
	n := &SimNet{
		Fabric:  f,
		Port:    make([]int32, len(f.Links)),
		Reverse: make([]int32, len(f.Links)),
		NPorts:  make([]int32, len(f.Nodes)),
		byPort:  make([][]int32, len(f.Nodes)),
	}
	for v := range f.Nodes {
		if err := checkIBSimName(f.Nodes[v].Name); err != nil {
			return nil, opt.errorf(f, int32(v), -1, "node %q: %v", f.Nodes[v].Name, err)
		}
	}
	for l, k := range f.Links {
		if k.From == k.To && f.Nodes[k.From].Kind == lft.Host {
			return nil, opt.errorf(f, -1, int32(l), "link %s connects a host with itself", f.LinkName(int32(l)))
		}
	}
	var err error
	if opt.KeepPorts {
		err = n.keepPorts(&opt)
	} else {
		err = n.pairLinks(&opt)
	}
	if err != nil {
		return nil, err
	}
	n.lids = opt.KeepIdentity
	if opt.KeepIdentity {
		n.GUIDs = make([]uint64, len(f.Nodes))
		count := make(map[uint64]int, len(f.Nodes))
		for _, node := range f.Nodes {
			count[node.GUID]++
		}
		for v, node := range f.Nodes {
			if node.GUID != 0 && count[node.GUID] == 1 {
				n.GUIDs[v] = node.GUID
			}
		}
	}
	for v := range f.Nodes {
		node := &f.Nodes[v]
		out := f.OutLinks(int32(v))
		switch {
		case node.Kind == lft.Host && len(out) == 0:
			return nil, opt.errorf(f, int32(v), -1, "host %q has no link (every host needs exactly one)", node.Name)
		case node.Kind == lft.Host && len(out) > 1:
			return nil, opt.errorf(f, int32(v), out[1], "host %q has %d links; a host is one HCA port with exactly one link", node.Name, len(out))
		case n.NPorts[v] > MaxPorts:
			return nil, opt.errorf(f, int32(v), out[len(out)-1], "%s %q has %d ports; InfiniBand allows at most %d",
				node.Kind, node.Name, n.NPorts[v], MaxPorts)
		}
	}
	return n, nil
}

// checkIBSimName says why name cannot be an ibsim node id, or nil.
func checkIBSimName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("empty name")
	case len(name) > IBSimMaxNodeID:
		return fmt.Errorf("name of %d bytes; ibsim node ids have at most %d", len(name), IBSimMaxNodeID)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '"' || c == '#':
			return fmt.Errorf("name contains %q, which ibsim node ids cannot", c)
		case c < ' ' || c == 0x7f:
			return fmt.Errorf("name contains the control character %q", c)
		}
	}
	return nil
}

// pairLinks pairs links by order and numbers ports by out-link order.
func (n *SimNet) pairLinks(opt *SimOptions) error {
	f := n.Fabric
	type pair struct{ a, b int32 }
	between := map[pair][]int32{}
	for l, k := range f.Links {
		p := pair{k.From, k.To}
		between[p] = append(between[p], int32(l))
	}
	for l, k := range f.Links {
		fwd, back := between[pair{k.From, k.To}], between[pair{k.To, k.From}]
		i := 0
		for fwd[i] != int32(l) {
			i++
		}
		if k.From == k.To { // loopback cables: self edges pair in order
			if i^1 >= len(fwd) {
				return opt.errorf(f, -1, int32(l), "link %s is a loopback without its reverse edge: %d edges %q -> %q (a loopback cable is two)",
					f.LinkName(int32(l)), len(fwd), f.Nodes[k.From].Name, f.Nodes[k.From].Name)
			}
			n.Reverse[l] = fwd[i^1]
			continue
		}
		if i >= len(back) {
			what := "no reverse edge"
			if len(back) > 0 {
				what = fmt.Sprintf("no reverse edge: %d edges %q -> %q but only %d back",
					len(fwd), f.Nodes[k.From].Name, f.Nodes[k.To].Name, len(back))
			}
			return opt.errorf(f, -1, int32(l), "link %s has %s (every cable is two directed edges, %q -> %q and %q -> %q)",
				f.LinkName(int32(l)), what, f.Nodes[k.From].Name, f.Nodes[k.To].Name, f.Nodes[k.To].Name, f.Nodes[k.From].Name)
		}
		n.Reverse[l] = back[i]
	}
	for v := range f.Nodes {
		out := f.OutLinks(int32(v))
		n.NPorts[v] = int32(len(out))
		n.byPort[v] = make([]int32, len(out))
		for i, l := range out {
			n.Port[l] = int32(i + 1)
			n.byPort[v][i] = l
		}
	}
	return nil
}

// keepPorts takes the links' own port numbers and checks them.
func (n *SimNet) keepPorts(opt *SimOptions) error {
	f := n.Fabric
	for l, k := range f.Links {
		if k.FromPort < 1 || k.ToPort < 1 {
			return opt.errorf(f, -1, int32(l), "link %s has no port numbers", f.LinkName(int32(l)))
		}
		if k.FromPort > MaxPorts || k.ToPort > MaxPorts {
			return opt.errorf(f, -1, int32(l), "link %s: port %d or %d is beyond %d", f.LinkName(int32(l)), k.FromPort, k.ToPort, MaxPorts)
		}
		n.Port[l] = k.FromPort
		n.NPorts[k.From] = max(n.NPorts[k.From], k.FromPort)
		n.NPorts[k.To] = max(n.NPorts[k.To], k.ToPort)
	}
	for v := range f.Nodes {
		n.byPort[v] = make([]int32, n.NPorts[v])
		for i := range n.byPort[v] {
			n.byPort[v][i] = -1
		}
	}
	for l, k := range f.Links {
		slot := &n.byPort[k.From][k.FromPort-1]
		if *slot >= 0 {
			return opt.errorf(f, k.From, int32(l), "port %d of %q is used by two links: %s and %s",
				k.FromPort, f.Nodes[k.From].Name, f.LinkName(*slot), f.LinkName(int32(l)))
		}
		*slot = int32(l)
	}
	for l, k := range f.Links {
		back := n.byPort[k.To][k.ToPort-1]
		if back < 0 || f.Links[back].To != k.From || f.Links[back].ToPort != k.FromPort {
			return opt.errorf(f, -1, int32(l), "link %s (port %d -> %d) has no reverse link from port %d of %q to port %d of %q",
				f.LinkName(int32(l)), k.FromPort, k.ToPort, k.ToPort, f.Nodes[k.To].Name, k.FromPort, f.Nodes[k.From].Name)
		}
		n.Reverse[l] = back
	}
	return nil
}

// LinkAt returns the link that leaves node v on port, or -1.
func (n *SimNet) LinkAt(v int32, port int) int32 {
	if v < 0 || int(v) >= len(n.byPort) || port < 1 || port > len(n.byPort[v]) {
		return -1
	}
	return n.byPort[v][port-1]
}

// PeerPort returns the port at the far end of link l.
func (n *SimNet) PeerPort(l int32) int32 { return n.Port[n.Reverse[l]] }

// Limits returns what ibsim must be able to hold for this net: the number
// of nodes, of switches, and of ports (every node's ports plus its port 0),
// for ibsim's -N, -S and -P options.
func (n *SimNet) Limits() (nodes, switches, ports int) {
	for v, node := range n.Fabric.Nodes {
		nodes++
		if node.Kind != lft.Host {
			switches++
		}
		ports += int(n.NPorts[v]) + 1
	}
	return nodes, switches, ports
}

// Write writes the net file: a comment naming the counts, then a record
// per node in node order, `Switch <ports> "<name>"` or `Hca 1 "<name>"`,
// with a line `[<port>] "<remote>"[<remote port>] # lid 0 4xSDR` per
// connected port in ascending order. The comment is what ibsim looks for
// after a port (ibnetdiscover's remote LID and link type): without it ibsim
// warns once per port line, which makes it start several times slower on
// large fabrics. LID 0 is "not assigned yet" (OpenSM assigns LIDs) and 4x
// SDR is ibsim's default link. Routers are written as switches. Without GUID
// directives, ibsim gives CAs the node GUIDs 0x100000, 0x100002, … and
// switches 0x200000, 0x200001, … in this order (ReadSimNet reads the
// file back with them).
func (n *SimNet) Write(w io.Writer) error {
	f := n.Fabric
	bw := bufio.NewWriterSize(w, 1<<16)
	nodes, switches, _ := n.Limits()
	fmt.Fprintf(bw, "# ibsim net file: %d nodes (%d hosts, %d switches), %d cables\n",
		nodes, nodes-switches, switches, len(f.Links)/2)
	if f.GraphName != "" {
		fmt.Fprintf(bw, "# graph %s\n", strings.ReplaceAll(f.GraphName, "\n", " "))
	}
	var buf []byte
	for v, node := range f.Nodes {
		buf = append(buf[:0], '\n')
		if n.GUIDs != nil && n.GUIDs[v] != 0 {
			if node.Kind == lft.Host {
				buf = append(buf, "caguid=0x"...)
			} else {
				buf = append(buf, "switchguid=0x"...)
			}
			buf = strconv.AppendUint(buf, n.GUIDs[v], 16)
			buf = append(buf, '\n')
		}
		if node.Kind == lft.Host {
			buf = append(buf, "Hca "...)
		} else {
			buf = append(buf, "Switch "...)
		}
		buf = strconv.AppendInt(buf, int64(n.NPorts[v]), 10)
		buf = append(buf, " \""...)
		buf = append(buf, node.Name...)
		buf = append(buf, '"')
		if n.lids && node.Kind != lft.Host && node.LID != 0 {
			buf = fmt.Appendf(buf, " # %q base port 0 lid %d lmc %d", node.Name, node.LID, node.LMC)
		}
		buf = append(buf, '\n')
		for p, l := range n.byPort[v] {
			if l < 0 {
				continue
			}
			buf = append(buf, '[')
			buf = strconv.AppendInt(buf, int64(p+1), 10)
			buf = append(buf, "] \""...)
			buf = append(buf, f.Nodes[f.Links[l].To].Name...)
			buf = append(buf, "\"["...)
			buf = strconv.AppendInt(buf, int64(n.PeerPort(l)), 10)
			if n.lids && node.Kind == lft.Host && node.LID != 0 {
				buf = fmt.Appendf(buf, "] # lid %d lmc %d 4xSDR\n", node.LID, node.LMC)
			} else {
				buf = append(buf, "] # lid 0 4xSDR\n"...)
			}
		}
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteSimNet plans f as an ibsim net file and writes it (see
// PlanSimNet and SimNet.Write).
func WriteSimNet(w io.Writer, f *lft.Fabric, opt SimOptions) error {
	n, err := PlanSimNet(f, opt)
	if err != nil {
		return err
	}
	return n.Write(w)
}

// DotToSimNet reads the topology of a dot file (routing comments are
// ignored) and plans it as an ibsim net file, pairing every edge with its
// reverse edge to number the ports (ORCS's dot2osm). Errors name the file
// and the line of the offending node or edge.
func DotToSimNet(data []byte, file string) (*SimNet, error) {
	f, err := dot.Read(data, file, dot.Options{Topology: true})
	if err != nil {
		return nil, err
	}
	n, err := PlanSimNet(f, SimOptions{File: file})
	if err != nil {
		// Locate the problem: the lines are only worked out on failure.
		nodeLines, linkLines := dot.Lines(data)
		if len(nodeLines) == len(f.Nodes) && len(linkLines) == len(f.Links) {
			_, err = PlanSimNet(f, SimOptions{File: file, NodeLines: nodeLines, LinkLines: linkLines})
		}
		return nil, err
	}
	return n, nil
}

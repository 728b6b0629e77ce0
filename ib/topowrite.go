package ib

import (
	"bufio"
	"fmt"
	"io"

	"orcs/infile"
	"orcs/lft"
)

// NetID is the ibsim node id that WriteTopologyNet gives node n: "S-", "H-"
// or "R-" (switch, CA, router) and the node GUID in 16 hexadecimal digits,
// as ibnetdiscover names nodes. GUIDs are unique, so the ids are, and at 18
// bytes they fit ibsim's SIM_HOST.
func NetID(n *TopoNode) string {
	prefix := "H"
	switch n.Kind {
	case lft.Switch:
		prefix = "S"
	case lft.Router:
		prefix = "R"
	}
	return fmt.Sprintf("%s-%016x", prefix, n.GUID)
}

// NetLimits returns what ibsim must hold to emulate t: its nodes, its
// switches and its ports (every node's ports plus port 0), for ibsim's -N,
// -S and -P options.
func NetLimits(t *Topology) (nodes, switches, ports int) {
	for i := range t.Nodes {
		n := &t.Nodes[i]
		nodes++
		if n.Kind == lft.Switch {
			switches++
		}
		ports += n.NPorts + 1
	}
	return nodes, switches, ports
}

// WriteTopologyNet writes t as an ibsim net file that emulates the fabric
// as it is: every node with its kind, port count, node GUID (a GUID
// directive before its record), description and LIDs, and every connected
// port with its cable — the ports of aggregation nodes and of multi-port
// CAs and loopback cables (two ports of one switch cabled together)
// included. Node ids are NetID's. A switch's LID and LMC are written on its
// record, a CA port's on its port line (ibsim gives them to the ports and
// OpenSM keeps valid LIDs; a port without one gets OpenSM's); links are 4x
// SDR, ibsim's default.
//
// ibsim gives a CA's port p the GUID node GUID + p; port GUIDs that differ
// from that are not kept (OpenSM orders its routing by port GUID, and this
// order is the same as long as no CA's node GUID + port passes another
// node's). It is an error when two ports would get the same GUID, or a
// router's node GUID is 0.
func WriteTopologyNet(w io.Writer, t *Topology) error {
	if len(t.Nodes) == 0 {
		return infile.Errorf(t.File, 0, "no nodes to emulate")
	}
	// The port GUIDs ibsim will give.
	seen := make(map[uint64]int, len(t.Nodes))
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if n.NPorts < 1 || n.NPorts > MaxPorts {
			return infile.Errorf(t.fileOf(n), n.Line, "%s %q has %d ports; ibsim takes 1 to %d", kindWord(n.Kind), n.Desc, n.NPorts, MaxPorts)
		}
		guids := []uint64{n.GUID}
		if n.Kind != lft.Switch {
			guids = guids[:0]
			for _, p := range n.Ports {
				guids = append(guids, n.GUID+uint64(p.Num))
			}
		}
		for _, g := range guids {
			if j, dup := seen[g]; dup {
				return infile.Errorf(t.fileOf(n), n.Line, "cannot emulate %s %q (node GUID 0x%016x): ibsim would give one of its ports the GUID 0x%016x, which it also gives %s %q (line %d)",
					kindWord(n.Kind), n.Desc, n.GUID, g, kindWord(t.Nodes[j].Kind), t.Nodes[j].Desc, t.Nodes[j].Line)
			}
			seen[g] = i
		}
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	nodes, switches, _ := NetLimits(t)
	fmt.Fprintf(bw, "# ibsim net file of %s: %d nodes (%d switches)\n", t.File, nodes, switches)
	for i := range t.Nodes {
		n := &t.Nodes[i]
		desc := []byte(n.Desc) // bytes as they are: a description need not be UTF-8
		for j, c := range desc {
			if c == '"' || c < ' ' || c == 0x7f {
				desc[j] = '\''
			}
		}
		keyword, directive := "Hca", "caguid"
		switch n.Kind {
		case lft.Switch:
			keyword, directive = "Switch", "switchguid"
		case lft.Router:
			keyword, directive = "Rt", "rtguid"
		}
		fmt.Fprintf(bw, "\n%s=0x%x\n%s %d %q # \"%s\"", directive, n.GUID, keyword, n.NPorts, NetID(n), desc)
		if n.Kind == lft.Switch && n.Port0.LID != 0 {
			fmt.Fprintf(bw, " base port 0 lid %d lmc %d", n.Port0.LID, n.Port0.LMC)
		}
		bw.WriteByte('\n')
		for _, p := range n.Ports {
			// What follows '#' is ibnetdiscover's: a CA port's own LID and
			// LMC, then after the quoted remote description the remote LID
			// and the link, which ibsim reads as "lid N <width>x<speed>".
			fmt.Fprintf(bw, "[%d] %q[%d] #", p.Num, NetID(&t.Nodes[p.Peer]), p.PeerPort)
			if n.Kind == lft.Host {
				fmt.Fprintf(bw, " lid %d lmc %d \"\"", p.LID, p.LMC)
			}
			bw.WriteString(" lid 0 4xSDR\n")
		}
	}
	return bw.Flush()
}

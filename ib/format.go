package ib

import (
	"bytes"
	"fmt"

	"orcs/lft"
)

// Format is the format of an input file, as DetectFormat recognises it.
type Format uint8

const (
	// FormatUnknown is any content DetectFormat does not recognise.
	FormatUnknown Format = iota
	// FormatDot is a Graphviz graph: a routed ORCS fabric.
	FormatDot
	// FormatIBNetDiscover is the output of ibnetdiscover, plain or with -s
	// (a DR-path discovery trace before the topology).
	FormatIBNetDiscover
	// FormatIBSimNet is an ibsim net file.
	FormatIBSimNet
	// FormatSubnetLst is opensm-subnet.lst or ibdiagnet.lst: one line per
	// connected port.
	FormatSubnetLst
	// FormatLFTDump is OpenSM's opensm-lfts.dump (one '#'-labelled line per
	// routed LID of every switch).
	FormatLFTDump
	// FormatDumpFTS is the output of dump_fts or ibroute: the tables read
	// back from the switches.
	FormatDumpFTS
	// FormatFDBs is opensm.fdbs or ibdiagnet.fdbs: every LID of every
	// switch with out port and hop count, or UNREACHABLE.
	FormatFDBs
	// FormatIBNetDiscoverPorts is the ports report of ibnetdiscover -p:
	// one line per port.
	FormatIBNetDiscoverPorts
	// FormatIBLinkInfo is the output of iblinkinfo, plain or -l.
	FormatIBLinkInfo
	// FormatIBDiagCSV is ibdiagnet's ibdiagnet2.db_csv.
	FormatIBDiagCSV
	// FormatIBNetDiscoverList is the node list of ibnetdiscover -l (or
	// --switches, --hcas): one line per node, without its cables, so no
	// topology; recognised to say so.
	FormatIBNetDiscoverList
)

var formatNames = [...]string{
	FormatUnknown:       "unknown",
	FormatDot:           "dot",
	FormatIBNetDiscover: "ibnetdiscover",
	FormatIBSimNet:      "ibsim net",
	FormatSubnetLst:     "subnet list",
	FormatLFTDump:       "opensm-lfts.dump",
	FormatDumpFTS:       "dump_fts",
	FormatFDBs:          "fdbs",

	FormatIBNetDiscoverPorts: "ibnetdiscover -p",
	FormatIBLinkInfo:         "iblinkinfo",
	FormatIBDiagCSV:          "ibdiagnet2.db_csv",
	FormatIBNetDiscoverList:  "ibnetdiscover -l",
}

// String returns the format's name.
func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("Format(%d)", uint8(f))
}

// IsTopology reports whether files of the format describe a topology
// (nodes, ports and cables).
func (f Format) IsTopology() bool {
	switch f {
	case FormatIBNetDiscover, FormatIBSimNet, FormatSubnetLst, FormatIBNetDiscoverPorts, FormatIBLinkInfo, FormatIBDiagCSV:
		return true
	}
	return false
}

// IsRouting reports whether files of the format hold switch forwarding
// tables.
func (f Format) IsRouting() bool {
	return f == FormatLFTDump || f == FormatDumpFTS || f == FormatFDBs
}

// DetectFormat recognises an input by its content. It looks at the first
// lines only (up to 64 KiB), so it is cheap on large dumps.
func DetectFormat(data []byte) Format {
	if len(data) > 1<<16 {
		data = data[:1<<16]
	}
	r := lines{data: data}
	sawRecord := false
	sawIDs := false // vendid= or sysimgguid=, which ibnetdiscover writes
	for {
		l, ok := r.next()
		if !ok {
			break
		}
		t := trimBlank(l)
		if len(t) == 0 {
			continue
		}
		switch {
		case bytes.Contains(t, []byte(")==>")), bytes.HasPrefix(t, []byte("Switch: 0x")),
			bytes.HasPrefix(t, []byte("CA: ")) && t[len(t)-1] == ':', bytes.HasPrefix(t, []byte("Router: ")) && t[len(t)-1] == ':':
			return FormatIBLinkInfo
		case bytes.HasPrefix(t, []byte("START_")):
			return FormatIBDiagCSV
		case bytes.HasPrefix(t, []byte("DR path slid")):
			return FormatIBNetDiscover
		case bytes.HasPrefix(t, []byte("# Topology file:")):
			return FormatIBNetDiscover
		case bytes.HasPrefix(l, []byte("Unicast lids [")):
			return detectUnicast(l)
		case bytes.Contains(t, []byte("dump_ucast_routes: Switch 0x")):
			return FormatFDBs
		case bytes.HasPrefix(t, []byte("{ ")) && bytes.Contains(t, []byte(" NodeGUID:")):
			return FormatSubnetLst
		case bytes.HasPrefix(t, []byte("//")), bytes.HasPrefix(t, []byte("/*")):
			return FormatDot
		case t[0] == '#':
			continue
		}
		c := cursor{b: t}
		w := c.word()
		switch string(w) {
		case "digraph", "graph", "strict":
			return FormatDot
		case "vendid", "sysimgguid":
			// ibnetdiscover writes these before every record; ibsim net
			// files may hold them too (as directives).
			sawIDs = sawIDs || c.peek() == '='
		case "Switch", "Hca", "Ca", "Rt":
			if !c.blank() {
				break
			}
			if c.lit(": 0x") { // "Ca\t : 0x<guid> ports 1 devid ..."
				return FormatIBNetDiscoverList
			}
			sawRecord = true
			// ibnetdiscover names nodes S-<guid>, H-<guid>, R-<guid>.
			c.dec()
			c.blank()
			if id, ok := quoted(&c); ok && sawIDs && string(w) != "Hca" {
				if _, ok := idGUID(string(id)); ok {
					return FormatIBNetDiscover
				}
			}
		case "SW", "CA", "RT":
			if isPortsLine(&c) {
				return FormatIBNetDiscoverPorts
			}
		}
	}
	if sawRecord {
		return FormatIBSimNet
	}
	return FormatUnknown
}

// isPortsLine reports whether the rest of a line that starts with a node
// type reads " <lid> <port> 0x", as in ibnetdiscover -p.
func isPortsLine(c *cursor) bool {
	for k := 0; k < 2; k++ {
		if !c.blank() {
			return false
		}
		if _, ok := c.dec(); !ok {
			return false
		}
	}
	return c.blank() && c.lit("0x")
}

// detectUnicast tells opensm-lfts.dump from dump_fts/ibroute output by the
// first header: dump_fts and ibroute give the LID range in hexadecimal.
func detectUnicast(header []byte) Format {
	if bytes.HasPrefix(header[len("Unicast lids ["):], []byte("0x")) {
		return FormatDumpFTS
	}
	return FormatLFTDump
}

// Topology is an InfiniBand fabric as a discovery or a net file gives it:
// nodes, their connected ports and the cables between them. The readers of
// ibnetdiscover output, ibsim net files and subnet lists return one;
// Build combines it with a Routing.
type Topology struct {
	// File names the input in messages.
	File string
	// Format is the format the topology was read from.
	Format Format
	// Nodes lists the switches, CAs and routers in file order.
	Nodes []TopoNode
	// Warnings lists the lines the reader skipped ("file:line: why"):
	// shell prompts and tool messages pasted into the file. Build and
	// BuildTopology pass them to Options.Warn.
	Warnings []string
}

// TopoNode is a switch, channel adapter or router.
type TopoNode struct {
	// Kind is Switch, Host (a channel adapter) or Router.
	Kind lft.NodeKind
	// ID is the node's id in the file (ibsim and ibnetdiscover), else "".
	ID string
	// GUID is the node GUID.
	GUID uint64
	// Desc is the node description.
	Desc string
	// NPorts is the number of physical ports (port 0 of a switch excluded).
	NPorts int
	// Port0 describes a switch's management port 0: its GUID, LID and LMC
	// (LID 0 when the file gives none).
	Port0 TopoPort
	// Ports lists the connected ports in ascending port number.
	Ports []TopoPort
	// Line is the line of the node's record (its first mention), in File:
	// the file that holds the record (an ibsim net file's include keeps
	// its own name).
	Line int
	File string
}

// fileOf returns the file of node n's record.
func (t *Topology) fileOf(n *TopoNode) string {
	if n.File != "" {
		return n.File
	}
	return t.File
}

// TopoPort is one port of a node.
type TopoPort struct {
	// Num is the port number.
	Num int
	// GUID is the port GUID, 0 when unknown.
	GUID uint64
	// LID is the base LID, 0 when the file gives none.
	LID uint16
	// LMC says the port owns 2^LMC LIDs from LID on.
	LMC uint8
	// LMCKnown tells whether the file gives the LMC (subnet lists do not).
	LMCKnown bool
	// Peer is the index in Topology.Nodes of the node at the other end of
	// the cable, or -1 for port 0.
	Peer int
	// PeerPort is the port number at the other end.
	PeerPort int
	// Rate is the link's active width and speed where the file gives
	// them (ibnetdiscover's "4xFDR10", iblinkinfo's "4X 10.0 Gbps
	// (FDR10)", a ports report's "4x FDR10", a subnet list's PHY= and
	// SPD=), else the zero rate.
	Rate LinkRate
	// Line is the line that describes the port.
	Line int
}

// Port returns the connected port number num of node n, or nil.
func (n *TopoNode) Port(num int) *TopoPort {
	lo, hi := 0, len(n.Ports)
	for lo < hi {
		m := (lo + hi) / 2
		switch {
		case n.Ports[m].Num == num:
			return &n.Ports[m]
		case n.Ports[m].Num < num:
			lo = m + 1
		default:
			hi = m
		}
	}
	return nil
}

// Routing is the set of linear forwarding tables of a dump, one per
// switch. The readers of opensm-lfts.dump, dump_fts/ibroute output and
// .fdbs files return one; Build combines it with a Topology.
type Routing struct {
	// File names the input in messages.
	File string
	// Format is the format the tables were read from.
	Format Format
	// Switches lists the tables in file order.
	Switches []LFT
	// Warnings lists the lines the reader skipped, as Topology.Warnings.
	Warnings []string

	labels   []lidLabel // by LID: the port a dump's label names
	labelled []uint16   // the LIDs of labels, in the order they were set
}

// lidLabel is what a dump says about the owner of a LID.
type lidLabel struct {
	guid uint64       // port GUID, 0 when not labelled
	line int32        // first line that says so
	kind lft.NodeKind // the kind the label gives, or 255 when it gives none
}

// LFT is one switch's linear forwarding table as a dump gives it.
type LFT struct {
	// GUID is the switch's node GUID.
	GUID uint64
	// LID is the switch's LID when the dump names it, else 0.
	LID uint16
	// Desc is the node description when the dump gives it.
	Desc string
	// Top is the top of the LID range the header announces, or the last
	// LID listed when there is no header range (fdbs).
	Top int
	// Line is the line of the table's header.
	Line int
	// Entries lists the routed LIDs in file order. Unrouted LIDs
	// (UNREACHABLE in fdbs) have no entry. The tables of ReadPair and
	// ReadFiles are packed, without Entries: Each gives them.
	Entries []LFTEntry

	readBack bool       // read back from the switch by dump_fts or ibroute
	packed   *packedLFT // see pack
}

// LFTEntry is one routed LID of a forwarding table.
type LFTEntry struct {
	// LID is the destination LID.
	LID uint16
	// Port is the out port; 0 is the switch itself.
	Port uint8
	// Line is the line of the entry.
	Line int32
}

// LIDLabel returns the port GUID that the dump's labels give for lid
// (opensm-lfts.dump and dump_fts name the destination port of every
// entry), and the line that says so; guid 0 when the dump names none.
func (r *Routing) LIDLabel(lid int) (guid uint64, line int) {
	if lid < 0 || lid >= len(r.labels) {
		return 0, 0
	}
	return r.labels[lid].guid, int(r.labels[lid].line)
}

// setLabel records that lid belongs to port guid, as line says. It returns
// the line of an earlier, different label for the same LID, or 0.
func (r *Routing) setLabel(lid uint16, guid uint64, kind lft.NodeKind, line int) (conflict int, old uint64) {
	if int(lid) >= len(r.labels) {
		n := max(2*len(r.labels), int(lid)+1, 64)
		n = min(n, maxUnicastLID+1)
		grown := make([]lidLabel, n)
		copy(grown, r.labels)
		r.labels = grown
	}
	l := &r.labels[lid]
	if l.guid == 0 {
		*l = lidLabel{guid: guid, line: int32(line), kind: kind}
		r.labelled = append(r.labelled, lid)
		return 0, 0
	}
	if l.guid != guid {
		return int(l.line), l.guid
	}
	return 0, 0
}

// NumEntries returns the number of routed entries over all switches.
func (r *Routing) NumEntries() int {
	n := 0
	for i := range r.Switches {
		n += r.Switches[i].Len()
	}
	return n
}

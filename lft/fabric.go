// Package lft models an InfiniBand-style fabric and its static routing.
//
// A Fabric holds nodes (hosts and switches), directed links between them
// (a full-duplex cable is two links; parallel cables are separate links) and
// destination-based forwarding compiled once into flat integer tables: for
// every switch and destination host, the link a packet leaves on. Walking a
// route is then a few array lookups per hop, with no maps and no strings.
//
// Readers for the file formats (dot, fabric dumps) build a Fabric through a
// Builder; writers turn a Fabric back into files.
package lft

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
)

// NodeKind says what a node is.
type NodeKind uint8

const (
	// Switch forwards traffic by its table.
	Switch NodeKind = iota
	// Host is an end node (an HCA); only hosts send and receive traffic.
	Host
	// Router is an InfiniBand router; it forwards like a switch.
	Router
)

// String returns the kind's name.
func (k NodeKind) String() string {
	switch k {
	case Switch:
		return "switch"
	case Host:
		return "host"
	case Router:
		return "router"
	}
	return fmt.Sprintf("NodeKind(%d)", uint8(k))
}

// Node is one vertex of the fabric.
type Node struct {
	// Name is the node's unique name (in dot files, host names start with H).
	Name string
	// Kind is host, switch or router.
	Kind NodeKind
	// GUID is the node GUID when known (fabric dumps), else 0.
	GUID uint64
	// Desc is the node description when known, else "".
	Desc string
	// Port is, for a host read from InfiniBand dumps, the number of the CA
	// port it stands for (every connected CA port is a host); else 0.
	Port int32
	// PortGUID is the GUID of that CA port, or of a switch's port 0, when
	// known; else 0.
	PortGUID uint64
	// LID is the base LID of that port (a switch's: of port 0) when known,
	// else 0. The port owns the 2^LMC LIDs LID … LID+2^LMC−1.
	LID uint16
	// LMC is the port's LID mask control.
	LMC uint8
}

// Link is one direction of a cable.
type Link struct {
	// From and To are node ids (indices into Fabric.Nodes).
	From, To int32
	// FromPort and ToPort are physical port numbers, 0 when unknown.
	FromPort, ToPort int32
}

// Attr is one key="value" attribute of a link as read from its input (a
// dot edge statement).
type Attr struct {
	Key, Value string
}

// Fabric is a routed network: nodes, links and compiled forwarding tables.
// A Fabric is immutable once built and safe for concurrent readers.
type Fabric struct {
	// Nodes lists every node; a node id is its index here.
	Nodes []Node
	// Links lists every directed link, in input (file) order; a link id is
	// its index here.
	Links []Link
	// LinkAttrs holds each link's input attributes when the reader was asked
	// to keep them (dot KeepAttrs), else nil.
	LinkAttrs [][]Attr
	// GraphName is the name of the input graph, if any.
	GraphName string

	hosts    []int32 // host index → node id, in order of first appearance
	switches []int32 // switch index → node id
	hostOf   []int32 // node id → host index, or -1
	switchOf []int32 // node id → switch index, or -1
	outStart []int32 // CSR: out-links of node v are outLinks[outStart[v]:outStart[v+1]]
	outLinks []int32

	// Compiled forwarding (see table.go): tab holds, per LID offset, switch
	// and destination host, the out-link position the switch takes. hostTab
	// is either per host (hostUniform: one link for every destination) or
	// per host and destination, links.
	tab         tables
	hostTab     []int32
	hostUniform bool
	swBase      []int32 // switch index → its first slot (outStart of its node)
	linkSlot    []int32 // link id → slot: its position in outLinks
	// slotNext[slot] is the switch index the slot's link leads to (≥ 0), or
	// ^host index.
	slotNext []int32
	// linkTab holds the switch tables as links for small fabrics (see
	// linkTablesUpTo), else nil; linkNext[l] is slotNext of link l.
	linkTab  []int32
	linkNext []int32
	// entry holds the entry routes (see entry.go) once PrepareWalks
	// compiled them.
	entry     atomic.Pointer[entryRoutes]
	entryOnce sync.Once

	names map[string]int32

	// LMC spread (see Builder.SetLMCSpread), nil when off: host src reaches
	// host dst over the table of LID offset src&spreadMask[dst].
	spreadMask []int32
}

// NumHosts returns the number of hosts.
func (f *Fabric) NumHosts() int { return len(f.hosts) }

// NumSwitches returns the number of switches and routers.
func (f *Fabric) NumSwitches() int { return len(f.switches) }

// HostNode returns the node id of host index h.
func (f *Fabric) HostNode(h int) int32 { return f.hosts[h] }

// SwitchNode returns the node id of switch index s.
func (f *Fabric) SwitchNode(s int) int32 { return f.switches[s] }

// HostIndex returns the host index of node v, or -1 if v is not a host.
func (f *Fabric) HostIndex(v int32) int32 { return f.hostOf[v] }

// SwitchIndex returns the switch index of node v, or -1 if v is a host.
func (f *Fabric) SwitchIndex(v int32) int32 { return f.switchOf[v] }

// HostName returns the name of host index h.
func (f *Fabric) HostName(h int) string { return f.Nodes[f.hosts[h]].Name }

// CableName names a directed cable with its ends' names and ports, e.g.
// "S1:3 -> S2:1"; a port of 0 (not known) is left out.
func CableName(from string, fromPort int, to string, toPort int) string {
	end := func(name string, port int) string {
		if port > 0 {
			return name + ":" + strconv.Itoa(port)
		}
		return name
	}
	return end(from, fromPort) + " -> " + end(to, toPort)
}

// Cable names link l as a cable with its ports (CableName): "S1:3 -> S2:1".
func (f *Fabric) Cable(l int32) string {
	k := &f.Links[l]
	return CableName(f.Nodes[k.From].Name, int(k.FromPort), f.Nodes[k.To].Name, int(k.ToPort))
}

// OutLinks returns the ids of the links leaving node v, in input order.
// The slice must not be modified.
func (f *Fabric) OutLinks(v int32) []int32 {
	return f.outLinks[f.outStart[v]:f.outStart[v+1]]
}

// NodeByName returns the id of the node with the given name.
func (f *Fabric) NodeByName(name string) (int32, bool) {
	id, ok := f.names[name]
	return id, ok
}

// LinkName describes link l for messages, e.g. `"S1" -> "H2"`.
func (f *Fabric) LinkName(l int32) string {
	k := f.Links[l]
	return fmt.Sprintf("%q -> %q", f.Nodes[k.From].Name, f.Nodes[k.To].Name)
}

// NextHop returns the link node v takes on the route from host src to host
// dst (host indices), or -1 when v has no route to dst (or v is dst
// itself). It is the one next-hop rule of the fabric: with LMC spread a
// switch's choice depends on the LID offset of the source (see LMCSpread),
// and every walk (AppendRoute, CheckRoutes, Explain, packet forwarding)
// follows it.
func (f *Fabric) NextHop(src, v, dst int32) int32 {
	if s := f.switchOf[v]; s >= 0 {
		return f.switchLink(f.lidOffset(src, dst), s, dst)
	}
	h := f.hostOf[v]
	if h == dst {
		return -1
	}
	return f.hostLink(h, dst)
}

// Forward returns the link a packet from host src to host dst takes after
// arriving over link l, or -1 when it arrived at dst (or at a node without
// a route to dst). It is NextHop at the far end of l, for simulators that
// follow packets link by link: one load for the switch, one for the table.
func (f *Fabric) Forward(src, l, dst int32) int32 {
	nx := f.slotNext[f.linkSlot[l]]
	if nx >= 0 {
		return f.switchLink(f.lidOffset(src, dst), nx, dst)
	}
	if ^nx == dst {
		return -1
	}
	return f.hostLink(^nx, dst)
}

// Row returns node v's base-LID forwarding table: for a switch or router,
// or a host that routes by destination, row[d] is the link towards host d
// (-1: none); for a host that sends everything over one link, row is nil
// and uniform is that link (-1: none). A switch's row is built anew on
// every call (see RowInto); a host's must not be modified.
func (f *Fabric) Row(v int32) (row []int32, uniform int32) { return f.RowInto(nil, v) }

// RowInto is Row building a switch's row in buf (reused when it is large
// enough), for callers that go through every switch.
func (f *Fabric) RowInto(buf []int32, v int32) (row []int32, uniform int32) {
	H := len(f.hosts)
	if s := f.switchOf[v]; s >= 0 {
		if cap(buf) < H {
			buf = make([]int32, H)
		}
		row = buf[:H]
		for d := range row {
			row[d] = f.switchLink(0, s, int32(d))
		}
		return row, -1
	}
	h := f.hostOf[v]
	if f.hostUniform {
		return nil, f.hostTab[h]
	}
	return f.hostTab[int(h)*H : int(h+1)*H], -1
}

// hostLink is the first link of host h towards host dst.
func (f *Fabric) hostLink(h, dst int32) int32 {
	if f.hostUniform {
		return f.hostTab[h]
	}
	return f.hostTab[int(h)*len(f.hosts)+int(dst)]
}

// Digest returns a short fingerprint of the fabric's nodes, links and
// compiled tables, to check that shards were computed on the same fabric.
func (f *Fabric) Digest() string {
	h := sha256.New()
	var buf []byte
	flush := func() {
		h.Write(buf)
		buf = buf[:0]
	}
	for _, n := range f.Nodes {
		buf = append(buf, n.Name...)
		buf = append(buf, 0, byte(n.Kind))
	}
	flush()
	for _, l := range f.Links {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(l.From))
		buf = binary.LittleEndian.AppendUint32(buf, uint32(l.To))
	}
	flush()
	// The tables as link ids: the base switch table, the host table, and
	// with LMC spread the masks and the other offsets' switch tables (only
	// fabrics read with LMC spread have these; others keep their digest).
	put := func(x int32) {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(x))
		if len(buf) >= 1<<16 {
			flush()
		}
	}
	var links []int32
	switchTable := func(k int) {
		for s := range f.switches {
			for b := range f.tab.blocks {
				links = f.blockLinks(links[:0], k, int32(s), b)
				for _, l := range links {
					put(l)
				}
			}
		}
	}
	switchTable(0)
	for _, x := range f.hostTab {
		put(x)
	}
	if f.spreadMask != nil {
		for _, x := range f.spreadMask {
			put(x)
		}
		for k := 1; k < f.tab.offsets(len(f.switches)); k++ {
			switchTable(k)
		}
	}
	flush()
	return hex.EncodeToString(h.Sum(nil)[:12])
}

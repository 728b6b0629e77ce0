package ib

import (
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"strings"

	"orcs/infile"
	"orcs/internal/workers"
	"orcs/lft"
)

// Options controls Build.
type Options struct {
	// Names chooses the node names (NamesGUID by default).
	Names NameStyle
	// LMCSpread routes by source where a destination port owns several
	// LIDs (LMC > 0): host s reaches host d over LID base(d) + s mod 2^LMC(d)
	// (s the source's host index), as MPI libraries spread connections over
	// the paths of an LMC range. Off, every host is reached over its base
	// LID. A dot file cannot express per-source routes, so dot.Write always
	// writes the base-LID tables.
	LMCSpread bool
	// IncludeAggregationNodes keeps SHARP aggregation nodes as hosts. They
	// are CAs inside switches (described "Mellanox Technologies
	// Aggregation Node"), 10-16 % of the CAs of a large modern fabric, and
	// no compute hosts: by default they are left out of the fabric (with
	// the cables to them), and Warn says how many. Included or not, a
	// LID or route they lack never fails the build.
	IncludeAggregationNodes bool
	// Warn, when not nil, receives findings that do not stop the build
	// (lines the readers skipped, aggregation nodes left out, hosts
	// without a LID, a switch LID missing from a dump_fts table).
	Warn func(msg string)
}

// IsAggregationNode reports whether n is a SHARP aggregation node: a CA
// whose description says "Aggregation Node".
func IsAggregationNode(n *TopoNode) bool {
	return n.Kind == lft.Host && strings.Contains(n.Desc, "Aggregation Node")
}

// Build builds the routed fabric of a topology and the forwarding tables
// of a dump of the same fabric.
//
// Every connected port of a channel adapter is a host (a CA with several
// connected ports gives several hosts, see NameStyle); switches and routers
// are switches of the fabric (routers forward only if the dump has a table
// for them). Every cable is two links, with the real port numbers. Hosts
// come first, by node GUID and port, then switches and routers by node
// GUID; each node's links follow its ports in ascending order. Node.GUID,
// Desc, Port, PortGUID, LID and LMC keep what the files say.
//
// A host's first hop is the link of its CA port. A switch sends traffic for
// host d where its table sends d's base LID (with LMCSpread, the LID of the
// source's offset): to the link of that out port. A LID without an entry
// leaves the pair unroutable (CheckRoutes reports it).
//
// LIDs come from the topology (ibnetdiscover, subnet lists, ibsim net files
// with lid/lmc comments) and from the labels of opensm-lfts.dump and
// dump_fts, which name the port of every LID; the two must agree. A subnet
// list gives no LMC: it is taken from the labels, or, with an fdbs dump,
// inferred from routed LIDs just above a port's aligned base LID.
//
// Errors name the file and line: a table for a switch the topology lacks
// (mismatched files), a topology switch without a table, a LID that is no
// port's, two ports with the same LID, an out port beyond the switch's
// ports, out port 0 (the switch itself) for a LID that is not the
// switch's, an out port without a cable for a host's LID, and a dump_fts
// table whose top LID was dropped by infiniband-diags when it is a host's.
func Build(t *Topology, rt *Routing, opt Options) (*lft.Fabric, error) {
	if t == nil || rt == nil {
		return nil, fmt.Errorf("ib.Build: need a topology and a routing dump")
	}
	b := &ibBuild{t: t, rt: rt, opt: opt}
	b.passWarnings()
	steps := []func() error{b.index, b.topologyLIDs, b.matchTables, b.labelLIDs, b.finishLIDs, b.entryLIDs}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return b.build()
}

// BuildTopology builds the fabric of a topology without forwarding tables:
// the nodes, ports, cables, GUIDs and LIDs that Build gives, and no routes.
// Commands that route the fabric themselves (with OpenSM) need no more.
func BuildTopology(t *Topology, opt Options) (*lft.Fabric, error) {
	if t == nil {
		return nil, fmt.Errorf("BuildTopology: need a topology")
	}
	b := &ibBuild{t: t, rt: &Routing{File: t.File}, opt: opt, topologyOnly: true}
	b.passWarnings()
	for _, step := range []func() error{b.index, b.topologyLIDs} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	b.tables = make([]int, len(t.Nodes))
	for i := range b.tables {
		b.tables[i] = -1
	}
	return b.build()
}

// ibBuild is the state of one Build.
type ibBuild struct {
	t   *Topology
	rt  *Routing
	opt Options

	byGUID   map[uint64]int // node GUID → topology node
	owners   []ibOwner      // every port that owns LIDs
	portOf   map[uint64]int // port GUID → owner
	ownerOf  [][]int32      // topology node → port number → owner+1 (0 none)
	lidOwner []int32        // LID → owner+1 (0 none)
	tables   []int          // topology node → index in rt.Switches, or -1
	inferLMC bool           // LMCs unknown: infer them from routed LIDs
	noLID    int            // CA ports without a LID

	topologyOnly bool // BuildTopology: no tables, no routes

}

// ibOwner is a port that owns LIDs: a switch's port 0, or a connected CA or
// router port.
type ibOwner struct {
	node, port int
	guid       uint64
	base       int // 0: unknown yet
	lmc        int
	lmcKnown   bool
	line       int // line in the topology
	labLo      int // lowest and highest LID the dump's labels give it
	labHi      int
}

func (b *ibBuild) warn(format string, args ...any) {
	if b.opt.Warn != nil {
		b.opt.Warn(fmt.Sprintf(format, args...))
	}
}

// passWarnings hands the readers' warnings to Options.Warn.
func (b *ibBuild) passWarnings() {
	for _, w := range b.t.Warnings {
		b.warn("%s", w)
	}
	for _, w := range b.rt.Warnings {
		b.warn("%s", w)
	}
}

// ownerFile is the file that holds owner o's record.
func (b *ibBuild) ownerFile(o int) string { return b.t.fileOf(&b.t.Nodes[b.owners[o].node]) }

// who names an owner for messages.
func (b *ibBuild) who(o int) string {
	ow := &b.owners[o]
	n := &b.t.Nodes[ow.node]
	desc := n.Desc
	if desc == "" {
		desc = n.ID
	}
	if ow.port == 0 {
		return fmt.Sprintf("switch %q (0x%016x)", desc, n.GUID)
	}
	return fmt.Sprintf("%s %q (0x%016x) port %d", kindWord(n.Kind), desc, n.GUID, ow.port)
}

func kindWord(k lft.NodeKind) string {
	if k == lft.Host {
		return "CA"
	}
	return k.String()
}

func (b *ibBuild) nodeWho(i int) string {
	n := &b.t.Nodes[i]
	desc := n.Desc
	if desc == "" {
		desc = n.ID
	}
	return fmt.Sprintf("%s %q (0x%016x)", kindWord(n.Kind), desc, n.GUID)
}

// index checks the topology's structure and lists the LID owners.
func (b *ibBuild) index() error {
	t := b.t
	if len(t.Nodes) == 0 {
		return infile.Errorf(t.File, 0, "no nodes")
	}
	b.byGUID = make(map[uint64]int, len(t.Nodes))
	b.ownerOf = make([][]int32, len(t.Nodes))
	owners := 0 // switches own their port 0, hosts each port
	for i := range t.Nodes {
		if t.Nodes[i].Kind == lft.Switch {
			owners++
		} else {
			owners += len(t.Nodes[i].Ports)
		}
	}
	b.owners = make([]ibOwner, 0, owners)
	b.portOf = make(map[uint64]int, owners)
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if n.NPorts < 1 || n.NPorts > MaxPorts {
			return infile.Errorf(t.fileOf(n), n.Line, "%s has %d ports", b.nodeWho(i), n.NPorts)
		}
		if j, dup := b.byGUID[n.GUID]; dup {
			return infile.Errorf(t.fileOf(n), n.Line, "node GUID 0x%016x also belongs to the node at line %d", n.GUID, t.Nodes[j].Line)
		}
		b.byGUID[n.GUID] = i
		b.ownerOf[i] = make([]int32, n.NPorts+1)
		for j := range n.Ports {
			p := &n.Ports[j]
			if p.Num < 1 || p.Num > n.NPorts || j > 0 && n.Ports[j-1].Num >= p.Num {
				return infile.Errorf(t.fileOf(n), p.Line, "%s: bad or unsorted port %d", b.nodeWho(i), p.Num)
			}
			if p.Peer < 0 || p.Peer >= len(t.Nodes) {
				return infile.Errorf(t.fileOf(n), p.Line, "%s port %d: no node at the other end", b.nodeWho(i), p.Num)
			}
			back := t.Nodes[p.Peer].Port(p.PeerPort)
			if back == nil || back.Peer != i || back.PeerPort != p.Num {
				return infile.Errorf(t.fileOf(n), p.Line, "%s port %d connects to port %d of %s, which does not connect back", b.nodeWho(i), p.Num, p.PeerPort, b.nodeWho(p.Peer))
			}
		}
		add := func(port int, p *TopoPort) error {
			if p.LMC > 7 {
				return infile.Errorf(t.fileOf(n), max(p.Line, n.Line), "%s port %d: LMC %d out of range 0-7", b.nodeWho(i), port, p.LMC)
			}
			o := len(b.owners)
			b.owners = append(b.owners, ibOwner{node: i, port: port, guid: p.GUID, base: int(p.LID),
				lmc: int(p.LMC), lmcKnown: p.LMCKnown, line: p.Line})
			if p.Line == 0 {
				b.owners[o].line = n.Line
			}
			b.ownerOf[i][port] = int32(o + 1)
			if p.GUID != 0 {
				if prev, dup := b.portOf[p.GUID]; dup {
					return infile.Errorf(b.ownerFile(o), b.owners[o].line, "port GUID 0x%016x of %s is also that of %s (line %d)", p.GUID, b.who(o), b.who(prev), b.owners[prev].line)
				}
				b.portOf[p.GUID] = o
			}
			return nil
		}
		if n.Kind == lft.Switch {
			if err := add(0, &n.Port0); err != nil {
				return err
			}
			continue
		}
		for j := range n.Ports {
			if err := add(n.Ports[j].Num, &n.Ports[j]); err != nil {
				return err
			}
		}
	}
	return nil
}

// topologyLIDs gives the LIDs of the topology to their owners.
func (b *ibBuild) topologyLIDs() error {
	b.lidOwner = make([]int32, 1<<16)
	for o := range b.owners {
		ow := &b.owners[o]
		if !ow.lmcKnown {
			b.inferLMC = true
		}
		if ow.base == 0 {
			continue
		}
		if err := b.claim(o, ow.base, ow.base+1<<ow.lmc-1); err != nil {
			return err
		}
	}
	return nil
}

// claim gives LIDs lo…hi to owner o.
func (b *ibBuild) claim(o, lo, hi int) error {
	if hi > maxUnicastLID {
		return infile.Errorf(b.ownerFile(o), b.owners[o].line, "%s: LIDs %d-%d go beyond the last unicast LID", b.who(o), lo, hi)
	}
	for lid := lo; lid <= hi; lid++ {
		if prev := int(b.lidOwner[lid]) - 1; prev >= 0 && prev != o {
			return infile.Errorf(b.ownerFile(o), b.owners[o].line, "duplicate LID %d: %s and %s (line %d) both have it", lid, b.who(o), b.who(prev), b.owners[prev].line).With(ErrDuplicateLID)
		}
		b.lidOwner[lid] = int32(o + 1)
	}
	return nil
}

// labelLIDs checks the dump's labels (LID → port GUID) against the
// topology and takes the LIDs the topology does not give.
func (b *ibBuild) labelLIDs() error {
	rt := b.rt
	for lid := 1; lid < len(rt.labels); lid++ {
		lab := rt.labels[lid]
		if lab.guid == 0 {
			continue
		}
		o, ok := b.portOf[lab.guid]
		if !ok {
			return infile.Errorf(rt.File, int(lab.line), "LID 0x%04x belongs to port GUID 0x%016x, which is not in %s: the files do not describe the same fabric", lid, lab.guid, b.t.File).With(ErrMismatch)
		}
		ow := &b.owners[o]
		if k := b.t.Nodes[ow.node].Kind; lab.kind <= lft.Router && lab.kind != k {
			return infile.Errorf(rt.File, int(lab.line), "LID 0x%04x: the dump calls port GUID 0x%016x a %s, %s says %s", lid, lab.guid, kindWord(lab.kind), b.t.File, b.who(o))
		}
		switch cur := int(b.lidOwner[lid]) - 1; {
		case cur == o:
		case cur >= 0:
			return infile.Errorf(rt.File, int(lab.line), "LID 0x%04x is port GUID 0x%016x (%s) here but %s in %s (line %d)", lid, lab.guid, b.who(o), b.who(cur), b.t.File, b.owners[cur].line)
		case ow.base != 0 && ow.lmcKnown:
			return infile.Errorf(rt.File, int(lab.line), "LID 0x%04x is given to %s, whose LIDs are %d-%d in %s", lid, b.who(o), ow.base, ow.base+1<<ow.lmc-1, b.t.File)
		case ow.base != 0 && lid < ow.base:
			return infile.Errorf(rt.File, int(lab.line), "LID 0x%04x is given to %s, whose base LID is %d in %s", lid, b.who(o), ow.base, b.t.File)
		default:
			b.lidOwner[lid] = int32(o + 1)
		}
		if ow.labLo == 0 || lid < ow.labLo {
			ow.labLo = lid
		}
		ow.labHi = max(ow.labHi, lid)
	}
	// Owners the topology gives no LID (or no LMC) take the labels' range.
	for o := range b.owners {
		ow := &b.owners[o]
		if ow.labLo == 0 {
			continue
		}
		if ow.base == 0 {
			ow.base = ow.labLo
		}
		if !ow.lmcKnown {
			ow.lmc = max(ow.lmc, bits.Len(uint(ow.labHi-ow.base)))
			if ow.lmc > 7 {
				_, line := b.rt.LIDLabel(ow.labHi)
				return infile.Errorf(b.rt.File, line, "LID 0x%04x is given to %s, whose base LID is %d: a port owns at most 128 LIDs (LMC 7)", ow.labHi, b.who(o), ow.base)
			}
		}
	}
	return nil
}

// matchTables pairs every table of the dump with a switch of the topology.
func (b *ibBuild) matchTables() error {
	t, rt := b.t, b.rt
	b.tables = make([]int, len(t.Nodes))
	for i := range b.tables {
		b.tables[i] = -1
	}
	for k := range rt.Switches {
		lt := &rt.Switches[k]
		i, ok := b.byGUID[lt.GUID]
		if !ok {
			desc := ""
			if lt.Desc != "" {
				desc = fmt.Sprintf(" (%q)", lt.Desc)
			}
			return infile.Errorf(rt.File, lt.Line, "switch 0x%016x%s is not in %s: the files do not describe the same fabric", lt.GUID, desc, t.File).With(ErrMismatch)
		}
		n := &t.Nodes[i]
		if n.Kind == lft.Host {
			return infile.Errorf(rt.File, lt.Line, "table for 0x%016x, which is a CA in %s (line %d)", lt.GUID, t.File, n.Line)
		}
		if prev := b.tables[i]; prev >= 0 {
			return infile.Errorf(rt.File, lt.Line, "second table for switch 0x%016x (first at line %d)", lt.GUID, rt.Switches[prev].Line)
		}
		b.tables[i] = k
		if lt.LID != 0 && n.Kind == lft.Switch {
			o := int(b.ownerOf[i][0]) - 1
			ow := &b.owners[o]
			switch {
			case ow.base == 0:
				if cur := int(b.lidOwner[lt.LID]) - 1; cur >= 0 && cur != o {
					return infile.Errorf(rt.File, lt.Line, "the header gives switch 0x%016x LID %d, which is %s's in %s (line %d)", lt.GUID, lt.LID, b.who(cur), t.File, b.owners[cur].line)
				}
				ow.base = int(lt.LID)
				b.lidOwner[lt.LID] = int32(o + 1)
			case int(lt.LID) < ow.base || int(lt.LID) >= ow.base+1<<ow.lmc:
				return infile.Errorf(rt.File, lt.Line, "the header gives switch 0x%016x LID %d, %s says %d (line %d)", lt.GUID, lt.LID, t.File, ow.base, ow.line)
			}
		}
	}
	for i := range t.Nodes {
		if t.Nodes[i].Kind == lft.Switch && b.tables[i] < 0 {
			return infile.Errorf(rt.File, 0, "%s (%s:%d) has no table in the dump: the files do not describe the same fabric, or the dump is incomplete",
				b.nodeWho(i), t.fileOf(&t.Nodes[i]), t.Nodes[i].Line).With(ErrMismatch)
		}
	}
	return nil
}

// entryLIDs checks that every routed LID belongs to a port, inferring LMC
// ranges when the topology gives none and the dump names no ports.
func (b *ibBuild) entryLIDs() error {
	var bases []int // owners with a base LID, by base (built on first need)
	var err error
	// Blocks of 64 LIDs that all belong to ports: a table's entries there
	// need no look. LIDs only gain owners below.
	owned := make([]bool, len(b.lidOwner)>>lidBlockBits)
	for i := range owned {
		owned[i] = !slices.Contains(b.lidOwner[i<<lidBlockBits:(i+1)<<lidBlockBits], 0)
	}
	for k := range b.rt.Switches {
		lt := &b.rt.Switches[k]
		if lt.packed != nil && b.allOwned(lt.packed, owned) {
			continue
		}
		lt.Each(func(e LFTEntry) bool {
			if b.lidOwner[e.LID] != 0 {
				return true
			}
			if b.inferLMC {
				if bases == nil {
					for o := range b.owners {
						if b.owners[o].base != 0 {
							bases = append(bases, o)
						}
					}
					sort.Slice(bases, func(i, j int) bool { return b.owners[bases[i]].base < b.owners[bases[j]].base })
				}
				if o := b.inferOwner(bases, int(e.LID)); o >= 0 {
					return true
				}
			}
			err = infile.Errorf(b.rt.File, int(e.Line), "LID 0x%04x is not in %s: no port has it", e.LID, b.t.File)
			return false
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// allOwned reports whether every LID with an entry in a packed table
// belongs to a port; owned says which blocks of 64 LIDs do all through.
func (b *ibBuild) allOwned(t *packedLFT, owned []bool) bool {
	ok := true
	t.eachBlock(func(base int, ports []uint8) bool {
		if len(ports) == lidBlockLen && owned[base>>lidBlockBits] {
			return true
		}
		for i, p := range ports {
			if p != noPort && b.lidOwner[base+i] == 0 {
				ok = false
				return false
			}
		}
		return true
	})
	return ok
}

// inferOwner gives lid to the port with the largest base LID below it when
// that port's LMC is unknown and an aligned LMC range of it covers lid.
// It returns the owner, or -1.
func (b *ibBuild) inferOwner(bases []int, lid int) int {
	i := sort.Search(len(bases), func(i int) bool { return b.owners[bases[i]].base > lid }) - 1
	if i < 0 {
		return -1
	}
	o := bases[i]
	ow := &b.owners[o]
	d := lid - ow.base
	lmc := bits.Len(uint(d))
	if ow.lmcKnown || lmc > 7 || ow.base&(1<<lmc-1) != 0 {
		return -1
	}
	for l := ow.base + 1<<ow.lmc; l < ow.base+1<<lmc; l++ {
		if b.lidOwner[l] != 0 {
			return -1
		}
	}
	for l := ow.base; l < ow.base+1<<lmc; l++ {
		b.lidOwner[l] = int32(o + 1)
	}
	ow.lmc = max(ow.lmc, lmc)
	return o
}

// finishLIDs checks that hosts have LIDs.
func (b *ibBuild) finishLIDs() error {
	with, without := 0, 0
	for o := range b.owners {
		if n := &b.t.Nodes[b.owners[o].node]; n.Kind == lft.Host && !IsAggregationNode(n) {
			if b.owners[o].base != 0 {
				with++
			} else {
				without++
			}
		}
	}
	b.noLID = without
	if with == 0 && without > 0 {
		return fmt.Errorf("%s and %s give no CA port a LID: pair a dump that names ports (opensm-lfts.dump, dump_fts) with this topology, or a topology with LIDs (ibnetdiscover, subnet list) with this dump",
			b.t.File, b.rt.File)
	}
	shown := 0
	for o := range b.owners {
		ow := &b.owners[o]
		if n := &b.t.Nodes[ow.node]; n.Kind == lft.Host && !IsAggregationNode(n) && ow.base == 0 {
			if shown++; shown <= 3 {
				b.warn("%s has no LID in %s or %s: no switch routes to it", b.who(o), b.t.File, b.rt.File)
			}
		}
	}
	if without > 3 {
		b.warn("%d more CA ports have no LID", without-3)
	}
	return nil
}

// ibNode is a fabric node to be: a topology node and, for a host, its CA
// port, with the LID owner of that port (-1: none).
type ibNode struct {
	topo, port int
	owner      int
}

// build assembles the fabric: its nodes (hosts, then switches and
// routers), their names, the cables, and unless only the topology is
// wanted the forwarding tables.
func (b *ibBuild) build() (*lft.Fabric, error) {
	t := b.t
	hosts, switches, err := b.fabricNodes()
	if err != nil {
		return nil, err
	}
	all := append(append(make([]ibNode, 0, len(hosts)+len(switches)), hosts...), switches...)
	names := b.nodeNames(all)
	bld := lft.NewBuilder()
	cableEnds := 0 // an upper bound of the links: every port of a node
	for _, n := range all {
		cableEnds += len(t.Nodes[n.topo].Ports)
	}
	bld.Reserve(len(all), cableEnds)
	fabricOf, err := b.addNodes(bld, all, names)
	if err != nil {
		return nil, err
	}
	outLink, hostLink := b.addLinks(bld, all, fabricOf, len(hosts))
	for h := range hosts {
		bld.Route(hostLink[h], lft.AnyDest)
	}
	if !b.topologyOnly {
		if err := b.addTables(bld, hosts, switches, outLink); err != nil {
			return nil, err
		}
	}
	f, err := bld.Build()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.File, err)
	}
	return f, nil
}

// fabricNodes lists the fabric's nodes to be: hosts (CA ports, SHARP
// aggregation nodes left out unless asked for) by node GUID and port, and
// switches and routers by node GUID.
func (b *ibBuild) fabricNodes() (hosts, switches []ibNode, err error) {
	t := b.t
	left := 0 // aggregation nodes left out
	for i := range t.Nodes {
		n := &t.Nodes[i]
		switch n.Kind {
		case lft.Host:
			if IsAggregationNode(n) && !b.opt.IncludeAggregationNodes {
				left++
				continue
			}
			for _, p := range n.Ports {
				hosts = append(hosts, ibNode{i, p.Num, int(b.ownerOf[i][p.Num]) - 1})
			}
		case lft.Switch:
			switches = append(switches, ibNode{i, 0, int(b.ownerOf[i][0]) - 1})
		default:
			o := -1
			if len(n.Ports) > 0 {
				o = int(b.ownerOf[i][n.Ports[0].Num]) - 1
			}
			switches = append(switches, ibNode{i, 0, o})
		}
	}
	if left > 0 {
		b.warn("%s: left out %d SHARP aggregation nodes (CAs described %q, inside switches): they are no compute hosts; --include-aggregation-nodes keeps them",
			t.File, left, "Mellanox Technologies Aggregation Node")
	}
	if len(hosts) == 0 {
		return nil, nil, infile.Errorf(t.File, 0, "no connected CA ports: the fabric has no hosts")
	}
	sort.Slice(hosts, func(i, j int) bool {
		a, c := t.Nodes[hosts[i].topo].GUID, t.Nodes[hosts[j].topo].GUID
		return a < c || a == c && hosts[i].port < hosts[j].port
	})
	sort.Slice(switches, func(i, j int) bool { return t.Nodes[switches[i].topo].GUID < t.Nodes[switches[j].topo].GUID })
	return hosts, switches, nil
}

// nodeNames names the fabric nodes all as the names option asks.
func (b *ibBuild) nodeNames(all []ibNode) []string {
	t := b.t
	named := make([]ibNamed, len(all))
	for i, fn := range all {
		n := &t.Nodes[fn.topo]
		named[i] = ibNamed{kind: n.Kind, guid: n.GUID, desc: n.Desc}
		if n.Kind == lft.Host && len(n.Ports) > 1 {
			named[i].port = fn.port
		}
	}
	return ibNames(named, b.opt.Names)

}

// addNodes adds the nodes all to bld and returns the fabric node of every
// (topology node, port): hosts per CA port, switches and routers for all
// their ports, -1 for a node left out.
func (b *ibBuild) addNodes(bld *lft.Builder, all []ibNode, names []string) ([][]int32, error) {
	t := b.t
	fabricOf := make([][]int32, len(t.Nodes)) // -1: a node left out
	for i := range fabricOf {
		fabricOf[i] = make([]int32, t.Nodes[i].NPorts+1)
		for p := range fabricOf[i] {
			fabricOf[i][p] = -1
		}
	}
	for i, fn := range all {
		n := &t.Nodes[fn.topo]
		id := bld.Node(names[i], n.Kind)
		if int(id) != i {
			return nil, infile.Errorf(t.File, 0, "node name %q used twice", names[i])
		}
		bld.SetNodeInfo(id, n.GUID, n.Desc)
		if fn.owner >= 0 {
			ow := &b.owners[fn.owner]
			bld.SetPortInfo(id, int32(fn.port), ow.guid, uint16(ow.base), uint8(ow.lmc))
		}
		if n.Kind == lft.Host {
			fabricOf[fn.topo][fn.port] = id
		} else {
			for p := range fabricOf[fn.topo] {
				fabricOf[fn.topo][p] = id
			}
		}
	}
	return fabricOf, nil
}

// addLinks adds every node's connected ports in ascending order and
// returns the link of every switch and router port (-1: none) and of every
// one of the H hosts.
func (b *ibBuild) addLinks(bld *lft.Builder, all []ibNode, fabricOf [][]int32, H int) (outLink [][]int32, hostLink []int32) {
	t := b.t
	outLink = make([][]int32, len(t.Nodes)) // switch/router: port → link
	hostLink = make([]int32, H)
	for i, fn := range all {
		n := &t.Nodes[fn.topo]
		if n.Kind != lft.Host {
			outLink[fn.topo] = make([]int32, n.NPorts+1)
			for p := range outLink[fn.topo] {
				outLink[fn.topo][p] = -1
			}
		}
		for _, p := range n.Ports {
			if n.Kind == lft.Host && p.Num != fn.port {
				continue
			}
			to := fabricOf[p.Peer][p.PeerPort]
			if to < 0 {
				continue // the cable to an aggregation node left out
			}
			l := bld.Link(int32(i), to, p.Num, p.PeerPort)
			if n.Kind == lft.Host {
				hostLink[i] = l
			} else {
				outLink[fn.topo][p.Num] = l
			}
		}
	}
	return outLink, hostLink
}

// addTables adds the forwarding tables of the switches to bld: a route to
// every host's base LID and, with LMC spread, its other LIDs.
func (b *ibBuild) addTables(bld *lft.Builder, hosts, switches []ibNode, outLink [][]int32) error {
	t := b.t
	H := len(hosts)
	// Destination LIDs: base LIDs, and with LMC spread every offset.
	base := make([]int, H)
	mask := make([]int32, H)
	K := 1
	for h, fn := range hosts {
		if fn.owner >= 0 {
			ow := &b.owners[fn.owner]
			base[h] = ow.base
			if b.opt.LMCSpread && ow.base != 0 {
				mask[h] = int32(1<<ow.lmc - 1)
				K = max(K, 1<<ow.lmc)
			}
		}
	}
	var spread [][]int32
	if K > 1 {
		if size := int64(K-1) * int64(len(switches)) * int64(H) * 4; size > 2<<30 {
			return fmt.Errorf("LMC spread over %d LIDs per port needs %d MiB of tables: too large", K, size>>20)
		}
		spread = make([][]int32, K)
		for k := 1; k < K; k++ {
			spread[k] = make([]int32, len(switches)*H)
		}
	}
	hostLID := make([]bool, 1<<16) // LIDs that some host (not an aggregation node) needs
	for h, fn := range hosts {
		if base[h] != 0 && !IsAggregationNode(&t.Nodes[fn.topo]) {
			for k := 0; k <= int(mask[h]); k++ {
				hostLID[base[h]+k] = true
			}
		}
	}
	clean := b.cleanTables(switches, outLink, hostLID)
	for s, fn := range switches {
		k := b.tables[fn.topo]
		if k < 0 {
			continue // a router without a table: it forwards nothing
		}
		lt := &b.rt.Switches[k]
		if err := b.checkTable(lt, fn.topo, outLink[fn.topo], hostLID, clean[s]); err != nil {
			return err
		}
		links := newLIDLinks(lt.lidPorts(), t.Nodes[fn.topo].NPorts, outLink[fn.topo])
		// The row is filled while the builder compiles the tables, on
		// all cores: it reads the table's blocks, read-only.
		bld.RouteRow(int32(H+s), func(row []int32) { links.fill(row, base) })
		if spread != nil {
			row := s * H
			for h := 0; h < H; h++ {
				for k := 1; k < K; k++ {
					l := int32(-1)
					if base[h] != 0 {
						l = links.of(base[h] + k&int(mask[h]))
					}
					spread[k][row+h] = l
				}
			}
		}
	}
	if spread != nil {
		bld.SetLMCSpread(mask, spread)
	}
	return nil
}

// lidLinks gives the link that a switch's table sends a LID on, from the
// table's out ports by LID (noPort: no entry) and the links of the
// switch's ports: -1 for a LID without an entry, out port 0 (the switch
// itself) or a port without a cable.
type lidLinks struct {
	ports *portBlocks
	link  [256]int32 // by out port
}

// newLIDLinks returns the LID → link map of a table with out ports by
// LID, of a switch with nports ports linked as outLink says (-1: no cable).
func newLIDLinks(ports *portBlocks, nports int, outLink []int32) *lidLinks {
	l := &lidLinks{ports: ports}
	for p := range l.link {
		l.link[p] = -1
		if p >= 1 && p <= nports && p != noPort {
			l.link[p] = outLink[p]
		}
	}
	return l
}

// of returns the link the table sends lid on, or -1.
func (l *lidLinks) of(lid int) int32 { return l.link[l.ports.at(lid)] }

// fill sets row[h] to the link of LID base[h] for every host with a LID:
// a run of hosts with consecutive LIDs is read from a block at a time.
func (l *lidLinks) fill(row []int32, base []int) {
	ports := l.ports
	for h := 0; h < len(base); {
		lid := base[h]
		if lid <= 0 || lid >= ports.size {
			if lid != 0 {
				row[h] = l.of(lid)
			}
			h++
			continue
		}
		blk := ports.block(lid >> lidBlockBits)
		for o := lid & (lidBlockLen - 1); o < lidBlockLen && h < len(base) && base[h] == lid && lid < ports.size; o++ {
			row[h] = l.link[blk[o]]
			h++
			lid++
		}
	}
}

// checkTable validates one switch's table against the topology: out ports
// in range, port 0 only for the switch's own LIDs, and a cable behind every
// port that a host's LID leaves on. It also reports a dump_fts table whose
// top LID infiniband-diags dropped. A clean table (see cleanTables) has
// had its entries checked already.
func (b *ibBuild) checkTable(lt *LFT, node int, outLink []int32, hostLID []bool, clean bool) error {
	self := b.selfOwner(node)
	hasTop := false
	var err error
	if clean {
		hasTop = lt.Top >= 0 && lt.packed.port(lt.Top) != noPort
	} else {
		lt.Each(func(e LFTEntry) bool {
			if int(e.LID) == lt.Top {
				hasTop = true
			}
			err = b.entryErr(e, node, self, outLink, hostLID)
			return err == nil
		})
	}
	if err != nil {
		return err
	}
	return b.checkTop(lt, node, hasTop, hostLID)
}

// selfOwner is the LID owner (+1) of switch node's port 0, 0 for a router.
func (b *ibBuild) selfOwner(node int) int32 {
	if b.t.Nodes[node].Kind == lft.Switch {
		return b.ownerOf[node][0]
	}
	return 0
}

// cleanTables tells, for every switch of switches, whether its table is
// packed and passes checkTable's checks of its entries, looking at its
// bytes only, on all cores; checkTable goes through the entries of the
// others (to name the line of the first bad one).
func (b *ibBuild) cleanTables(switches []ibNode, outLink [][]int32, hostLID []bool) []bool {
	clean := make([]bool, len(switches))
	workers.Run(nil, runtime.GOMAXPROCS(0), len(switches), func(_, s int) error {
		node := switches[s].topo
		if k := b.tables[node]; k >= 0 && b.rt.Switches[k].packed != nil {
			clean[s] = b.packedOK(b.rt.Switches[k].packed, node, outLink[node], hostLID)
		}
		return nil
	})
	return clean
}

// packedOK reports whether every entry of a packed table passes entryErr.
//
// A block of the table whose every port leads to a cable passes whatever
// its LIDs: only the blocks with port 0, a port out of range or a port
// without a cable are gone through LID by LID (a fat tree's table has a
// few dozen distinct blocks and hundreds of block numbers).
func (b *ibBuild) packedOK(t *packedLFT, node int, outLink []int32, hostLID []bool) bool {
	nports, self := b.t.Nodes[node].NPorts, b.selfOwner(node)
	var plain []bool // by distinct block
	if t.ports == nil {
		plain = make([]bool, len(t.blocks)>>lidBlockBits)
		for k := range plain {
			plain[k] = !slices.ContainsFunc(t.blocks[k<<lidBlockBits:(k+1)<<lidBlockBits], func(p uint8) bool {
				return p != noPort && (p == 0 || int(p) > nports || outLink[p] < 0)
			})
		}
	}
	ok := true
	t.eachBlock(func(base int, ports []uint8) bool {
		if plain != nil && plain[t.idx[base>>lidBlockBits]] {
			return true
		}
		for i, p := range ports {
			lid := base + i
			switch o := b.lidOwner[lid]; {
			case p == noPort:
			case int(p) > nports:
				ok = false
			case p == 0:
				ok = o == self && o != 0
			case outLink[p] < 0 && hostLID[lid] && o != 0:
				ok = false
			}
			if !ok {
				return false
			}
		}
		return true
	})
	return ok
}

// entryErr checks entry e of the table of switch node (self: the owner
// of its port 0, +1) and returns the error of a bad one.
func (b *ibBuild) entryErr(e LFTEntry, node int, self int32, outLink []int32, hostLID []bool) error {
	n, rt := &b.t.Nodes[node], b.rt
	switch {
	case int(e.Port) > n.NPorts:
		return infile.Errorf(rt.File, int(e.Line), "LID 0x%04x: out port %d out of range: %s has ports 1-%d", e.LID, e.Port, b.nodeWho(node), n.NPorts)
	case e.Port == 0:
		if o := b.lidOwner[e.LID]; o != self || o == 0 {
			owner := "no port"
			if o != 0 {
				owner = b.who(int(o) - 1)
			}
			return infile.Errorf(rt.File, int(e.Line), "LID 0x%04x: out port 0 (the switch itself) in the table of %s, but the LID is %s's", e.LID, b.nodeWho(node), owner)
		}
	case outLink[e.Port] < 0 && hostLID[e.LID] && b.lidOwner[e.LID] != 0:
		return infile.Errorf(rt.File, int(e.Line), "LID 0x%04x (%s): out port %d of %s has no cable in %s", e.LID, b.who(int(b.lidOwner[e.LID])-1), e.Port, b.nodeWho(node), b.t.File)
	}
	return nil
}

// checkTop reports a dump_fts table whose top LID infiniband-diags
// dropped: an error when a host has that LID, else a warning.
func (b *ibBuild) checkTop(lt *LFT, node int, hasTop bool, hostLID []bool) error {
	rt := b.rt
	if lt.readBack && lt.Top > 0 && lt.Top%64 == 0 && !hasTop {
		owner := "a LID of no known port"
		o := int(b.lidOwner[lt.Top]) - 1
		if o >= 0 {
			owner = b.who(o)
		}
		msg := fmt.Sprintf("%s:%d: the table of %s has no entry for LID 0x%04x (%s), the top of its range [0x0-0x%x]: dump_fts and ibroute of infiniband-diags drop the last LID when the top is a multiple of 64; use opensm-lfts.dump",
			rt.File, lt.Line, b.nodeWho(node), lt.Top, owner, lt.Top)
		if hostLID[lt.Top] || o < 0 && b.noLID > 0 {
			return fmt.Errorf("%s", msg)
		}
		b.warn("%s", msg)
	}
	return nil
}

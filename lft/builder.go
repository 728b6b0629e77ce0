package lft

import (
	"fmt"
	"runtime"
	"slices"

	"orcs/internal/workers"
)

// DestID names a routing destination inside a Builder. Destinations are
// names that need not be nodes yet (a dot comment may name a host before
// the host's own edges appear).
type DestID int32

// AnyDest is the wildcard destination: the dot comment "*".
const AnyDest DestID = -1

// Builder assembles a Fabric from nodes, links and routing entries. Routing
// entries follow the ORCS rule: for a node and a destination, the first entry
// added (in order) wins, and AnyDest matches every destination.
type Builder struct {
	nodes  []Node
	links  []Link
	byName map[string]int32
	// destination names; destNode[d] is the node id of destination d once
	// that name is a node, else -1.
	destNames []string
	destNode  []int32
	destByKey map[string]DestID
	routes    []route
	lists     [][]byte // ORCS comment lists, tokenised at Build

	spreadMask   []int32   // see SetLMCSpread
	spreadTables [][]int32 // see SetLMCSpread

	stream *listStream // see RouteListAt

	rows []rowFill // see RouteRow
}

// rowFill is a switch routed by a function of the destination (RouteRow).
type rowFill struct {
	node int32
	fill func(row []int32)
}

type route struct {
	link int32
	dest DestID // ≥ 0 a destination, AnyDest, or listRef(i): lists[i]
}

// listRef encodes an index into Builder.lists as a route destination.
func listRef(i int) DestID { return DestID(-2 - i) }

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{byName: map[string]int32{}, destByKey: map[string]DestID{}}
}

// Node returns the id of the node named name, adding it with the given kind
// if it is new. Nodes get ids in the order they are first added.
func (b *Builder) Node(name string, kind NodeKind) int32 {
	if id, ok := b.byName[name]; ok {
		return id
	}
	id := int32(len(b.nodes))
	b.nodes = append(b.nodes, Node{Name: name, Kind: kind})
	b.byName[name] = id
	return id
}

// NodeBytes is Node for a name held in a byte slice; it does not allocate
// when the node exists already.
func (b *Builder) NodeBytes(name []byte, kind NodeKind) int32 {
	if id, ok := b.byName[string(name)]; ok {
		return id
	}
	return b.Node(string(name), kind)
}

// SetNodeInfo records the GUID and description of node id.
func (b *Builder) SetNodeInfo(id int32, guid uint64, desc string) {
	b.nodes[id].GUID = guid
	b.nodes[id].Desc = desc
}

// SetDesc records the description of node id (a dot file's node label).
func (b *Builder) SetDesc(id int32, desc string) { b.nodes[id].Desc = desc }

// SetPortInfo records the InfiniBand port that node id stands for: its
// port number (for a host: the CA port), port GUID, base LID and LMC.
func (b *Builder) SetPortInfo(id int32, port int32, portGUID uint64, lid uint16, lmc uint8) {
	n := &b.nodes[id]
	n.Port, n.PortGUID, n.LID, n.LMC = port, portGUID, lid, lmc
}

// NumNodes returns how many nodes were added so far.
func (b *Builder) NumNodes() int { return len(b.nodes) }

// NodeName returns the name of node id.
func (b *Builder) NodeName(id int32) string { return b.nodes[id].Name }

// NumLinks returns how many links were added so far.
func (b *Builder) NumLinks() int { return len(b.links) }

// LinkAt returns link id as added.
func (b *Builder) LinkAt(id int32) Link { return b.links[id] }

// Link adds a directed link and returns its id. Links get ids in order.
func (b *Builder) Link(from, to int32, fromPort, toPort int) int32 {
	id := int32(len(b.links))
	b.links = append(b.links, Link{From: from, To: to, FromPort: int32(fromPort), ToPort: int32(toPort)})
	return id
}

// Dest returns the destination id for a name.
func (b *Builder) Dest(name string) DestID {
	if d, ok := b.destByKey[name]; ok {
		return d
	}
	return b.newDest(name)
}

// DestBytes is Dest for a name held in a byte slice; it does not allocate
// when the destination is known already.
func (b *Builder) DestBytes(name []byte) DestID {
	if d, ok := b.destByKey[string(name)]; ok {
		return d
	}
	return b.newDest(string(name))
}

func (b *Builder) newDest(name string) DestID {
	d := DestID(len(b.destNames))
	b.destNames = append(b.destNames, name)
	b.destByKey[name] = d
	return d
}

// Route says that traffic for dest may leave on link (AnyDest: for every
// destination). Earlier entries of the same node take precedence.
func (b *Builder) Route(link int32, dest DestID) {
	b.routes = append(b.routes, route{link, dest})
}

// Reserve makes room for nodes more nodes and links more links, for a
// caller that knows its fabric's size: a node list, name map and link list
// grown by appends leave as much garbage as they hold at the end, at the
// time the rest of a large fabric's load is alive.
func (b *Builder) Reserve(nodes, links int) {
	if nodes > 0 {
		b.nodes = append(make([]Node, 0, len(b.nodes)+nodes), b.nodes...)
		if len(b.byName) == 0 {
			b.byName = make(map[string]int32, nodes)
		}
	}
	if links > 0 {
		b.links = append(make([]Link, 0, len(b.links)+links), b.links...)
	}
}

// Grow reserves room for n more routing entries (Route calls), so that
// generators that know their table size avoid repeated growth.
func (b *Builder) Grow(n int) {
	if n > 0 {
		b.routes = append(make([]route, 0, len(b.routes)+n), b.routes...)
	}
}

// RouteList routes every destination named in an ORCS comment list over
// link: "*" alone matches every destination, otherwise names are separated
// by commas, blanks, tabs or newlines. The list is kept (not copied) until
// Build and tokenised there, straight into the tables.
func (b *Builder) RouteList(link int32, list []byte) {
	if len(list) == 1 && list[0] == '*' {
		b.Route(link, AnyDest)
		return
	}
	b.routes = append(b.routes, route{link, listRef(len(b.lists))})
	b.lists = append(b.lists, list)
}

// RouteRow routes switch (or router) node v by a function of the
// destination, for generators that know their routing as a rule: Build
// calls fill with a row of one entry per host, in host order (the i-th
// host node added is host i), every entry -1, and fill sets row[i] to the
// link v takes towards host i (it must leave v), or leaves -1 for none;
// a switch has at most one row.
// The entries that Route or RouteList give v come first; the row fills the
// rest. Build fills rows on several goroutines at once and never keeps
// them: a generator's tables take no memory before they are compiled.
func (b *Builder) RouteRow(v int32, fill func(row []int32)) {
	b.rows = append(b.rows, rowFill{v, fill})
}

// Build compiles the fabric. It fails if there are no hosts.
func (b *Builder) Build() (*Fabric, error) {
	f := &Fabric{Nodes: b.nodes, Links: b.links, names: b.byName}
	n := len(b.nodes)
	f.hostOf = make([]int32, n)
	f.switchOf = make([]int32, n)
	for v, node := range b.nodes {
		f.hostOf[v], f.switchOf[v] = -1, -1
		if node.Kind == Host {
			f.hostOf[v] = int32(len(f.hosts))
			f.hosts = append(f.hosts, int32(v))
		} else {
			f.switchOf[v] = int32(len(f.switches))
			f.switches = append(f.switches, int32(v))
		}
	}
	if len(f.hosts) == 0 {
		return nil, fmt.Errorf("fabric has no hosts (host names start with H)")
	}
	// CSR of out-links, keeping link order.
	f.outStart = make([]int32, n+1)
	for _, l := range b.links {
		f.outStart[l.From+1]++
	}
	for v := 0; v < n; v++ {
		f.outStart[v+1] += f.outStart[v]
	}
	f.outLinks = make([]int32, len(b.links))
	f.linkSlot = make([]int32, len(b.links))
	fill := make([]int32, n)
	copy(fill, f.outStart[:n])
	for id, l := range b.links {
		f.outLinks[fill[l.From]] = int32(id)
		f.linkSlot[id] = fill[l.From]
		fill[l.From]++
	}
	f.slotNext = make([]int32, len(b.links))
	for slot, id := range f.outLinks {
		to := b.links[id].To
		if h := f.hostOf[to]; h >= 0 {
			f.slotNext[slot] = ^h
		} else {
			f.slotNext[slot] = f.switchOf[to]
		}
	}
	f.swBase = make([]int32, len(f.switches))
	for s, v := range f.switches {
		f.swBase[s] = f.outStart[v]
	}
	if err := f.compileTables(b); err != nil {
		return nil, err
	}
	if b.spreadTables != nil {
		if err := f.installSpread(b.spreadMask, b.spreadTables); err != nil {
			return nil, err
		}
	}
	f.tab.compact()
	f.compileLinkTables()
	return f, nil
}

// compileTables turns the ordered routing entries into flat tables. Switch
// rows are independent, so they are filled by several goroutines, each
// taking the entries of its own switches in order.
func (f *Fabric) compileTables(b *Builder) error {
	H := len(f.hosts)
	// destination id → host index (or -1 when the name is not a host).
	destHost := make([]int32, len(b.destNames))
	for d, name := range b.destNames {
		destHost[d] = -1
		if v, ok := b.byName[name]; ok {
			destHost[d] = f.hostOf[v]
		}
	}
	// hostByName resolves a name of a comment list to a host index.
	hostByName := func(name []byte) int32 {
		if v, ok := b.byName[string(name)]; ok {
			return f.hostOf[v]
		}
		return -1
	}
	// Without routing entries of switches (and LMC spread, which writes
	// the tables after), the rows go straight into distinct blocks: no
	// table of switches × hosts entries exists at any time.
	direct := b.stream == nil && b.spreadTables == nil
	for _, r := range b.routes {
		if f.switchOf[b.links[r.link].From] >= 0 {
			direct = false
			break
		}
	}
	if direct {
		f.tab = newBlockTables(len(f.switches), H, f.maxRadix())
	} else {
		f.tab = newTables(len(f.switches), H, f.maxRadix())
	}
	threads := min(runtime.NumCPU(), max(1, len(f.switches)/8))
	// Hosts: uniform (one link for everything) unless some host routes by
	// destination; then every host gets a full row.
	const unset = -1
	uniform := make([]int32, H)
	for i := range uniform {
		uniform[i] = unset
	}
	var hostRows []int32 // allocated on first need
	hostHasEntries := make([]bool, H)

	// apply compiles the entries routes (in order); their lists are at hand.
	apply := func(routes []route) {
		// Job w fills the rows of the switches s with s % threads == w.
		workers.Run(nil, threads, threads, func(_, w int) error {
			for _, r := range routes {
				s := f.switchOf[b.links[r.link].From]
				if s < 0 || int(s)%threads != w {
					continue
				}
				row, p := f.tab.rowStart(int(s)), f.portOf(r.link)
				if t := f.tab.narrow; t != nil {
					fillRow(t[row:row+H], uint8(p), r, destHost, b.lists, hostByName)
				} else {
					fillRow(f.tab.wide[row:row+H], uint16(p), r, destHost, b.lists, hostByName)
				}
			}
			return nil
		})
		for _, r := range routes {
			h := f.hostOf[b.links[r.link].From]
			if h < 0 || uniform[h] != unset {
				continue // a switch entry, or an earlier "*" matches everything
			}
			if r.dest == AnyDest && !hostHasEntries[h] {
				uniform[h] = r.link
				continue
			}
			if hostRows == nil {
				hostRows = make([]int32, H*H)
				for i := range hostRows {
					hostRows[i] = -1
				}
			}
			hostHasEntries[h] = true
			fillRow(hostRows[int(h)*H:int(h+1)*H], r.link, r, destHost, b.lists, hostByName)
		}
	}
	if b.stream == nil {
		apply(b.routes)
	} else if err := b.stream.each(b, apply); err != nil {
		return err
	}
	if err := f.fillRows(b.rows, direct); err != nil {
		return err
	}
	if hostRows == nil {
		f.hostUniform = true
		f.hostTab = uniform
		return nil
	}
	for h := 0; h < H; h++ {
		row := hostRows[h*H : (h+1)*H]
		if uniform[h] != unset {
			for i := range row {
				row[i] = uniform[h]
			}
		}
		row[h] = -1 // a host never routes to itself: keeps tables equal after a write/read
	}
	f.hostTab = hostRows
	return nil
}

// fillRows compiles the rows of RouteRow switches, each into the entries
// of its switch that no routing entry set, several switches at once;
// direct: into the distinct blocks of tables made by newBlockTables (no
// switch has routing entries).
func (f *Fabric) fillRows(rows []rowFill, direct bool) error {
	H := len(f.hosts)
	given := make([]bool, len(f.switches))
	for _, r := range rows {
		if r.node < 0 || int(r.node) >= len(f.Nodes) || f.switchOf[r.node] < 0 {
			return fmt.Errorf("RouteRow: node %d is not a switch or router", r.node)
		}
		s := f.switchOf[r.node]
		if given[s] {
			return fmt.Errorf("RouteRow: switch %s routed by two rows", f.Nodes[r.node].Name)
		}
		given[s] = true
	}
	if direct {
		if f.tab.wide != nil {
			return fillRowBlocks[uint16](f, rows, given, &f.tab.wide)
		}
		return fillRowBlocks[uint8](f, rows, given, &f.tab.narrow)
	}
	threads := min(runtime.GOMAXPROCS(0), len(rows))
	bufs := make([][]int32, workers.Count(threads, len(rows)))
	return workers.Run(nil, threads, len(rows), func(t, j int) error {
		if bufs[t] == nil {
			bufs[t] = make([]int32, H)
		}
		row, r := bufs[t], rows[j]
		for i := range row {
			row[i] = -1
		}
		r.fill(row)
		s := f.switchOf[r.node]
		if d, err := f.setRow(s, row); err != nil {
			return fmt.Errorf("RouteRow of %s, entry towards %s: %w", f.Nodes[r.node].Name, f.HostName(d), err)
		}
		return nil
	})
}

// setRow sets the unset entries of switch index s's base row to the links
// of row (-1: none); it fails, with the host, on a link that does not
// leave s. A row's links repeat: the port of the last one is kept.
func (f *Fabric) setRow(s int32, row []int32) (int, error) {
	start := f.tab.rowStart(int(s))
	last, p := int32(-1), int32(-1)
	for d, l := range row {
		if l < 0 {
			continue
		}
		if l != last {
			var err error
			if p, err = f.switchPort(s, l); err != nil {
				return d, err
			}
			last = l
		}
		if t := f.tab.narrow; t != nil {
			if t[start+d] == noPort[uint8]() {
				t[start+d] = uint8(p)
			}
		} else if t := f.tab.wide; t[start+d] == noPort[uint16]() {
			t[start+d] = uint16(p)
		}
	}
	return 0, nil
}

// rowChunk is the number of RouteRow rows compiled at once before their
// blocks join the pool (fillRowBlocks).
const rowChunk = 64

// fillRowBlocks compiles the rows of RouteRow switches straight into the
// distinct blocks of f.tab (made by newBlockTables): chunk after chunk of
// rows, each row's entries and block hashes on several goroutines, then
// the chunk's blocks numbered in row order, so that the same rows give
// the same pool whatever the number of goroutines. pool is the pool of
// f.tab that gets the blocks. The error is that of the first failing row.
func fillRowBlocks[T portEntry](f *Fabric, rows []rowFill, given []bool, pool *[]T) error {
	H, B := len(f.hosts), f.tab.blocks
	var set blockPool[T]
	set.pool = (*pool)[:0]
	threads := min(runtime.GOMAXPROCS(0), max(1, len(rows)))
	chunk := min(len(rows), rowChunk)
	bufs := make([][]int32, workers.Count(threads, chunk))
	ents := make([]T, chunk*B<<blockBits)
	hashes := make([]uint64, chunk*B)
	for lo := 0; lo < len(rows); lo += chunk {
		hi := min(len(rows), lo+chunk)
		err := workers.Run(nil, threads, hi-lo, func(w, j int) error {
			if bufs[w] == nil {
				bufs[w] = make([]int32, H)
			}
			row, r := bufs[w], rows[lo+j]
			for i := range row {
				row[i] = -1
			}
			r.fill(row)
			out := ents[j*B<<blockBits : (j+1)*B<<blockBits]
			if d, err := rowPorts(f, f.switchOf[r.node], row, out); err != nil {
				return fmt.Errorf("RouteRow of %s, entry towards %s: %w", f.Nodes[r.node].Name, f.HostName(d), err)
			}
			for k := range B {
				hashes[j*B+k] = blockHash(out[k<<blockBits : (k+1)<<blockBits])
			}
			return nil
		})
		if err != nil {
			return err
		}
		for j := lo; j < hi; j++ {
			s := int(f.switchOf[rows[j].node])
			for k := range B {
				i := (j-lo)*B + k
				f.tab.idx[s*B+k] = set.add(ents[i<<blockBits:(i+1)<<blockBits], hashes[i])
			}
		}
	}
	// The switches without a row route nowhere.
	none := make([]T, blockLen)
	fillNoPort(none)
	h := blockHash(none)
	for s, ok := range given {
		if ok {
			continue
		}
		id := set.add(none, h)
		for k := range B {
			f.tab.idx[s*B+k] = id
		}
	}
	*pool = slices.Clip(set.pool)
	return nil
}

// rowPorts sets out (the row's blocks, whole) to the positions of the
// links of row (-1: none, no route), for switch index s; it fails, with
// the host, on a link that does not leave s.
//
// The links of a row change from host to host (a fat tree's leaf sends
// consecutive hosts up different links) but are few: a link found leaving
// s is remembered in a small table by its low bits, so that most entries
// cost a load from it instead of the loads of switchPort from the
// fabric's link arrays.
func rowPorts[T portEntry](f *Fabric, s int32, row []int32, out []T) (int, error) {
	fillNoPort(out)
	var seen [rowPortCache]struct{ link, port int32 }
	for i := range seen {
		seen[i].link = -1
	}
	for d, l := range row {
		if l < 0 {
			continue
		}
		c := &seen[l&(rowPortCache-1)]
		if c.link != l {
			p, err := f.switchPort(s, l)
			if err != nil {
				return d, err
			}
			c.link, c.port = l, p
		}
		out[d] = T(c.port)
	}
	return 0, nil
}

// rowPortCache is the size of rowPorts's table of links seen (a power of
// two).
const rowPortCache = 128

// fillRow fills the unset entries (all bits set) of a table row that route
// entry r matches with val: every entry for AnyDest, else the hosts it
// names (destHost maps destination ids to host indices, -1 for names that
// are no host).
func fillRow[T ~uint8 | ~uint16 | ~int32](row []T, val T, r route, destHost []int32, lists [][]byte, hostByName func([]byte) int32) {
	unset := ^T(0)
	switch {
	case r.dest == AnyDest:
		for i, v := range row {
			if v == unset {
				row[i] = val
			}
		}
	case r.dest >= 0:
		if h := destHost[r.dest]; h >= 0 && row[h] == unset {
			row[h] = val
		}
	default:
		forEachName(lists[-2-int(r.dest)], func(name []byte) {
			if h := hostByName(name); h >= 0 && row[h] == unset {
				row[h] = val
			}
		})
	}
}

// forEachName calls fn for every name of an ORCS comment list.
func forEachName(list []byte, fn func(name []byte)) {
	for len(list) > 0 {
		i := 0
		for i < len(list) && isCommentSep(list[i]) {
			i++
		}
		j := i
		for j < len(list) && !isCommentSep(list[j]) {
			j++
		}
		if j > i {
			fn(list[i:j])
		}
		list = list[j:]
	}
}

func isCommentSep(c byte) bool {
	return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

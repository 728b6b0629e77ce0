// Package deadlock answers "is my routing deadlock-free?": it builds the
// channel dependency graph of a fabric's forwarding tables and looks for
// cycles in it (credit loops).
//
// A channel is a directed cable (an lft link) on one virtual lane (VL). A
// route that leaves channel a for channel b makes b's free buffer space a
// condition for a's packets to move on: a dependency a → b. Every ordered
// pair of hosts contributes the dependencies of its route, walked with the
// fabric's one next-hop rule (lft.Fabric.NextHop, LMC spread included). With
// credit-based flow control a cycle of dependencies can fill up and stop
// for good: a credit loop. Routing without a cycle is deadlock-free.
//
// Where the service level (SL) of each path and the SL-to-VL tables of the
// switches are known (Lanes), a hop's VL is the switch's SL2VL entry for
// the packet's input port, output port and SL, and a dependency links two
// (cable, VL) channels. Each VL is a layer of the graph; a dependency
// between layers exists where a switch moves packets to another VL (as
// torus-2QoS does at a torus's dateline). Cycles are looked for in the whole
// graph, so a loop that crosses layers is found too.
//
// Cost: for one destination (and one LID offset and SL) the next hop from
// every node is a function, so the walks towards it visit every channel at
// most once: the graph is built in time linear in the size of the tables
// (destinations × channels), with flat arrays and no maps. Strongly
// connected components (Tarjan) count the loops; a breadth-first search
// bounded by the best length so far finds a shortest one.
package deadlock

import (
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"strings"

	"orcs/internal/workers"
	"orcs/lft"
)

// Options controls Check.
type Options struct {
	// Threads is how many goroutines build the graph (< 1: all cores).
	Threads int
	// Examples is how many flows are listed per dependency of the loop
	// found (0: none).
	Examples int
	// Leave, when not nil, has one entry per host: true leaves the host's
	// paths (to and from it) out of the graph. Nil walks every pair; a
	// loop found then is checked again without the paths of SHARP
	// aggregation nodes (see Result.NeedsAggregation).
	Leave []bool

	// pairwise walks every pair even where the entry switches' shortcut
	// applies (see buildByEntry); tests compare the two.
	pairwise bool
}

// Channel is a directed cable (a link id of the fabric) on one VL.
type Channel struct {
	Link int32
	VL   uint8
}

// Flow is a route from host Src to host Dst (host indices).
type Flow struct{ Src, Dst int32 }

// LayerStats describes one VL layer of the dependency graph.
type LayerStats struct {
	VL           uint8
	Channels     int // channels of this VL some route uses
	Dependencies int // dependencies between two channels of this VL
	Loops        int // strongly connected components with a cycle, all of whose channels are on this VL
}

// Result is what Check finds.
type Result struct {
	Hosts, Switches, Links int
	// Routes is the number of ordered host pairs walked.
	Routes int64
	// Aggregation counts the hosts that are SHARP aggregation nodes (CAs
	// described "Aggregation Node", see IsAggregationNode): their paths are
	// walked as every host's are, as SHARP sends real traffic to them.
	Aggregation int
	// Without is the check of the same routes without the paths to and
	// from aggregation nodes, run when the routes with them loop; nil
	// otherwise. NeedsAggregation says the loop needs those paths
	// (Without is deadlock-free).
	Without          *Result
	NeedsAggregation bool
	// VLs are the VLs some hop of some route uses, ascending.
	VLs []uint8
	// Channels counts the (cable, VL) channels some route uses;
	// Dependencies the distinct dependencies between them, CrossVL those
	// that change VL.
	Channels, Dependencies, CrossVL int
	// Layers has one entry per VL of VLs.
	Layers []LayerStats
	// LoopComponents counts the strongly connected components of the
	// dependency graph that contain a cycle, LoopChannels their channels.
	// Every credit loop lies in one of them; they are not the number of
	// elementary cycles (which can grow exponentially and is not counted).
	LoopComponents, LoopChannels int
	// MixedLoops counts the components with a cycle that span several VLs.
	MixedLoops int
	// Loop is a shortest credit loop: Loop[i] → Loop[i+1] and the last
	// back to the first are dependencies. It is nil when the routing is
	// deadlock-free.
	Loop []Channel
	// Examples[i] lists flows whose routes create the dependency Loop[i] →
	// Loop[(i+1) mod len(Loop)].
	Examples [][]Flow
	// MissingVL counts hops whose VL no SL2VL table gave although tables
	// were given: the switch has no table or no entry for the hop's ports
	// and SL, or the CA port has none while other CA ports have one.
	// MissingPorts lists the output ports of those hops (as links: a
	// switch's out port, or a host's CA port), ascending. Check refuses
	// such lanes (ErrIncomplete); the fields describe the refusal.
	MissingVL    int64
	MissingPorts []int32
	// Unrouted is the number of host pairs that do not route, as the
	// caller's route check found them (LeftOut names them); 0 when not
	// checked.
	Unrouted int64

	f     *lft.Fabric
	lanes *Lanes
	g     *graph
}

// Free reports whether the routing is deadlock-free (no credit loop).
func (r *Result) Free() bool { return len(r.Loop) == 0 }

// graph is the dependency graph under construction and its CSR form.
type graph struct {
	f     *lft.Fabric
	lanes *Lanes
	leave []bool // per host: its paths left out (nil: none)
	H     int
	K     int       // VL slots: VLs that some hop may use
	vlOf  []uint8   // slot → VL
	slot  [16]int32 // VL → slot, -1 when not possible

	to, fromPort, toPort []int32 // per link
	outSlot              []int32 // per link: its index among its node's out-links
	rowBits              []int64 // per link: out-links of its head node × K
	bitBase              []int64 // per link: first bit of its channels' rows
	inBase               []int32 // per link: SL2VL table offset of (head node, this link's port as input), or -1
	outOff               []int32 // per link: offset of this link's port as output within a table row
	hostBase             []int32 // per host: offset of its CA port's table, or -1

	// pairwise makes build walk every pair even where buildByEntry
	// applies (tests compare the two).
	pairwise bool

	adjStart []int32 // CSR over channels (link*K + slot)
	adj      []int32
	used     []uint64 // channels some route uses
}

// Check builds the channel dependency graph of f's routes (every ordered
// pair of hosts) on the lanes given (nil: one lane) and looks for credit
// loops.
func Check(f *lft.Fabric, lanes *Lanes, opt Options) (*Result, error) {
	if lanes == nil {
		lanes = NewLanes(f)
	}
	if lanes.hosts != f.NumHosts() || len(lanes.base) != len(f.Nodes) {
		return nil, fmt.Errorf("deadlock: lanes of another fabric")
	}
	if opt.Threads < 1 {
		opt.Threads = runtime.NumCPU()
	}
	if opt.Leave != nil && len(opt.Leave) != f.NumHosts() {
		return nil, fmt.Errorf("deadlock: %d hosts to leave out or keep, the fabric has %d", len(opt.Leave), f.NumHosts())
	}
	g := newGraph(f, lanes)
	g.leave, g.pairwise = opt.Leave, opt.pairwise
	kept := int64(g.H)
	for _, x := range opt.Leave {
		if x {
			kept--
		}
	}
	missing, ports := g.build(opt.Threads)
	res := &Result{Hosts: f.NumHosts(), Switches: f.NumSwitches(), Links: len(f.Links),
		Routes: kept * max(kept-1, 0), MissingVL: missing, MissingPorts: ports, f: f, lanes: lanes, g: g}
	agg := make([]bool, f.NumHosts())
	for h := range agg {
		agg[h] = IsAggregationNode(f, h)
		if agg[h] && (opt.Leave == nil || !opt.Leave[h]) {
			res.Aggregation++
		}
	}
	if missing > 0 {
		return res, res.incompleteTables()
	}
	g.summarize(res)
	if res.LoopComponents > 0 && opt.Examples > 0 {
		res.Examples = g.examples(res.Loop, opt.Examples)
	}
	if !res.Free() && res.Aggregation > 0 && opt.Leave == nil {
		sub := opt
		sub.Leave = agg
		w, err := Check(f, lanes, sub)
		if err != nil {
			return nil, err
		}
		res.Without, res.NeedsAggregation = w, w.Free()
	}
	return res, nil
}

// IsAggregationNode reports whether host h of f is a SHARP aggregation
// node: a CA inside a switch, described "... Aggregation Node".
func IsAggregationNode(f *lft.Fabric, h int) bool {
	return strings.Contains(f.Nodes[f.HostNode(h)].Desc, "Aggregation Node")
}

// newGraph lays out the flat arrays of the walk.
func newGraph(f *lft.Fabric, lanes *Lanes) *graph {
	g := &graph{f: f, lanes: lanes, H: f.NumHosts()}
	// VL slots: every VL a table gives for an SL in use, and the SLs
	// themselves (VL = SL where no table entry applies).
	var sls uint16 = 1
	if lanes.sl != nil {
		sls = 0
		for _, s := range lanes.sl {
			sls |= 1 << s
		}
	}
	vls := sls
	if lanes.hasTables() {
		for i, x := range lanes.vl {
			if x != noVL && sls&(1<<(i%NumSLs)) != 0 {
				vls |= 1 << x
			}
		}
	}
	for v := range g.slot {
		g.slot[v] = -1
		if vls&(1<<v) != 0 {
			g.slot[v] = int32(len(g.vlOf))
			g.vlOf = append(g.vlOf, uint8(v))
		}
	}
	g.K = len(g.vlOf)

	L := len(f.Links)
	g.to, g.fromPort, g.toPort = make([]int32, L), make([]int32, L), make([]int32, L)
	g.outSlot, g.rowBits, g.bitBase = make([]int32, L), make([]int64, L), make([]int64, L+1)
	g.inBase, g.outOff = make([]int32, L), make([]int32, L)
	for v := range f.Nodes {
		for i, l := range f.OutLinks(int32(v)) {
			g.outSlot[l] = int32(i)
		}
	}
	for l, k := range f.Links {
		g.to[l], g.fromPort[l], g.toPort[l] = k.To, k.FromPort, k.ToPort
		g.rowBits[l] = int64(len(f.OutLinks(k.To)) * g.K)
		g.bitBase[l+1] = g.bitBase[l] + int64(g.K)*g.rowBits[l]
		g.inBase[l], g.outOff[l] = lanes.row(k.To, k.ToPort), lanes.col(k.From, k.FromPort)
	}
	g.hostBase = make([]int32, g.H)
	for h := range g.hostBase {
		g.hostBase[h] = lanes.base[f.HostNode(h)]
	}
	return g
}

// worker is the private state of one goroutine building the graph.
type worker struct {
	bits    []uint64 // dependency rows, see graph.bitBase
	used    []uint64 // channels visited
	stamp   []int32  // channel → generation of its last visit
	gen     int32
	missing int64
	missOut []uint64 // links whose hops lacked an SL2VL entry (see Result.MissingPorts)
	keys    []int32  // per source: its group (LID offset × 16 + SL)
	order   []int32  // sources sorted by group
	count   []int32  // group → sources in it, then start in order
	// nodeGen and nodeNext memoise each node's next hop towards the
	// destination of generation nodeGen (buildByEntry only).
	nodeGen, nodeNext []int32
}

// build walks every route and fills the CSR graph; it returns the number
// of hops whose SL2VL entry was missing and their output links.
func (g *graph) build(threads int) (int64, []int32) {
	f := g.f
	nch := len(f.Links) * g.K
	nbits := g.bitBase[len(f.Links)]
	groups := NumSLs
	for d := int32(0); d < int32(g.H); d++ {
		for s := int32(0); s < int32(g.H); s++ {
			groups = max(groups, int(f.LIDOffset(s, d)+1)*NumSLs)
		}
		if !f.LMCSpread() {
			break
		}
	}
	threads = max(1, min(threads, g.H))
	pool := make([]*worker, workers.Count(threads, g.H))
	for t := range pool {
		pool[t] = &worker{bits: make([]uint64, (nbits+63)/64), used: make([]uint64, (nch+63)/64),
			stamp: make([]int32, nch), keys: make([]int32, g.H), order: make([]int32, g.H),
			count: make([]int32, groups+1), missOut: make([]uint64, (len(f.Links)+63)/64)}
	}
	if e := g.entries(); e != nil && !g.pairwise {
		g.buildByEntry(pool, threads, e)
	} else {
		workers.Run(nil, threads, g.H, func(t, d int) error {
			if g.leave == nil || !g.leave[d] {
				g.walkTo(pool[t], int32(d))
			}
			return nil
		})
	}
	// Merge the workers' rows and channel sets.
	bitsAll, used := pool[0].bits, pool[0].used
	missing, missOut := pool[0].missing, pool[0].missOut
	for _, w := range pool[1:] {
		for i, x := range w.bits {
			bitsAll[i] |= x
		}
		for i, x := range w.used {
			used[i] |= x
		}
		for i, x := range w.missOut {
			missOut[i] |= x
		}
		missing += w.missing
	}
	var ports []int32
	for l := range f.Links {
		if missOut[l>>6]&(1<<(l&63)) != 0 {
			ports = append(ports, int32(l))
		}
	}
	g.used = used
	// CSR: the successors of channel (a, slot i) in order of out-link and VL.
	g.adjStart = make([]int32, nch+1)
	deps := 0
	for _, x := range bitsAll {
		deps += bits.OnesCount64(x)
	}
	g.adj = make([]int32, 0, deps)
	for a := range f.Links {
		outs := f.OutLinks(g.to[a])
		for i := 0; i < g.K; i++ {
			u := a*g.K + i
			row := g.bitBase[a] + int64(i)*g.rowBits[a]
			for j := int64(0); j < g.rowBits[a]; j++ {
				if b := row + j; bitsAll[b>>6]&(1<<(b&63)) != 0 {
					g.adj = append(g.adj, outs[j/int64(g.K)]*int32(g.K)+int32(j%int64(g.K)))
				}
			}
			g.adjStart[u+1] = int32(len(g.adj))
		}
	}
	return missing, ports
}

// walkTo walks the routes of every source towards host d. Sources are
// grouped by LID offset and SL: within a group the next hop and the next
// VL are functions of the channel, so a walk stops at the first channel a
// walk of the same group has visited.
func (g *graph) walkTo(w *worker, d int32) {
	f, H := g.f, int32(g.H)
	target := f.HostNode(int(d))
	// Counting sort of the sources by group.
	clear(w.count)
	n := 0 // sources
	for s := int32(0); s < H; s++ {
		k := int32(-1)
		if s != d && (g.leave == nil || !g.leave[s]) {
			k = f.LIDOffset(s, d)*NumSLs + int32(g.lanes.SL(s, d))
			w.count[k+1]++
			n++
		}
		w.keys[s] = k
	}
	for k := 1; k < len(w.count); k++ {
		w.count[k] += w.count[k-1]
	}
	for s := int32(0); s < H; s++ {
		if k := w.keys[s]; k >= 0 {
			w.order[w.count[k]] = s
			w.count[k]++
		}
	}
	prev := int32(-1)
	for _, src := range w.order[:n] {
		key := w.keys[src]
		if key != prev {
			w.gen++
			prev = key
		}
		gen := w.gen
		sl := int32(key % NumSLs)
		a, va, known, ok := g.firstHop(src, d, sl)
		if !ok {
			continue
		}
		if !known {
			w.missing++
			w.missOut[a>>6] |= 1 << (a & 63)
		}
		g.walkOn(w, src, d, target, a, va, sl, gen)
	}
}

// walkOn follows the route on SL sl from host src to host d (whose node is
// target) from channel (a, va) on, recording its channels and
// dependencies, until it reaches a channel of generation gen (whose rest
// is recorded) or the route ends.
func (g *graph) walkOn(w *worker, src, d, target, a, va, sl, gen int32) {
	K := int32(g.K)
	ua := a*K + g.slot[va]
	for {
		if w.stamp[ua] == gen {
			break
		}
		w.stamp[ua] = gen
		w.used[ua>>6] |= 1 << (ua & 63)
		b, vb, known, ok := g.nextHop(src, d, target, a, sl)
		if !ok {
			break
		}
		if !known {
			w.missing++
			w.missOut[b>>6] |= 1 << (b & 63)
		}
		sb := g.slot[vb]
		bit := g.bitBase[a] + int64(g.slot[va])*g.rowBits[a] + int64(g.outSlot[b]*K+sb)
		w.bits[bit>>6] |= 1 << (bit & 63)
		a, va, ua = b, vb, b*K+sb
	}
}

// The walk of a route over channels (link, VL), which both the graph
// (walkTo) and the example flows of a loop (loopFlows) follow: firstHop
// leaves the source host, nextHop goes on until the route reaches its
// destination or ends where a table has no entry.

// firstHop is the first channel of the route on SL sl from host src to
// host d: its link a and VL va (known as firstVL says); ok is false when
// the host has no route to d.
func (g *graph) firstHop(src, d, sl int32) (a, va int32, known, ok bool) {
	a = g.f.NextHop(src, g.f.HostNode(int(src)), d)
	if a < 0 {
		return 0, 0, false, false
	}
	va, known = g.firstVL(src, sl)
	return a, va, known, true
}

// nextHop is the channel after link a on the route on SL sl from host src
// to host d (whose node is target): its link b and VL vb (known as hopVL
// says); ok is false when a enters target or the table at its end has no
// entry for d.
func (g *graph) nextHop(src, d, target, a, sl int32) (b, vb int32, known, ok bool) {
	v := g.to[a]
	if v == target {
		return 0, 0, false, false
	}
	b = g.f.NextHop(src, v, d)
	if b < 0 {
		return 0, 0, false, false
	}
	vb, known = g.hopVL(a, b, sl)
	return b, vb, known, true
}

// firstVL is the VL of a path on SL sl on the first link of host src: its
// CA port's SL2VL table, or VL = SL without one. known is false when the
// table lacks the entry, or the port has none while other CA ports have
// one (the VL is then taken as the SL).
func (g *graph) firstVL(src, sl int32) (vl int32, known bool) {
	if b := g.hostBase[src]; b >= 0 {
		if x := g.lanes.vl[b+sl]; x != noVL {
			return int32(x), true
		}
		return sl, false
	}
	return sl, !g.lanes.caTables
}

// hopVL is the VL of a path on SL sl on link b, entered from link a:
// the SL2VL table of the switch between them (in port of a, out port of
// b), or VL = SL without any table. known is false when tables were given
// but the switch has none, or none with the entry for the pair (the VL is
// then taken as the SL).
func (g *graph) hopVL(a, b, sl int32) (vb int32, known bool) {
	if ib := g.inBase[a]; ib >= 0 {
		if x := g.lanes.vl[ib+g.outOff[b]+sl]; x != noVL {
			return int32(x), true
		}
		return sl, false
	}
	return sl, !g.lanes.hasTables()
}

// summarize counts channels, dependencies and loops, and finds a shortest
// loop.
func (g *graph) summarize(r *Result) {
	n := len(g.adjStart) - 1
	K := g.K
	layer := make([]LayerStats, K)
	for i := range layer {
		layer[i].VL = g.vlOf[i]
	}
	for u := 0; u < n; u++ {
		if g.used[u>>6]&(1<<(u&63)) != 0 {
			r.Channels++
			layer[u%K].Channels++
		}
		for _, w := range g.adj[g.adjStart[u]:g.adjStart[u+1]] {
			r.Dependencies++
			if int(w)%K == u%K {
				layer[u%K].Dependencies++
			} else {
				r.CrossVL++
			}
		}
	}
	comp, cyclic := g.components()
	compVL := make(map[int32]int, 0) // component → slot of its VL, or -1 when mixed
	for u := 0; u < n; u++ {
		c := comp[u]
		if !cyclic[c] {
			continue
		}
		r.LoopChannels++
		if s, ok := compVL[c]; !ok {
			compVL[c] = u % K
		} else if s != u%K {
			compVL[c] = -1
		}
	}
	r.LoopComponents = len(compVL)
	for _, s := range compVL {
		if s < 0 {
			r.MixedLoops++
		} else {
			layer[s].Loops++
		}
	}
	for _, l := range layer {
		if l.Channels > 0 {
			r.VLs = append(r.VLs, l.VL)
			r.Layers = append(r.Layers, l)
		}
	}
	if r.LoopComponents > 0 {
		for _, u := range g.shortestCycle(comp, cyclic) {
			r.Loop = append(r.Loop, Channel{Link: u / int32(K), VL: g.vlOf[int(u)%K]})
		}
	}
}

// components returns the strongly connected component of every channel
// (Tarjan's algorithm, iterative) and which components hold a cycle: more
// than one channel, or a channel depending on itself.
func (g *graph) components() (comp []int32, cyclic []bool) {
	n := len(g.adjStart) - 1
	index := make([]int32, n)
	low := make([]int32, n)
	comp = make([]int32, n)
	for i := range index {
		index[i], comp[i] = -1, -1
	}
	var stack, call []int32
	var edge []int32 // per call frame: next edge to look at
	onStack := make([]bool, n)
	next := int32(0)
	for root := 0; root < n; root++ {
		if index[root] >= 0 {
			continue
		}
		call, edge = append(call[:0], int32(root)), append(edge[:0], g.adjStart[root])
		index[root], low[root] = next, next
		next++
		stack = append(stack, int32(root))
		onStack[root] = true
		for len(call) > 0 {
			u := call[len(call)-1]
			e := edge[len(edge)-1]
			if e < g.adjStart[u+1] {
				edge[len(edge)-1]++
				w := g.adj[e]
				if index[w] < 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					call, edge = append(call, w), append(edge, g.adjStart[w])
				} else if onStack[w] {
					low[u] = min(low[u], index[w])
				}
				continue
			}
			call, edge = call[:len(call)-1], edge[:len(edge)-1]
			if len(call) > 0 {
				p := call[len(call)-1]
				low[p] = min(low[p], low[u])
			}
			if low[u] == index[u] {
				c := int32(len(cyclic))
				size := 0
				for {
					x := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[x] = false
					comp[x] = c
					size++
					if x == u {
						break
					}
				}
				self := slices.Contains(g.adj[g.adjStart[u]:g.adjStart[u+1]], u)
				cyclic = append(cyclic, size > 1 || self)
			}
		}
	}
	return comp, cyclic
}

// shortestCycle returns a shortest cycle of the graph, starting at the
// lowest channel of all shortest cycles found first: a breadth-first
// search from every channel of a component with a cycle, within its
// component, that stops at the depth of the best cycle so far.
func (g *graph) shortestCycle(comp []int32, cyclic []bool) []int32 {
	n := len(g.adjStart) - 1
	dist := make([]int32, n)
	parent := make([]int32, n)
	for i := range dist {
		dist[i] = -1
	}
	best := int32(1 << 30)
	var cycle, queue []int32
	for s := int32(0); s < int32(n) && best > 1; s++ {
		if !cyclic[comp[s]] {
			continue
		}
		queue = append(queue[:0], s)
		dist[s] = 0
	search:
		for qi := 0; qi < len(queue); qi++ {
			x := queue[qi]
			if dist[x]+1 >= best {
				break
			}
			for _, w := range g.adj[g.adjStart[x]:g.adjStart[x+1]] {
				if comp[w] != comp[s] {
					continue
				}
				if w == s {
					best = dist[x] + 1
					cycle = cycle[:0]
					for y := x; y != s; y = parent[y] {
						cycle = append(cycle, y)
					}
					cycle = append(cycle, s)
					slices.Reverse(cycle)
					break search
				}
				if dist[w] < 0 {
					dist[w], parent[w] = dist[x]+1, x
					queue = append(queue, w)
				}
			}
		}
		for _, x := range queue {
			dist[x] = -1
		}
	}
	return cycle
}

// examples finds up to per flows per dependency of the loop, in order of
// destination and source. Per destination and group the walks share what
// they learnt: for every channel, which loop dependencies the rest of its
// route uses (a bit set over the first 64 dependencies of the loop).
func (g *graph) examples(loop []Channel, per int) [][]Flow {
	f, H, K := g.f, int32(g.H), int32(g.K)
	L := len(loop)
	out := make([][]Flow, L)
	pos := make([]int32, len(f.Links)*g.K) // channel → its index in the loop, or -1
	for i := range pos {
		pos[i] = -1
	}
	ch := make([]int32, L)
	for i, c := range loop {
		ch[i] = c.Link*K + g.slot[c.VL]
		pos[ch[i]] = int32(i)
	}
	need := min(L, 64) * per
	memo := make([]uint64, len(pos))
	stamp := make([]int32, len(pos))
	var gen int32
	var path []int32
	for d := int32(0); d < H && need > 0; d++ {
		if g.leave != nil && g.leave[d] {
			continue
		}
		target := f.HostNode(int(d))
		// Groups as in walkTo; here simply one generation per (offset, SL)
		// key, tracked per key so that interleaved keys stay correct.
		gens := map[int32]int32{}
		for src := int32(0); src < H && need > 0; src++ {
			if src == d || g.leave != nil && g.leave[src] {
				continue
			}
			sl := int32(g.lanes.SL(src, d))
			key := f.LIDOffset(src, d)*NumSLs + sl
			kg, ok := gens[key]
			if !ok {
				gen++
				kg = gen
				gens[key] = kg
			}
			a, va, _, ok := g.firstHop(src, d, sl)
			if !ok {
				continue
			}
			u := a*K + g.slot[va]
			path = path[:0]
			end := int32(-1) // channel whose memo is known, or -1: the route ended
			for {
				if stamp[u] == kg {
					end = u
					break
				}
				stamp[u] = kg
				path = append(path, u)
				b, vb, _, ok := g.nextHop(src, d, target, a, sl)
				if !ok {
					break
				}
				a, u = b, b*K+g.slot[vb]
			}
			var mask uint64
			if end >= 0 {
				mask = memo[end]
			}
			nextCh := end
			for i := len(path) - 1; i >= 0; i-- {
				c := path[i]
				if j := pos[c]; j >= 0 && j < 64 && nextCh == ch[(int(j)+1)%L] {
					mask |= 1 << j
				}
				memo[c] = mask
				nextCh = c
			}
			first := end
			if len(path) > 0 {
				first = path[0]
			}
			if first < 0 {
				continue
			}
			for m := memo[first]; m != 0; m &= m - 1 {
				j := bits.TrailingZeros64(m)
				if len(out[j]) < per {
					out[j] = append(out[j], Flow{Src: src, Dst: d})
					need--
				}
			}
		}
	}
	return out
}

package lft

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"orcs/internal/plural"
	"orcs/internal/workers"
)

// RouteStatus says how a walk ended.
type RouteStatus uint8

const (
	// RouteOK means the walk reached its destination.
	RouteOK RouteStatus = iota
	// Unroutable means a node on the way has no table entry for the destination.
	Unroutable
	// Loop means the walk revisited a node.
	Loop
)

// AppendRoute appends the ids of the links on the route from host src to
// host dst to buf and returns the extended slice. A route from a host to
// itself is empty. On an unroutable pair the links walked so far stay
// appended; on a routing loop the walk stops after more hops than there are
// nodes. Use RouteError for a description of a failed route.
func (f *Fabric) AppendRoute(buf []int32, src, dst int32) ([]int32, RouteStatus) {
	if src == dst {
		return buf, RouteOK
	}
	if f.linkTab != nil {
		return f.appendLinkRoute(buf, src, dst)
	}
	if f.tab.narrow != nil {
		return appendRoute(f, f.tab.narrow, buf, src, dst)
	}
	return appendRoute(f, f.tab.wide, buf, src, dst)
}

// appendRoute is AppendRoute over the switch tables (pool: their blocks). The walk runs
// over slots (a link's position in the CSR arrays): the next slot is the
// base slot of the switch plus the table's port entry.
func appendRoute[T portEntry](f *Fabric, pool []T, buf []int32, src, dst int32) ([]int32, RouteStatus) {
	idx, blocks := f.tab.idx, f.tab.blocks
	ib := f.lidOffset(src, dst)*len(f.switches)*blocks + int(dst>>blockBits)
	low := int(dst & blockMask)
	l := f.hostLink(src, dst)
	if l < 0 {
		return buf, Unroutable
	}
	slot := f.linkSlot[l]
	limit := len(f.Nodes)
	for hops := 0; ; hops++ {
		if hops >= limit {
			return buf, Loop
		}
		buf = append(buf, f.outLinks[slot])
		n := f.slotNext[slot]
		if n >= 0 {
			p := pool[int(idx[ib+int(n)*blocks])<<blockBits|low]
			if p == noPort[T]() {
				return buf, Unroutable
			}
			slot = f.swBase[n] + int32(p)
			continue
		}
		h := ^n
		if h == dst {
			return buf, RouteOK
		}
		if l = f.hostLink(h, dst); l < 0 {
			return buf, Unroutable
		}
		slot = f.linkSlot[l]
	}
}

// appendLinkRoute is AppendRoute over the link tables of a small fabric
// (see linkTablesUpTo): two dependent loads a hop, the table's and the
// link's far end.
func (f *Fabric) appendLinkRoute(buf []int32, src, dst int32) ([]int32, RouteStatus) {
	H := len(f.hosts)
	tab, next := f.linkTab[f.lidOffset(src, dst)*len(f.switches)*H:], f.linkNext
	l := f.hostLink(src, dst)
	limit := len(f.Nodes)
	for hops := 0; ; hops++ {
		if l < 0 {
			return buf, Unroutable
		}
		if hops >= limit {
			return buf, Loop
		}
		buf = append(buf, l)
		n := next[l]
		if n >= 0 {
			l = tab[int(n)*H+int(dst)]
			continue
		}
		h := ^n
		if h == dst {
			return buf, RouteOK
		}
		l = f.hostLink(h, dst)
	}
}

// RouteError describes a pair of hosts whose route fails. It is an error
// whose text names the hosts and the node (and for loops the cycle).
type RouteError struct {
	Status   RouteStatus
	Src, Dst int32   // host indices
	Node     int32   // node where the route failed (no entry, or first node revisited)
	Cycle    []int32 // for loops: the node ids of the cycle, starting and ending at Node

	fabric *Fabric
}

// Explain returns the RouteError of the pair src→dst, or nil if it routes.
func (f *Fabric) Explain(src, dst int32) *RouteError {
	if src == dst {
		return nil
	}
	seen := map[int32]int{}
	var path []int32
	v := f.hosts[src]
	target := f.hosts[dst]
	for v != target {
		if at, ok := seen[v]; ok {
			cyc := append(append([]int32{}, path[at:]...), v)
			return &RouteError{Status: Loop, Src: src, Dst: dst, Node: v, Cycle: cyc, fabric: f}
		}
		seen[v] = len(path)
		path = append(path, v)
		l := f.NextHop(src, v, dst)
		if l < 0 {
			return &RouteError{Status: Unroutable, Src: src, Dst: dst, Node: v, fabric: f}
		}
		v = f.Links[l].To
	}
	return nil
}

// Error describes the failed route with the fabric's node names.
func (e *RouteError) Error() string {
	f := e.fabric
	if f == nil {
		return fmt.Sprintf("route from host %d to host %d: %v at node %d", e.Src, e.Dst, e.Status, e.Node)
	}
	src, dst := f.HostName(int(e.Src)), f.HostName(int(e.Dst))
	switch e.Status {
	case Unroutable:
		return fmt.Sprintf("no route from %s to %s: node %s has no table entry for %s",
			src, dst, f.Nodes[e.Node].Name, dst)
	case Loop:
		names := make([]string, len(e.Cycle))
		for i, v := range e.Cycle {
			names[i] = f.Nodes[v].Name
		}
		return fmt.Sprintf("routing loop from %s to %s at node %s: %s",
			src, dst, f.Nodes[e.Node].Name, strings.Join(names, " -> "))
	}
	return "route ok"
}

// String names the status.
func (s RouteStatus) String() string {
	switch s {
	case RouteOK:
		return "route ok"
	case Unroutable:
		return "unroutable"
	case Loop:
		return "routing loop"
	}
	return fmt.Sprintf("RouteStatus(%d)", uint8(s))
}

// RouteCheck summarises CheckRoutes.
type RouteCheck struct {
	Hosts      int          // hosts checked
	Pairs      int64        // ordered pairs checked
	Unroutable int64        // pairs with a missing table entry
	Loops      int64        // pairs caught in a routing loop
	Examples   []RouteError // up to the requested number of failures, in (dst, src) order
	// LeftOut names what the input holds but the check did not walk, as
	// the caller knows it ("8 SHARP aggregation nodes (…)", "the 12 hosts
	// outside --hosts"); Verdict adds what a route check never walks.
	LeftOut []string
}

// Verdict states the check's answer in one or two sentences: whether
// every checked pair routes (or how many do not, with the first), what
// was checked (the pairs, the hosts, the switches' tables, the LIDs of an
// LMC range) and what was left out. Every pair is walked: the counts are
// exact.
func (c *RouteCheck) Verdict(f *Fabric) string {
	lids := "each to its destination's base LID"
	if f.LMCSpread() {
		lids = "each over every LID of its destination's LMC range"
	}
	checked := fmt.Sprintf("%d ordered %s of %s, %s, hop by hop through the tables of %s",
		c.Pairs, plural.Noun(c.Pairs, "pair"), plural.N(c.Hosts, "host"), lids, plural.N(f.NumSwitches(), "switch"))
	var s string
	if c.OK() {
		s = "Every pair routes without a loop: checked " + checked
	} else {
		s = fmt.Sprintf("%d of %d host pairs do not route (%d unroutable, %d in routing loops): checked %s",
			c.Failed(), c.Pairs, c.Unroutable, c.Loops, checked)
		if len(c.Examples) > 0 {
			s += "; first: " + c.Examples[0].Error()
		}
	}
	left := append(append([]string(nil), c.LeftOut...), "routes to and from the switches' own LIDs (management traffic)")
	return s + ". Left out: " + strings.Join(left, "; ") + "."
}

// OK reports whether every checked pair routes.
func (c *RouteCheck) OK() bool { return c.Unroutable == 0 && c.Loops == 0 }

// Failed returns the number of pairs that do not route.
func (c *RouteCheck) Failed() int64 { return c.Unroutable + c.Loops }

// Summary describes the failures in one line, with the first example:
// "3 of 240 host pairs do not route (3 unroutable, 0 routing loops);
// first: …". It is "" when every pair routes.
func (c *RouteCheck) Summary() string {
	if c.OK() {
		return ""
	}
	msg := fmt.Sprintf("%d of %d host pairs do not route (%d unroutable, %d routing loops)",
		c.Failed(), c.Pairs, c.Unroutable, c.Loops)
	if len(c.Examples) > 0 {
		msg += "; first: " + c.Examples[0].Error()
	}
	return msg
}

// Write reports the check of fabric f: the pairs checked, every example
// kept (one line each), how many more failed, and the verdict (Verdict)
// as the last line.
func (c *RouteCheck) Write(w io.Writer, f *Fabric) error {
	fmt.Fprintf(w, "checked %s of %s (%s, %s)\n",
		plural.N(c.Pairs, "ordered pair"), plural.N(c.Hosts, "host"), plural.N(f.NumSwitches(), "switch"), plural.N(len(f.Links), "link"))
	for _, e := range c.Examples {
		fmt.Fprintln(w, e.Error())
	}
	if int64(len(c.Examples)) < c.Failed() {
		fmt.Fprintf(w, "… and %d more (-v lists all)\n", c.Failed()-int64(len(c.Examples)))
	}
	var err error
	if c.OK() {
		_, err = fmt.Fprintln(w, "all pairs route without loops")
	} else {
		_, err = fmt.Fprintf(w, "%d unroutable pairs, %d routing loops\n", c.Unroutable, c.Loops)
	}
	if err == nil {
		_, err = fmt.Fprintf(w, "\n%s\n", c.Verdict(f))
	}
	return err
}

// RouteCheckVersion is the format version of RouteCheckFile: a reader
// refuses a file of a newer one. Raise it when a field changes its
// meaning or goes away; added fields keep it.
const RouteCheckVersion = 1

// RouteCheckFile is the route check's JSON document (orcs
// --checkinputfile --format json), written by RouteCheck.WriteJSON and
// read by orcs report; see doc/file-contracts.md.
type RouteCheckFile struct {
	// FormatVersion is RouteCheckVersion when written (0 in files written
	// before the field existed).
	FormatVersion int                 `json:"format_version"`
	Fabric        string              `json:"fabric"`
	Hosts         int                 `json:"hosts"`
	Switches      int                 `json:"switches"`
	Links         int                 `json:"directed_cables"`
	Pairs         int64               `json:"pairs"`
	Unroutable    int64               `json:"unroutable"`
	Loops         int64               `json:"loops"`
	OK            bool                `json:"ok"`
	Examples      []RouteCheckExample `json:"examples"`
	// LeftOut lists what the caller left out of the check; Verdict is
	// RouteCheck.Verdict's sentence.
	LeftOut []string `json:"left_out"`
	Verdict string   `json:"verdict"`
}

// RouteCheckExample is one failing pair of a RouteCheckFile: its hosts,
// its kind ("unroutable" or "routing loop") and the message.
type RouteCheckExample struct {
	Src     string `json:"src"`
	Dst     string `json:"dst"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// WriteJSON reports the check of fabric f (named input) as one JSON
// document (RouteCheckFile): the counts, "ok", every example kept, each
// with its hosts, kind and message, what the caller left out, and the
// verdict sentence (Verdict).
func (c *RouteCheck) WriteJSON(w io.Writer, f *Fabric, input string) error {
	out := RouteCheckFile{FormatVersion: RouteCheckVersion, Fabric: input, Hosts: c.Hosts, Switches: f.NumSwitches(),
		Links: len(f.Links), Pairs: c.Pairs, Unroutable: c.Unroutable, Loops: c.Loops, OK: c.OK(),
		Examples: []RouteCheckExample{}, LeftOut: append([]string{}, c.LeftOut...), Verdict: c.Verdict(f)}
	for _, e := range c.Examples {
		out.Examples = append(out.Examples, RouteCheckExample{Src: f.HostName(int(e.Src)), Dst: f.HostName(int(e.Dst)),
			Kind: e.Status.String(), Message: e.Error()})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// CheckRoutes checks every ordered pair of distinct hosts among hosts (host
// indices) and keeps up to maxExamples failures. The next-hop relation
// towards one destination (and, with LMC spread, one LID offset) is a
// function over nodes, so each node is visited at most once per destination
// and offset: the check costs O(destinations × offsets × nodes), linear in
// the size of the tables. It uses up to threads goroutines. A nil hosts
// checks every host.
func (f *Fabric) CheckRoutes(hosts []int32, maxExamples, threads int) RouteCheck {
	if hosts == nil {
		hosts = make([]int32, len(f.hosts))
		for i := range hosts {
			hosts[i] = int32(i)
		}
	}
	if threads < 1 {
		threads = 1
	}
	if f.spreadMask == nil && f.hostUniform {
		return f.checkUniform(hosts, maxExamples, threads)
	}
	results := make([]checkResult, len(hosts))
	scratch := make([]walkScratch, workers.Count(threads, len(hosts)))
	workers.Run(nil, threads, len(hosts), func(t, di int) error {
		// state per node for the current destination: stamp tells
		// whether the entry belongs to this destination.
		w := scratch[t].init(len(f.Nodes))
		state, stamp, path, gen := w.state, w.stamp, w.path, w.gen
		defer func() { w.path, w.gen = path, gen }()
		dst := hosts[di]
		target := f.hosts[dst]
		r := &results[di]
		mask := int32(0)
		if f.spreadMask != nil {
			mask = f.spreadMask[dst]
		}
		for off := int32(0); off <= mask; off++ {
			gen++
			stamp[target], state[target] = gen, reaches
			for _, src := range hosts {
				if src == dst || src&mask != off {
					continue
				}
				var outcome uint8
				outcome, path = f.resolve(src, f.hosts[src], dst, gen, stamp, state, path)
				if outcome == reaches {
					continue
				}
				if outcome == looping {
					r.loops++
				} else {
					r.unroutable++
				}
				if len(r.bad) < maxExamples {
					r.bad = append(r.bad, [2]int32{src, dst})
				}
			}
		}
		return nil
	})
	return f.collect(hosts, results, maxExamples)
}

// walkScratch is the state of one goroutine of a route check: per node,
// the outcome for the current destination (state) and whether it belongs
// to it (stamp == gen), and the path being walked.
type walkScratch struct {
	state []uint8
	stamp []int32
	path  []int32
	gen   int32
}

// init allocates the scratch for n nodes on first use and returns it.
func (w *walkScratch) init(n int) *walkScratch {
	if w.state == nil {
		w.state, w.stamp = make([]uint8, n), make([]int32, n)
	}
	return w
}

// checkResult is what the check found for one destination.
type checkResult struct {
	unroutable, loops int64
	bad               [][2]int32 // (src, dst)
}

// collect sums the results per destination into a RouteCheck.
func (f *Fabric) collect(hosts []int32, results []checkResult, maxExamples int) RouteCheck {
	var c RouteCheck
	n := int64(len(hosts))
	c.Hosts, c.Pairs = len(hosts), n*(n-1)
	for _, r := range results {
		c.Unroutable += r.unroutable
		c.Loops += r.loops
		for _, p := range r.bad {
			if len(c.Examples) < maxExamples {
				if e := f.Explain(p[0], p[1]); e != nil {
					c.Examples = append(c.Examples, *e)
				}
			}
		}
	}
	return c
}

// Walk outcomes of a node towards one destination.
const (
	onPath uint8 = iota + 1
	reaches
	noEntry
	looping
)

// checkUniform is CheckRoutes for fabrics whose hosts send everything over
// one link and that have no LMC spread (every fabric read from InfiniBand
// dumps or generated, and every ORCS dot file with "*" host links). A
// source's route is its link followed by the route from the node that
// link leads to, so each destination needs the outcome of those nodes only:
// the check walks every switch at most once per destination and counts the
// sources behind each node, O(destinations × switches) in all, instead of
// a walk per pair.
func (f *Fabric) checkUniform(hosts []int32, maxExamples, threads int) RouteCheck {
	N := len(f.Nodes)
	// Sources behind each node, as counts and in hosts order.
	behind := make([]int32, N+1)
	entry := make([]int32, len(f.hosts)) // host → node its link leads to, or -1
	var noLink []int32                   // sources without a link
	for _, h := range hosts {
		entry[h] = -1
		if l := f.hostTab[h]; l >= 0 {
			entry[h] = f.Links[l].To
			behind[entry[h]+1]++
		} else {
			noLink = append(noLink, h)
		}
	}
	var entries []int32 // nodes with sources behind them
	for v := range N {
		if behind[v+1] > 0 {
			entries = append(entries, int32(v))
		}
	}
	results := make([]checkResult, len(hosts))
	scratch := make([]walkScratch, workers.Count(threads, len(hosts)))
	workers.Run(nil, threads, len(hosts), func(t, di int) error {
		w := scratch[t].init(N)
		state, stamp, path, gen := w.state, w.stamp, w.path, w.gen
		defer func() { w.path, w.gen = path, gen }()
		dst := hosts[di]
		gen++
		stamp[f.hosts[dst]], state[f.hosts[dst]] = gen, reaches
		r := &results[di]
		failed := false
		for _, v := range entries {
			var outcome uint8
			outcome, path = f.resolve(dst, v, dst, gen, stamp, state, path) // no spread: any source
			if outcome == reaches {
				continue
			}
			n := int64(behind[v+1])
			if entry[dst] == v {
				n-- // the destination does not send to itself
			}
			if outcome == looping {
				r.loops += n
			} else {
				r.unroutable += n
			}
			failed = failed || n > 0
		}
		for _, h := range noLink {
			if h != dst {
				r.unroutable++
				failed = true
			}
		}
		if !failed || maxExamples == 0 {
			return nil
		}
		for _, src := range hosts { // examples in source order
			if len(r.bad) == maxExamples {
				break
			}
			if src != dst && (entry[src] < 0 || state[entry[src]] != reaches) {
				r.bad = append(r.bad, [2]int32{src, dst})
			}
		}
		return nil
	})
	return f.collect(hosts, results, maxExamples)
}

// resolve walks the route from host src towards host dst from node v on,
// until it meets a node whose outcome is known for this destination (stamp
// == gen: the same destination and, with LMC spread, LID offset), and
// gives every node on the way that outcome.
func (f *Fabric) resolve(src, v, dst, gen int32, stamp []int32, state []uint8, path []int32) (uint8, []int32) {
	path = path[:0]
	var outcome uint8
	for {
		if stamp[v] == gen {
			outcome = state[v]
			if outcome == onPath {
				outcome = looping
			}
			break
		}
		stamp[v], state[v] = gen, onPath
		path = append(path, v)
		l := f.NextHop(src, v, dst)
		if l < 0 {
			outcome = noEntry
			break
		}
		v = f.Links[l].To
	}
	for _, p := range path {
		state[p] = outcome
	}
	return outcome, path
}

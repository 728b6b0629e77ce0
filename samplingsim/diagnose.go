package samplingsim

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"orcs/internal/plural"
	"orcs/lft"
)

// Cause is the kind of a congestion tree (thesis §4.1).
type Cause string

// The causes of congestion that the diagnosis tells apart.
const (
	// NoCongestion: no link is congested.
	NoCongestion Cause = "no congestion"
	// Endpoint: the tree's root is a link into a host, oversubscribed by
	// traffic to that host. By Theorem 4.1 no mapping removes it; the
	// communication pattern must change.
	Endpoint Cause = "endpoint congestion"
	// Internal: the root is inside the network and saturated: the pattern
	// or its mapping oversubscribes the network; a mapping with more
	// locality can help.
	Internal Cause = "internal congestion"
	// Background: the root is congested but the traffic the view samples
	// there is well below the line rate. By Theorem 4.2 a root of a
	// congestion tree is saturated, so unseen traffic (another job) shares
	// it: background interference.
	Background Cause = "background traffic"
	// Saturation: receivers stopped receiving while traffic to them was
	// outstanding (tree saturation, Pfister and Norton): the congestion
	// trees have filled the buffers back to the senders, so the samples,
	// which ride on delivered packets only, see little or nothing. The
	// verdict comes from the delivery counts.
	Saturation Cause = "tree saturation"
	// Mixed: the causes disagree: the cause of most congested weight is not
	// the cause of most roots.
	Mixed Cause = "mixed"
	// Unsaturated: a root below the Theorem 4.2 cutoff in a view that
	// samples every job; it is listed apart (Diagnosis.Unconfirmed) and is
	// never a verdict.
	Unsaturated Cause = "unsaturated root"
)

// DiagnoseOptions tunes Diagnose.
type DiagnoseOptions struct {
	// View selects whose samples are used: a job (a user sees only its own
	// packets) or AllJobs (a network administrator).
	View View
	// Window is the window to diagnose, −1 for the whole run.
	Window int
	// Threshold is the congested fraction from which a link counts as
	// congested (default 0.5).
	Threshold float64
	// MinPackets is the estimated traffic a link needs to count (default 8
	// packets), so that a few noisy samples do not make a tree.
	MinPackets float64
	// Saturated is the Theorem 4.2 cutoff: the fraction of the line rate
	// below which the traffic sampled at a root inside the network is "well
	// below the line rate", so that unseen traffic must share the saturated
	// root (background traffic), and at or above which the view's own
	// traffic saturates it (internal congestion). Default 0.5 (DefaultSaturated).
	Saturated float64
	// Truth diagnoses the ground truth instead of the estimates (all
	// traffic, as if every packet were sampled).
	Truth bool
}

// Root is the root of one congestion tree with its evidence.
type Root struct {
	// Link is the root link (a congested link none of whose downstream
	// links, on the routes of the view's traffic, is congested) and Name
	// describes it.
	Link int32  `json:"link"`
	Name string `json:"name"`
	// Fraction and Packets are its congested fraction and traffic.
	Fraction float64 `json:"fraction"`
	Packets  float64 `json:"packets"`
	// Gbps is the bandwidth of the traffic sampled on the link (bytes over
	// the time between the first and last packet that contributed, by
	// arrival time) and LineGbps the link's rate.
	Gbps     float64 `json:"gbps"`
	LineGbps float64 `json:"line_gbps"`
	// Tree is the number of congested links whose traffic leads to the root
	// through congested links (the root included).
	Tree int `json:"tree"`
	// Cause classifies the root and Why gives the evidence.
	Cause Cause  `json:"cause"`
	Why   string `json:"why"`
	// MarginGbps, for a root inside the network, is the sampled bandwidth
	// minus the Theorem 4.2 cutoff (Saturated × line rate): positive for
	// internal congestion, negative for background traffic; its size is
	// how far the verdict is from flipping. Zero (and absent from JSON) for
	// endpoint congestion, whose verdict does not depend on the cutoff.
	MarginGbps float64 `json:"margin_gbps,omitempty"`
}

// DefaultSaturated is the default Theorem 4.2 cutoff of DiagnoseOptions:
// half the line rate.
const DefaultSaturated = 0.5

// Diagnosis is the verdict on the congestion of a run.
type Diagnosis struct {
	// View names whose samples were used.
	View string `json:"view"`
	// Cause is the verdict: the cause of the largest tree (by congested
	// packets), or NoCongestion.
	Cause Cause `json:"cause"`
	// Congested is the number of congested links.
	Congested int `json:"congested_links"`
	// Roots lists the trees, the largest first.
	Roots []Root `json:"roots"`
	// Unconfirmed lists the congested links that look like roots but carry
	// less than the Theorem 4.2 cutoff in a view that samples every job:
	// no unseen traffic can share them, so they are not saturated roots
	// (estimate noise on a few samples, or congestion on and off). They do
	// not count towards the verdict.
	Unconfirmed []Root `json:"unconfirmed,omitempty"`
	// Why explains the verdict when the roots do not agree or when the
	// delivery counts decide it.
	Why string `json:"why,omitempty"`
	// Delivery is the ground the receivers stand on: the view's messages
	// delivered and outstanding, and the hosts that stopped receiving.
	Delivery Delivery `json:"delivery"`
	// Advice says what to do about the verdict.
	Advice string `json:"advice"`
	// Detection compares the estimates with the ground truth when the
	// view samples every job (nil otherwise, and for the truth).
	Detection *Detection `json:"detection,omitempty"`
	// Seeds, when the decision was run over several seeds, is its support.
	Seeds *Support `json:"seeds,omitempty"`
	// Verdict is the verdict sentence (Sentence), set by Diagnose and
	// again by whoever adds Seeds.
	Verdict string `json:"verdict"`
}

// Delivery counts what the receivers of a view got: messages and bytes
// delivered of those handed to the senders, and the receivers that stopped
// receiving. It needs no sampling: every receiver knows what it got, and
// every sender what it is still waiting to send.
type Delivery struct {
	// Messages and Bytes are what the view's senders were handed (ready
	// messages), Delivered and DeliveredBytes what arrived.
	Messages       int   `json:"messages"`
	Delivered      int   `json:"delivered"`
	Bytes          int64 `json:"bytes"`
	DeliveredBytes int64 `json:"delivered_bytes"`
	// Planned is the number of messages of the view's jobs, ready or not:
	// Delivered < Planned means the run ended unfinished.
	Planned int `json:"planned"`
	// Stopped is the number of receivers that got nothing in the second
	// half of the run although a message to them was outstanding all of
	// that half, and Receivers the number of receivers with any message.
	Stopped   int `json:"stopped_receivers"`
	Receivers int `json:"receivers"`
	// Hot lists the receivers towards which most traffic is outstanding
	// (at least HotFactor times the median receiver's), most first.
	Hot []HotHost `json:"hot,omitempty"`
	// MedianBytes is the median outstanding bytes of the receivers with
	// outstanding traffic.
	MedianBytes float64 `json:"median_outstanding_bytes"`
}

// HotHost is a receiver with its outstanding traffic.
type HotHost struct {
	Name     string `json:"name"`
	Messages int    `json:"messages"`
	Bytes    int64  `json:"bytes"`
}

// HotFactor is how many times the median receiver's outstanding bytes a
// receiver must be owed to be named as a hot spot of tree saturation.
const HotFactor = 4

// Unfinished reports whether messages of the view were never delivered.
func (d Delivery) Unfinished() bool { return d.Delivered < d.Planned }

// Saturated reports whether the delivery counts show tree saturation: a
// receiver stopped receiving with traffic outstanding.
func (d Delivery) Saturated() bool { return d.Stopped > 0 }

// Diagnose finds the congestion trees of a run and classifies their roots
// (thesis §4.1): a congested link is a root when none of the links its
// traffic continues on (table routes, and the minimal route sets of
// adaptively routed messages) is congested; a root into a host is endpoint
// congestion; a root inside the network is internal congestion if the
// sampled traffic saturates it, and background traffic if it does not —
// unless the view samples every job, when it is an unsaturated root, kept
// apart. The verdict is the cause of most congested weight (Mixed when
// another cause holds most roots), or tree saturation when receivers
// stopped receiving with traffic to them outstanding.
func Diagnose(r *Result, opt DiagnoseOptions) *Diagnosis {
	if opt.Threshold <= 0 {
		opt.Threshold = 0.5
	}
	if opt.MinPackets <= 0 {
		opt.MinPackets = 8
	}
	if opt.Saturated <= 0 {
		opt.Saturated = DefaultSaturated
	}
	f := r.Fabric
	L := len(f.Links)
	pk := make([]float64, L)
	frac := make([]float64, L)
	bytes := make([]float64, L)
	first := make([]Time, L)
	last := make([]Time, L)
	if opt.Truth {
		for l := range L {
			t := r.TruthOf(opt.Window, int32(l))
			pk[l], frac[l], bytes[l] = float64(t.Packets), t.Fraction(), float64(t.Bytes)
			first[l], last[l] = r.WindowSpan(max(opt.Window, 0))
			if opt.Window < 0 {
				first[l], last[l] = 0, r.End
			}
		}
	} else {
		for l, e := range r.Estimates(opt.View, opt.Window) {
			pk[l], frac[l], bytes[l], first[l], last[l] = e.Packets, e.Fraction, e.Bytes, e.First, e.Last
		}
	}
	d := &Diagnosis{View: r.ViewName(opt.View), Cause: NoCongestion}
	if opt.Truth {
		d.View = "ground truth"
	}
	// A view that samples every job leaves no traffic unseen: a root
	// below the cutoff cannot be another job's.
	seesAll := opt.Truth || opt.View < 0 || len(r.Plan.Jobs) <= 1
	cong := make([]bool, L)
	for l := range L {
		if (opt.Truth || r.Sampled(int32(l))) && pk[l] >= opt.MinPackets && frac[l] >= opt.Threshold {
			cong[l] = true
			d.Congested++
		}
	}
	// Successors and predecessors along the routes of the view's traffic.
	succ, pred := r.routeGraph(opt.View)
	for l := range L {
		if !cong[l] || slices.ContainsFunc(succ[int32(l)], func(n int32) bool { return cong[n] }) {
			continue
		}
		root := Root{Link: int32(l), Name: f.LinkName(int32(l)), Fraction: frac[l], Packets: pk[l],
			LineGbps: r.Config.linkBps(int32(l)) / 1e9}
		root.Gbps = LinkEstimate{Bytes: bytes[l], First: first[l], Last: last[l]}.Gbps()
		root.Tree = treeSize(int32(l), pred, cong)
		into := f.HostIndex(f.Links[l].To)
		cutoff := opt.Saturated * root.LineGbps
		if into < 0 {
			root.MarginGbps = root.Gbps - cutoff
		}
		switch {
		case into >= 0:
			root.Cause = Endpoint
			root.Why = fmt.Sprintf("the root is the link into host %s (Theorem 4.1: no mapping removes endpoint congestion)", f.HostName(int(into)))
		case root.Gbps < cutoff && seesAll:
			root.Cause = Unsaturated
			root.Why = fmt.Sprintf("congested but carries only %.1f of %.0f Gb/s, and this view samples every job, so no unseen traffic shares it: "+
				"not a saturated root (Theorem 4.2); a few noisy samples or congestion on and off; margin %.1f Gb/s below the cutoff %.1f Gb/s",
				root.Gbps, root.LineGbps, -root.MarginGbps, cutoff)
			d.Unconfirmed = append(d.Unconfirmed, root)
			continue
		case root.Gbps < cutoff:
			root.Cause = Background
			root.Why = fmt.Sprintf("the root is congested but carries only %.1f of %.0f Gb/s of sampled traffic; "+
				"a congested root is saturated (Theorem 4.2), so unseen traffic shares it; margin %.1f Gb/s below the cutoff %.1f Gb/s (%.2f of the line rate)",
				root.Gbps, root.LineGbps, -root.MarginGbps, cutoff, opt.Saturated)
		default:
			root.Cause = Internal
			root.Why = fmt.Sprintf("the root inside the network carries %.1f of %.0f Gb/s of sampled traffic, as a "+
				"saturated root does (Theorem 4.2): the traffic of this view oversubscribes it; margin %.1f Gb/s above the cutoff %.1f Gb/s (%.2f of the line rate)",
				root.Gbps, root.LineGbps, root.MarginGbps, cutoff, opt.Saturated)
		}
		d.Roots = append(d.Roots, root)
	}
	byWeight := func(a, b Root) int {
		wa, wb := a.weight(), b.weight()
		switch {
		case wa > wb:
			return -1
		case wa < wb:
			return 1
		}
		return 0
	}
	slices.SortStableFunc(d.Roots, byWeight)
	slices.SortStableFunc(d.Unconfirmed, byWeight)
	d.Delivery = r.delivery(opt.View)
	d.Cause, d.Why = verdict(d.Roots)
	if d.Delivery.Saturated() {
		d.Cause, d.Why = Saturation, d.Delivery.why(r)
	}
	d.Advice = advice(d.Cause, d.Delivery)
	if !opt.Truth {
		if det, ok := r.Detection(opt.View); ok {
			d.Detection = &det
		}
	}
	d.Verdict = d.Sentence()
	return d
}

// weight orders the trees: congested fraction × packets × links.
func (rt Root) weight() float64 { return rt.Fraction * rt.Packets * float64(rt.Tree) }

// verdict returns the cause of the roots: the cause that carries the most
// congested weight, unless another cause holds more than half of the roots,
// when the roots disagree and the verdict is Mixed (a headline never
// contradicts a majority of the roots).
func verdict(roots []Root) (Cause, string) {
	if len(roots) == 0 {
		return NoCongestion, ""
	}
	weight := map[Cause]float64{}
	count := map[Cause]int{}
	total := 0.0
	for _, rt := range roots {
		weight[rt.Cause] += rt.weight()
		count[rt.Cause]++
		total += rt.weight()
	}
	heavy := roots[0].Cause
	for _, c := range []Cause{Endpoint, Internal, Background} {
		if weight[c] > weight[heavy] {
			heavy = c
		}
	}
	for _, c := range []Cause{Endpoint, Internal, Background} {
		if c != heavy && 2*count[c] > len(roots) {
			share := 1.0
			if total > 0 {
				share = weight[heavy] / total
			}
			return Mixed, fmt.Sprintf("%s carries %.0f %% of the congested weight (%d of %d roots), but %s holds %d of %d roots",
				heavy, 100*share, count[heavy], len(roots), c, count[c], len(roots))
		}
	}
	return heavy, ""
}

// advice says what to do about a verdict.
func advice(c Cause, dl Delivery) string {
	switch c {
	case Endpoint:
		return "change the communication pattern (e.g. a reduction tree instead of sending everything to one rank); a different mapping only moves the hot spot"
	case Internal:
		return "try a mapping with more locality (e.g. tiles of the logical grid per leaf switch) or a pattern that needs less bandwidth between switches"
	case Background:
		return "another job's traffic slows this one; the slowdown may vanish in another run; tuning congestion control may help"
	case Saturation:
		if len(dl.Hot) > 0 {
			return "the traffic towards the hot receivers exceeds what they take and its trees block everything behind them: " +
				"throttle or spread that traffic (or find why those hosts stopped receiving); congestion control or per-destination buffering (dampening switches) keeps the rest flowing"
		}
		return "the offered load exceeds what the network delivers and its trees block the senders: offer less, or use congestion control"
	case Mixed:
		return "the roots disagree: act on the trees one by one (advice per cause above), or run more seeds (--seeds) before acting"
	}
	return "nothing to do"
}

// delivery counts the view's messages delivered and outstanding and the
// receivers that stopped receiving (nothing delivered in the second half
// of the run while a message to them, ready since the first half, was
// outstanding).
func (r *Result) delivery(view View) Delivery {
	var d Delivery
	H := r.Fabric.NumHosts()
	owedMsgs := make([]int, H)
	owed := make([]int64, H)
	late := make([]bool, H)  // got a message in the second half
	stuck := make([]bool, H) // a message ready in the first half outstanding
	receiver := make([]bool, H)
	half := r.End / 2
	for i, m := range r.Plan.Msgs {
		if view >= 0 && int(m.Job) != view {
			continue
		}
		d.Planned++
		receiver[m.Dst] = true
		ready, fin := r.MsgReady[i], r.MsgFinish[i]
		if ready < 0 {
			continue
		}
		d.Messages++
		d.Bytes += m.Bytes
		if fin >= 0 {
			d.Delivered++
			d.DeliveredBytes += m.Bytes
			if fin >= half {
				late[m.Dst] = true
			}
			continue
		}
		owedMsgs[m.Dst]++
		owed[m.Dst] += m.Bytes
		if ready <= half {
			stuck[m.Dst] = true
		}
	}
	var owing []int64
	for h := range H {
		if receiver[h] {
			d.Receivers++
		}
		if stuck[h] && !late[h] {
			d.Stopped++
		}
		if owed[h] > 0 {
			owing = append(owing, owed[h])
		}
	}
	if len(owing) == 0 {
		return d
	}
	slices.Sort(owing)
	n := len(owing)
	d.MedianBytes = float64(owing[n/2])
	if n%2 == 0 {
		d.MedianBytes = float64(owing[n/2-1]+owing[n/2]) / 2
	}
	for h := range H {
		if owed[h] > 0 && (n <= 2 || float64(owed[h]) >= HotFactor*d.MedianBytes) {
			d.Hot = append(d.Hot, HotHost{Name: r.Fabric.HostName(h), Messages: owedMsgs[h], Bytes: owed[h]})
		}
	}
	slices.SortStableFunc(d.Hot, func(a, b HotHost) int {
		switch {
		case a.Bytes > b.Bytes:
			return -1
		case a.Bytes < b.Bytes:
			return 1
		}
		return 0
	})
	return d
}

// why explains a tree-saturation verdict with the delivery counts.
func (d Delivery) why(r *Result) string {
	s := fmt.Sprintf("%d of %d receivers got nothing from %s to the end (%s) although traffic to them was outstanding since before %s (counted from the messages, not sampled)",
		d.Stopped, d.Receivers, FormatTime(r.End/2), FormatTime(r.End), FormatTime(r.End/2))
	if len(d.Hot) == 0 {
		return s + "; no receiver is owed much more than the others: the network as a whole is saturated"
	}
	names := make([]string, 0, 3)
	for i, h := range d.Hot {
		if i == 3 {
			names = append(names, fmt.Sprintf("%d more", len(d.Hot)-3))
			break
		}
		names = append(names, fmt.Sprintf("%s (%d messages, %.1f× the median receiver's bytes)", h.Name, h.Messages, float64(h.Bytes)/max(d.MedianBytes, 1)))
	}
	return s + "; endpoint congestion towards " + strings.Join(names, ", ")
}

// routeGraph returns, for every link, the links that follow it and precede
// it on the routes of the view's messages (the receivers know who sent to
// them, and with static routing the routes). A message routed adaptively
// may take any minimal path, so its links are followed along the adaptive
// route set (every minimal path between its leaf switches, the set a
// one-bit receiver updates with --restrict route) besides its table route;
// following only the table route would make a congested link of the
// adaptive tree whose traffic continued off the table route look like a
// root (Valiant detours of a Dragonfly are not followed).
func (r *Result) routeGraph(view View) (succ, pred map[int32][]int32) {
	g := &routeEdges{succ: map[int32][]int32{}, pred: map[int32][]int32{}, seen: map[[2]int32]bool{}}
	seenPair := map[[2]int32]bool{}
	var dags map[[2]int32]*routeDAG
	var route []int32
	for i, m := range r.Plan.Msgs {
		if view >= 0 && int(m.Job) != view {
			continue
		}
		adaptive := r.ad != nil && (r.MsgMode == nil || r.MsgMode[i] != ModeStatic)
		k := [2]int32{m.Src, m.Dst}
		if adaptive {
			k = [2]int32{-1 - m.Src, m.Dst} // a pair may be sent both ways
		}
		if seenPair[k] {
			continue
		}
		seenPair[k] = true
		route, _ = r.Fabric.AppendRoute(route[:0], m.Src, m.Dst)
		for i := 0; i+1 < len(route); i++ {
			g.add(route[i], route[i+1])
		}
		if !adaptive || len(route) < 2 {
			continue
		}
		if dags == nil {
			dags = map[[2]int32]*routeDAG{}
		}
		s0, t := r.ad.leaf[m.Src], r.ad.leaf[m.Dst]
		dag := dags[[2]int32{s0, t}]
		if dag == nil {
			dag = r.ad.minimalDAG(r.Fabric, s0, t)
			dags[[2]int32{s0, t}] = dag
			g.join(r.Fabric, dag.links, dag.links)
		}
		first, last := route[0], route[len(route)-1]
		for _, l := range dag.outs {
			g.add(first, l)
		}
		for _, l := range dag.ins {
			g.add(l, last)
		}
		if s0 == t {
			g.add(first, last)
		}
	}
	return g.succ, g.pred
}

// routeEdges collects the edges of a route graph once each.
type routeEdges struct {
	succ, pred map[int32][]int32
	seen       map[[2]int32]bool
}

// add records that link b may follow link a.
func (g *routeEdges) add(a, b int32) {
	e := [2]int32{a, b}
	if !g.seen[e] {
		g.seen[e] = true
		g.succ[a] = append(g.succ[a], b)
		g.pred[b] = append(g.pred[b], a)
	}
}

// join records every link of to that starts where a link of from ends as
// following it.
func (g *routeEdges) join(f *lft.Fabric, from, to []int32) {
	starts := map[int32][]int32{}
	for _, b := range to {
		starts[f.Links[b].From] = append(starts[f.Links[b].From], b)
	}
	for _, a := range from {
		for _, b := range starts[f.Links[a].To] {
			g.add(a, b)
		}
	}
}

// routeDAG is the adaptive route set between two leaf switches: its
// switch-to-switch links, those that leave the first switch and those that
// enter the last.
type routeDAG struct {
	links, outs, ins []int32
}

// minimalDAG returns the switch-to-switch links on the minimal paths from
// switch s0 to switch t (none when s0 = t).
func (a *adaptive) minimalDAG(f *lft.Fabric, s0, t int32) *routeDAG {
	d := &routeDAG{}
	seen := map[int32]bool{s0: true}
	work := []int32{s0}
	for len(work) > 0 {
		sw := work[len(work)-1]
		work = work[:len(work)-1]
		if sw == t {
			continue
		}
		for _, l := range a.minimal(nil, sw, t) {
			d.links = append(d.links, l)
			w := f.SwitchIndex(f.Links[l].To)
			if sw == s0 {
				d.outs = append(d.outs, l)
			}
			if w == t {
				d.ins = append(d.ins, l)
			}
			if !seen[w] {
				seen[w] = true
				work = append(work, w)
			}
		}
	}
	return d
}

// treeSize counts the congested links from which traffic reaches root
// through congested links only.
func treeSize(root int32, pred map[int32][]int32, cong []bool) int {
	seen := map[int32]bool{root: true}
	queue := []int32{root}
	for len(queue) > 0 {
		l := queue[0]
		queue = queue[1:]
		for _, p := range pred[l] {
			if cong[p] && !seen[p] {
				seen[p] = true
				queue = append(queue, p)
			}
		}
	}
	return len(seen)
}

// Write prints the verdict with its evidence, and the verdict sentence
// (Sentence) as the last line.
func (d *Diagnosis) Write(w io.Writer) error {
	if len(d.Roots) > 0 && d.Cause == d.Roots[0].Cause && d.Cause != Endpoint {
		fmt.Fprintf(w, "diagnosis (%s view): %s (Theorem 4.2 margin %+.1f Gb/s)\n", d.View, d.Cause, d.Roots[0].MarginGbps)
	} else {
		fmt.Fprintf(w, "diagnosis (%s view): %s\n", d.View, d.Cause)
	}
	if d.Why != "" {
		fmt.Fprintf(w, "  why: %s\n", d.Why)
	}
	if dl := d.Delivery; dl.Unfinished() {
		fmt.Fprintf(w, "  delivered (counted, not sampled): %d of %d messages (%d planned), %.1f %% of the bytes handed to the senders; %d of %d receivers stopped receiving\n",
			dl.Delivered, dl.Messages, dl.Planned, 100*float64(dl.DeliveredBytes)/float64(max(dl.Bytes, 1)), dl.Stopped, dl.Receivers)
	}
	fmt.Fprintf(w, "  congested links: %d, congestion trees: %d\n", d.Congested, len(d.Roots))
	for i, rt := range d.Roots {
		if i == 10 {
			fmt.Fprintf(w, "  … and %d more trees\n", len(d.Roots)-10)
			break
		}
		fmt.Fprintf(w, "  root %s: congested fraction %.3f of %.0f packets, %s in the tree, %.1f/%.0f Gb/s sampled: %s — %s\n",
			rt.Name, rt.Fraction, rt.Packets, plural.N(rt.Tree, "link"), rt.Gbps, rt.LineGbps, rt.Cause, rt.Why)
	}
	if n := len(d.Unconfirmed); n > 0 {
		rt := d.Unconfirmed[0]
		fmt.Fprintf(w, "  not counted: %d congested links below the cutoff in a view that samples every job (not saturated roots, Theorem 4.2), the largest %s: congested fraction %.3f of %.0f packets, %.1f Gb/s sampled\n",
			n, rt.Name, rt.Fraction, rt.Packets, rt.Gbps)
	}
	if d.Detection != nil {
		d.Detection.Write(w)
	}
	_, err := fmt.Fprintf(w, "  advice: %s\n%s\n", d.Advice, d.Sentence())
	return err
}

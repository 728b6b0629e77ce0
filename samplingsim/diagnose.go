package samplingsim

import (
	"fmt"
	"io"
	"slices"
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
	// Advice says what to do about the verdict.
	Advice string `json:"advice"`
}

// Diagnose finds the congestion trees of a run and classifies their roots
// (thesis §4.1): a congested link is a root when none of the links its
// traffic continues on is congested; a root into a host is endpoint
// congestion; a root inside the network is internal congestion if the
// sampled traffic saturates it, and background traffic if it does not.
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
	slices.SortStableFunc(d.Roots, func(a, b Root) int {
		wa, wb := a.Fraction*a.Packets*float64(a.Tree), b.Fraction*b.Packets*float64(b.Tree)
		switch {
		case wa > wb:
			return -1
		case wa < wb:
			return 1
		}
		return 0
	})
	if len(d.Roots) > 0 {
		d.Cause = d.Roots[0].Cause
	}
	switch d.Cause {
	case Endpoint:
		d.Advice = "change the communication pattern (e.g. a reduction tree instead of sending everything to one rank); a different mapping only moves the hot spot"
	case Internal:
		d.Advice = "try a mapping with more locality (e.g. tiles of the logical grid per leaf switch) or a pattern that needs less bandwidth between switches"
	case Background:
		d.Advice = "another job's traffic slows this one; the slowdown may vanish in another run; tuning congestion control may help"
	default:
		d.Advice = "nothing to do"
	}
	return d
}

// routeGraph returns, for every link, the links that follow it and precede
// it on the routes of the view's messages (the receivers know who sent to
// them, and with static routing the routes).
func (r *Result) routeGraph(view View) (succ, pred map[int32][]int32) {
	succ, pred = map[int32][]int32{}, map[int32][]int32{}
	type pair struct{ a, b int32 }
	seenPair := map[pair]bool{}
	seenEdge := map[pair]bool{}
	var route []int32
	for _, m := range r.Plan.Msgs {
		if view >= 0 && int(m.Job) != view {
			continue
		}
		if k := (pair{m.Src, m.Dst}); seenPair[k] {
			continue
		} else {
			seenPair[k] = true
		}
		route, _ = r.Fabric.AppendRoute(route[:0], m.Src, m.Dst)
		for i := 0; i+1 < len(route); i++ {
			e := pair{route[i], route[i+1]}
			if !seenEdge[e] {
				seenEdge[e] = true
				succ[e.a] = append(succ[e.a], e.b)
				pred[e.b] = append(pred[e.b], e.a)
			}
		}
	}
	return succ, pred
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

// Write prints the verdict with its evidence.
func (d *Diagnosis) Write(w io.Writer) error {
	if len(d.Roots) > 0 && d.Roots[0].Cause != Endpoint {
		fmt.Fprintf(w, "diagnosis (%s view): %s (Theorem 4.2 margin %+.1f Gb/s)\n", d.View, d.Cause, d.Roots[0].MarginGbps)
	} else {
		fmt.Fprintf(w, "diagnosis (%s view): %s\n", d.View, d.Cause)
	}
	fmt.Fprintf(w, "  congested links: %d, congestion trees: %d\n", d.Congested, len(d.Roots))
	for i, rt := range d.Roots {
		if i == 10 {
			fmt.Fprintf(w, "  … and %d more trees\n", len(d.Roots)-10)
			break
		}
		fmt.Fprintf(w, "  root %s: congested fraction %.3f of %.0f packets, %d links in the tree, %.1f/%.0f Gb/s sampled: %s — %s\n",
			rt.Name, rt.Fraction, rt.Packets, rt.Tree, rt.Gbps, rt.LineGbps, rt.Cause, rt.Why)
	}
	_, err := fmt.Fprintf(w, "  advice: %s\n", d.Advice)
	return err
}

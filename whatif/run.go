package whatif

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"orcs/analyze"
	"orcs/internal/workers"
	"orcs/lft"
	"orcs/metrics"
	"orcs/opensm"
)

// Options controls Run.
type Options struct {
	// Engines route the intact fabric and every failure set.
	Engines []string
	// Sim configures the analysis of every routed fabric (pattern, metric,
	// runs, seed, threads); every fabric gets the same seed, hence the same
	// mappings. Route errors are counted and skipped.
	Sim analyze.Config
	// Jobs is how many routings run at once (at least 1).
	Jobs int
	// Timeout bounds each routing (0: opensm.DefaultTimeout).
	Timeout time.Duration
	// Tools locates the programs; nil looks them up.
	Tools *opensm.Tools
	// Configure, when not nil, sets further OpenSM options of every
	// routing (as orcs route's flags do).
	Configure func(*opensm.Options)
	// Shard restricts the run to one machine's failure sets: set i
	// belongs to the shard that owns run i (i mod Count = Index).
	Shard analyze.Shard
	// Progress, when not nil, is called after each routing with the
	// number done and the total.
	Progress func(done, total int)
	// Losers is how many hosts per set are listed as losing most (0: 3).
	Losers int
	// Cold routes every set with a fresh ibsim and OpenSM. Otherwise each
	// job keeps one ibsim and OpenSM per engine running and routes the
	// sets on it (opensm.Session: the same tables, TestSessionEqualsCold),
	// and cold only what a session does not route: path SLs read (small
	// fabrics), engines outside opensm.WarmEngines, a set that cuts off
	// the node OpenSM runs on, a session that failed.
	Cold bool
	// Counts, when not nil, counts the sets routed by a running OpenSM
	// and cold.
	Counts *Counts
}

// Counts are the failure-set routings by a running OpenSM (Warm) and by a
// fresh one (Cold).
type Counts struct {
	Warm, Cold atomic.Int64
}

// Run routes the intact fabric and every failure set of the shard with
// every engine and compares them. A set that fails to route, or that the
// engine routes only by falling back to another engine, gives a row with
// that status (never compared as if routed by the engine asked for). Run
// returns an error for bad settings, when the intact fabric does not
// route, or when ctx is cancelled.
func Run(ctx context.Context, in *opensm.Input, plan *Plan, sets []Set, opt Options) (*File, error) {
	if opt.Jobs < 1 {
		return nil, fmt.Errorf("%d routings at once: want at least 1", opt.Jobs)
	}
	if opt.Losers <= 0 {
		opt.Losers = 3
	}
	metric, err := metrics.Lookup(opt.Sim.Metric)
	if err != nil {
		return nil, err
	}
	opt.Sim.IgnoreRouteErrors = true
	opt.Sim.Context = ctx
	probe, err := analyze.New(plan.Fabric, opt.Sim)
	if err != nil {
		return nil, err
	}
	if opt.Tools == nil {
		if opt.Tools, err = opensm.FindTools(); err != nil {
			return nil, err
		}
	}
	f := plan.Fabric
	out := &File{FormatVersion: FileVersion, Fabric: in.Name, Hosts: f.NumHosts(), Switches: f.NumSwitches(),
		Cables: len(plan.Cables), Pattern: opt.Sim.Pattern.Name, Metric: metric.Name, Value: metric.ValueName,
		Runs: opt.Sim.Runs, Commsize: probe.Commsize(), Seed: opt.Sim.Seed, Sets: len(sets)}
	if opt.Shard.Count > 1 {
		out.Shard = fmt.Sprintf("%d/%d", opt.Shard.Index, opt.Shard.Count)
	}
	var owned []int
	for i := range sets {
		if opt.Shard.Owns(i) {
			owned = append(owned, i)
		}
	}
	total := len(opt.Engines) * (1 + len(owned))
	var done int
	var mu sync.Mutex
	step := func() {
		mu.Lock()
		done++
		d := done
		mu.Unlock()
		if opt.Progress != nil {
			opt.Progress(d, total)
		}
	}
	for _, e := range opt.Engines {
		intact, base, err := routeIntact(ctx, in, plan, e, opt)
		step()
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("%s: the intact fabric: %w", e, err)
		}
		ef := EngineResult{Engine: e, Intact: base, Rows: make([]Row, len(owned))}
		// One router (and session) per worker.
		rts := make([]*router, workers.Count(opt.Jobs, len(owned)))
		for w := range rts {
			rts[w] = &router{in: in, plan: plan, engine: e, opt: opt}
		}
		workers.Run(ctx, opt.Jobs, len(owned), func(w, j int) error {
			i := owned[j]
			ef.Rows[j] = evaluate(ctx, plan, sets[i], i, rts[w], intact, base, opt)
			step()
			return nil
		})
		for _, rt := range rts {
			rt.close()
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out.Engines = append(out.Engines, ef)
	}
	return out, nil
}

// routeOptions are the OpenSM options of routing fabric g with engine e.
func routeOptions(in *opensm.Input, g *lft.Fabric, e string, opt Options) opensm.Options {
	ro := in.Options(e)
	ro.KeepPorts = true // the plan's ports: the same for intact and failed fabrics
	ro.Topology = nil
	ro.Tools = opt.Tools
	ro.AllowFallback = true
	ro.PathSLs = opensm.ComparePathSLs(e, g.NumHosts())
	ro.Timeout = opt.Timeout
	if opt.Configure != nil {
		opt.Configure(&ro)
	}
	return ro
}

// routeIntact routes the intact fabric with engine e and measures it.
func routeIntact(ctx context.Context, in *opensm.Input, plan *Plan, e string, opt Options) (*lft.Fabric, Baseline, error) {
	res, err := opensm.Route(ctx, plan.Fabric, routeOptions(in, plan.Fabric, e, opt))
	if err != nil {
		return nil, Baseline{}, err
	}
	b := Baseline{Used: res.Used, Fallback: res.Fallback, Deadlock: verdict(res, opt.Sim.Threads)}
	if res.Fallback {
		b.Notes = res.Log.Notes
	}
	check := res.Fabric.CheckRoutes(nil, 1, opt.Sim.Threads)
	b.Unroutable = check.Failed()
	sum, mean, err := simulate(res.Fabric, opt.Sim)
	if err != nil {
		return nil, Baseline{}, err
	}
	b.MeanBandwidth, b.P5 = mean, sum.P5
	b.MeanHops = meanHops(res.Fabric)
	return res.Fabric, b, nil
}

// verdict is the deadlock column: compare's verdict, "unknown" when the
// SLs the engine relies on were not read.
func verdict(res *opensm.Result, threads int) string {
	if v := opensm.DeadlockVerdict(res, threads); v != "" {
		return v
	}
	return "unknown"
}

// simulate runs the analysis on f: the summary of the per-run values and
// the mean effective bandwidth.
func simulate(f *lft.Fabric, cfg analyze.Config) (metrics.Summary, float64, error) {
	s, err := analyze.New(f, cfg)
	if err != nil {
		return metrics.Summary{}, 0, err
	}
	res, err := s.Run()
	if err != nil {
		return metrics.Summary{}, 0, err
	}
	return metrics.Summarize(res.Values), res.MeanBandwidth(), nil
}

// meanHops is the mean route length in links over the routable ordered
// host pairs.
func meanHops(f *lft.Fabric) float64 {
	var buf []int32
	var sum, n int64
	H := int32(f.NumHosts())
	for s := range H {
		for d := range H {
			if s == d {
				continue
			}
			var st lft.RouteStatus
			buf, st = f.AppendRoute(buf[:0], s, d)
			if st == lft.RouteOK {
				sum += int64(len(buf))
				n++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return float64(sum) / float64(n)
}

// router routes the failure sets of one job and engine: on its session
// (one ibsim and OpenSM kept running) where it can, else cold.
type router struct {
	in      *opensm.Input
	plan    *Plan
	engine  string
	opt     Options
	session *opensm.Session
	off     bool // no session for this engine and these options
}

// route routes g (the plan's fabric with cables removed, or the part of
// it with the SM) as opensm.Route does.
func (rt *router) route(ctx context.Context, g *lft.Fabric) (*opensm.Result, error) {
	if !rt.opt.Cold && !rt.off && rt.session == nil {
		o := routeOptions(rt.in, rt.plan.Fabric, rt.engine, rt.opt)
		s, _, err := opensm.StartSession(ctx, rt.plan.Fabric, o)
		switch {
		case err == nil:
			rt.session = s
		case ctx.Err() != nil:
			return nil, ctx.Err()
		default:
			// Unsupported here, or the tools would not start as a
			// session: every set of this job routes cold.
			rt.off = true
		}
	}
	if rt.session != nil {
		res, err := rt.session.Route(ctx, g)
		if err == nil {
			rt.count(true)
			return res, nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		if !errors.Is(err, opensm.ErrNoSession) {
			// A session in an unknown state: start a new one for the
			// next set, route this one cold.
			rt.close()
		}
	}
	rt.count(false)
	return opensm.Route(ctx, g, routeOptions(rt.in, g, rt.engine, rt.opt))
}

func (rt *router) count(warm bool) {
	if c := rt.opt.Counts; c != nil {
		if warm {
			c.Warm.Add(1)
		} else {
			c.Cold.Add(1)
		}
	}
}

// close stops the session, if any.
func (rt *router) close() {
	if rt.session != nil {
		rt.session.Close()
		rt.session = nil
	}
}

// evaluate applies set s, routes it with the router's engine and compares
// it with the intact routed fabric.
func evaluate(ctx context.Context, plan *Plan, s Set, index int, rt *router, intact *lft.Fabric, base Baseline, opt Options) Row {
	row := Row{Index: index, Set: s.Name, K: s.K, Trial: s.Trial}
	g, removed, err := plan.Apply(s)
	if err != nil {
		row.Status, row.Error = StatusError, err.Error()
		return row
	}
	row.Cables = removed
	comp := components(g)
	row.PairsCut, row.HostsCut, row.PairsNoSM = cutPairs(g, comp)
	part := mainPart(g, comp)
	routed := g
	if part != nil {
		row.Islands = true
		if routed, err = subFabric(g, part); err != nil {
			row.Status, row.Error = StatusError, err.Error()
			return row
		}
	}
	res, err := rt.route(ctx, routed)
	if err == nil {
		// The deadlock check reads the path SLs of the routed part.
		row.Deadlock = verdict(res, opt.Sim.Threads)
		if part != nil {
			res.Fabric, err = lift(g, res.Fabric)
		}
	}
	if err != nil {
		row.Status, row.Error = StatusError, err.Error()
		var fb *opensm.FallbackError
		if errors.As(err, &fb) {
			row.Status = StatusFallback
		}
		return row
	}
	row.Used = res.Used
	if res.Fallback {
		row.Status, row.Notes = StatusFallback, res.Log.Notes
	} else {
		row.Status = StatusOK
	}
	r := res.Fabric
	check := r.CheckRoutes(nil, 1, opt.Sim.Threads)
	row.Unroutable = check.Failed()
	sum, mean, err := simulate(r, opt.Sim)
	if err != nil {
		row.Status, row.Error = StatusError, err.Error()
		return row
	}
	row.MeanBandwidth, row.P5 = mean, sum.P5
	row.BandwidthKept = ratio(mean, base.MeanBandwidth)
	row.P5Kept = ratio(sum.P5, base.P5)
	row.Losers, row.MeanHops = losers(intact, r, opt.Losers)
	row.HopsChange = row.MeanHops - base.MeanHops
	row.LFTChanged = lftChanged(intact, r)
	return row
}

// ratio is a/b, 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 || math.IsNaN(a) || math.IsNaN(b) {
		return 0
	}
	return a / b
}

// cutPairs counts the ordered host pairs that no longer have any physical
// path, the hosts cut off (outside the main part, the one OpenSM routes)
// and the ordered pairs connected within those other parts (no SM routes
// them); comp labels g's nodes (components).
func cutPairs(g *lft.Fabric, comp []int32) (pairs int64, hosts int, island int64) {
	sizes, main := hostParts(g, comp)
	if len(sizes) <= 1 {
		return 0, 0, 0
	}
	H := g.NumHosts()
	for h := range H {
		c := comp[g.HostNode(h)]
		n := sizes[c]
		pairs += int64(H) - n
		if c != main {
			hosts++
			island += n - 1
		}
	}
	return pairs, hosts, island
}

// linkKey names link l of f by its node and port, the same in the intact
// and the failed fabric.
func linkKey(f *lft.Fabric, l int32) int64 {
	if l < 0 {
		return -1
	}
	k := f.Links[l]
	return int64(k.From)<<16 | int64(k.FromPort)
}

// lftChanged counts the switch forwarding entries (switch, destination
// host; base LID) whose out-port differs between the intact and the
// failed routing (a removed entry counts).
func lftChanged(a, b *lft.Fabric) int64 {
	var n int64
	var ra, rb []int32
	for s := range a.NumSwitches() {
		v := a.SwitchNode(s)
		ra, _ = a.RowInto(ra, v)
		rb, _ = b.RowInto(rb, v)
		for d := range ra {
			if linkKey(a, ra[d]) != linkKey(b, rb[d]) {
				n++
			}
		}
	}
	return n
}

// losers returns the n hosts with the most ordered pairs (as source or
// destination) whose route changed or broke, most first (ties by host
// order; hosts without changed routes are left out), and meanHops(b) from
// the same walk of b's routes.
func losers(a, b *lft.Fabric, n int) ([]HostLoss, float64) {
	H := int32(a.NumHosts())
	count := make([]int64, H)
	var pa, pb []int32
	var hops, routed int64
	for s := range H {
		for d := range H {
			if s == d {
				continue
			}
			var sa, sb lft.RouteStatus
			pa, sa = a.AppendRoute(pa[:0], s, d)
			pb, sb = b.AppendRoute(pb[:0], s, d)
			if sb == lft.RouteOK {
				hops += int64(len(pb))
				routed++
			}
			same := sa == sb && len(pa) == len(pb)
			for i := 0; same && i < len(pa); i++ {
				same = linkKey(a, pa[i]) == linkKey(b, pb[i])
			}
			if !same {
				count[s]++
				count[d]++
			}
		}
	}
	order := make([]int32, H)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(x, y int32) int { return int(count[y] - count[x]) })
	var out []HostLoss
	for _, h := range order[:min(n, len(order))] {
		if count[h] == 0 {
			break
		}
		out = append(out, HostLoss{Host: a.HostName(int(h)), Pairs: count[h]})
	}
	if routed == 0 {
		return out, 0
	}
	return out, float64(hops) / float64(routed)
}

// Package analyze runs ORCS congestion analyses: it chooses and maps hosts, generates
// the pattern of every run, walks every route of every level through the
// compiled forwarding tables, and feeds the per-level congestion to a metric.
//
// Runs are independent and each draws from its own random stream derived
// from (seed, run index), so a result does not depend on the number of
// threads nor on how runs are split into shards across machines.
package analyze

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"orcs/internal/plural"
	"runtime"
	"sync/atomic"

	"orcs/hostlist"
	"orcs/internal/workers"
	"orcs/lft"
	"orcs/metrics"
	"orcs/nodes"
	"orcs/patterns"
	"orcs/rng"
)

// Subset names how hosts are chosen when fewer than all take part.
const (
	SubsetLinearBFS = "linear_bfs"
	SubsetRand      = "rand"
)

// subsetStream is the stream index reserved for drawing the random subset;
// runs use indices 0 … runs−1.
const subsetStream = math.MaxUint64

// Shard selects the runs whose index is ≡ Index (mod Count).
type Shard struct {
	Index, Count int
}

// Owns reports whether run r belongs to the shard.
func (s Shard) Owns(r int) bool { return s.Count <= 1 || r%s.Count == s.Index }

// Run returns the run of the shard's k-th own run, and Slot the reverse:
// a shard stores the values of its own runs only, in run order.
func (s Shard) Run(k int) int {
	if s.Count <= 1 {
		return k
	}
	return s.Index + k*s.Count
}

// Slot returns k for the shard's own run r (see Run).
func (s Shard) Slot(r int) int {
	if s.Count <= 1 {
		return r
	}
	return r / s.Count
}

// MaxStoredRuns bounds the per-run values one process keeps (8 bytes
// each, 512 MiB in all, below the 1 GB a process may peak at): more runs are refused with a hint to split them
// into shards, each of which stores its own runs only.
const MaxStoredRuns = 1 << 26

// Runs returns how many of runs runs the shard owns.
func (s Shard) Runs(runs int64) int64 {
	if s.Count <= 1 {
		return runs
	}
	// Runs Index, Index+Count, … below runs; written so that no sum
	// overflows near the int64 limit.
	if runs <= int64(s.Index) {
		return 0
	}
	return (runs-int64(s.Index)-1)/int64(s.Count) + 1
}

// Config describes a simulation.
type Config struct {
	// Input names the fabric in results.
	Input string
	// Pattern selects the communication pattern.
	Pattern patterns.Spec
	// Metric is the metric's name.
	Metric string
	// Allocation, when not nil, restricts the simulation to these hosts
	// (host indices, a job's allocation, see ResolveHosts), in their order:
	// the linear_bfs subset takes them in this order (so with NoShuffle
	// rank i runs on Allocation[i], the placement as run) and rand draws
	// from them.
	Allocation []int32
	// Commsize is the number of hosts that take part; 0 = all hosts,
	// rounded down to even as in ORCS, or every host of the allocation
	// (a job runs on all of them, odd or even).
	Commsize int
	// Subset is SubsetLinearBFS or SubsetRand.
	Subset string
	// NoShuffle keeps the subset order instead of a random mapping per run.
	NoShuffle bool
	// Level simulates only this level; -1 = all.
	Level int
	// Runs is the number of runs.
	Runs int
	// Seed derives every random stream.
	Seed uint64
	// Threads is the number of worker goroutines; 0 = all cores.
	Threads int
	// Shard restricts the simulation to a subset of runs.
	Shard Shard
	// IgnoreRouteErrors counts connections whose route fails and skips them
	// instead of refusing the fabric.
	IgnoreRouteErrors bool
	// HistEdges is the hist_acc_band bin convention (metrics.BinEdges):
	// "orcs2" (or "", the default) or "exact".
	HistEdges string
	// Compat is "" for the corrected semantics or metrics.CompatORCS2 to
	// reproduce ORCS 2.0's rules where they differ: get_cable_cong adds the
	// running level map after every route (Walker.PerRoute) and prints ORCS's
	// edge list, dep_max_delay chains a send only to its rank's first
	// receipt in the previous level (metrics.DelayTracker), rand, Xneighbor
	// and ptrnvsptrn are generated as ORCS 2.0 generates them
	// (patterns.Spec.ORCS2), and hist_acc_band bins with "orcs2" edges.
	Compat string
	// Verbose, if set, receives a line per simulated level.
	Verbose io.Writer
	// Progress, if set, is called with the number of finished runs.
	Progress func(done int64)
	// Context, when not nil, stops the runs early when it is done: Run
	// then returns its error (a few runs per thread may still finish).
	Context context.Context
	// Nodes, for an NCCL collective (patterns.Collective), groups the
	// hosts into GPU nodes; nil = nodes.FromFabric. A collective's ranks
	// are GPUs and it is placed by node (see NodePlacement).
	Nodes *nodes.Layout
	// UntilCI, when not nil, stops the runs once the 95 % confidence
	// interval of the mean per-run value is narrow enough (Runs is the
	// cap). Not with shards.
	UntilCI *UntilCI
}

// Analysis is a prepared analysis: the fabric, the metric, the pattern source
// and the hosts, ready to run.
type Analysis struct {
	cfg    Config
	fabric *lft.Fabric
	metric *metrics.Metric
	source *patterns.Source
	hosts  []int32 // the hosts taking part, in subset order
	// nodes is the fabric's node summary (nodes.Layout.Summary) when some
	// node has several HCAs, else "".
	nodes string
	// railWarnings lists the HCAs cabled to another rail's leaf
	// (nodes.Layout.CheckRails).
	railWarnings []string
	loads        *cableLoads // computed by the first CableLoads or HotCables
	// pairs is the number of routes a run walks (of the levels it walks,
	// as New drew them; a random pattern's runs may differ a little)
	pairs int
	// stopped is where --until-ci stopped (nil without it)
	stopped *CIStop
	// rails > 0 places by node: hosts holds whole nodes of rails HCAs in
	// rank order, and a run shuffles the nodes, not the hosts
	rails int
	// oneToOne[i] tells whether level i of the levels a run walks (of a
	// fixed pattern) has each rank send at most once and receive at most
	// once (see levelFused); nil for a random pattern or hosts that repeat.
	oneToOne []bool
}

// New validates cfg against the fabric and prepares the simulation.
func New(f *lft.Fabric, cfg Config) (*Analysis, error) {
	m, err := metrics.Lookup(cfg.Metric)
	if err != nil {
		return nil, err
	}
	if cfg.Runs < 1 {
		return nil, fmt.Errorf("number of runs must be at least 1, got %d", cfg.Runs)
	}
	if own := cfg.Shard.Runs(int64(cfg.Runs)); own > MaxStoredRuns {
		return nil, fmt.Errorf("%d runs: their %d per-run values need %.1f GiB, more than the %d (512 MiB) one process keeps; split them with --shard I/N (N ≥ %d), each shard keeps its own runs",
			cfg.Runs, own, float64(own)*8/(1<<30), MaxStoredRuns, (int64(cfg.Runs)-1)/MaxStoredRuns+1)
	}
	if cfg.UntilCI != nil && cfg.Shard.Count > 1 {
		return nil, ErrUntilCIShard
	}
	if cfg.Shard.Count > 1 && (cfg.Shard.Index < 0 || cfg.Shard.Index >= cfg.Shard.Count) {
		return nil, fmt.Errorf("shard %d/%d: index must be in 0…%d", cfg.Shard.Index, cfg.Shard.Count, cfg.Shard.Count-1)
	}
	H := f.NumHosts()
	if cfg.Allocation != nil {
		H = len(cfg.Allocation)
	}
	asked := cfg.Commsize
	n := cfg.Commsize
	if n == 0 {
		n = H &^ 1
		if cfg.Allocation != nil {
			n = H
		}
	}
	if n > H {
		if cfg.Allocation != nil {
			return nil, fmt.Errorf("commsize %d is larger than the allocation (%d hosts)", n, H)
		}
		return nil, fmt.Errorf("commsize %d is larger than the number of hosts (%d)", n, H)
	}
	if n < 2 {
		return nil, fmt.Errorf("commsize %d: at least 2 hosts must take part (the fabric has %d)", n, H)
	}
	cfg.Commsize = n
	var byNode []int32 // a collective's hosts, whole nodes in rank order
	if patterns.Collective(cfg.Pattern.Name) {
		cfg.Commsize = asked
		if byNode, err = NodePlacement(f, &cfg); err != nil {
			return nil, err
		}
		n = cfg.Commsize
	}
	edges, err := metrics.ParseBinEdges(cfg.HistEdges)
	if err != nil {
		return nil, err
	}
	cfg.HistEdges = string(edges)
	switch cfg.Compat {
	case "":
	case metrics.CompatORCS2:
		if edges != metrics.EdgesORCS2 {
			return nil, fmt.Errorf("compat %s bins hist_acc_band as ORCS 2.0 does: hist_acc_band edges %s contradict it", cfg.Compat, edges)
		}
		cfg.Pattern.ORCS2 = true
	default:
		return nil, fmt.Errorf("unknown compat %q (known: %s)", cfg.Compat, metrics.CompatORCS2)
	}
	src, err := patterns.Compile(cfg.Pattern, n)
	if err != nil {
		return nil, err
	}
	levels := src.Levels(rng.New(cfg.Seed, 0), nil)
	if cfg.Level >= len(levels) || cfg.Level < -1 {
		if len(levels) == 0 {
			return nil, fmt.Errorf("level %d does not exist: pattern %s has no levels for commsize %d",
				cfg.Level, cfg.Pattern.Name, n)
		}
		return nil, fmt.Errorf("level %d does not exist: pattern %s has %d levels for commsize %d (0…%d)",
			cfg.Level, cfg.Pattern.Name, len(levels), n, len(levels)-1)
	}
	used := levels // the levels a run walks
	if cfg.Level >= 0 {
		used = levels[cfg.Level : cfg.Level+1]
	}
	pairs := 0
	for _, lv := range used {
		pairs += len(lv)
	}
	if m.ValueName == "bandwidth" && !src.Random() && pairs == 0 {
		return nil, fmt.Errorf("pattern %s has no messages for commsize %d: %s measures the bandwidth of messages",
			cfg.Pattern.Name, n, m.Name)
	}
	if cfg.Threads <= 0 {
		cfg.Threads = runtime.NumCPU()
	}
	s := &Analysis{cfg: cfg, fabric: f, metric: m, source: src, pairs: pairs}
	if l, err := nodes.FromFabric(f); err == nil && l.MultiHCA() {
		s.nodes = l.Summary()
		s.railWarnings = l.CheckRails(f)
	}
	if byNode != nil {
		s.hosts, s.rails = byNode, cfg.Pattern.Rails
		if s.cfg.Subset == "" {
			s.cfg.Subset = SubsetLinearBFS
		}
		s.oneToOne = levelsOneToOne(src, used, s.hosts, f.NumHosts())
		return s, nil
	}
	switch cfg.Subset {
	case SubsetLinearBFS, "":
		s.cfg.Subset = SubsetLinearBFS
		if cfg.Allocation != nil {
			s.hosts = append([]int32(nil), cfg.Allocation[:n]...)
		} else {
			s.hosts = LinearBFS(f)[:n]
		}
	case SubsetRand:
		all := make([]int32, H)
		for i := range all {
			all[i] = int32(i)
		}
		if cfg.Allocation != nil {
			copy(all, cfg.Allocation)
		}
		r := rng.New(cfg.Seed, subsetStream)
		for i := 0; i < n; i++ { // partial Fisher–Yates
			j := i + r.IntN(H-i)
			all[i], all[j] = all[j], all[i]
		}
		s.hosts = all[:n]
	default:
		return nil, fmt.Errorf("unknown subset %q (known: linear_bfs, rand)", cfg.Subset)
	}
	s.oneToOne = levelsOneToOne(src, used, s.hosts, f.NumHosts())
	return s, nil
}

// Hosts returns the hosts taking part (host indices), in subset order.
func (s *Analysis) Hosts() []int32 { return s.hosts }

// Commsize returns the number of hosts taking part.
func (s *Analysis) Commsize() int { return s.cfg.Commsize }

// Draw returns run's mapping (rank → host index) and pattern levels,
// exactly as the run draws them (for --printptrn).
func (s *Analysis) Draw(run int) (hosts []int32, levels []patterns.Level) {
	hosts = make([]int32, len(s.hosts))
	return hosts, s.draw(run, &rng.Stream{}, hosts, nil)
}

// draw is the one place that turns run's random stream into the run's
// mapping and pattern: it resets st, fills hosts (rank → host index) with
// the subset, shuffled unless -d, and then draws the levels (reusing
// scratch).
func (s *Analysis) draw(run int, st *rng.Stream, hosts []int32, scratch []patterns.Level) []patterns.Level {
	st.Reset(s.cfg.Seed, uint64(run))
	copy(hosts, s.hosts)
	switch {
	case s.cfg.NoShuffle:
	case s.rails > 0:
		shuffleNodes(st, hosts, s.rails)
	default:
		st.ShuffleInt32(hosts)
	}
	return s.source.Levels(st, scratch)
}

// CheckRoutes checks every ordered pair of the hosts taking part: any pair
// of them may be mapped onto each other.
func (s *Analysis) CheckRoutes(maxExamples int) lft.RouteCheck {
	return s.fabric.CheckRoutes(s.hosts, maxExamples, s.cfg.Threads)
}

// RouteError is returned when the fabric has failing routes among the hosts
// taking part. errors.As finds the first failing pair's *lft.RouteError
// through Unwrap.
type RouteError struct {
	Check lft.RouteCheck
}

// Error summarises the check in one line, with the first failing pair.
func (e *RouteError) Error() string { return e.Check.Summary() }

// Unwrap returns the first failing pair, if any.
func (e *RouteError) Unwrap() error {
	if len(e.Check.Examples) == 0 {
		return nil
	}
	return &e.Check.Examples[0]
}

// LinearBFS orders the hosts by a breadth-first search from the first node
// of the fabric over out-links in input order (ORCS's linear_bfs), which
// fills whole leaf switches first. Hosts the search does not reach follow in
// input order.
func LinearBFS(f *lft.Fabric) []int32 {
	seen := make([]bool, len(f.Nodes))
	queue := []int32{0}
	seen[0] = true
	var order []int32
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		if h := f.HostIndex(v); h >= 0 {
			order = append(order, h)
		}
		for _, l := range f.OutLinks(v) {
			if to := f.Links[l].To; !seen[to] {
				seen[to] = true
				queue = append(queue, to)
			}
		}
	}
	for h := 0; h < f.NumHosts(); h++ {
		if !seen[f.HostNode(h)] {
			order = append(order, int32(h))
		}
	}
	return order
}

// Run simulates every run of the configuration's shard and returns the
// result. Values holds the shard's own runs in run order (see Shard.Run);
// without shards, every run. With Config.UntilCI the runs stop at the
// rule's stopping point (see UntilCI), and the result is that of as many
// runs.
func (s *Analysis) Run() (*metrics.Result, error) {
	if !s.cfg.IgnoreRouteErrors {
		if c := s.CheckRoutes(1); !c.OK() {
			return nil, &RouteError{Check: c}
		}
	}
	owned := int(s.cfg.Shard.Runs(int64(s.cfg.Runs)))
	s.prepareWalks(owned)
	res := &metrics.Result{Values: make([]float64, owned)}
	for i := range res.Values {
		res.Values[i] = math.NaN()
	}
	if s.metric.NeedsLinkLoad {
		res.LinkLoad = make([]int64, len(s.fabric.Links))
	}
	var done atomic.Int64
	var err error
	if s.cfg.UntilCI != nil {
		err = s.runUntil(res, &done)
	} else {
		err = s.runSlots(res.Values, res, 0, owned, &done)
	}
	if err != nil {
		return nil, err
	}
	res.Meta = s.Meta()
	return res, nil
}

// prepareWalks tells the fabric how many routes the runs are going to
// walk (runs times the pairs of a run), so that it prepares its walks if
// that pays.
func (s *Analysis) prepareWalks(runs int) {
	s.fabric.PrepareWalks(int64(runs) * int64(s.pairs))
}

// runSlots simulates the shard's own runs lo … hi−1 (slots of values) on
// the worker threads and adds their accumulators to acc; done counts the
// runs for the progress callback (nil: not reported).
func (s *Analysis) runSlots(values []float64, acc *metrics.Result, lo, hi int, done *atomic.Int64) error {
	const chunk = 8
	threads := workers.Count(s.cfg.Threads, hi-lo)
	partial := make([]*worker, threads)
	err := workers.Run(s.cfg.Context, threads, (hi-lo+chunk-1)/chunk, func(t, job int) error {
		if partial[t] == nil {
			partial[t] = s.newWorker(values)
		}
		w := partial[t]
		start := lo + job*chunk
		for k := start; k < min(start+chunk, hi); k++ {
			if err := w.run(s.cfg.Shard.Run(k)); err != nil {
				return err
			}
		}
		if s.cfg.Progress != nil && done != nil {
			s.cfg.Progress(done.Add(int64(min(chunk, hi-start))))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, p := range partial {
		if p != nil {
			acc.Merge(&p.acc, nil)
		}
	}
	return nil
}

// Meta describes the simulation for results.
func (s *Analysis) Meta() metrics.Meta {
	name := s.cfg.Pattern.Name
	if name == "ptrnvsptrn" {
		first, second := s.cfg.Pattern.First, s.cfg.Pattern.Second
		if first == "" {
			first = "bisect"
		}
		if second == "" {
			second = "bisect"
		}
		name = fmt.Sprintf("ptrnvsptrn(%s/%d,%s)", first, s.cfg.Pattern.Part, second)
	}
	edges := ""
	if s.metric.Name == "hist_acc_band" {
		edges = s.cfg.HistEdges
	}
	return metrics.Meta{
		Fabric:       s.cfg.Input,
		FabricDigest: s.fabric.Digest(),
		Hosts:        s.fabric.NumHosts(),
		Pattern:      name,
		Commsize:     s.cfg.Commsize,
		Allocation:   allocationDigest(s.cfg.Allocation),
		Subset:       s.cfg.Subset,
		Shuffle:      !s.cfg.NoShuffle,
		Level:        s.cfg.Level,
		Seed:         s.cfg.Seed,
		Runs:         s.cfg.Runs,
		Metric:       s.metric.Name,
		BinEdges:     edges,
		Compat:       s.cfg.Compat,
		Nodes:        s.nodes,
	}
}

// RailWarnings lists the HCAs of multi-HCA nodes that are cabled to the
// leaf of another rail, one sentence each (see nodes.Layout.CheckRails).
func (s *Analysis) RailWarnings() []string { return s.railWarnings }

// RandomPattern reports whether the pattern changes from run to run.
func (s *Analysis) RandomPattern() bool { return s.source.Random() }

// SetProgress sets the progress callback.
func (s *Analysis) SetProgress(fn func(done int64)) { s.cfg.Progress = fn }

// PrintHosts writes the names of the hosts taking part, one per line in
// subset order (ORCS's --printnamelist).
func (s *Analysis) PrintHosts(w io.Writer) {
	for _, h := range s.hosts {
		fmt.Fprintln(w, s.fabric.HostName(int(h)))
	}
}

// PrintPattern writes the levels of run r with the hosts the ranks map to
// (ORCS's --printptrn).
func (s *Analysis) PrintPattern(w io.Writer, r int) error {
	mapped, levels := s.Draw(r)
	return patterns.Print(w, levels, func(rank int) string { return s.fabric.HostName(int(mapped[rank])) })
}

// Allocation resolves a --hosts argument, a Slurm host list or @FILE (see
// package hostlist), into host indices of f; "" gives nil (no allocation).
func Allocation(f *lft.Fabric, arg string) ([]int32, error) {
	if arg == "" {
		return nil, nil
	}
	names, err := hostlist.Parse(arg)
	if err == nil {
		var hosts []int32
		if hosts, err = ResolveHosts(f, names); err == nil {
			return hosts, nil
		}
	}
	return nil, fmt.Errorf("--hosts: %w", err)
}

// ResolveHosts turns host names (a job's allocation, e.g. from a Slurm host
// list) into host indices of f, in order. A name matches a host of that
// name, or else one named "H-" + name: fabrics read from InfiniBand files
// name hosts after their descriptions that way (node017 → H-node017), so
// the names Slurm knows apply. A name that is no host but a node (a
// machine, see package nodes: "dgx017" of the HCAs "dgx017 mlx5_0" …)
// stands for all its HCAs, in rail order. Unknown names (the first few
// are named) and a host given twice are errors.
func ResolveHosts(f *lft.Fabric, names []string) ([]int32, error) {
	out := make([]int32, 0, len(names))
	seen := make(map[int32]bool, len(names))
	var unknown []string
	var layout *nodes.Layout
	add := func(name string, h int32) error {
		if seen[h] {
			return fmt.Errorf("host %s is given twice", name)
		}
		seen[h] = true
		out = append(out, h)
		return nil
	}
	for _, name := range names {
		v, ok := f.NodeByName(name)
		if !ok || f.HostIndex(v) < 0 {
			v, ok = f.NodeByName("H-" + name)
		}
		if ok && f.HostIndex(v) >= 0 {
			if err := add(name, f.HostIndex(v)); err != nil {
				return nil, err
			}
			continue
		}
		if layout == nil {
			var err error
			if layout, err = nodes.FromFabric(f); err != nil {
				return nil, err
			}
		}
		i, ok := layout.Lookup(name)
		if !ok {
			unknown = append(unknown, name)
			continue
		}
		for _, h := range layout.Nodes[i].HCAs {
			if h < 0 {
				continue
			}
			if err := add(name+" ("+f.HostName(int(h))+")", h); err != nil {
				return nil, err
			}
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("%d of the %d hosts given are not hosts of the fabric: %s",
			len(unknown), len(names), plural.Some(unknown, 5))
	}
	return out, nil
}

// allocationDigest fingerprints an allocation for shard metadata ("" when
// there is none), so that shards of different allocations do not merge.
func allocationDigest(hosts []int32) string {
	if hosts == nil {
		return ""
	}
	h := sha256.New()
	for _, x := range hosts {
		binary.Write(h, binary.LittleEndian, x)
	}
	return fmt.Sprintf("%d hosts %x", len(hosts), h.Sum(nil)[:8])
}

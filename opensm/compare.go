package opensm

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"orcs/analyze"
	"orcs/internal/workers"
	"orcs/lft"
	"orcs/metrics"
	"orcs/opensm/comparison"
)

// ParseEngines parses a comma-separated list of engine names; each must be
// one of Engines(), given once (an unknown name's error lists the known
// ones).
func ParseEngines(list string) ([]string, error) {
	var names []string
	for _, e := range strings.Split(list, ",") {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		if _, err := engines.Lookup(e); err != nil {
			return nil, err
		}
		if slices.Contains(names, e) {
			return nil, fmt.Errorf("engine %q given twice", e)
		}
		names = append(names, e)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no engines given")
	}
	return names, nil
}

// CompareOptions controls Compare.
type CompareOptions struct {
	// Engines are routed in this order and reported in it.
	Engines []string
	// Sim configures the simulation of every routed fabric; every engine
	// gets the same seed, hence the same mappings. Route errors are
	// counted, not fatal.
	Sim analyze.Config
	// Jobs is how many engines are routed at once (at least 1).
	Jobs int
	// Timeout bounds each routing.
	Timeout time.Duration
	// Keep, when not empty, keeps every engine's dumps in Keep/ENGINE.
	Keep string
	// Tools locates the programs; nil looks them up.
	Tools *Tools
	// Status, when not nil, follows the routings (for a progress line).
	Status *Status
	// Configure, when not nil, sets further options of every engine's
	// routing (OpenSM options such as LMC or an opensm.conf).
	Configure func(*Options)
	// Current, when not nil, is the fabric with the tables it runs with
	// today (from its dumps); it is simulated like the engines' and
	// reported first, as the row "current". Its hosts must be those of the
	// input, in the same order, so that the same seed maps the pattern
	// onto the same hosts.
	Current *lft.Fabric
}

// The comparison's types live in package comparison, which report reads
// without the routing machinery; these names keep opensm's API.

// CurrentRow names the row of the production tables.
const CurrentRow = comparison.CurrentRow

// EngineRow is the comparison of one engine.
type EngineRow = comparison.EngineRow

// Comparison is the result of Compare.
type Comparison = comparison.Result

// Formats lists the output formats of a comparison.
var Formats = comparison.Formats

// CheckFormat returns an error unless format is one of Formats.
func CheckFormat(format string) error { return comparison.CheckFormat(format) }

// Compare routes in with every engine (opt.Jobs at a time; fallbacks are
// accepted and marked), simulates every routed fabric with the same
// settings and seed, and returns the comparison. A failing engine gives a
// row with its error; report receives one line per failure as it happens
// (may be nil). Compare returns an error only for bad settings or when ctx
// is cancelled.
func Compare(ctx context.Context, in *Input, opt CompareOptions, report func(engine string, err error)) (*Comparison, error) {
	t0 := time.Now()
	metric, err := metrics.Lookup(opt.Sim.Metric)
	if err != nil {
		return nil, err
	}
	opt.Sim.IgnoreRouteErrors = true
	opt.Sim.Context = ctx
	if opt.Jobs < 1 {
		return nil, fmt.Errorf("%d engines at once: want at least 1", opt.Jobs)
	}
	if err := emptyDir(opt.Keep); err != nil {
		return nil, err
	}
	// Check the simulation's settings before spending time on routing.
	probe, err := analyze.New(in.Fabric, opt.Sim)
	if err != nil {
		return nil, err
	}
	out := &Comparison{Fabric: in.Name, Hosts: in.Fabric.NumHosts(), Switches: in.Fabric.NumSwitches(),
		Pattern: opt.Sim.Pattern.Name, Metric: metric.Name, Value: metric.ValueName, Runs: opt.Sim.Runs,
		Commsize: probe.Commsize(), Seed: opt.Sim.Seed}
	if cur := opt.Current; cur != nil {
		if cur.NumHosts() != in.Fabric.NumHosts() {
			return nil, fmt.Errorf("the current tables' fabric has %d hosts, the input %d", cur.NumHosts(), in.Fabric.NumHosts())
		}
		for h := range cur.NumHosts() {
			if cur.HostName(h) != in.Fabric.HostName(h) {
				return nil, fmt.Errorf("the current tables' fabric has host %s where the input has %s", cur.HostName(h), in.Fabric.HostName(h))
			}
		}
		row := EngineRow{Requested: CurrentRow, Used: "(tables given)"}
		row.Deadlock = deadlockVerdict(&Result{Fabric: cur}, opt.Sim.Threads)
		if err := simulateRow(&row, cur, opt.Sim); err != nil {
			row.Error = err.Error()
			if report != nil && ctx.Err() == nil {
				report(CurrentRow, err)
			}
		}
		out.Engines = append(out.Engines, row)
	}
	results, errs := routeAll(ctx, in, opt)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	for i, e := range opt.Engines {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		row := EngineRow{Requested: e}
		res := results[i]
		if err := errs[i]; err == nil {
			row.Used, row.Fallback = res.Used, res.Fallback
			row.RouteSeconds, row.SweepSeconds = res.OpenSM.Seconds(), res.Log.Sweep.Seconds()
			if res.Fallback {
				row.Notes = res.Log.Notes
			}
			errs[i] = simulateRow(&row, res.Fabric, opt.Sim)
			row.Deadlock = deadlockVerdict(res, opt.Sim.Threads)
		}
		if err := errs[i]; err != nil {
			row.Error = err.Error()
			if report != nil && ctx.Err() == nil {
				report(e, err)
			}
		}
		out.Engines = append(out.Engines, row)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	out.Seconds = time.Since(t0).Seconds()
	return out, nil
}

// routeAll routes the fabric with every engine, at most opt.Jobs at a
// time. Fallbacks are accepted.
func routeAll(ctx context.Context, in *Input, opt CompareOptions) ([]*Result, []error) {
	results := make([]*Result, len(opt.Engines))
	errs := make([]error, len(opt.Engines))
	tools := opt.Tools
	if tools == nil {
		var err error
		if tools, err = FindTools(); err != nil {
			for i := range errs {
				errs[i] = err
			}
			return results, errs
		}
	}
	inOrder(ctx, slowestFirst(opt.Engines), opt.Jobs, func(i int) {
		e := opt.Engines[i]
		ro := in.Options(e)
		ro.Tools = tools
		ro.AllowFallback = true
		ro.PathSLs = comparePathSLs(e, in.Fabric.NumHosts())
		ro.Timeout = opt.Timeout
		if opt.Configure != nil {
			opt.Configure(&ro)
		}
		if opt.Keep != "" {
			ro.Keep = filepath.Join(opt.Keep, e)
		}
		opt.Status.begin(e)
		results[i], errs[i] = Route(ctx, in.Fabric, ro)
		opt.Status.end(e)
	}, func(i int) { errs[i] = ctx.Err() })
	return results, errs
}

// inOrder calls run(i) for every i of order, at most jobs at a time, and
// takes them in the given order: a run is taken only after the one before
// it, when a job is free. When ctx is done, the runs not started get
// skipped(i) instead, once every started run has returned.
func inOrder(ctx context.Context, order []int, jobs int, run, skipped func(i int)) {
	started := make([]bool, len(order))
	workers.Run(ctx, jobs, len(order), func(_, k int) error {
		started[k] = true
		run(order[k])
		return nil
	})
	for k, i := range order {
		if !started[k] {
			skipped(i)
		}
	}
}

// slowestFirst returns the indices of engines in the order they should
// start, so that with few parallel jobs the longest routing does not start
// last.
func slowestFirst(names []string) []int {
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	rank := func(e string) int {
		if en, err := engines.Lookup(e); err == nil {
			return en.cost
		}
		return math.MaxInt // not an engine of orcs: last
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(rank(names[a]), rank(names[b])) })
	return order
}

// simulateRow simulates a routed fabric and fills the row's statistics.
func simulateRow(row *EngineRow, f *lft.Fabric, cfg analyze.Config) error {
	check := f.CheckRoutes(nil, 1, cfg.Threads)
	row.Unroutable, row.Loops = check.Unroutable, check.Loops
	s, err := analyze.New(f, cfg)
	if err != nil {
		return err
	}
	res, err := s.Run()
	if err != nil {
		return err
	}
	row.MeanBandwidth = res.MeanBandwidth()
	sum := metrics.Summarize(res.Values)
	row.Summary = &sum
	row.Values = res.Values
	row.Skipped = res.RouteErrors
	for w := len(res.Weights) - 1; w > 0; w-- {
		if res.Weights[w] > 0 {
			row.MaxCongestion = w
			break
		}
	}
	return nil
}

// Status follows the routings of a comparison for a progress line: which
// engines run and for how long, and how many are done. It is safe for
// concurrent use.
type Status struct {
	mu      sync.Mutex
	running map[string]time.Time
	done    int
	total   int
	start   time.Time
}

// NewStatus returns a Status for total engines.
func NewStatus(total int) *Status {
	return &Status{running: map[string]time.Time{}, total: total, start: time.Now()}
}

func (s *Status) begin(engine string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.running[engine] = time.Now()
	s.mu.Unlock()
}

func (s *Status) end(engine string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	delete(s.running, engine)
	s.done++
	s.mu.Unlock()
}

// Line describes the state: "routing lash (42 s), dfsssp (3 s); 6 of 10
// engines done, 58 s", or the simulation once every engine is routed.
func (s *Status) Line() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var parts []string
	for e, t := range s.running {
		parts = append(parts, fmt.Sprintf("%s (%.0f s)", e, time.Since(t).Seconds()))
	}
	slices.Sort(parts)
	what := "simulating the routed fabrics"
	if len(parts) > 0 {
		what = "routing " + strings.Join(parts, ", ")
	}
	return fmt.Sprintf("%s; %d of %d engines routed, %.0f s", what, s.done, s.total, time.Since(s.start).Seconds())
}

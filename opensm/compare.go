package opensm

import (
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"orcs/analyze"
	"orcs/internal/plural"
	"orcs/lft"
	"orcs/metrics"
	"orcs/plot"
	"orcs/schema"
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

// CurrentRow names the row of the production tables.
const CurrentRow = schema.CurrentRow

// EngineRow is the comparison of one engine (the row of schema's
// comparison file).
type EngineRow = schema.EngineRow

// Comparison is the result of Compare: the file of orcs compare --format
// json (schema.Comparison) with the methods that write it.
type Comparison schema.Comparison

// Judge answers the comparison's question in one or two sentences (see
// schema.Comparison.Judge); best is the index of the best engine, -1 when
// none is.
func (c *Comparison) Judge() (sentence string, best int) { return (*schema.Comparison)(c).Judge() }

// withVerdict returns c with Verdict and Best filled in.
func (c *Comparison) withVerdict() *Comparison {
	v := *c
	s, best := c.Judge()
	v.Verdict, v.Best = s, ""
	if best >= 0 {
		v.Best = c.Engines[best].Requested
	}
	return &v
}

// Failed counts the engines that failed to route or to simulate.
func (c *Comparison) Failed() int {
	n := 0
	for _, r := range c.Engines {
		if r.Error != "" {
			n++
		}
	}
	return n
}

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
	out := &Comparison{FormatVersion: schema.ComparisonVersion, Fabric: in.Name, Hosts: in.Fabric.NumHosts(), Switches: in.Fabric.NumSwitches(),
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
	return out.withVerdict(), nil
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

// inOrder calls run(i) for every i of order, at most jobs at a time, each
// on a goroutine of its own, and starts them in the given order: a run
// starts only when the one before it has started and a job is free. When
// ctx is done, the runs not started yet get skipped(i) instead. It returns
// when every started run has returned.
func inOrder(ctx context.Context, order []int, jobs int, run, skipped func(i int)) {
	sem := make(chan struct{}, max(1, jobs))
	var wg sync.WaitGroup
	for _, i := range order {
		if ctx.Err() == nil {
			select {
			case sem <- struct{}{}:
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer func() { <-sem }()
					run(i)
				}()
				continue
			case <-ctx.Done():
			}
		}
		skipped(i)
	}
	wg.Wait()
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

// Formats lists the output formats of a comparison.
var Formats = []string{"text", "json", "csv"}

// CheckFormat returns an error unless format is one of Formats.
func CheckFormat(format string) error {
	if slices.Contains(Formats, format) {
		return nil
	}
	return fmt.Errorf("unknown format %q (known: %s)", format, strings.Join(Formats, ", "))
}

// Write writes the comparison in format: text (WriteTable), json
// (WriteJSON) or csv (WriteCSV).
func (c *Comparison) Write(w io.Writer, format string) error {
	switch format {
	case "json":
		return c.WriteJSON(w)
	case "csv":
		return c.WriteCSV(w)
	}
	return c.WriteTable(w)
}

// WriteCSV writes one row per engine: its status, the summary of the
// metric's per-run values and the routing's figures; the cells of a failed
// engine's numbers are empty.
func (c *Comparison) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"engine", "used", "status", "route_seconds", "mean_bandwidth", "mean", "p5", "median", "p95",
		"max_congestion", "unroutable_pairs", "loop_pairs", "deadlock", "error"})
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, r := range c.Engines {
		row := []string{r.Requested, r.Used, r.Status(), "", "", "", "", "", "", "", "", "", r.Deadlock, firstLine(r.Error)}
		if r.Error == "" && r.Summary != nil {
			copy(row[3:], []string{f(r.RouteSeconds), f(r.MeanBandwidth), f(r.Summary.Mean), f(r.Summary.P5), f(r.Summary.Median),
				f(r.Summary.P95), strconv.Itoa(r.MaxCongestion), strconv.FormatInt(r.Unroutable, 10), strconv.FormatInt(r.Loops, 10)})
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// WriteJSON writes the comparison as indented JSON. Summaries of engines
// without runs (NaN) are left out: JSON has no NaN.
func (c *Comparison) WriteJSON(w io.Writer) error {
	safe := *c.withVerdict()
	safe.Engines = append([]EngineRow(nil), c.Engines...)
	for i := range safe.Engines {
		if s := safe.Engines[i].Summary; s != nil && math.IsNaN(s.Mean) {
			safe.Engines[i].Summary = nil
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(safe)
}

// WriteTable prints the comparison as an aligned table (the best engine's
// row marked "<- best"), with notes on failures and fallbacks below it and
// the verdict as its last lines.
func (c *Comparison) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "fabric %s: %s, %s; pattern %s on %s, metric %s (%s), %s, seed %d\n\n",
		c.Fabric, plural.N(c.Hosts, "host"), plural.N(c.Switches, "switch"), c.Pattern, plural.N(c.Commsize, "host"), c.Metric, c.Value, plural.N(c.Runs, "run"), c.Seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	// a collective's bus-bandwidth fraction is a per-run value: its mean
	// over the runs, not the connections' mean of 1/w
	busBand := c.Metric == "hist_bus_band"
	meanHead := "mean bw"
	if busBand {
		meanHead = "mean bus bw"
	}
	fmt.Fprintf(tw, "engine\tused\troute s\t%s\tp5\tmedian\tp95\tmax cong\tunroutable\tdeadlock\t\n", meanHead)
	var notes []string
	verdict, best := c.Judge()
	for i, r := range c.Engines {
		if r.Error != "" {
			fmt.Fprintf(tw, "%s\tfailed\t\t\t\t\t\t\t\t\t\n", r.Requested)
			notes = append(notes, fmt.Sprintf("%s failed: %s", r.Requested, firstLine(r.Error)))
			continue
		}
		used := r.Used
		if r.Fallback {
			used += "*"
			why := ""
			if len(r.Notes) > 0 {
				why = ": " + r.Notes[0]
			}
			notes = append(notes, fmt.Sprintf("* %s fell back to %s%s", r.Requested, r.Used, why))
		}
		dl := r.Deadlock
		switch {
		case dl == "" && r.Requested == CurrentRow:
			dl = "?"
			notes = append(notes, "? current: a credit loop on one VL; if the running engine separates paths by SL (lash, dfsssp, nue, torus-2QoS), check with orcs deadlock --sl/--sl2vl")
		case dl == "":
			dl = "?"
			notes = append(notes, fmt.Sprintf("? %s: deadlock unknown: a credit loop on one VL, but %s separates paths by SL and its SLs were not read", r.Requested, r.Used))
		}
		mark := ""
		if i == best {
			mark = "  <- best"
		}
		mean := r.MeanBandwidth
		if busBand {
			mean = r.Summary.Mean
		}
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.4f\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n", r.Requested, used, r.RouteSeconds,
			mean, num(r.Summary.P5), num(r.Summary.Median), num(r.Summary.P95), r.MaxCongestion,
			r.Unroutable+r.Loops, dl, mark)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "\n%s\n", strings.Join(notes, "\n"))
	}
	_, err := fmt.Fprintf(w, "\ntotal %.1f s\n\n%s\n", c.Seconds, verdict)
	return err
}

// num prints an integer value without decimals, others with four.
func num(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e9 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.4f", x)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Plot returns the per-engine distributions of the per-run values as a
// figure (see schema.Comparison.Plot).
func (c *Comparison) Plot() *plot.Distributions {
	return (*schema.Comparison)(c.withVerdict()).Plot()
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
	return fmt.Sprintf("%s; %d of %s routed, %.0f s", what, s.done, plural.N(s.total, "engine"), time.Since(s.start).Seconds())
}

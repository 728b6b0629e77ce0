package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"orcs/lft"
	"orcs/metrics"
	"orcs/opensm"
	"orcs/patterns"
	"orcs/sim"
)

func init() { registerCommand(compareCommand()) }

func compareCommand() *cli.Command {
	return &cli.Command{
		Name:      "compare",
		Usage:     "route a fabric with several OpenSM engines and compare their congestion",
		ArgsUsage: "FABRIC",
		Description: fabricHelp + "\n\n" +
			"Every engine routes the fabric as orcs route does (several at once, as cores allow), then every\n" +
			"routed fabric is simulated with the same seed, hence the same mappings of the pattern onto the\n" +
			"hosts. The table gives per engine: the engine asked for and the one OpenSM used (a fallback is\n" +
			"marked *), OpenSM's run time, the mean effective bandwidth (mean of 1/congestion over all\n" +
			"connections), the 5th percentile, median and 95th percentile of the metric's per-run values, the\n" +
			"worst congestion of any connection, and the host pairs that do not route (those connections\n" +
			"are skipped). --plot overlays the per-engine distributions of the per-run values.\n" +
			"Example: orcs compare gen:kary:k=8,n=3 --ptrn bisect_fb_sym --metric hist_acc_band -n 1000 --plot cmp.svg",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "engines", Value: strings.Join(opensm.Engines(), ","), Usage: "comma-separated OpenSM `ENGINES`"},
			&cli.StringFlag{Name: "ptrn", Aliases: []string{"p"}, Value: "bisect", Usage: "communication `PATTERN`: " + strings.Join(patterns.Names(), ", ")},
			&cli.StringFlag{Name: "metric", Value: "hist_acc_band", Usage: "`METRIC` whose per-run values are compared: " + strings.Join(metrics.Names(), ", ")},
			&cli.IntFlag{Name: "num_runs", Aliases: []string{"n"}, Value: 100, Usage: "number of runs (random mappings)"},
			&cli.IntFlag{Name: "commsize", Aliases: []string{"s"}, Usage: "hosts taking part (0 = all, rounded down to even)"},
			&cli.StringFlag{Name: "subset", Value: sim.SubsetLinearBFS, Usage: "which hosts take part: linear_bfs or rand"},
			&cli.StringFlag{Name: "seed", Value: "1", Usage: "random seed `S` of the mappings (the same for every engine)"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "output format: text (a table) or json"},
			&cli.StringFlag{Name: "output_file", Aliases: []string{"o"}, Value: "-", Usage: "write the table to `FILE`"},
			&cli.StringFlag{Name: "plot", Usage: "write the per-engine distributions to `FILE` (.svg, .png or .pdf)"},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Value: runtime.NumCPU(), Usage: "engines routed at once"},
			&cli.IntFlag{Name: "threads", Value: runtime.NumCPU(), Usage: "simulation threads"},
			&cli.StringFlag{Name: "keep", Usage: "keep every engine's dumps in `DIR`/ENGINE"},
			&cli.DurationFlag{Name: "timeout", Value: 10 * time.Minute, Usage: "time limit of each routing"},
		},
		Action: compareAction,
	}
}

// engineRow is the comparison of one engine.
type engineRow struct {
	Requested     string           `json:"requested"`
	Used          string           `json:"used,omitempty"`
	Fallback      bool             `json:"fallback"`
	RouteSeconds  float64          `json:"route_seconds"`
	SweepSeconds  float64          `json:"sweep_seconds"`
	MeanBandwidth float64          `json:"mean_bandwidth"`
	Summary       *metrics.Summary `json:"summary,omitempty"`
	MaxCongestion int              `json:"max_congestion"`
	Unroutable    int64            `json:"unroutable_pairs"`
	Loops         int64            `json:"loop_pairs"`
	Skipped       int64            `json:"skipped_connections"`
	Notes         []string         `json:"notes,omitempty"`
	Error         string           `json:"error,omitempty"`
	Values        []float64        `json:"values,omitempty"`
}

// comparison is the output of compare.
type comparison struct {
	Fabric   string      `json:"fabric"`
	Hosts    int         `json:"hosts"`
	Switches int         `json:"switches"`
	Pattern  string      `json:"pattern"`
	Metric   string      `json:"metric"`
	Value    string      `json:"value"`
	Runs     int         `json:"runs"`
	Commsize int         `json:"commsize"`
	Seed     uint64      `json:"seed"`
	Seconds  float64     `json:"seconds"`
	Engines  []engineRow `json:"engines"`
}

func compareAction(c *cli.Context) error {
	t0 := time.Now()
	if c.Args().Len() != 1 {
		return fmt.Errorf("compare: want one FABRIC (a dot file or gen:SPEC), got %d arguments", c.Args().Len())
	}
	format := c.String("format")
	if format != "text" && format != "json" {
		return fmt.Errorf("compare: unknown format %q (known: text, json)", format)
	}
	if p := c.String("plot"); p != "" {
		switch strings.ToLower(filepath.Ext(p)) {
		case ".svg", ".png", ".pdf":
		default:
			return fmt.Errorf("compare: --plot %s: want a .svg, .png or .pdf file", p)
		}
	}
	metric, err := metrics.Lookup(c.String("metric"))
	if err != nil {
		return err
	}
	seed, _, err := parseSeed(c.String("seed"))
	if err != nil {
		return err
	}
	var engines []string
	for _, e := range strings.Split(c.String("engines"), ",") {
		if e = strings.TrimSpace(e); e != "" {
			engines = append(engines, e)
		}
	}
	if len(engines) == 0 {
		return fmt.Errorf("compare: no engines given")
	}
	in, err := loadRouteInput(c.Args().First())
	if err != nil {
		return err
	}
	cfg := sim.Config{
		Input:             in.name,
		Pattern:           patterns.Spec{Name: c.String("ptrn")},
		Metric:            metric.Name,
		Commsize:          c.Int("commsize"),
		Subset:            c.String("subset"),
		Level:             -1,
		Runs:              c.Int("num_runs"),
		Seed:              seed,
		Threads:           c.Int("threads"),
		IgnoreRouteErrors: true,
	}
	// Check the simulation's settings before spending time on routing.
	probe, err := sim.New(in.fabric, cfg)
	if err != nil {
		return err
	}
	out := comparison{Fabric: in.name, Hosts: in.fabric.NumHosts(), Switches: in.fabric.NumSwitches(),
		Pattern: cfg.Pattern.Name, Metric: metric.Name, Value: metric.ValueName, Runs: cfg.Runs,
		Commsize: probe.Commsize(), Seed: seed}

	ctx, stop := signalContext()
	defer stop()
	results, errs := routeAll(ctx, in, engines, c)
	if ctx.Err() != nil {
		return interrupted(ctx.Err())
	}
	stderr := errWriter(c)
	failed := 0
	for i, e := range engines {
		row := engineRow{Requested: e}
		res := results[i]
		if err := errs[i]; err != nil {
			row.Error = err.Error()
			failed++
			fmt.Fprintf(stderr, "orcs compare: %s: %v\n", e, err)
			out.Engines = append(out.Engines, row)
			continue
		}
		row.Used, row.Fallback = res.Used, res.Fallback
		row.RouteSeconds, row.SweepSeconds = res.OpenSM.Seconds(), res.Log.Sweep.Seconds()
		if res.Fallback {
			row.Notes = res.Log.Notes
		}
		if err := simulateRow(&row, res.Fabric, cfg, metric); err != nil {
			row.Error = err.Error()
			failed++
			fmt.Fprintf(stderr, "orcs compare: %s: %v\n", e, err)
		}
		out.Engines = append(out.Engines, row)
	}
	out.Seconds = time.Since(t0).Seconds()
	err = writeOutput(c.String("output_file"), func(w io.Writer) error {
		if format == "json" {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(jsonSafe(out))
		}
		return writeCompareTable(w, &out)
	})
	if err != nil {
		return err
	}
	if p := c.String("plot"); p != "" {
		if err := writeComparePlot(p, &out); err != nil {
			return err
		}
	}
	if failed > 0 {
		return cli.Exit(fmt.Sprintf("orcs compare: %d of %d engines failed", failed, len(engines)), 1)
	}
	return nil
}

// routeAll routes the fabric with every engine, at most --jobs at a time.
// Fallbacks are accepted (and shown in the table).
func routeAll(ctx context.Context, in *routeInput, engines []string, c *cli.Context) ([]*opensm.Result, []error) {
	results := make([]*opensm.Result, len(engines))
	errs := make([]error, len(engines))
	tools, err := opensm.FindTools()
	if err != nil {
		for i := range errs {
			errs[i] = err
		}
		return results, errs
	}
	sem := make(chan struct{}, max(1, c.Int("jobs")))
	var wg sync.WaitGroup
	for i, e := range engines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				errs[i] = ctx.Err()
				return
			}
			defer func() { <-sem }()
			opt := in.options(e)
			opt.Tools = tools
			opt.AllowFallback = true
			opt.Timeout = c.Duration("timeout")
			if k := c.String("keep"); k != "" {
				opt.Keep = filepath.Join(k, e)
			}
			results[i], errs[i] = opensm.Route(ctx, in.fabric, opt)
		}()
	}
	wg.Wait()
	return results, errs
}

// simulateRow simulates a routed fabric and fills the row's statistics.
func simulateRow(row *engineRow, f *lft.Fabric, cfg sim.Config, metric *metrics.Metric) error {
	all := make([]int32, f.NumHosts())
	for i := range all {
		all[i] = int32(i)
	}
	check := f.CheckRoutes(all, 1, cfg.Threads)
	row.Unroutable, row.Loops = check.Unroutable, check.Loops
	s, err := sim.New(f, cfg)
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

// jsonSafe replaces NaN summaries (no runs) by nothing: JSON has no NaN.
func jsonSafe(c comparison) comparison {
	for i := range c.Engines {
		if s := c.Engines[i].Summary; s != nil && math.IsNaN(s.Mean) {
			c.Engines[i].Summary = nil
		}
	}
	return c
}

// writeCompareTable prints the comparison as an aligned table.
func writeCompareTable(w io.Writer, c *comparison) error {
	fmt.Fprintf(w, "fabric %s: %d hosts, %d switches; pattern %s on %d hosts, metric %s (%s), %d runs, seed %d\n\n",
		c.Fabric, c.Hosts, c.Switches, c.Pattern, c.Commsize, c.Metric, c.Value, c.Runs, c.Seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "engine\tused\troute s\tmean bw\tp5\tmedian\tp95\tmax cong\tunroutable\t\n")
	var notes []string
	for _, r := range c.Engines {
		if r.Error != "" {
			fmt.Fprintf(tw, "%s\tfailed\t\t\t\t\t\t\t\t\n", r.Requested)
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
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.4f\t%s\t%s\t%s\t%d\t%d\t\n", r.Requested, used, r.RouteSeconds,
			r.MeanBandwidth, num(r.Summary.P5), num(r.Summary.Median), num(r.Summary.P95), r.MaxCongestion,
			r.Unroutable+r.Loops)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "\n%s\n", strings.Join(notes, "\n"))
	}
	_, err := fmt.Fprintf(w, "\ntotal %.1f s\n", c.Seconds)
	return err
}

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

// plotColors tells ten engines apart.
var plotColors = []color.RGBA{
	{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255}, {148, 103, 189, 255},
	{140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255}, {188, 189, 34, 255}, {23, 190, 207, 255},
}

// writeComparePlot draws, for every engine, the distribution of the per-run
// values as a frequency polygon (the fraction of runs per bin), all engines
// over the same bins, as in Figure 3 of the ORCS manual.
func writeComparePlot(path string, c *comparison) error {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range c.Engines {
		for _, v := range r.Values {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if math.IsInf(lo, 0) {
		return errors.New("compare: --plot: no engine has values to plot")
	}
	bins := 40
	if hi-lo < 1e-12 {
		lo, hi = lo-0.05, hi+0.05
	}
	width := (hi - lo) / float64(bins)
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s, %s: %d runs of %s on %d hosts", c.Fabric, c.Metric, c.Runs, c.Pattern, c.Commsize)
	p.X.Label.Text = c.Value
	if c.Metric == "hist_acc_band" {
		p.X.Label.Text = "fraction of peak bandwidth"
	}
	p.Y.Label.Text = "fraction of runs"
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	for i, r := range c.Engines {
		if len(r.Values) == 0 {
			continue
		}
		counts := make([]float64, bins)
		n := 0
		for _, v := range r.Values {
			if math.IsNaN(v) {
				continue
			}
			b := min(bins-1, max(0, int((v-lo)/width)))
			counts[b]++
			n++
		}
		pts := make(plotter.XYs, bins)
		for b := range pts {
			pts[b].X = lo + (float64(b)+0.5)*width
			pts[b].Y = counts[b] / float64(max(n, 1))
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		line.Color = plotColors[i%len(plotColors)]
		line.Width = vg.Points(1.5)
		line.Dashes = [][]vg.Length{{}, {vg.Points(6), vg.Points(2)}, {vg.Points(2), vg.Points(2)}}[i/len(plotColors)%3]
		p.Add(line)
		label := r.Requested
		if r.Fallback {
			label += " (used " + r.Used + ")"
		}
		// Engines with the very same values draw one curve: say so.
		for _, o := range c.Engines[:i] {
			if len(o.Values) > 0 && slices.Equal(o.Values, r.Values) {
				label += " = " + o.Requested
				break
			}
		}
		p.Legend.Add(label, line)
	}
	// Room on the right for the legend.
	p.X.Min, p.X.Max = lo, hi+0.45*(hi-lo)
	p.Legend.ThumbnailWidth = vg.Points(20)
	p.Legend.Padding = vg.Points(2)
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	p.Title.TextStyle.Font.Size = vg.Points(10)
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	wt, err := p.WriterTo(18*vg.Centimeter, 11*vg.Centimeter, ext)
	if err != nil {
		return err
	}
	return writeOutput(path, func(w io.Writer) error {
		_, err := wt.WriteTo(w)
		return err
	})
}

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/urfave/cli/v2"

	"orcs/analyze"
	"orcs/infile"
	"orcs/internal/interrupt"
	"orcs/internal/progress"
	"orcs/metrics"
	"orcs/opensm"
	"orcs/patterns"
	"orcs/whatif"
	"orcs/whatif/result"
)

func init() { registerCommand(whatifCommand()) }

func whatifCommand() *cli.Command {
	return &cli.Command{
		Name:      "whatif",
		Usage:     "re-route a fabric with failed cables or switches by the real OpenSM engine and compare with the intact fabric",
		ArgsUsage: "[FABRIC]",
		Description: fabricHelp + "\n\n" +
			"--fail (repeatable): link:NODE/PORT (the cable at that port; the port numbers of orcs route),\n" +
			"switch:NODE (every cable of it); explicit failures given together form one set. each-link and\n" +
			"each-switch give one set per cable or switch; random:K gives --trials sets of K random cables\n" +
			"(trial T's set for K holds its set for every smaller K). Every set is routed by OpenSM as orcs\n" +
			"route does, on its own ibsim (--jobs at once), and compared with the intact fabric routed by the\n" +
			"same engine: host pairs cut (critical when not 0), pairs the new tables leave unrouted, the\n" +
			"pattern's mean bandwidth and p5 kept (same --seed, hence the same mappings), the change of the\n" +
			"mean hop count, the deadlock verdict of the new tables (as compare), the switch forwarding\n" +
			"entries that changed and the hosts whose routes change most. An engine that falls back after\n" +
			"the failure is reported as such and not compared. When the fabric falls apart, OpenSM routes the\n" +
			"part with the most hosts. --shard I/N routes the sets ≡ I (mod N) and writes JSON for orcs merge.\n" +
			"Example: orcs whatif gen:kary:k=4,n=3 --engine minhop,ftree --fail each-link",
		Flags: append(append(fabricFlags(""), openSMFlags()...),
			&cli.StringFlag{Name: "engine", Aliases: []string{"R"}, Usage: "comma-separated OpenSM `ENGINES` (none given: minhop, OpenSM's own default)"},
			&cli.StringSliceFlag{Name: "fail", Usage: "failure `SPEC`: link:NODE/PORT, switch:NODE, each-link, each-switch, random:K (repeatable)"},
			&cli.IntFlag{Name: "trials", Value: 10, Usage: "random sets per random:K"},
			&cli.StringFlag{Name: "seed", Value: "1", Usage: "random seed `S` of the random sets and of the mappings"},
			&cli.StringFlag{Name: "ptrn", Aliases: []string{"p"}, Value: "bisect_fb_sym", Usage: "communication `PATTERN`: " + strings.Join(patterns.Names(), ", ")},
			&cli.StringFlag{Name: "metric", Value: "hist_acc_band", Usage: "`METRIC` of the analysis: " + strings.Join(metrics.Names(), ", ")},
			&cli.IntFlag{Name: "num_runs", Aliases: []string{"num-runs", "n"}, Value: 20, Usage: "runs (random mappings) per routed fabric"},
			&cli.IntFlag{Name: "commsize", Aliases: []string{"s"}, Usage: "hosts taking part (0 = all, rounded down to even)"},
			&cli.IntFlag{Name: "worst", Value: 5, Usage: "list the `N` worst failure sets per engine"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "output format: text, json or csv (one row per engine and set)"},
			&cli.StringFlag{Name: "output_file", Aliases: []string{"output-file", "o"}, Value: "-", Usage: "write the result to `FILE`"},
			&cli.StringFlag{Name: "plot", Usage: "write the random sweep (bandwidth kept vs K per engine) to `FILE` (.svg)"},
			&cli.StringFlag{Name: "shard", Usage: "route only the sets ≡ I (mod N) and write JSON for orcs merge (`I/N`)"},
			&cli.IntFlag{Name: "jobs", Value: runtime.NumCPU(), Usage: "routings at once"},
			&cli.IntFlag{Name: "threads", Aliases: []string{"j"}, Value: runtime.NumCPU(), Usage: "simulation threads per routed fabric"},
			&cli.DurationFlag{Name: "timeout", Usage: "time limit of each routing; " + timeoutHelp},
			&cli.BoolFlag{Name: "cold", Usage: "route every failure set with a fresh ibsim and OpenSM (default: each job keeps one running per engine; the same tables)"},
		),
		Action: whatifAction,
	}
}

func whatifAction(c *cli.Context) error {
	t0 := time.Now()
	format := c.String("format")
	if err := opensm.CheckFormat(format); err != nil {
		return fmt.Errorf("whatif: %w", err)
	}
	if err := threadsFlag(c); err != nil {
		return fmt.Errorf("whatif: %w", err)
	}
	metric, err := metrics.Lookup(c.String("metric"))
	if err != nil {
		return err
	}
	seed, _, err := analyze.ParseSeed(c.String("seed"))
	if err != nil {
		return err
	}
	engineList := c.String("engine")
	if engineList == "" {
		engineList = "minhop" // OpenSM's default engine
	}
	engines, err := opensm.ParseEngines(engineList)
	if err != nil {
		return fmt.Errorf("whatif: --engine: %w", err)
	}
	shard, err := analyze.ParseShard(c.String("shard"))
	if err != nil {
		return fmt.Errorf("whatif: %w", err)
	}
	if c.IsSet("shard") {
		format = "json"
	}
	if p := c.String("plot"); p != "" && (!strings.HasSuffix(p, ".svg") || c.IsSet("shard")) {
		return fmt.Errorf("whatif: --plot %s: want an .svg file, and not with --shard (plot the merge's JSON in orcs report)", p)
	}
	if len(c.StringSlice("fail")) == 0 {
		return fmt.Errorf("whatif: no failures given: --fail link:NODE/PORT, switch:NODE, each-link, each-switch or random:K")
	}
	in, err := loadRouteInput(c)
	if err != nil {
		return err
	}
	plan, err := whatif.NewPlan(in.Fabric, in.RealPorts)
	if err != nil {
		return fmt.Errorf("whatif: %s: %w", in.Name, err)
	}
	sets, err := plan.Sets(c.StringSlice("fail"), c.Int("trials"), seed)
	if err != nil {
		return fmt.Errorf("whatif: %s: %w", in.Name, err)
	}
	// Written by the routing jobs, read by the progress line.
	var done, total atomic.Int64
	var counts whatif.Counts
	opt := whatif.Options{
		Engines: engines,
		Sim: analyze.Config{Input: in.Name, Pattern: patterns.Spec{Name: c.String("ptrn")}, Metric: metric.Name,
			Commsize: c.Int("commsize"), Subset: analyze.SubsetLinearBFS, Level: -1, Runs: c.Int("num_runs"),
			Seed: seed, Threads: c.Int("threads")},
		Jobs:      c.Int("jobs"),
		Timeout:   c.Duration("timeout"),
		Configure: func(o *opensm.Options) { openSMOptions(c, o) },
		Shard:     shard,
		Progress:  func(d, t int) { done.Store(int64(d)); total.Store(int64(t)) },
		Cold:      c.Bool("cold"),
		Counts:    &counts,
	}
	ctx, stop := interrupt.Context()
	defer stop()
	stopLine := progress.Line(os.Stderr, func() string {
		return fmt.Sprintf("whatif: %d of %d routings done, %.0f s", done.Load(), total.Load(), time.Since(t0).Seconds())
	})
	res, err := whatif.Run(ctx, in, plan, sets, opt)
	stopLine()
	stop()
	if err != nil {
		return interrupted(fmt.Errorf("whatif %s: %w", in.Name, err))
	}
	if err := writeWhatif(c.String("output_file"), format, c.Int("worst"), res); err != nil {
		return err
	}
	if p := c.String("plot"); p != "" {
		svg := res.PlotSVG(true)
		if svg == "" {
			return fmt.Errorf("whatif: --plot %s: no random sets (--fail random:K) to plot", p)
		}
		if err := writeOutput(p, func(w io.Writer) error { _, err := io.WriteString(w, svg); return err }); err != nil {
			return err
		}
	}
	fmt.Fprintf(errWriter(c), "orcs whatif: %d failure sets × %d engines routed in %.1f s (%d on a running OpenSM, %d by a fresh one)\n",
		len(sets), len(engines), time.Since(t0).Seconds(), counts.Warm.Load(), counts.Cold.Load())
	return nil
}

// writeWhatif writes a whatif result in format.
func writeWhatif(path, format string, worst int, res *whatif.File) error {
	return writeOutput(path, func(w io.Writer) error {
		switch format {
		case "json":
			return res.WriteJSON(w)
		case "csv":
			return res.WriteCSV(w)
		}
		return res.WriteText(w, worst)
	})
}

// mergeWhatif merges whatif shard files when the first file is one: ok
// says it was.
func mergeWhatif(c *cli.Context) (ok bool, err error) {
	paths := c.Args().Slice()
	if !isWhatifFile(paths[0]) {
		return false, nil
	}
	var files []*whatif.File
	for _, p := range paths {
		data, err := infile.ReadAll(p)
		if err != nil {
			return true, fmt.Errorf("merge: %w", err)
		}
		f, err := result.ReadJSON(bytes.NewReader(data), p)
		if err != nil {
			return true, fmt.Errorf("merge: %w", err)
		}
		files = append(files, f)
	}
	res, err := whatif.Merge(files)
	if err != nil {
		return true, fmt.Errorf("merge: %w", err)
	}
	return true, writeWhatif(c.String("output_file"), c.String("format"), 5, res)
}

// isWhatifFile reports whether path starts like a whatif file (its header
// names "cables" and "engines" in its first 4 KiB). Standard input is left
// to the analyzer's merge, which reads it once.
func isWhatifFile(path string) bool {
	if path == "-" {
		return false
	}
	br, done, err := infile.Open(path)
	if err != nil {
		return false
	}
	defer done()
	head, _ := br.Peek(4096)
	return bytes.Contains(head, []byte(`"cables"`)) && bytes.Contains(head, []byte(`"engines"`))
}

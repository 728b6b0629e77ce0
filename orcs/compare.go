package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/urfave/cli/v2"

	"orcs/fabricarg"
	"orcs/internal/interrupt"
	"orcs/internal/plural"
	"orcs/internal/progress"
	"orcs/lft"
	"orcs/plot"

	"orcs/analyze"
	"orcs/metrics"
	"orcs/opensm"
	"orcs/patterns"
)

func init() { registerCommand(compareCommand()) }

func compareCommand() *cli.Command {
	return &cli.Command{
		Name:      "compare",
		Usage:     "route a fabric with several OpenSM engines and compare their congestion",
		ArgsUsage: "[FABRIC]",
		Description: fabricHelp + "\n\n" +
			"Every engine routes the fabric as orcs route does (several at once, as cores allow), then every\n" +
			"routed fabric is simulated with the same seed, hence the same mappings of the pattern onto the\n" +
			"hosts. The table gives per engine: the engine asked for and the one OpenSM used (a fallback is\n" +
			"marked *), OpenSM's run time, the mean effective bandwidth (mean of 1/congestion over all\n" +
			"connections), the 5th percentile, median and 95th percentile of the metric's per-run values, the\n" +
			"worst congestion of any connection, the host pairs that do not route (those connections\n" +
			"are skipped), and the deadlock column: the credit-loop check of the engine's tables as orcs\n" +
			"deadlock makes it (\"free (K VLs)\", a loop, or \"?\" when the engine separates paths by SL and\n" +
			"its SLs were not read). With --topo and --lfts, the tables the fabric runs with today are\n" +
			"simulated too, as the first row, \"current\". --hosts restricts the pattern to a job's\n" +
			"allocation (the same hosts for every engine). --plot overlays the per-engine distributions of\n" +
			"the per-run values.\n" +
			"Example: orcs compare gen:kary:k=8,n=3 --ptrn bisect_fb_sym --metric hist_acc_band -n 1000 --plot cmp.svg",
		Flags: append(append(fabricFlags(""), openSMFlags()...),
			&cli.StringFlag{Name: "engines", Value: strings.Join(opensm.Engines(), ","), Usage: "comma-separated OpenSM `ENGINES`"},
			&cli.StringFlag{Name: "ptrn", Aliases: []string{"p"}, Value: "bisect", Usage: "communication `PATTERN`: " + strings.Join(patterns.Names(), ", ")},
			&cli.StringFlag{Name: "metric", Value: "hist_acc_band", Usage: "`METRIC` whose per-run values are compared: " + strings.Join(metrics.Names(), ", ") + " (default for an nccl_ pattern: hist_bus_band)"},
			&cli.IntFlag{Name: "num_runs", Aliases: []string{"num-runs", "n"}, Value: 100, Usage: "number of runs (random mappings)"},
			&cli.IntFlag{Name: "commsize", Aliases: []string{"s"}, Usage: "hosts taking part (0 = all, rounded down to even)"},
			&cli.StringFlag{Name: "hosts", Usage: "only the hosts of a job's allocation: a Slurm host `LIST` (node[001-128,130]) or @FILE (one name per line)"},
			&cli.StringFlag{Name: "subset", Value: analyze.SubsetLinearBFS, Usage: "which hosts take part: linear_bfs or rand"},
			&cli.StringFlag{Name: "seed", Value: "1", Usage: "random seed `S` of the mappings (the same for every engine)"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "output format: text (a table), json or csv (one row per engine)"},
			&cli.StringFlag{Name: "output_file", Aliases: []string{"output-file", "o"}, Value: "-", Usage: "write the table to `FILE`"},
			&cli.StringFlag{Name: "plot", Usage: "write the per-engine distributions to `FILE` (.svg, .png or .pdf)"},
			&cli.IntFlag{Name: "jobs", Value: runtime.NumCPU(), Usage: "engines routed at once"},
			&cli.IntFlag{Name: "threads", Aliases: []string{"j"}, Value: runtime.NumCPU(), Usage: "simulation threads"},
			&cli.StringFlag{Name: "keep", Usage: "keep every engine's dumps in `DIR`/ENGINE"},
			&cli.DurationFlag{Name: "timeout", Usage: "time limit of each routing; " + timeoutHelp},
		),
		Action: compareAction,
	}
}

func compareAction(c *cli.Context) error {
	format := c.String("format")
	if err := opensm.CheckFormat(format); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	if err := threadsFlag(c); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	plotFormat := ""
	if p := c.String("plot"); p != "" {
		plotFormat = strings.TrimPrefix(filepath.Ext(p), ".")
		if err := plot.CheckFormat(plotFormat); err != nil {
			return fmt.Errorf("compare: --plot %s: %w", p, err)
		}
	}
	metric, err := metrics.Lookup(metricName(c))
	if err != nil {
		return err
	}
	seed, _, err := analyze.ParseSeed(c.String("seed"))
	if err != nil {
		return err
	}
	engines, err := opensm.ParseEngines(c.String("engines"))
	if err != nil {
		return fmt.Errorf("compare: --engines: %w", err)
	}
	in, err := loadRouteInput(c)
	if err != nil {
		return err
	}
	hosts, err := hostsList(c)
	if err != nil {
		return err
	}
	alloc, err := analyze.Allocation(in.Fabric, hosts)
	if err != nil {
		return err
	}
	var current *lft.Fabric
	if c.IsSet("lfts") { // the production tables: the row "current"
		src, err := loadFabric(c, fabricarg.Tables, false, false)
		if err != nil {
			return err
		}
		current = src.Fabric
	}
	opt := opensm.CompareOptions{
		Engines: engines,
		Sim: analyze.Config{
			Input:      in.Name,
			Pattern:    patterns.Spec{Name: c.String("ptrn")},
			Metric:     metric.Name,
			Commsize:   c.Int("commsize"),
			Subset:     c.String("subset"),
			Allocation: alloc,
			Level:      -1,
			Runs:       c.Int("num_runs"),
			Seed:       seed,
			Threads:    c.Int("threads"),
		},
		Jobs:      c.Int("jobs"),
		Timeout:   c.Duration("timeout"),
		Keep:      c.String("keep"),
		Current:   current,
		Configure: func(o *opensm.Options) { openSMOptions(c, o) },
	}
	ctx, stop := interrupt.Context()
	defer stop()
	opt.Sim.Progress = func(int64) { interrupt.Ready() } // the first simulated runs: the tools are done
	stderr := errWriter(c)
	opt.Status = opensm.NewStatus(len(engines))
	stopLine := progress.Line(os.Stderr, opt.Status.Line)
	cmp, err := opensm.Compare(ctx, in, opt, func(engine string, err error) {
		fmt.Fprintf(stderr, "orcs compare: %s: %v\n", engine, err)
	})
	stopLine()
	stop() // the tools are done: a signal now ends orcs at once
	if err != nil {
		return interrupted(err)
	}
	err = writeOutput(c.String("output_file"), func(w io.Writer) error {
		return cmp.Write(w, format)
	})
	if err != nil {
		return err
	}
	if p := c.String("plot"); p != "" {
		err := writeOutput(p, func(w io.Writer) error { return cmp.Plot().Write(w, plotFormat) })
		if err != nil {
			return fmt.Errorf("compare: --plot: %w", err)
		}
	}
	if failed := cmp.Failed(); failed > 0 {
		return cli.Exit(fmt.Sprintf("compare: %d of %s failed", failed, plural.N(len(engines), "engine")), 1)
	}
	return nil
}

package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"orcs/analyze"
	"orcs/fabricarg"
	"orcs/internal/interrupt"
	"orcs/internal/outfile"
	"orcs/internal/plural"
	"orcs/internal/progress"
	"orcs/metrics"
	"orcs/patterns"
)

func analyzeFlags() []cli.Flag {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "output_file", Aliases: []string{"output-file", "o"}, Value: "-", Usage: "write results to `FILE` (- = stdout)"},
		&cli.StringFlag{Name: "ptrn", Aliases: []string{"p"}, Value: "bisect", Usage: "communication `PATTERN`: " + strings.Join(patterns.Names(), ", ") + ", file:PATH"},
		&cli.StringFlag{Name: "frstptrn", Aliases: []string{"f"}, Value: "bisect", Usage: "ptrnvsptrn: first (measured) `PATTERN`"},
		&cli.StringFlag{Name: "secptrn", Aliases: []string{"c"}, Value: "bisect", Usage: "ptrnvsptrn: second (background) `PATTERN`"},
		&cli.IntFlag{Name: "part_commsize", Aliases: []string{"part-commsize", "z"}, Usage: "ptrnvsptrn: `N` ranks run the first pattern, the rest the second"},
		&cli.StringFlag{Name: "metric", Value: "hist_max_cong", Usage: "`METRIC`: " + strings.Join(metrics.Names(), ", ") + " (default for an nccl_ pattern: hist_bus_band)"},
		&cli.IntFlag{Name: "num_runs", Aliases: []string{"num-runs", "n"}, Value: 1, Usage: "number of runs (random mappings)"},
		&cli.IntFlag{Name: "commsize", Aliases: []string{"s"}, Usage: "hosts taking part (0 = all, rounded down to even); for an nccl_ pattern GPUs, whole nodes (0 = every node with an HCA on each rail)"},
		&cli.IntFlag{Name: "hot", Usage: "after the runs, list the `N` most loaded cables with the flows behind them (text, json; dot attributes with get_cable_cong)"},
		&cli.BoolFlag{Name: "cables", Usage: "with --format json: add the fabric (nodes, switch levels, grid coordinates, routing) and every cable's load over the runs, for orcs report"},
		&cli.StringFlag{Name: "hot-csv", Usage: "with --hot: also write the hot cables and their flows as CSV to `FILE`"},
		&cli.StringFlag{Name: "hosts", Usage: "only the hosts of a job's allocation: a Slurm host `LIST` (node[001-128,130]) or @FILE (one name per line); with -d rank i runs on the i-th host"},
		&cli.StringFlag{Name: "subset", Value: analyze.SubsetLinearBFS, Usage: "which hosts take part: linear_bfs or rand"},
		&cli.BoolFlag{Name: "do_not_shuffle", Aliases: []string{"do-not-shuffle", "d"}, Usage: "keep the subset order instead of a random mapping per run"},
		&cli.IntFlag{Name: "ptrn_level", Aliases: []string{"ptrn-level", "l"}, Value: -1, Usage: "simulate only level `L` (-1 = all)"},
		&cli.BoolFlag{Name: "printptrn", Usage: "print the pattern's levels (of run 0) with host names"},
		&cli.BoolFlag{Name: "printnamelist", Usage: "print the hosts taking part"},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "print a line per simulated level on stderr"},
		&cli.BoolFlag{Name: "checkinputfile", Usage: "check that every ordered host pair routes, without loops, and exit"},
		&cli.BoolFlag{Name: "routequal", Usage: "print the congestion of the all-pairs route set of the hosts taking part"},
		&cli.StringFlag{Name: "seed", Usage: "random seed `S` (default: a fresh one, printed on stderr)"},
		&cli.IntFlag{Name: "threads", Aliases: []string{"j"}, Value: runtime.NumCPU(), Usage: "worker threads"},
		&cli.StringFlag{Name: "format", Value: "text", Usage: "output format: text (ORCS lines), json or csv"},
		&cli.BoolFlag{Name: "progress", Usage: "show a progress bar on stderr (on a terminal, after a second)"},
		&cli.StringFlag{Name: "until-ci", Usage: "run batches of runs until the 95 % confidence interval of the mean is narrower than ±`EPS` (absolute, or N% of the mean), at most -n runs; the output is that of -n with the count reached"},
		&cli.StringFlag{Name: "shard", Usage: "simulate only runs ≡ I (mod N) and write a shard file for 'orcs merge' (`I/N`)"},
		&cli.BoolFlag{Name: "ignore-route-errors", Usage: "skip (and count) connections whose route fails instead of refusing the fabric"},
		&cli.StringFlag{Name: "hist-edges", Value: "orcs2", Usage: "hist_acc_band bins: orcs2 (ORCS 2.0's GSL bins over [0, 1.000000000000001): a run of exactly k·0.05 counts in [(k-1)·0.05, k·0.05)) or exact ([k·0.05, (k+1)·0.05), 1.0 in the last bin)"},
		&cli.StringFlag{Name: "compat", Usage: "orcs2: print what ORCS 2.0 prints (get_cable_cong's per-route sums and edge list, dep_max_delay's previous-level chains, ORCS's rand, Xneighbor and ptrnvsptrn); default: the corrected semantics"},
	}
	return append(fabricFlags("-"), flags...)
}

func analyzeAction(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return fmt.Errorf("unexpected argument %q (the fabric is given with -i or --topo; the commands are listed by orcs --help)", c.Args().First())
	}
	// Each flag's own value first, then how the flags agree
	// (analyze.Request).
	format := c.String("format")
	if err := threadsFlag(c); err != nil {
		return err
	}
	metric, err := metrics.Lookup(metricName(c))
	if err != nil {
		return err
	}
	shard, err := analyze.ParseShard(c.String("shard"))
	if err != nil {
		return err
	}
	seed, seedGiven, err := analyze.ParseSeed(c.String("seed"))
	if err != nil {
		return err
	}
	var untilCI *analyze.UntilCI
	if c.IsSet("until-ci") {
		if untilCI, err = analyze.ParseUntilCI(c.String("until-ci")); err != nil {
			return err
		}
	}
	sharded := c.IsSet("shard")
	req := analyze.Request{Format: format, Output: c.String("output_file"),
		CheckInput: c.Bool("checkinputfile"), RouteQuality: c.Bool("routequal"),
		Sharded: sharded, SeedGiven: seedGiven,
		Hot: c.Int("hot"), HotCSV: c.IsSet("hot-csv"), Cables: c.Bool("cables"),
		Pattern: c.String("ptrn"), PvPParts: c.IsSet("frstptrn") || c.IsSet("secptrn") || c.IsSet("part_commsize")}
	if err := req.Validate(); err != nil {
		return err
	}
	src, err := loadFabric(c, fabricarg.Tables, metric.NeedsLinkLoad, false)
	if err != nil {
		return err
	}
	fabric, input := src.Fabric, src.Name
	hosts, err := hostsList(c)
	if err != nil {
		return err
	}
	alloc, err := analyze.Allocation(fabric, hosts)
	if err != nil {
		return err
	}
	if c.Bool("checkinputfile") {
		return checkInput(c, src, alloc)
	}
	cfg := analyzeConfig(c, input, metric.Name, alloc, seed, shard, untilCI)
	if c.Bool("verbose") {
		cfg.Verbose = analyze.SyncWriter(os.Stderr)
	}
	s, err := analyze.New(fabric, cfg)
	if err != nil {
		return err
	}
	for _, w := range s.RailWarnings() {
		warnOnce(c, w)
	}
	// Open the output first: a bad path fails before a long simulation.
	out, err := outfile.Create(c.String("output_file"))
	if err != nil {
		return err
	}
	defer out.Abort()
	// --printnamelist and --printptrn go to stdout as in ORCS, never into
	// the result; to stderr when stdout carries a machine-readable result.
	info := io.Writer(os.Stdout)
	if c.String("output_file") == "-" && (format != "text" || sharded) {
		info = os.Stderr
	}
	if c.Bool("printnamelist") {
		s.PrintHosts(info)
	}
	if c.Bool("printptrn") {
		if err := s.PrintPattern(info, 0); err != nil {
			return err
		}
	}
	if c.Bool("routequal") {
		q, err := analyze.RouteQuality(fabric, s.Hosts(), c.Int("threads"))
		if err != nil {
			return err
		}
		if err := q.Write(out); err != nil {
			return err
		}
		return out.Commit()
	}
	var bar *progress.Bar
	if c.Bool("progress") && term.IsTerminal(int(os.Stderr.Fd())) {
		bar = progress.Start(os.Stderr, "runs", shard.Runs(int64(cfg.Runs)))
		s.SetProgress(bar.Set)
	}
	interrupt.Ready()
	res, err := s.Run()
	bar.Stop()
	if err != nil {
		return err
	}
	seedMatters := !cfg.NoShuffle || cfg.Subset == analyze.SubsetRand || s.RandomPattern()
	if !seedGiven && seedMatters {
		fmt.Fprintf(os.Stderr, "orcs: seed %d (repeat with --seed %d)\n", seed, seed)
	}
	if st := s.CIStop(); st != nil {
		verdict := "the interval is narrow enough"
		if !st.Met {
			verdict = "the cap -n came first"
		}
		fmt.Fprintf(os.Stderr, "orcs: --until-ci %s: stopped after %s, mean %g ± %g (95 %%): %s\n", untilCI, plural.N(st.Runs, "run"), st.Mean, st.HalfWidth, verdict)
	}
	if res.RouteErrors > 0 {
		fmt.Fprintf(os.Stderr, "orcs: warning: %s skipped because %s route failed (--ignore-route-errors)\n", plural.N(res.RouteErrors, "connection"), plural.Verb(res.RouteErrors, "its", "their"))
	}
	if res.Hot, err = s.HotCables(c.Int("hot")); err != nil {
		return err
	}
	if c.Bool("cables") {
		res.Topology = s.Topology(src.Generated())
	}
	if p := c.String("hot-csv"); p != "" {
		if err := writeOutput(p, func(w io.Writer) error { return metrics.WriteHotCSV(w, res.Hot) }); err != nil {
			return err
		}
	}
	if sharded {
		err = analyze.NewShardFile(res, shard).Write(out)
	} else {
		err = metrics.Render(out, format, metric, res, fabric)
	}
	if err != nil {
		return err
	}
	return out.Commit()
}

// metricName returns --metric, or hist_bus_band for an NCCL collective
// (-p nccl_…) when --metric is not given.
func metricName(c *cli.Context) string {
	if !c.IsSet("metric") && patterns.Collective(c.String("ptrn")) {
		return "hist_bus_band"
	}
	return c.String("metric")
}

// analyzeConfig is the analyzer's configuration from the command line and
// what was read and parsed from it.
func analyzeConfig(c *cli.Context, input, metric string, alloc []int32, seed uint64, shard analyze.Shard, untilCI *analyze.UntilCI) analyze.Config {
	return analyze.Config{
		Input: input,
		Pattern: patterns.Spec{Name: c.String("ptrn"), First: c.String("frstptrn"),
			Second: c.String("secptrn"), Part: c.Int("part_commsize")},
		Metric:            metric,
		Allocation:        alloc,
		Commsize:          c.Int("commsize"),
		Subset:            c.String("subset"),
		NoShuffle:         c.Bool("do_not_shuffle"),
		Level:             c.Int("ptrn_level"),
		Runs:              c.Int("num_runs"),
		Seed:              seed,
		Threads:           c.Int("threads"),
		Shard:             shard,
		IgnoreRouteErrors: c.Bool("ignore-route-errors"),
		HistEdges:         c.String("hist-edges"),
		Compat:            c.String("compat"),
		UntilCI:           untilCI,
	}
}

// checkInput routes every ordered host pair and reports failures, with
// what the input holds that the check leaves out.
func checkInput(c *cli.Context, src *fabricarg.Fabric, hosts []int32) error {
	f, input := src.Fabric, src.Name
	limit := 20
	if c.Bool("verbose") {
		limit = 1 << 30
	}
	check := f.CheckRoutes(hosts, limit, c.Int("threads"))
	if hosts != nil && len(hosts) < f.NumHosts() {
		check.LeftOut = append(check.LeftOut, fmt.Sprintf("the %d hosts outside --hosts", f.NumHosts()-len(hosts)))
	}
	if n := src.AggregationLeftOut; n > 0 {
		check.LeftOut = append(check.LeftOut, fmt.Sprintf("%d SHARP aggregation nodes of the topology (--include-aggregation-nodes checks their paths too)", n))
	}
	err := writeOutput(c.String("output_file"), func(out io.Writer) error {
		if c.String("format") == "json" {
			return check.WriteJSON(out, f, input)
		}
		return check.Write(out, f)
	})
	if err != nil || check.OK() {
		return err
	}
	return cli.Exit(fmt.Sprintf("%s: %d of %d host pairs do not route", input, check.Failed(), check.Pairs), 1)
}

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"orcs/analyze"
	"orcs/fabricarg"
	"orcs/internal/interrupt"
	"orcs/internal/outfile"
	"orcs/internal/progress"
	"orcs/lft"
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
		&cli.StringFlag{Name: "metric", Value: "hist_max_cong", Usage: "`METRIC`: " + strings.Join(metrics.Names(), ", ")},
		&cli.IntFlag{Name: "num_runs", Aliases: []string{"num-runs", "n"}, Value: 1, Usage: "number of runs (random mappings)"},
		&cli.IntFlag{Name: "commsize", Aliases: []string{"s"}, Usage: "hosts taking part (0 = all, rounded down to even)"},
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
	format := c.String("format")
	if format != "text" && format != "json" && format != "csv" {
		return fmt.Errorf("unknown format %q (known: text, json, csv)", format)
	}
	switch {
	case c.Bool("checkinputfile") && c.Bool("routequal"):
		return fmt.Errorf("--checkinputfile and --routequal are two separate runs: give one")
	case threadsFlag(c) != nil:
		return threadsFlag(c)
	}
	metric, err := metrics.Lookup(c.String("metric"))
	if err != nil {
		return err
	}
	shard, err := analyze.ParseShard(c.String("shard"))
	if err != nil {
		return err
	}
	if c.IsSet("shard") && slices.Contains([]string{".csv", ".txt"}, strings.ToLower(filepath.Ext(c.String("output_file")))) {
		return fmt.Errorf("--shard writes a shard file (JSON) for orcs merge, not %s; --format applies to the merge", c.String("output_file"))
	}
	sharded := c.IsSet("shard")
	seed, seedGiven, err := analyze.ParseSeed(c.String("seed"))
	if err != nil {
		return err
	}
	if c.Int("hot") < 0 || c.IsSet("hot-csv") && c.Int("hot") == 0 || sharded && c.Int("hot") > 0 {
		return fmt.Errorf("--hot N wants N > 0 (--hot-csv needs it), and not with --shard: the flows are found by walking the runs again, which a merge cannot")
	}
	var untilCI *analyze.UntilCI
	if c.IsSet("until-ci") {
		if untilCI, err = analyze.ParseUntilCI(c.String("until-ci")); err != nil {
			return err
		}
	}
	if c.Bool("cables") && (format != "json" || sharded) {
		return fmt.Errorf("--cables adds the fabric and its cable loads to the JSON result: it wants --format json, and not --shard")
	}
	if sharded && !seedGiven {
		return fmt.Errorf("--shard needs --seed: every shard must draw the same mappings")
	}
	if c.String("ptrn") != "ptrnvsptrn" {
		for _, name := range []string{"frstptrn", "secptrn", "part_commsize"} {
			if c.IsSet(name) {
				return fmt.Errorf("-f/--frstptrn, -c/--secptrn and -z/--part_commsize belong to -p ptrnvsptrn (the pattern is %s)", c.String("ptrn"))
			}
		}
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
		return checkInput(c, fabric, input, alloc)
	}
	cfg := analyze.Config{
		Input: input,
		Pattern: patterns.Spec{Name: c.String("ptrn"), First: c.String("frstptrn"),
			Second: c.String("secptrn"), Part: c.Int("part_commsize")},
		Metric:            metric.Name,
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
	if c.Bool("verbose") {
		cfg.Verbose = analyze.SyncWriter(os.Stderr)
	}
	s, err := analyze.New(fabric, cfg)
	if err != nil {
		return err
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
		fmt.Fprintf(os.Stderr, "orcs: --until-ci %s: stopped after %d runs, mean %g ± %g (95 %%): %s\n", untilCI, st.Runs, st.Mean, st.HalfWidth, verdict)
	}
	if res.RouteErrors > 0 {
		fmt.Fprintf(os.Stderr, "orcs: warning: %d connections skipped because their route failed (--ignore-route-errors)\n", res.RouteErrors)
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

// checkInput routes every ordered host pair and reports failures.
func checkInput(c *cli.Context, f *lft.Fabric, input string, hosts []int32) error {
	limit := 20
	if c.Bool("verbose") {
		limit = 1 << 30
	}
	check := f.CheckRoutes(hosts, limit, c.Int("threads"))
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

package main

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"orcs/internal/outfile"
	"orcs/lft"
	"orcs/metrics"
	"orcs/patterns"
	"orcs/sim"
)

func analyzeFlags() []cli.Flag {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "input_file", Aliases: []string{"i"}, Value: "-", Usage: "routed fabric in dot (`FILE`, - = stdin, gzip accepted)"},
		&cli.StringFlag{Name: "output_file", Aliases: []string{"o"}, Value: "-", Usage: "write results to `FILE` (- = stdout)"},
		&cli.StringFlag{Name: "ptrn", Aliases: []string{"p"}, Value: "bisect", Usage: "communication `PATTERN`: " + strings.Join(patterns.Names(), ", ") + ", file:PATH"},
		&cli.StringFlag{Name: "frstptrn", Aliases: []string{"f"}, Value: "bisect", Usage: "ptrnvsptrn: first (measured) `PATTERN`"},
		&cli.StringFlag{Name: "secptrn", Aliases: []string{"c"}, Value: "bisect", Usage: "ptrnvsptrn: second (background) `PATTERN`"},
		&cli.IntFlag{Name: "part_commsize", Aliases: []string{"z"}, Usage: "ptrnvsptrn: `N` ranks run the first pattern, the rest the second"},
		&cli.StringFlag{Name: "metric", Value: "hist_max_cong", Usage: "`METRIC`: " + strings.Join(metrics.Names(), ", ")},
		&cli.IntFlag{Name: "num_runs", Aliases: []string{"n"}, Value: 1, Usage: "number of runs (random mappings)"},
		&cli.IntFlag{Name: "commsize", Aliases: []string{"s"}, Usage: "hosts taking part (0 = all, rounded down to even)"},
		&cli.StringFlag{Name: "subset", Value: sim.SubsetLinearBFS, Usage: "which hosts take part: linear_bfs or rand"},
		&cli.BoolFlag{Name: "do_not_shuffle", Aliases: []string{"d"}, Usage: "keep the subset order instead of a random mapping per run"},
		&cli.IntFlag{Name: "ptrn_level", Aliases: []string{"l"}, Value: -1, Usage: "simulate only level `L` (-1 = all)"},
		&cli.BoolFlag{Name: "printptrn", Usage: "print the pattern's levels (of run 0) with host names"},
		&cli.BoolFlag{Name: "printnamelist", Usage: "print the hosts taking part"},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "print a line per simulated level on stderr"},
		&cli.BoolFlag{Name: "checkinputfile", Usage: "check that every ordered host pair routes, without loops, and exit"},
		&cli.BoolFlag{Name: "routequal", Usage: "print the congestion of the all-pairs route set of the hosts taking part"},
		&cli.StringFlag{Name: "seed", Usage: "random seed `S` (default: a fresh one, printed on stderr)"},
		&cli.IntFlag{Name: "threads", Aliases: []string{"j"}, Value: runtime.NumCPU(), Usage: "worker threads"},
		&cli.StringFlag{Name: "format", Value: "text", Usage: "output format: text (ORCS lines), json or csv"},
		&cli.BoolFlag{Name: "progress", Usage: "show a progress bar on stderr (on a terminal, after a second)"},
		&cli.StringFlag{Name: "shard", Usage: "simulate only runs ≡ I (mod N) and write a shard file for 'orcs merge' (`I/N`)"},
		&cli.BoolFlag{Name: "ignore-route-errors", Usage: "skip (and count) connections whose route fails instead of refusing the fabric"},
	}
	return append(flags, topoFlags()...)
}

// parseShard parses "I/N".
func parseShard(s string) (sim.Shard, error) {
	if s == "" {
		return sim.Shard{Index: 0, Count: 1}, nil
	}
	i, n, ok := strings.Cut(s, "/")
	a, err1 := strconv.Atoi(i)
	b, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || b < 1 || a < 0 || a >= b {
		return sim.Shard{}, fmt.Errorf("--shard %q: want I/N with 0 ≤ I < N", s)
	}
	return sim.Shard{Index: a, Count: b}, nil
}

// parseSeed parses --seed or draws a fresh seed.
func parseSeed(s string) (seed uint64, given bool, err error) {
	if s == "" {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return 0, false, err
		}
		return binary.LittleEndian.Uint64(b[:]) >> 1, false, nil
	}
	seed, err = strconv.ParseUint(s, 0, 64)
	if err != nil {
		return 0, false, fmt.Errorf("--seed %q: want a non-negative integer", s)
	}
	return seed, true, nil
}

func analyzeAction(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return fmt.Errorf("unexpected argument %q (the fabric is given with -i; commands: merge, gen)", c.Args().First())
	}
	format := c.String("format")
	if format != "text" && format != "json" && format != "csv" {
		return fmt.Errorf("unknown format %q (known: text, json, csv)", format)
	}
	metric, err := metrics.Lookup(c.String("metric"))
	if err != nil {
		return err
	}
	shard, err := parseShard(c.String("shard"))
	if err != nil {
		return err
	}
	sharded := c.IsSet("shard")
	seed, seedGiven, err := parseSeed(c.String("seed"))
	if err != nil {
		return err
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
	fabric, input, err := loadFabric(c, metric.NeedsLinkLoad)
	if err != nil {
		return err
	}
	if c.Bool("checkinputfile") {
		return checkInput(c, fabric, input)
	}
	cfg := sim.Config{
		Input: input,
		Pattern: patterns.Spec{Name: c.String("ptrn"), First: c.String("frstptrn"),
			Second: c.String("secptrn"), Part: c.Int("part_commsize")},
		Metric:            metric.Name,
		Commsize:          c.Int("commsize"),
		Subset:            c.String("subset"),
		NoShuffle:         c.Bool("do_not_shuffle"),
		Level:             c.Int("ptrn_level"),
		Runs:              c.Int("num_runs"),
		Seed:              seed,
		Threads:           c.Int("threads"),
		Shard:             shard,
		IgnoreRouteErrors: c.Bool("ignore-route-errors"),
	}
	if c.Bool("verbose") {
		cfg.Verbose = &lockedWriter{w: os.Stderr}
	}
	s, err := sim.New(fabric, cfg)
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
	if err := printPattern(c, info, s, fabric); err != nil {
		return err
	}
	if c.Bool("routequal") {
		if err := routeQuality(out, fabric, s.Hosts(), c.Int("threads")); err != nil {
			return err
		}
		return out.Commit()
	}
	var bar *progressBar
	if c.Bool("progress") && term.IsTerminal(int(os.Stderr.Fd())) {
		bar = startProgress(int64(cfg.Runs), shard)
		s.SetProgress(bar.set)
	}
	res, err := s.Run()
	bar.stop()
	if err != nil {
		return err
	}
	seedMatters := !cfg.NoShuffle || cfg.Subset == sim.SubsetRand || s.RandomPattern()
	if !seedGiven && seedMatters {
		fmt.Fprintf(os.Stderr, "orcs: seed %d (repeat with --seed %d)\n", seed, seed)
	}
	if res.RouteErrors > 0 {
		fmt.Fprintf(os.Stderr, "orcs: warning: %d connections skipped because their route failed (--ignore-route-errors)\n", res.RouteErrors)
	}
	if sharded {
		err = sim.NewShardFile(res, shard).Write(out)
	} else {
		err = metrics.Render(out, format, metric, res, fabric)
	}
	if err != nil {
		return err
	}
	return out.Commit()
}

// printPattern writes what --printnamelist and --printptrn ask for: the
// hosts taking part, and the levels of run 0 with the hosts they map to.
func printPattern(c *cli.Context, w io.Writer, s *sim.Sim, fabric *lft.Fabric) error {
	hosts := s.Hosts()
	if c.Bool("printnamelist") {
		for _, h := range hosts {
			fmt.Fprintln(w, fabric.HostName(int(h)))
		}
	}
	if c.Bool("printptrn") {
		mapped, levels := s.Draw(0)
		return patterns.Print(w, levels, func(r int) string { return fabric.HostName(int(mapped[r])) })
	}
	return nil
}

// checkInput routes every ordered host pair and reports failures.
func checkInput(c *cli.Context, f *lft.Fabric, input string) error {
	all := make([]int32, f.NumHosts())
	for i := range all {
		all[i] = int32(i)
	}
	limit := 20
	if c.Bool("verbose") {
		limit = 1 << 30
	}
	check := f.CheckRoutes(all, limit, c.Int("threads"))
	err := writeOutput(c.String("output_file"), func(out io.Writer) error {
		fmt.Fprintf(out, "checked %d ordered pairs of %d hosts (%d switches, %d links)\n",
			check.Pairs, f.NumHosts(), f.NumSwitches(), len(f.Links))
		for _, e := range check.Examples {
			fmt.Fprintln(out, e.Error())
		}
		if int64(len(check.Examples)) < check.Unroutable+check.Loops {
			fmt.Fprintf(out, "… and %d more (-v lists all)\n", check.Unroutable+check.Loops-int64(len(check.Examples)))
		}
		if check.OK() {
			fmt.Fprintln(out, "all pairs route without loops")
		} else {
			fmt.Fprintf(out, "%d unroutable pairs, %d routing loops\n", check.Unroutable, check.Loops)
		}
		return nil
	})
	if err != nil || check.OK() {
		return err
	}
	return cli.Exit(fmt.Sprintf("%s: %d of %d host pairs do not route", input,
		check.Unroutable+check.Loops, check.Pairs), 1)
}

// routeQuality simulates the all-pairs route set of hosts as one level and
// prints its congestion like hist_max_cong, with link load statistics.
func routeQuality(w io.Writer, f *lft.Fabric, hosts []int32, threads int) error {
	check := f.CheckRoutes(hosts, 1, threads)
	if !check.OK() {
		return &sim.RouteError{Check: check, Fabric: f}
	}
	var walk sim.Walker
	walk.Init(f, true)
	res := &metrics.Result{}
	level := make(patterns.Level, 0, len(hosts))
	ident := make([]int32, len(hosts))
	for i := range ident {
		ident[i] = int32(i)
	}
	perm := make([]int32, len(hosts))
	copy(perm, hosts)
	// One source at a time keeps memory small; loads are summed per link and
	// the congestion of a route is taken over the complete route set.
	for s := range hosts {
		level = level[:0]
		for d := range hosts {
			if s != d {
				level = append(level, patterns.Pair{Src: int32(s), Dst: int32(d)})
			}
		}
		walk.Level(level, perm)
	}
	var used int
	var maxLoad, sum int64
	for _, c := range walk.Sum {
		if c > 0 {
			used++
			sum += c
			maxLoad = max(maxLoad, c)
		}
	}
	// Congestion of each route over the whole route set.
	var links []int32
	for s := range hosts {
		for d := range hosts {
			if s == d {
				continue
			}
			links, _ = f.AppendRoute(links[:0], hosts[s], hosts[d])
			var m int64
			for _, l := range links {
				m = max(m, walk.Sum[l])
			}
			res.AddWeight(int32(m))
		}
	}
	fmt.Fprintf(w, "Route quality of %d routes between %d hosts\n", check.Pairs, len(hosts))
	fmt.Fprintf(w, "links used: %d of %d; max link load: %d; mean load of used links: %f\n",
		used, len(f.Links), maxLoad, float64(sum)/float64(max(used, 1)))
	m, _ := metrics.Lookup("hist_max_cong")
	return m.Text(w, res, f)
}

// lockedWriter serialises writes from worker goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// progressBar shows a bar on stderr once a simulation has run for a second.
type progressBar struct {
	mu    sync.Mutex
	bar   *progressbar.ProgressBar
	total int64
	start time.Time
	done  chan struct{}
	last  int64
}

func startProgress(runs int64, shard sim.Shard) *progressBar {
	total := runs
	if shard.Count > 1 {
		total = (runs - int64(shard.Index) + int64(shard.Count) - 1) / int64(shard.Count)
	}
	p := &progressBar{total: total, start: time.Now(), done: make(chan struct{})}
	go func() {
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.done:
				return
			case <-t.C:
				p.mu.Lock()
				if p.bar == nil && time.Since(p.start) > time.Second {
					p.bar = progressbar.NewOptions64(p.total, progressbar.OptionSetWriter(os.Stderr),
						progressbar.OptionSetDescription("runs"), progressbar.OptionShowCount(),
						progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish())
				}
				if p.bar != nil {
					p.bar.Set64(p.last)
				}
				p.mu.Unlock()
			}
		}
	}()
	return p
}

func (p *progressBar) set(done int64) {
	p.mu.Lock()
	p.last = max(p.last, done)
	p.mu.Unlock()
}

func (p *progressBar) stop() {
	if p == nil {
		return
	}
	close(p.done)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
	}
}

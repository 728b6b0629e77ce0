package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"orcs/analyze"
	"orcs/fabricarg"
	"orcs/internal/interrupt"
	"orcs/internal/outfile"
	"orcs/internal/plural"
	"orcs/internal/progress"
	"orcs/lft"
	"orcs/samplingsim"
)

func init() { registerCommand(samplingsimCommand()) }

func samplingsimCommand() *cli.Command {
	def := samplingsim.DefaultConfig()
	return &cli.Command{
		Name:  "samplingsim",
		Usage: "packet simulation with credit flow control and reservoir-sampling headers (Taffet's thesis)",
		Description: "Simulates the packets of one or two jobs on a routed fabric (a generated topology with --gen,\n" +
			"a dot file with -i, or InfiniBand dumps with --topo/--lfts), with credit flow control, congestion marking and sampling headers,\n" +
			"prints the jobs' completion times and a congestion diagnosis, and writes per-link truth and\n" +
			"estimates (--csv, --json) and congested-fraction plots (--svg).\n\n" +
			"Example: orcs samplingsim --gen kary:k=4,n=3 --workload naive-reduce --window 100us --svg plot\n\n" +
			"Workloads (--workload, --background):\n  " + strings.Join(samplingsim.WorkloadNames(), "\n  ") +
			"\n\nBuffer policies (--buffers):\n  " + strings.Join(samplingsim.BufferNames(), "\n  ") +
			"\n\nMarking policies (--marking):\n  " + strings.Join(samplingsim.MarkingNames(), "\n  ") +
			"\n\nSampling schemes (--scheme):\n  " + strings.Join(samplingsim.SchemeNames(), "\n  ") +
			"\n\nRoutings (--routing):\n  " + strings.Join(samplingsim.RoutingNames(), "\n  "),
		Flags: append(append(fabricFlags(""),
			&cli.StringFlag{Name: "gen", Usage: "generate the fabric from `SPEC` (see orcs gen --help), e.g. kary:k=4,n=3; the same as -i gen:SPEC"},
			&cli.StringFlag{Name: "workload", Aliases: []string{"w"}, Value: "naive-reduce", Usage: "workload `SPEC` of the (primary) job"},
			&cli.StringFlag{Name: "background", Usage: "workload `SPEC` of a second job on the other hosts"},
			&cli.StringFlag{Name: "alloc", Value: "contiguous", Usage: "how two jobs share the hosts: " + strings.Join(samplingsim.AllocNames, ", ")},
			&cli.StringFlag{Name: "hosts", Usage: "use only a job's allocation: a Slurm host `LIST` (node[001-128]) or @FILE; a number N takes the first N hosts"},
			&cli.StringFlag{Name: "mapping", Usage: "map the primary job's ranks to hosts from `FILE` (host names, one per line, or RANK HOST lines)"},
			&cli.StringFlag{Name: "seed", Value: strconv.FormatUint(def.Seed, 10), Usage: "random seed: sampling, tagging, marking, random workloads"},
			&cli.Float64Flag{Name: "gbps", Value: def.Bandwidth / 1e9, Usage: "link bandwidth in Gb/s (of the links whose --topo file gives no width and speed; the others run at their own rate, e.g. 4xFDR10 40 Gb/s)"},
			&cli.StringFlag{Name: "latency", Value: "50ns", Usage: "link latency (`DURATION`)"},
			&cli.StringFlag{Name: "router-delay", Value: "100ns", Usage: "delay of a switch (`DURATION`)"},
			&cli.IntFlag{Name: "mtu", Value: def.MTU, Usage: "packet payload in bytes"},
			&cli.IntFlag{Name: "buffer", Value: def.InputBuffer, Usage: "input buffer (credits) per port, in packets"},
			&cli.StringFlag{Name: "buffers", Value: def.Buffers, Usage: "buffer `POLICY` of the input ports: fifo, bypass, dias-kumar, counting[:alpha=A], hashed[:j=J] (B = --buffer)"},
			&cli.IntFlag{Name: "outq", Value: def.OutputQueue, Usage: "output queue per port, in packets"},
			&cli.StringFlag{Name: "marking", Value: def.Marking, Usage: "congestion marking `POLICY`"},
			&cli.StringFlag{Name: "mark-at", Value: def.MarkAt.String(), Usage: "when ports are judged: enqueue, arrival or departure"},
			&cli.StringFlag{Name: "scheme", Value: def.Scheme, Usage: "sampling header: reservoir, onebit, onereservoir, none"},
			&cli.IntFlag{Name: "hop-bits", Value: def.HopBits, Usage: "bits b of the saturating hop counters"},
			&cli.Float64Flag{Name: "tag", Value: def.TagFraction, Usage: "fraction of packets that carry a header"},
			&cli.StringFlag{Name: "hash", Value: def.Hash, Usage: "one-bit hash: mult (H_mult') or crc"},
			&cli.StringFlag{Name: "restrict", Value: def.Restrict, Usage: "links a receiver updates for one-bit headers: route, hostrule, all"},
			&cli.Float64Flag{Name: "fp-confidence", Value: def.FalsePositiveConfidence, Usage: "false-positive threshold confidence for one-bit headers (0 = off)"},
			&cli.StringFlag{Name: "ids", Value: def.PacketIDs, Usage: "packet ids (hash records): connection (per-pair 24-bit PSNs from a seeded random start) or global (one counter from 1)"},
			&cli.IntFlag{Name: "port-bits", Usage: "port bits of the link code d (0 = 6, or more for larger switches)"},
			&cli.StringFlag{Name: "window", Value: "0", Usage: "store and reset the counters every `DURATION` (0 = one window)"},
			&cli.StringFlag{Name: "slow-hosts", Usage: "comma-separated host `NAMES` whose consumer is slow (a hot spot)"},
			&cli.Float64Flag{Name: "slow-factor", Value: def.SlowFactor, Usage: "rate of the slow consumers relative to the line rate"},
			&cli.StringFlag{Name: "max-time", Value: "0", Usage: "stop at this simulated `DURATION` (0 = no limit)"},
			&cli.StringFlag{Name: "view", Value: "all", Usage: "whose samples make the estimates: all, or a job name"},
			&cli.Float64Flag{Name: "congested", Value: 0.5, Usage: "congested fraction from which the diagnosis counts a link as congested"},
			&cli.Float64Flag{Name: "saturated", Value: samplingsim.DefaultSaturated, Usage: "Theorem 4.2 cutoff: a congested root inside the network carrying less sampled traffic than this fraction of the line rate is blamed on background traffic, more on internal congestion"},
			&cli.BoolFlag{Name: "diagnose-truth", Usage: "also diagnose the ground truth"},
			&cli.StringFlag{Name: "seeds", Usage: "also run and diagnose once per seed of `LIST` (1-10, or 1,4,7-9) and print the verdict with its support (how many seeds give it); seeds change sampling, marking and random workloads"},
			&cli.StringFlag{Name: "output_file", Aliases: []string{"output-file", "o"}, Value: "-", Usage: "write the summary and diagnosis to `FILE`"},
			&cli.StringFlag{Name: "csv", Usage: "write per-link truth and estimates per window to `FILE`"},
			&cli.StringFlag{Name: "json", Usage: "write the run (config, jobs, links per window, diagnosis) to `FILE`"},
			&cli.StringFlag{Name: "messages", Usage: "write per-message times to CSV `FILE`"},
			&cli.StringFlag{Name: "svg", Usage: "write congested-fraction plots to `PREFIX`-all.svg and PREFIX-wNNN.svg (one per window)"},
			&cli.StringFlag{Name: "plot-source", Value: "estimate", Usage: "what the plots show: estimate or truth"},
		), append(append(routingFlags(), ncclFlags()...), ccFlags()...)...),
		Action: samplingsimAction,
	}
}

func samplingsimAction(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return fmt.Errorf("unexpected argument %q (the fabric is given with --gen or -i)", c.Args().First())
	}
	if spec := c.String("gen"); spec != "" {
		if c.IsSet("input_file") || c.IsSet("topo") {
			return fmt.Errorf("give the fabric either with --gen SPEC (the same as -i gen:SPEC) or with -i/--topo, not both")
		}
		if err := c.Set("input_file", fabricarg.GenPrefix+spec); err != nil {
			return err
		}
	}
	src, err := loadFabric(c, fabricarg.Tables, false, false)
	if errors.Is(err, fabricarg.ErrNoFabric) {
		return fmt.Errorf("no fabric: give --gen SPEC (e.g. kary:k=4,n=3), -i FILE or --topo FILE --lfts FILE")
	}
	if err != nil {
		return err
	}
	f := src.Fabric
	if _, err := hostsList(c); err != nil {
		return err
	}
	firstHosts, err := strconv.Atoi(c.String("hosts"))
	var alloc []int32
	if err != nil && c.IsSet("hosts") {
		if alloc, err = analyze.Allocation(f, c.String("hosts")); err != nil {
			return err
		}
	}
	cfg, err := samplingsimConfig(c, src)
	if err != nil {
		return err
	}
	if err := applyRouting(c, src, &cfg); err != nil {
		return err
	}
	if err := applyCC(c, &cfg); err != nil {
		return err
	}
	if t := c.Float64("congested"); !(t > 0 && t <= 1) {
		return fmt.Errorf("--congested %g: want a congested fraction in (0, 1]", t)
	}
	if s := c.Float64("saturated"); !(s > 0 && s <= 1) {
		return fmt.Errorf("--saturated %g: want a fraction of the line rate in (0, 1]", s)
	}
	if err := refuseOneRunOutputs(c); err != nil {
		return err
	}
	var seeds []uint64
	if list := c.String("seeds"); list != "" {
		if c.String("compare-routing") != "" {
			return fmt.Errorf("--seeds diagnoses one routing over several seeds: give it without --compare-routing")
		}
		if seeds, err = samplingsim.ParseSeedList(list); err != nil {
			return fmt.Errorf("--seeds: %w", err)
		}
	}
	jobs, err := samplingsim.Jobs(f, samplingsim.JobsOptions{Workload: c.String("workload"), Background: c.String("background"),
		Alloc: c.String("alloc"), Hosts: firstHosts, Allocation: alloc, Mapping: c.String("mapping")})
	if err != nil {
		return err
	}
	if c.IsSet("nccl-algos") && !c.IsSet("nccl-sizes") {
		return fmt.Errorf("--nccl-algos runs with --nccl-sizes: give both")
	}
	if c.IsSet("nccl-sizes") && (c.IsSet("mapping") || c.IsSet("background")) {
		return fmt.Errorf("--nccl-sizes runs the nccl workload alone on whole nodes: give it without --mapping and --background")
	}
	if !c.IsSet("mapping") && !c.IsSet("background") { // an NCCL collective runs on whole nodes
		spec, hosts, err := ncclPlacement(f, jobs[0].Workload, alloc, firstHosts)
		if err != nil {
			return err
		}
		if hosts != nil {
			jobs[0].Workload, jobs[0].Hosts = spec, hosts
		}
		if done, err := ncclTests(c, src, cfg, spec, hosts); done {
			return err
		}
	}
	plan, err := samplingsim.BuildPlan(f, jobs, cfg.Seed)
	if err != nil {
		return err
	}
	if done, err := compareRouting(c, src, cfg, plan); done {
		return err
	}
	if done, err := compareCC(c, src, cfg, plan); done {
		return err
	}
	status, stopLine := progress.Status(os.Stderr, "orcs samplingsim")
	if status != nil {
		cfg.Progress = func(now samplingsim.Time, done, total int) {
			status(fmt.Sprintf("simulated %s, %d of %s finished", samplingsim.FormatTime(now), done, plural.N(total, "message")))
		}
	}
	interrupt.Ready()
	res, runErr := samplingsim.Run(f, cfg, plan)
	stopLine()
	if res == nil {
		return runErr
	}
	res.FabricName = src.ShortName()
	view, err := res.FindView(c.String("view"))
	if err != nil {
		return err
	}
	dopt := samplingsim.DiagnoseOptions{View: view, Window: -1, Threshold: c.Float64("congested"), Saturated: c.Float64("saturated")}
	diag := samplingsim.Diagnose(res, dopt)
	set := &outfile.Set{} // the summary and the files: all or none
	defer set.Abort()
	out, err := set.Create(c.String("output_file"))
	if err != nil {
		return err
	}
	res.WriteSummary(out, src.Name)
	fmt.Fprint(out, ccOffNote(c, cfg))
	if err := diag.Write(out); err != nil {
		return err
	}
	if c.Bool("diagnose-truth") {
		topt := dopt
		topt.Truth = true
		samplingsim.Diagnose(res, topt).Write(out)
	}
	if seeds != nil {
		if diag.Seeds, err = sweepSeeds(f, cfg, jobs, seeds, res, diag, dopt); err != nil {
			return err
		}
		diag.Seeds.Write(out, diag.View)
		diag.Verdict = diag.Sentence() // with the seeds' support, for --json
	}
	files := samplingsim.Files{LinksCSV: c.String("csv"), JSON: c.String("json"), Messages: c.String("messages"),
		SVG: c.String("svg"), PlotSource: c.String("plot-source")}
	if err := res.WriteFilesInto(set, files, view, diag); err != nil {
		return err
	}
	if err := set.Commit(); err != nil {
		return err
	}
	return runErr
}

// sweepSeeds runs the plan of jobs once per seed (the run of the main seed
// is reused), diagnoses each run as dopt says, and returns the verdict's
// support. A run stopped by --max-time is diagnosed as it stands.
func sweepSeeds(f *lft.Fabric, cfg samplingsim.Config, jobs []samplingsim.JobSpec, seeds []uint64,
	main *samplingsim.Result, mainDiag *samplingsim.Diagnosis, dopt samplingsim.DiagnoseOptions) (*samplingsim.Support, error) {
	runs := make([]samplingsim.SeedVerdict, 0, len(seeds))
	for _, seed := range seeds {
		if seed == cfg.Seed {
			runs = append(runs, samplingsim.SeedVerdictOf(main, mainDiag))
			continue
		}
		c := cfg
		c.Seed = seed
		plan, err := samplingsim.BuildPlan(f, jobs, seed)
		if err != nil {
			return nil, fmt.Errorf("--seeds, seed %d: %w", seed, err)
		}
		res, err := samplingsim.Run(f, c, plan)
		if res == nil {
			return nil, fmt.Errorf("--seeds, seed %d: %w", seed, err)
		}
		runs = append(runs, samplingsim.SeedVerdictOf(res, samplingsim.Diagnose(res, dopt)))
	}
	return samplingsim.Consensus(runs), nil
}

// samplingsimConfig reads the simulation settings. The links of an
// InfiniBand topology run at the rates it gives (ib.LinkRates), --gbps
// where it gives none.
func samplingsimConfig(c *cli.Context, src *fabricarg.Fabric) (samplingsim.Config, error) {
	f := src.Fabric
	cfg := samplingsim.DefaultConfig()
	var err error
	if cfg.Seed, _, err = analyze.ParseSeed(c.String("seed")); err != nil {
		return cfg, err
	}
	cfg.Bandwidth = c.Float64("gbps") * 1e9
	if src.LinkRates != nil || c.IsSet("topo") {
		cfg.LinkBandwidth = make([]float64, len(f.Links))
		cfg.LinkRateNames = make([]string, len(f.Links))
		for l, r := range src.LinkRates {
			cfg.LinkBandwidth[l] = r.Gbps() * 1e9
			cfg.LinkRateNames[l] = r.String()
		}
	}
	cfg.MTU = c.Int("mtu")
	cfg.InputBuffer = c.Int("buffer")
	cfg.OutputQueue = c.Int("outq")
	cfg.Buffers = c.String("buffers")
	cfg.Marking = c.String("marking")
	cfg.Scheme = c.String("scheme")
	cfg.HopBits = c.Int("hop-bits")
	cfg.TagFraction = c.Float64("tag")
	cfg.Hash = c.String("hash")
	cfg.Restrict = c.String("restrict")
	cfg.FalsePositiveConfidence = c.Float64("fp-confidence")
	cfg.PortBits = c.Int("port-bits")
	cfg.PacketIDs = c.String("ids")
	cfg.SlowFactor = c.Float64("slow-factor")
	if cfg.MarkAt, err = samplingsim.ParseMarkPoint(c.String("mark-at")); err != nil {
		return cfg, err
	}
	for _, d := range []struct {
		flag string
		dst  *samplingsim.Time
	}{{"latency", &cfg.Latency}, {"router-delay", &cfg.RouterDelay}, {"window", &cfg.Window}, {"max-time", &cfg.MaxTime}} {
		if *d.dst, err = samplingsim.ParseTime(c.String(d.flag)); err != nil {
			return cfg, fmt.Errorf("--%s %w", d.flag, err)
		}
	}
	if s := c.String("slow-hosts"); s != "" {
		for name := range strings.SplitSeq(s, ",") {
			v, ok := f.NodeByName(strings.TrimSpace(name))
			if !ok || f.HostIndex(v) < 0 {
				return cfg, fmt.Errorf("--slow-hosts: unknown host %q", name)
			}
			cfg.SlowHosts = append(cfg.SlowHosts, f.HostIndex(v))
		}
	}
	return cfg, cfg.Validate()
}

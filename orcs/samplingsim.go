package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"orcs/dot"
	"orcs/gen"
	"orcs/internal/outfile"
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
			"or a dot file with -i), with credit flow control, congestion marking and sampling headers,\n" +
			"prints the jobs' completion times and a congestion diagnosis, and writes per-link truth and\n" +
			"estimates (--csv, --json) and congested-fraction plots (--svg).\n\n" +
			"Example: orcs samplingsim --gen kary:k=4,n=3 --workload naive-reduce --window 100us --svg plot\n\n" +
			"Workloads (--workload, --background):\n  " + strings.Join(samplingsim.WorkloadNames(), "\n  ") +
			"\n\nMarking policies (--marking):\n  " + strings.Join(samplingsim.MarkingNames(), "\n  ") +
			"\n\nSampling schemes (--scheme):\n  " + strings.Join(samplingsim.SchemeNames(), "\n  "),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "gen", Usage: "generate the fabric from `SPEC` (see orcs gen --help), e.g. kary:k=4,n=3"},
			&cli.StringFlag{Name: "input_file", Aliases: []string{"i"}, Usage: "read the routed fabric from dot `FILE` instead of --gen"},
			&cli.StringFlag{Name: "workload", Aliases: []string{"w"}, Value: "naive-reduce", Usage: "workload `SPEC` of the (primary) job"},
			&cli.StringFlag{Name: "background", Usage: "workload `SPEC` of a second job on the other hosts"},
			&cli.StringFlag{Name: "alloc", Value: "contiguous", Usage: "how two jobs share the hosts: " + strings.Join(samplingsim.AllocNames, ", ")},
			&cli.IntFlag{Name: "hosts", Usage: "use only the first `N` hosts (0 = all)"},
			&cli.StringFlag{Name: "mapping", Usage: "map the primary job's ranks to hosts from `FILE` (host names, one per line, or RANK HOST lines)"},
			&cli.Uint64Flag{Name: "seed", Value: def.Seed, Usage: "random seed: sampling, tagging, marking, random workloads"},
			&cli.Float64Flag{Name: "gbps", Value: def.Bandwidth / 1e9, Usage: "link bandwidth in Gb/s"},
			&cli.StringFlag{Name: "latency", Value: "50ns", Usage: "link latency (`DURATION`)"},
			&cli.StringFlag{Name: "router-delay", Value: "100ns", Usage: "delay of a switch (`DURATION`)"},
			&cli.IntFlag{Name: "mtu", Value: def.MTU, Usage: "packet payload in bytes"},
			&cli.IntFlag{Name: "buffer", Value: def.InputBuffer, Usage: "input buffer (credits) per port, in packets"},
			&cli.IntFlag{Name: "outq", Value: def.OutputQueue, Usage: "output queue per port, in packets"},
			&cli.StringFlag{Name: "marking", Value: def.Marking, Usage: "congestion marking `POLICY`"},
			&cli.StringFlag{Name: "mark-at", Value: def.MarkAt.String(), Usage: "when ports are judged: enqueue, arrival or departure"},
			&cli.StringFlag{Name: "scheme", Value: def.Scheme, Usage: "sampling header: reservoir, onebit, onereservoir, none"},
			&cli.IntFlag{Name: "hop-bits", Value: def.HopBits, Usage: "bits b of the saturating hop counters"},
			&cli.Float64Flag{Name: "tag", Value: def.TagFraction, Usage: "fraction of packets that carry a header"},
			&cli.StringFlag{Name: "hash", Value: def.Hash, Usage: "one-bit hash: mult (H_mult') or crc"},
			&cli.StringFlag{Name: "restrict", Value: def.Restrict, Usage: "links a receiver updates for one-bit headers: route, hostrule, all"},
			&cli.Float64Flag{Name: "fp-confidence", Value: def.FalsePositiveConfidence, Usage: "false-positive threshold confidence for one-bit headers (0 = off)"},
			&cli.IntFlag{Name: "port-bits", Usage: "port bits of the link code d (0 = 6, or more for larger switches)"},
			&cli.StringFlag{Name: "window", Value: "0", Usage: "store and reset the counters every `DURATION` (0 = one window)"},
			&cli.StringFlag{Name: "slow-hosts", Usage: "comma-separated host `NAMES` whose consumer is slow (a hot spot)"},
			&cli.Float64Flag{Name: "slow-factor", Value: def.SlowFactor, Usage: "rate of the slow consumers relative to the line rate"},
			&cli.StringFlag{Name: "max-time", Value: "0", Usage: "stop at this simulated `DURATION` (0 = no limit)"},
			&cli.StringFlag{Name: "view", Value: "all", Usage: "whose samples make the estimates: all, or a job name"},
			&cli.Float64Flag{Name: "congested", Value: 0.5, Usage: "congested fraction from which the diagnosis counts a link as congested"},
			&cli.BoolFlag{Name: "diagnose-truth", Usage: "also diagnose the ground truth"},
			&cli.StringFlag{Name: "output_file", Aliases: []string{"o"}, Value: "-", Usage: "write the summary and diagnosis to `FILE`"},
			&cli.StringFlag{Name: "csv", Usage: "write per-link truth and estimates per window to `FILE`"},
			&cli.StringFlag{Name: "json", Usage: "write the run (config, jobs, links per window, diagnosis) to `FILE`"},
			&cli.StringFlag{Name: "messages", Usage: "write per-message times to CSV `FILE`"},
			&cli.StringFlag{Name: "svg", Usage: "write congested-fraction plots to `PREFIX`-all.svg and PREFIX-wNNN.svg (one per window)"},
			&cli.StringFlag{Name: "plot-source", Value: "estimate", Usage: "what the plots show: estimate or truth"},
		},
		Action: samplingsimAction,
	}
}

// parsePicos parses a duration such as "50ns", "2us" or "1.5ms" into
// picoseconds; a bare number is nanoseconds.
func parsePicos(flag, s string) (samplingsim.Time, error) {
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		return samplingsim.Time(v * 1000), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("--%s %q: want a duration such as 50ns, 2us or 1ms", flag, s)
	}
	return samplingsim.Time(d.Nanoseconds()) * samplingsim.Nanosecond, nil
}

func samplingsimAction(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return fmt.Errorf("unexpected argument %q (the fabric is given with --gen or -i)", c.Args().First())
	}
	var f *lft.Fabric
	var err error
	switch spec, in := c.String("gen"), c.String("input_file"); {
	case spec != "" && in != "":
		return fmt.Errorf("give the fabric either with --gen or with -i, not both")
	case spec != "":
		f, err = gen.Generate(spec)
	case in != "":
		f, err = dot.ReadFile(in, dot.Options{})
	default:
		return fmt.Errorf("no fabric: give --gen SPEC (e.g. kary:k=4,n=3) or -i FILE")
	}
	if err != nil {
		return err
	}
	cfg, err := samplingsimConfig(c, f)
	if err != nil {
		return err
	}
	jobs, err := samplingsimJobs(c, f)
	if err != nil {
		return err
	}
	plan, err := samplingsim.BuildPlan(f, jobs, cfg.Seed)
	if err != nil {
		return err
	}
	res, runErr := samplingsim.Run(f, cfg, plan)
	if res == nil {
		return runErr
	}
	view, err := res.FindView(c.String("view"))
	if err != nil {
		return err
	}
	diag := samplingsim.Diagnose(res, samplingsim.DiagnoseOptions{View: view, Window: -1, Threshold: c.Float64("congested")})
	out, err := outfile.Create(c.String("output_file"))
	if err != nil {
		return err
	}
	defer out.Abort()
	fmt.Fprintf(out, "fabric %s: %d hosts, %d switches, %d links\n", f.GraphName, f.NumHosts(), f.NumSwitches(), len(f.Links))
	fmt.Fprintf(out, "simulated %s: %d packets, %d packet-hops, %d events in %.3f s wall, %.3f s CPU (%.2f M packet-hops per CPU second)\n",
		samplingsim.FormatTime(res.End), res.Packets, res.PacketHops, res.Events, res.Wall.Seconds(), res.CPU.Seconds(),
		float64(res.PacketHops)/max(res.CPU.Seconds(), 1e-9)/1e6)
	for _, j := range res.Jobs() {
		fin := "unfinished"
		if j.FinishUs >= 0 {
			fin = samplingsim.FormatTime(samplingsim.Time(j.FinishUs*1e6) - samplingsim.Time(j.StartUs*1e6))
		}
		fmt.Fprintf(out, "job %s: %d hosts, %d messages, finished after %s\n", j.Name, j.Hosts, j.Messages, fin)
	}
	if err := diag.Write(out); err != nil {
		return err
	}
	if c.Bool("diagnose-truth") {
		samplingsim.Diagnose(res, samplingsim.DiagnoseOptions{View: view, Window: -1, Threshold: c.Float64("congested"), Truth: true}).Write(out)
	}
	if err := writeSamplingOutputs(c, res, view, diag); err != nil {
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}
	return runErr
}

// samplingsimConfig reads the simulation settings.
func samplingsimConfig(c *cli.Context, f *lft.Fabric) (samplingsim.Config, error) {
	cfg := samplingsim.DefaultConfig()
	cfg.Seed = c.Uint64("seed")
	cfg.Bandwidth = c.Float64("gbps") * 1e9
	cfg.MTU = c.Int("mtu")
	cfg.InputBuffer = c.Int("buffer")
	cfg.OutputQueue = c.Int("outq")
	cfg.Marking = c.String("marking")
	cfg.Scheme = c.String("scheme")
	cfg.HopBits = c.Int("hop-bits")
	cfg.TagFraction = c.Float64("tag")
	cfg.Hash = c.String("hash")
	cfg.Restrict = c.String("restrict")
	cfg.FalsePositiveConfidence = c.Float64("fp-confidence")
	cfg.PortBits = c.Int("port-bits")
	cfg.SlowFactor = c.Float64("slow-factor")
	var err error
	if cfg.MarkAt, err = samplingsim.ParseMarkPoint(c.String("mark-at")); err != nil {
		return cfg, err
	}
	for _, d := range []struct {
		flag string
		dst  *samplingsim.Time
	}{{"latency", &cfg.Latency}, {"router-delay", &cfg.RouterDelay}, {"window", &cfg.Window}, {"max-time", &cfg.MaxTime}} {
		if *d.dst, err = parsePicos(d.flag, c.String(d.flag)); err != nil {
			return cfg, err
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

// samplingsimJobs allocates the hosts to the primary job (and the
// background job) and applies the mapping file.
func samplingsimJobs(c *cli.Context, f *lft.Fabric) ([]samplingsim.JobSpec, error) {
	n := f.NumHosts()
	if h := c.Int("hosts"); h > 0 {
		if h > n {
			return nil, fmt.Errorf("--hosts %d: the fabric has only %d hosts", h, n)
		}
		n = h
	}
	hosts := make([]int32, n)
	for i := range hosts {
		hosts[i] = int32(i)
	}
	name := func(spec string) string { return strings.SplitN(spec, ":", 2)[0] }
	primary := samplingsim.JobSpec{Name: name(c.String("workload")), Workload: c.String("workload"), Hosts: hosts}
	jobs := []samplingsim.JobSpec{primary}
	if bg := c.String("background"); bg != "" {
		parts, err := samplingsim.Allocate(c.String("alloc"), hosts, 2)
		if err != nil {
			return nil, err
		}
		bgName := name(bg)
		if bgName == primary.Name {
			bgName += "-background"
		}
		jobs[0].Hosts = parts[0]
		jobs = append(jobs, samplingsim.JobSpec{Name: bgName, Workload: bg, Hosts: parts[1]})
	}
	if path := c.String("mapping"); path != "" {
		fh, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		mapped, err := samplingsim.ReadMapping(fh, path, f)
		if err != nil {
			return nil, err
		}
		jobs[0].Hosts = mapped
		if len(jobs) > 1 {
			// The background job keeps its hosts minus those the mapping took.
			taken := map[int32]bool{}
			for _, h := range mapped {
				taken[h] = true
			}
			var rest []int32
			for _, h := range jobs[1].Hosts {
				if !taken[h] {
					rest = append(rest, h)
				}
			}
			jobs[1].Hosts = rest
		}
	}
	return jobs, nil
}

// writeSamplingOutputs writes the files asked for.
func writeSamplingOutputs(c *cli.Context, res *samplingsim.Result, view samplingsim.View, diag *samplingsim.Diagnosis) error {
	write := func(path string, fn func(io.Writer) error) error {
		if path == "" {
			return nil
		}
		out, err := outfile.Create(path)
		if err != nil {
			return err
		}
		defer out.Abort()
		if err := fn(out); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return out.Commit()
	}
	if err := write(c.String("csv"), func(w io.Writer) error { return res.WriteLinksCSV(w, view, false) }); err != nil {
		return err
	}
	if err := write(c.String("json"), func(w io.Writer) error { return res.WriteJSON(w, view, diag) }); err != nil {
		return err
	}
	if err := write(c.String("messages"), res.WriteMessagesCSV); err != nil {
		return err
	}
	prefix := c.String("svg")
	if prefix == "" {
		return nil
	}
	var src samplingsim.PlotSource
	switch c.String("plot-source") {
	case "estimate":
		src = samplingsim.PlotEstimate
	case "truth":
		src = samplingsim.PlotTruth
	default:
		return fmt.Errorf("--plot-source %q: want estimate or truth", c.String("plot-source"))
	}
	if err := write(prefix+"-all.svg", func(w io.Writer) error { return res.WritePlotSVG(w, view, -1, src) }); err != nil {
		return err
	}
	if res.Windows() > 1 {
		for w := range res.Windows() {
			if err := write(fmt.Sprintf("%s-w%03d.svg", prefix, w), func(out io.Writer) error { return res.WritePlotSVG(out, view, w, src) }); err != nil {
				return err
			}
		}
	}
	return nil
}

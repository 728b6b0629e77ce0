package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"orcs/dot"
	"orcs/fabricarg"
	"orcs/internal/interrupt"
	"orcs/internal/plural"
	"orcs/internal/progress"
	"orcs/opensm"
)

func init() { registerCommand(routeCommand()) }

// fabricHelp explains the FABRIC argument of route and compare.
const fabricHelp = "FABRIC (or -i) is a dot file (routed or not: only its topology is used; - = stdin, gzip accepted)\n" +
	"or a generator spec with the prefix gen:, e.g. gen:kary:k=8,n=3 or gen:torus:dims=4x4 (see orcs gen --help);\n" +
	"--topo FILE takes an InfiniBand topology instead (ibnetdiscover output, ibsim net file, subnet list)\n" +
	"with its real port numbers.\n" +
	"A generated fabric keeps its port numbers; a dot file gets them as dot2osm gives them (every edge\n" +
	"paired with its reverse edge). For torus-2QoS the seed file is written from the generator's\n" +
	"coordinates: for gen: specs, and for dot files written by orcs gen (the graph is named after the spec\n" +
	"and its topology is checked to be the generated one)."

func routeCommand() *cli.Command {
	return &cli.Command{
		Name:      "route",
		Usage:     "route a fabric with a real OpenSM engine on an ibsim emulation and write the routed dot",
		ArgsUsage: "[FABRIC]",
		Description: fabricHelp + "\n\n" +
			"Runs ibsim and OpenSM (Debian packages " + opensm.Packages + ") in a private temporary\n" +
			"directory, once: OpenSM sweeps with the engine, its opensm-lfts.dump is read back, and the fabric\n" +
			"is written as routed dot with the input's node names and link order. A fallback to another engine\n" +
			"is an error unless --allow-fallback. Engines: " + strings.Join(opensm.Engines(), ", ") + ".\n" +
			"Example: orcs route --engine ftree gen:kary:k=4,n=3 -o ft64-ftree.dot",
		Flags: append(append(fabricFlags(""), openSMFlags()...),
			&cli.StringFlag{Name: "engine", Aliases: []string{"R"}, Usage: "OpenSM routing `ENGINE`", Required: true},
			&cli.StringFlag{Name: "output_file", Aliases: []string{"output-file", "o"}, Value: "-", Usage: "write the routed dot to `FILE` (with --keep: only when given)"},
			&cli.StringFlag{Name: "keep", Usage: "keep the net file, OpenSM's log and dumps (and the diagnostics' output) in `DIR`; for lash, nue, torus-2QoS (up to 128 hosts) also every path's SL (saquery-pr.txt, for orcs deadlock), for dfsssp on any fabric (dfsssp-sl.txt.gz, from its log)"},
			&cli.BoolFlag{Name: "allow-fallback", Usage: "accept tables of another engine when OpenSM falls back (reported on stderr)"},
			&cli.BoolFlag{Name: "no-fallback", Usage: "run OpenSM with ENGINE,no_fallback and stop it when the engine fails"},
			&cli.StringFlag{Name: "roots", Usage: "root switches for updn, dnup, ftree: comma-separated `NAMES`, or \"tree\" for the top level of a generated fat tree"},
			&cli.StringFlag{Name: "torus-config", Usage: "torus-2QoS seed `FILE` (default: written from the generator's coordinates)"},
			&cli.BoolFlag{Name: "verify", Usage: "also read the tables back from the emulated switches with dump_fts and compare"},
			&cli.BoolFlag{Name: "ibnetdiscover", Usage: "also run ibnetdiscover (kept with --keep)"},
			&cli.DurationFlag{Name: "timeout", Usage: "time limit of the whole routing; " + timeoutHelp},
		),
		Action: routeAction,
	}
}

// loadRouteInput reads the fabric to route: FABRIC, -i or --topo (the
// topology alone is enough; tables given are not used).
func loadRouteInput(c *cli.Context) (*opensm.Input, error) {
	src, err := loadFabric(c, fabricarg.Topology, false, true)
	if errors.Is(err, fabricarg.ErrNoFabric) {
		return nil, fmt.Errorf("%s: want one FABRIC (a dot file, gen:SPEC, or --topo FILE)", c.Command.Name)
	}
	if err != nil {
		return nil, err
	}
	return &opensm.Input{Fabric: src.Fabric, Name: src.Name, Network: src.Network, RealPorts: src.RealPorts,
		RealIdentity: c.IsSet("topo"), Topology: src.Topology}, nil
}

// interrupted turns a cancellation by a signal into a clear error with
// the signal's exit code (130 for Ctrl-C, 143 for SIGTERM).
func interrupted(err error) error {
	if code, ok := interrupt.Stopped(err); ok {
		return cli.Exit("interrupted; the tools were stopped", code)
	}
	return err
}

func routeAction(c *cli.Context) error {
	t0 := time.Now()
	in, err := loadRouteInput(c)
	if err != nil {
		return err
	}
	opt := in.Options(c.String("engine"))
	opt.AllowFallback, opt.NoFallback, opt.Keep = c.Bool("allow-fallback"), c.Bool("no-fallback"), c.String("keep")
	opt.PathSLs = opt.Keep != "" && opensm.WantPathSLs(opt.Engine, in.Fabric.NumHosts(), opensm.MaxPathSLHosts)
	opt.DumpFTS, opt.IBNetDiscover = c.Bool("verify"), c.Bool("ibnetdiscover")
	opt.Timeout, opt.TorusConfig = c.Duration("timeout"), c.String("torus-config")
	if opt.TorusConfig != "" {
		opt.Torus = nil
	}
	openSMOptions(c, &opt)
	if opt.Roots, err = in.Roots(c.String("roots")); err != nil {
		return err
	}
	ctx, stop := interrupt.Context()
	defer stop()
	stopLine := progress.Line(os.Stderr, func() string { return fmt.Sprintf("routing with %s: %.0f s", opt.Engine, time.Since(t0).Seconds()) })
	res, err := opensm.Route(ctx, in.Fabric, opt)
	stopLine()
	stop() // the tools are done: a signal now ends orcs at once
	var fb *opensm.FallbackError
	if errors.As(err, &fb) {
		return fmt.Errorf("route %s: %w (--allow-fallback accepts it)", in.Name, err)
	}
	if err != nil {
		return interrupted(fmt.Errorf("route %s with %s: %w", in.Name, opt.Engine, err))
	}
	stderr := errWriter(c)
	if res.Fallback {
		fmt.Fprintf(stderr, "orcs route: warning: OpenSM fell back from %s to %s (--allow-fallback): %s\n",
			res.Engine, res.Used, strings.Join(res.Log.Notes, "; "))
	}
	if opt.DumpFTS {
		note, err := res.Verify()
		if err != nil {
			return fmt.Errorf("route: --verify: %w", err)
		}
		fmt.Fprintf(stderr, "orcs route: %s\n", note)
	}
	f := res.Fabric
	if check := f.CheckRoutes(nil, 1, runtime.NumCPU()); !check.OK() {
		fmt.Fprintf(stderr, "orcs route: warning: %s\n", check.Summary())
	}
	fmt.Fprintf(stderr, "orcs route: %s: %s routed %s, %s: OpenSM %.2f s (its sweep %.3f s), ibsim start %.2f s, all %.2f s\n",
		in.Name, res.Used, plural.N(f.NumHosts(), "host"), plural.N(f.NumSwitches(), "switch"), res.OpenSM.Seconds(), res.Log.Sweep.Seconds(),
		res.Start.Seconds(), time.Since(t0).Seconds())
	if opt.Keep != "" && !c.IsSet("output_file") {
		return nil
	}
	return writeOutput(c.String("output_file"), func(w io.Writer) error {
		return dot.Write(w, f, dot.WriteOptions{})
	})
}

// timeoutHelp says how route and compare choose their time limit.
const timeoutHelp = "0 (the default) is proportional to the fabric: 2 min + 0.1 s per node (switches and CAs), " +
	"e.g. 5 min for 1 800 nodes (an SM that cannot start is reported within seconds)"

// openSMFlags are the OpenSM options that route and compare pass through.
func openSMFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "lmc", Usage: "OpenSM's LID mask control `N` (0-7): every port gets 2^N LIDs (0: with --topo, the LMC of its CA ports)"},
		&cli.StringFlag{Name: "osm-conf", Usage: "an opensm.conf `FILE` whose keys apply (OpenSM -F)"},
		&cli.StringFlag{Name: "root-guids", Usage: "root switch GUID `FILE` for updn, dnup, ftree (OpenSM -a)"},
		&cli.StringFlag{Name: "cn-guids", Usage: "compute node GUID `FILE` for ftree (OpenSM -u)"},
	}
}

// openSMOptions copies the pass-through OpenSM options into opt.
func openSMOptions(c *cli.Context, opt *opensm.Options) {
	opt.LMC, opt.ConfFile = c.Int("lmc"), c.String("osm-conf")
	opt.RootGUIDFile, opt.CNGUIDFile = c.String("root-guids"), c.String("cn-guids")
}

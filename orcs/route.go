package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"orcs/dot"
	"orcs/gen"
	"orcs/lft"
	"orcs/opensm"
)

func init() { registerCommand(routeCommand()) }

// fabricHelp explains the FABRIC argument of route and compare.
const fabricHelp = "FABRIC is a dot file (routed or not: only its topology is used; - = stdin, gzip accepted)\n" +
	"or a generator spec with the prefix gen:, e.g. gen:kary:k=8,n=3 or gen:torus:dims=4x4 (see orcs gen --help).\n" +
	"A generated fabric keeps its port numbers; a dot file gets them as dot2osm gives them (every edge\n" +
	"paired with its reverse edge). For torus-2QoS the seed file is written from the generator's\n" +
	"coordinates: for gen: specs, and for dot files written by orcs gen (the graph is named after the spec\n" +
	"and its topology is checked to be the generated one)."

func routeCommand() *cli.Command {
	return &cli.Command{
		Name:      "route",
		Usage:     "route a fabric with a real OpenSM engine on an ibsim emulation and write the routed dot",
		ArgsUsage: "FABRIC",
		Description: fabricHelp + "\n\n" +
			"Runs ibsim and OpenSM (Debian packages " + opensm.Packages + ") in a private temporary\n" +
			"directory, once: OpenSM sweeps with the engine, its opensm-lfts.dump is read back, and the fabric\n" +
			"is written as routed dot with the input's node names and link order. A fallback to another engine\n" +
			"is an error unless --allow-fallback. Engines: " + strings.Join(opensm.Engines(), ", ") + ".\n" +
			"Example: orcs route --engine ftree gen:kary:k=4,n=3 -o ft64-ftree.dot",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "engine", Aliases: []string{"R"}, Usage: "OpenSM routing `ENGINE`", Required: true},
			&cli.StringFlag{Name: "output_file", Aliases: []string{"o"}, Value: "-", Usage: "write the routed dot to `FILE` (with --keep: only when given)"},
			&cli.StringFlag{Name: "keep", Usage: "keep the net file, OpenSM's log and dumps (and the diagnostics' output) in `DIR`"},
			&cli.BoolFlag{Name: "allow-fallback", Usage: "accept tables of another engine when OpenSM falls back (reported on stderr)"},
			&cli.BoolFlag{Name: "no-fallback", Usage: "run OpenSM with ENGINE,no_fallback and stop it when the engine fails"},
			&cli.StringFlag{Name: "roots", Usage: "root switches for updn, dnup, ftree: comma-separated `NAMES`, or \"tree\" for the top level of a generated fat tree"},
			&cli.StringFlag{Name: "torus-config", Usage: "torus-2QoS seed `FILE` (default: written from the generator's coordinates)"},
			&cli.BoolFlag{Name: "verify", Usage: "also read the tables back from the emulated switches with dump_fts and compare"},
			&cli.BoolFlag{Name: "ibnetdiscover", Usage: "also run ibnetdiscover (kept with --keep)"},
			&cli.DurationFlag{Name: "timeout", Value: 10 * time.Minute, Usage: "time limit of the whole routing"},
		},
		Action: routeAction,
	}
}

// routeInput is a fabric to route and what its generator knows about it.
type routeInput struct {
	name      string
	fabric    *lft.Fabric
	net       *gen.Network // nil when the fabric is not a generated one
	keepPorts bool
}

// loadRouteInput reads FABRIC: a gen: spec or a dot file.
func loadRouteInput(arg string) (*routeInput, error) {
	if spec, ok := strings.CutPrefix(arg, "gen:"); ok {
		s, err := gen.Parse(spec)
		if err != nil {
			return nil, err
		}
		n, err := s.Build()
		if err != nil {
			return nil, err
		}
		return &routeInput{name: "gen:" + s.String(), fabric: n.Fabric, net: n, keepPorts: true}, nil
	}
	f, err := dot.ReadFile(arg, dot.Options{Topology: true})
	if err != nil {
		return nil, err
	}
	in := &routeInput{name: arg, fabric: f}
	// A dot written by orcs gen is named after its spec: recover the
	// generator's coordinates when the topology is exactly the generated one.
	if s, err := gen.Parse(f.GraphName); err == nil && s.Size().Hosts == f.NumHosts() {
		if n, err := s.Build(); err == nil && sameTopology(f, n.Fabric) {
			in.net = n
		}
	}
	return in, nil
}

// sameTopology reports whether a and b have the same nodes and links in the
// same order.
func sameTopology(a, b *lft.Fabric) bool {
	if len(a.Nodes) != len(b.Nodes) || len(a.Links) != len(b.Links) {
		return false
	}
	for v := range a.Nodes {
		if a.Nodes[v].Name != b.Nodes[v].Name || a.Nodes[v].Kind != b.Nodes[v].Kind {
			return false
		}
	}
	for l := range a.Links {
		if a.Links[l].From != b.Links[l].From || a.Links[l].To != b.Links[l].To {
			return false
		}
	}
	return true
}

// routeOptions fills the engine-independent options from the input.
func (in *routeInput) options(engine string) opensm.Options {
	opt := opensm.Options{Engine: engine, KeepPorts: in.keepPorts}
	if in.net != nil {
		opt.Torus = opensm.TorusOf(in.net)
	}
	return opt
}

// roots resolves --roots.
func (in *routeInput) roots(arg string) ([]string, error) {
	if arg == "" {
		return nil, nil
	}
	if arg == "tree" {
		if in.net == nil || in.net.Tree == nil {
			return nil, fmt.Errorf("--roots tree: %s is not a generated fat tree; name the root switches", in.name)
		}
		return opensm.RootsOf(in.net), nil
	}
	var names []string
	for _, n := range strings.Split(arg, ",") {
		n = strings.TrimSpace(n)
		v, ok := in.fabric.NodeByName(n)
		if !ok {
			return nil, fmt.Errorf("--roots: no node %q in %s", n, in.name)
		}
		if in.fabric.Nodes[v].Kind == lft.Host {
			return nil, fmt.Errorf("--roots: %q is a host, not a switch", n)
		}
		names = append(names, n)
	}
	return names, nil
}

// signalContext is cancelled by Ctrl-C (SIGINT) and SIGTERM, so that the
// tools are stopped and the work directories removed before orcs exits.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// interrupted turns a cancellation by a signal into a clear error.
func interrupted(err error) error {
	if errors.Is(err, context.Canceled) {
		return cli.Exit("orcs: interrupted; the tools were stopped", 130)
	}
	return err
}

func routeAction(c *cli.Context) error {
	t0 := time.Now()
	if c.Args().Len() != 1 {
		return fmt.Errorf("route: want one FABRIC (a dot file or gen:SPEC), got %d arguments", c.Args().Len())
	}
	in, err := loadRouteInput(c.Args().First())
	if err != nil {
		return err
	}
	opt := in.options(c.String("engine"))
	opt.AllowFallback = c.Bool("allow-fallback")
	opt.NoFallback = c.Bool("no-fallback")
	opt.Keep = c.String("keep")
	opt.DumpFTS = c.Bool("verify")
	opt.IBNetDiscover = c.Bool("ibnetdiscover")
	opt.Timeout = c.Duration("timeout")
	opt.TorusConfig = c.String("torus-config")
	if opt.TorusConfig != "" {
		opt.Torus = nil
	}
	if opt.Roots, err = in.roots(c.String("roots")); err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	res, err := opensm.Route(ctx, in.fabric, opt)
	var fb *opensm.FallbackError
	if errors.As(err, &fb) {
		return fmt.Errorf("route %s: %w (--allow-fallback accepts it)", in.name, err)
	}
	if err != nil {
		return interrupted(fmt.Errorf("route %s with %s: %w", in.name, opt.Engine, err))
	}
	stderr := errWriter(c)
	if res.Fallback {
		fmt.Fprintf(stderr, "orcs route: warning: OpenSM fell back from %s to %s (--allow-fallback): %s\n",
			res.Engine, res.Used, strings.Join(res.Log.Notes, "; "))
	}
	if opt.DumpFTS {
		skipped, err := opensm.CompareRoutings(res.LFTs, res.FTS)
		if err != nil {
			return fmt.Errorf("route: --verify: opensm-lfts.dump and dump_fts disagree: %w", err)
		}
		note := ""
		if len(skipped) > 0 {
			note = fmt.Sprintf(" (dump_fts skipped the top LID of %d switches, a known infiniband-diags quirk)", len(skipped))
		}
		fmt.Fprintf(stderr, "orcs route: verified: the switches hold the tables OpenSM dumped%s\n", note)
	}
	f := res.Fabric
	all := make([]int32, f.NumHosts())
	for i := range all {
		all[i] = int32(i)
	}
	if check := f.CheckRoutes(all, 1, runtime.NumCPU()); !check.OK() {
		fmt.Fprintf(stderr, "orcs route: warning: %d of %d host pairs do not route (%d unroutable, %d routing loops); first: %s\n",
			check.Unroutable+check.Loops, check.Pairs, check.Unroutable, check.Loops, check.Examples[0].Error())
	}
	fmt.Fprintf(stderr, "orcs route: %s: %s routed %d hosts, %d switches: OpenSM %.2f s (its sweep %.3f s), ibsim start %.2f s, all %.2f s\n",
		in.name, res.Used, f.NumHosts(), f.NumSwitches(), res.OpenSM.Seconds(), res.Log.Sweep.Seconds(),
		res.Start.Seconds(), time.Since(t0).Seconds())
	if opt.Keep != "" && !c.IsSet("output_file") {
		return nil
	}
	return writeOutput(c.String("output_file"), func(w io.Writer) error {
		return dot.Write(w, f, dot.WriteOptions{})
	})
}

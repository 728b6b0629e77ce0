package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/urfave/cli/v2"

	"orcs/analyze"
	"orcs/fabricarg"
	"orcs/internal/progress"
	"orcs/regions"
)

func init() {
	d, l1 := regions.DefaultParams(regions.Hops), regions.DefaultParams(regions.L1)
	both := func(a, b any) string {
		return fmt.Sprintf("%v on generated tori and meshes (L1), %v on other fabrics", a, b)
	}
	registerCommand(&cli.Command{
		Name:        "regions",
		Usage:       "congestion regions (Monet): per window, connected cables of similar stall, their severity and tracks",
		Description: regions.Help,
		Flags: append(fabricFlags(""),
			&cli.StringFlag{Name: "counters", Usage: "stall CSV `FILE`: " + regions.CSVHeader},
			&cli.StringSliceFlag{Name: "perfquery", Usage: "perfquery [-x] output `FILE`, one per snapshot in time order (two or more; needs --topo with LIDs)"},
			&cli.StringFlag{Name: "samplingsim", Usage: "a run written by orcs samplingsim --json `FILE`"},
			&cli.StringFlag{Name: "analyzer", Usage: "cable loads written by orcs --metric get_cable_cong --format csv: `FILE`"},
			&cli.StringFlag{Name: "synthetic", Usage: "run Monet's synthetic benchmark on a `torus|fattree` instead"},
			&cli.StringFlag{Name: "reading", Value: string(regions.ReadLinks), Usage: "what a planted cuboid holds: `links|switches|ports|one-stall` (see doc/regions.md)"},
			&cli.IntFlag{Name: "samples", Value: 100, Usage: "synthetic samples"},
			&cli.StringFlag{Name: "seed", Value: "1", Usage: "random seed `S` of the synthetic samples"},
			&cli.Float64Flag{Name: "theta-p", Value: d.ThetaP, DefaultText: both(l1.ThetaP, d.ThetaP), Usage: "θp: stall difference of cables in one region (percentage points)"},
			&cli.Float64Flag{Name: "theta-r", Value: d.ThetaR, DefaultText: both(l1.ThetaR, d.ThetaR), Usage: "θr: mean difference of regions merged in stage 2"},
			&cli.IntFlag{Name: "sigma", Value: d.Sigma, DefaultText: "scaled: max(1, round(S·√(cables/82944))), S = Monet's 20 on its 82 944 cables, 40 on generated tori and meshes", Usage: "σ: smallest region, in cables; smaller ones merge into a neighbour (a hot one not into a cold one) or are listed as in no region"},
			&cli.IntFlag{Name: "delta", Value: d.Delta, DefaultText: both(l1.Delta, d.Delta), Usage: "δ: neighbourhood distance (hops; L1 on generated tori and meshes)"},
			&cli.IntFlag{Name: "smooth", Value: d.Smooth, DefaultText: both(l1.Smooth, d.Smooth), Usage: "robust variant: median-filter rounds before stage 1 and reassignment after stage 4 (0: Monet's method)"},
			&cli.BoolFlag{Name: "overlaps", Value: d.Overlaps, DefaultText: both(l1.Overlaps, d.Overlaps), Usage: "overlap attribution: a region whose mean is the sum of two neighbours' means (within θr) joins the smaller of them (--overlaps=false: off)"},
			&cli.IntFlag{Name: "threads", Aliases: []string{"j"}, Value: runtime.NumCPU(), Usage: "goroutines segmenting windows (0 = all cores)"},
			&cli.StringFlag{Name: "min-severity", Value: "negligible", Usage: "list only regions of this class or higher in the windows: `negligible|low|medium|high` (tracks count all)"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "output format: text or json"},
			&cli.StringFlag{Name: "output_file", Aliases: []string{"output-file", "o"}, Value: "-", Usage: "write the result to `FILE`"},
		),
		Action: regionsAction,
	})
}

// regionsParams returns the defaults of the metric m with the flags given
// on the command line instead.
func regionsParams(c *cli.Context, m regions.Metric) regions.Params {
	p := regions.DefaultParams(m)
	if c.IsSet("theta-p") {
		p.ThetaP = c.Float64("theta-p")
	}
	if c.IsSet("theta-r") {
		p.ThetaR = c.Float64("theta-r")
	}
	if c.IsSet("sigma") {
		p.Sigma = c.Int("sigma")
	}
	if c.IsSet("delta") {
		p.Delta = c.Int("delta")
	}
	if c.IsSet("smooth") {
		p.Smooth = c.Int("smooth")
	}
	if c.IsSet("overlaps") {
		p.Overlaps = c.Bool("overlaps")
	}
	return p
}

func regionsAction(c *cli.Context) error {
	p := regionsParams(c, regions.Hops)
	minSev, sevErr := regions.ParseSeverity(c.String("min-severity"))
	nthreads, thrErr := threads(c)
	if err := errors.Join(regions.CheckFormat(c.String("format")), p.Check(), sevErr, thrErr); err != nil {
		return fmt.Errorf("regions: %w", err)
	}
	if kind := c.String("synthetic"); kind != "" {
		if kind == "torus" {
			p = regionsParams(c, regions.L1)
		}
		seed, _, err := analyze.ParseSeed(c.String("seed"))
		reading, rerr := regions.ParseReading(c.String("reading"))
		set, stopLine := progress.Status(os.Stderr, "orcs regions --synthetic")
		var show func(done, total int)
		if set != nil {
			t0 := time.Now()
			show = func(done, total int) {
				set(fmt.Sprintf("sample %d of %d%s", min(done+1, total), total, progress.Left(time.Since(t0), int64(done), int64(total))))
			}
		}
		res, err := regions.SyntheticProgress(kind, reading, p, c.Int("samples"), seed, errors.Join(err, rerr), show)
		stopLine()
		if err != nil {
			return fmt.Errorf("regions: %w", err)
		}
		return writeOutput(c.String("output_file"), func(w io.Writer) error { return res.Write(w, c.String("format")) })
	}
	src, err := loadFabric(c, fabricarg.Topology, false, false)
	if err != nil {
		return err
	}
	if src.Network != nil && src.Network.Grid != nil {
		p = regionsParams(c, regions.L1)
	}
	in := regions.Inputs{CSV: c.String("counters"), Perfquery: c.StringSlice("perfquery"), Samplingsim: c.String("samplingsim"), Analyzer: c.String("analyzer")}
	series, warns, err := in.Read(src.Fabric)
	if err != nil {
		return fmt.Errorf("regions: %w", err)
	}
	for _, w := range warns {
		fmt.Fprintf(errWriter(c), "orcs regions: warning: %s\n", w)
	}
	res, err := regions.ExtractFabric(src.Fabric, src.Name, src.Network, p, series, nthreads)
	if err != nil {
		return fmt.Errorf("regions: %w", err)
	}
	res.MinSeverity = minSev
	return writeOutput(c.String("output_file"), func(w io.Writer) error { return res.Write(w, c.String("format")) })
}

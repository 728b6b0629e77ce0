package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/urfave/cli/v2"

	"orcs/regions"
	"orcs/sim"
	"orcs/source"
)

func init() {
	d := regions.DefaultParams()
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
			&cli.IntFlag{Name: "samples", Value: 100, Usage: "synthetic samples"},
			&cli.StringFlag{Name: "seed", Value: "1", Usage: "random seed `S` of the synthetic samples"},
			&cli.Float64Flag{Name: "theta-p", Value: d.ThetaP, Usage: "θp: stall difference of cables in one region (percentage points)"},
			&cli.Float64Flag{Name: "theta-r", Value: d.ThetaR, Usage: "θr: mean difference of regions merged in stage 2"},
			&cli.IntFlag{Name: "sigma", Value: d.Sigma, Usage: "σ: smallest region, in cables"},
			&cli.IntFlag{Name: "delta", Value: d.Delta, Usage: "δ: neighbourhood distance (hops; L1 on generated tori and meshes)"},
			&cli.IntFlag{Name: "smooth", Usage: "robust variant: median-filter rounds before stage 1 and reassignment after stage 4 (0: Monet's method)"},
			&cli.BoolFlag{Name: "overlaps", Usage: "overlap attribution: a region whose mean is the sum of two neighbours' means (within θr) joins the smaller of them"},
			&cli.IntFlag{Name: "threads", Aliases: []string{"j"}, Value: runtime.NumCPU(), Usage: "goroutines segmenting windows (0 = all cores)"},
			&cli.StringFlag{Name: "min-severity", Value: "negligible", Usage: "list only regions of this class or higher in the windows: `negligible|low|medium|high` (tracks count all)"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "output format: text or json"},
			&cli.StringFlag{Name: "output_file", Aliases: []string{"output-file", "o"}, Value: "-", Usage: "write the result to `FILE`"},
		),
		Action: regionsAction,
	})
}

func regionsAction(c *cli.Context) error {
	p := regions.Params{ThetaP: c.Float64("theta-p"), ThetaR: c.Float64("theta-r"), Sigma: c.Int("sigma"), Delta: c.Int("delta"), Smooth: c.Int("smooth"), Overlaps: c.Bool("overlaps")}
	minSev, sevErr := regions.ParseSeverity(c.String("min-severity"))
	nthreads, thrErr := threads(c)
	if err := errors.Join(regions.CheckFormat(c.String("format")), p.Check(), sevErr, thrErr); err != nil {
		return fmt.Errorf("regions: %w", err)
	}
	if kind := c.String("synthetic"); kind != "" {
		seed, _, err := sim.ParseSeed(c.String("seed"))
		res, err := regions.Synthetic(kind, p, c.Int("samples"), seed, err)
		if err != nil {
			return fmt.Errorf("regions: %w", err)
		}
		return writeOutput(c.String("output_file"), func(w io.Writer) error { return res.Write(w, c.String("format")) })
	}
	src, err := loadFabric(c, source.Topology, false, false)
	if err != nil {
		return err
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

package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"orcs/report"
)

func init() {
	registerCommand(&cli.Command{
		Name:      "report",
		Usage:     "make one self-contained HTML page from saved JSON results",
		ArgsUsage: "RESULT.json...",
		Description: "Reads the JSON results of the other commands, each recognised by its fields — the analyzer's\n" +
			"(orcs --format json, with --hot N for the hot cables and --cables for the drawing), its route check\n" +
			"(--checkinputfile --format json), orcs deadlock --format json, orcs compare --format json,\n" +
			"orcs samplingsim --json and orcs regions --format json — and writes one HTML file with the fabric,\n" +
			"the route check and deadlock verdict, the metric's histogram and ECDF, the hot cables with their\n" +
			"flows, a drawing of the fabric by cable load, the congestion regions over time, the engine\n" +
			"comparison and samplingsim's diagnosis. The page holds its SVG, CSS and script inline and names no\n" +
			"URL: it opens from disk, without a network.\n" +
			"Example: orcs report run.json check.json deadlock.json -o report.html",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output_file", Aliases: []string{"output-file", "o"}, Value: "-", Usage: "write the page to `FILE`"},
			&cli.StringFlag{Name: "title", Usage: "the page's `TITLE` (default: orcs report: FABRIC)"},
			&cli.StringFlag{Name: "routed-by", Usage: "name the routing (engine) `NAME` that made the tables when no input records it"},
			&cli.IntFlag{Name: "max-lines", Value: 1500, Usage: "draw up to `N` cables one by one, beyond that the hosts of a leaf switch as one block"},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() == 0 {
				return fmt.Errorf("report: give the JSON results to report on (see orcs report --help)")
			}
			in, err := report.Load(c.Args().Slice())
			if err != nil {
				return fmt.Errorf("report: %w", err)
			}
			opt := report.Options{Title: c.String("title"), Engine: c.String("routed-by"), MaxLines: c.Int("max-lines")}
			return writeOutput(c.String("output_file"), func(w io.Writer) error { return report.Write(w, in, opt) })
		},
	})
}

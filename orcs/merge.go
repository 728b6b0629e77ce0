package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"orcs/analyze"
	"orcs/fabricarg"
	"orcs/lft"
	"orcs/metrics"
)

func init() { registerCommand(mergeCommand()) }

func mergeCommand() *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Usage:     "combine the shard files of a split run into the result of the unsplit run",
		ArgsUsage: "SHARD...",
		Description: "Every shard 0…N-1 of one --shard I/N split must be given once. The output is\n" +
			"byte for byte what the unsplit run prints with the same --format.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "output format: text, json or csv"},
			&cli.StringFlag{Name: "output_file", Aliases: []string{"output-file", "o"}, Value: "-", Usage: "write the result to `FILE`"},
		}, fabricFlags("")...),
		Action: func(c *cli.Context) error {
			if c.Args().Len() == 0 {
				return fmt.Errorf("merge: no shard files given")
			}
			if ok, err := mergeWhatif(c); ok { // shards of orcs whatif
				return err
			}
			// The fabric, when given, is read first: a get_cable_cong shard
			// holds one load per link of it.
			var fabric *lft.Fabric
			var src *fabricarg.Fabric
			given := c.String("input_file") != "" || c.String("topo") != "" || c.String("lfts") != ""
			links := -1
			if given {
				var err error
				if src, err = loadFabric(c, fabricarg.Tables, true, false); err != nil {
					return err
				}
				fabric = src.Fabric
				links = len(fabric.Links)
			}
			res, err := analyze.MergeFiles(c.Args().Slice(), links)
			if err != nil {
				return fmt.Errorf("merge: %w", err)
			}
			m, err := metrics.Lookup(res.Meta.Metric)
			if err != nil {
				return err
			}
			if m.NeedsLinkLoad && !given {
				return fmt.Errorf("merge: metric %s prints the fabric: give it with -i (or --topo/--lfts)", m.Name)
			}
			if given {
				if d := fabric.Digest(); d != res.Meta.FabricDigest {
					return fmt.Errorf("merge: %s is not the fabric the shards were computed on (digest %s, shards %s)",
						src.Name, d, res.Meta.FabricDigest)
				}
			}
			return writeOutput(c.String("output_file"), func(w io.Writer) error {
				return metrics.Render(w, c.String("format"), m, res, fabric)
			})
		},
	}
}

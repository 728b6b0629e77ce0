package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"orcs/fabricarg"
	"orcs/ib"
	"orcs/infile"
)

func init() { registerCommand(dot2osmCommand()) }

func dot2osmCommand() *cli.Command {
	return &cli.Command{
		Name:      "dot2osm",
		Usage:     "convert a dot fabric into an ibsim net file (the topology input of ibsim and OpenSM)",
		ArgsUsage: "[IN.dot [OUT.net]]",
		Description: "Routing comments are ignored. Every edge is paired with its reverse edge (the k-th edge\n" +
			"from a to b with the k-th from b to a) to form a cable; every node numbers its ports 1, 2, ... in\n" +
			"the order of its out-edges, so a switch's port count is its number of out-edges. Every host\n" +
			"(a node whose name starts with H) needs exactly one link. Node names become ibsim node ids:\n" +
			"at most 64 bytes, no '\"' or '#'. IN may be - (stdin, gzip accepted); OUT defaults to -o.\n" +
			"-i gen:SPEC or --topo FILE convert those fabrics, with their real port numbers.\n" +
			"Example: orcs dot2osm testdata/ft64.dot ft64.net",
		Flags: append(fabricFlags(""),
			&cli.StringFlag{Name: "output_file", Aliases: []string{"output-file", "o"}, Value: "-", Usage: "write the net file to `FILE`"},
		),
		Action: func(c *cli.Context) error {
			out, in := c.String("output_file"), c.String("input_file")
			args := c.Args().Slice()
			given := c.IsSet("input_file") || c.IsSet("topo")
			if given && len(args) == 1 && !c.IsSet("output_file") {
				out, args = args[0], nil // dot2osm -i IN OUT
			}
			if len(args) == 2 && !c.IsSet("output_file") {
				out, args = args[1], args[:1]
			}
			if len(args) > 1 {
				return fmt.Errorf("dot2osm: want IN.dot [OUT.net], got %d arguments", c.Args().Len())
			}
			if len(args) == 1 {
				if given {
					return fmt.Errorf("dot2osm: the fabric is given twice: as %q and with -i or --topo", args[0])
				}
				in = args[0]
			}
			var net *ib.SimNet
			if in != "" && !strings.HasPrefix(in, fabricarg.GenPrefix) {
				// A dot file: errors name the line of the offending node or edge.
				data, err := infile.ReadAll(in)
				if err != nil {
					return err
				}
				if net, err = ib.DotToSimNet(data, infile.Name(in)); err != nil {
					return err
				}
			} else {
				src, err := loadFabric(c, fabricarg.Topology, false, false)
				if err != nil {
					return fmt.Errorf("dot2osm: %w", err)
				}
				if net, err = ib.PlanSimNet(src.Fabric, ib.SimOptions{File: src.Name, KeepPorts: src.RealPorts}); err != nil {
					return err
				}
			}
			return writeOutput(out, func(w io.Writer) error { return net.Write(w) })
		},
	}
}

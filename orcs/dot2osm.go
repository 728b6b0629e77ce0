package main

import (
	"fmt"
	"io"

	"orcs/ib"
	"orcs/internal/input"

	"github.com/urfave/cli/v2"
)

func init() { registerCommand(dot2osmCommand()) }

func dot2osmCommand() *cli.Command {
	return &cli.Command{
		Name:      "dot2osm",
		Usage:     "convert a dot fabric into an ibsim net file (the topology input of ibsim and OpenSM)",
		ArgsUsage: "IN.dot [OUT.net]",
		Description: "Routing comments are ignored. Every edge is paired with its reverse edge (the k-th edge\n" +
			"from a to b with the k-th from b to a) to form a cable; every node numbers its ports 1, 2, ... in\n" +
			"the order of its out-edges, so a switch's port count is its number of out-edges. Every host\n" +
			"(a node whose name starts with H) needs exactly one link. Node names become ibsim node ids:\n" +
			"at most 64 bytes, no '\"' or '#'. IN may be - (stdin, gzip accepted); OUT defaults to -o.\n" +
			"Example: orcs dot2osm testdata/ft64.dot ft64.net",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output_file", Aliases: []string{"o"}, Value: "-", Usage: "write the net file to `FILE`"},
		},
		Action: func(c *cli.Context) error {
			out := c.String("output_file")
			switch {
			case c.Args().Len() == 2 && !c.IsSet("output_file"):
				out = c.Args().Get(1)
			case c.Args().Len() != 1:
				return fmt.Errorf("dot2osm: want IN.dot [OUT.net], got %d arguments", c.Args().Len())
			}
			in := c.Args().First()
			data, err := input.ReadAll(in)
			if err != nil {
				return err
			}
			if in == "-" {
				in = "<stdin>"
			}
			net, err := ib.DotToSimNet(data, in)
			if err != nil {
				return err
			}
			return writeOutput(out, func(w io.Writer) error { return net.Write(w) })
		},
	}
}

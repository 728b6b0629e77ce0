package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/urfave/cli/v2"

	"orcs/dot"
	"orcs/fabricarg"
)

func init() { registerCommand(lft2dotCommand()) }

func lft2dotCommand() *cli.Command {
	return &cli.Command{
		Name:      "lft2dot",
		Usage:     "write an InfiniBand topology and its forwarding tables as routed ORCS dot",
		ArgsUsage: "[TOPO LFTS]",
		Description: "TOPO (--topo) is ibnetdiscover (plain, -s, -g, -p) or iblinkinfo output, an ibsim net file,\n" +
			"opensm-subnet.lst or ibdiagnet2.db_csv; LFTS (--lfts) the forwarding tables of the same fabric:\n" +
			"opensm-lfts.dump, dump_fts or ibroute output, opensm.fdbs or ibdiagnet2.fdbs (recognised by content;\n" +
			"gzip accepted). Every connected CA port but SHARP aggregation nodes is a host, named after the host\n" +
			"name in its node description (H-node017 for \"node017 mlx5_0\"; H-node017:1, :2 for two ports); switches\n" +
			"are S<guid>, routers R<guid>; --names guid gives H<guid>. Routes go to each host's base LID.\n" +
			"Any other fabric (-i FILE or gen:SPEC) is written as routed dot as well.\n" +
			"Example: orcs lft2dot ibnetdiscover.txt opensm-lfts.dump -o fabric.dot",
		Flags: append(fabricFlags(""),
			&cli.StringFlag{Name: "output_file", Aliases: []string{"output-file", "o"}, Value: "-", Usage: "write the routed dot to `FILE`"},
		),
		Action: lft2dotAction,
	}
}

func lft2dotAction(c *cli.Context) error {
	switch n := c.Args().Len(); {
	case n == 2 && !c.IsSet("topo") && !c.IsSet("lfts"):
		for i, name := range []string{"topo", "lfts"} {
			if err := c.Set(name, c.Args().Get(i)); err != nil {
				return err
			}
		}
	case n != 0:
		return fmt.Errorf("lft2dot: want TOPO LFTS (a topology and the forwarding tables of the same fabric), got %d arguments", n)
	}
	src, err := loadFabric(c, fabricarg.Tables, false, false)
	if err != nil {
		return err
	}
	f := src.Fabric
	if check := f.CheckRoutes(nil, 1, runtime.NumCPU()); !check.OK() {
		fmt.Fprintf(errWriter(c), "orcs lft2dot: warning: %s\n", check.Summary())
	}
	return writeOutput(c.String("output_file"), func(w io.Writer) error {
		return dot.Write(w, f, dot.WriteOptions{})
	})
}

package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/urfave/cli/v2"

	"orcs/dot"
	"orcs/source"
)

func init() { registerCommand(lft2dotCommand()) }

func lft2dotCommand() *cli.Command {
	return &cli.Command{
		Name:      "lft2dot",
		Usage:     "write an InfiniBand topology and its forwarding tables as routed ORCS dot",
		ArgsUsage: "[TOPO LFTS]",
		Description: "TOPO (--topo) is ibnetdiscover output (plain or -s), an ibsim net file or opensm-subnet.lst;\n" +
			"LFTS (--lfts) the forwarding tables of the same fabric: opensm-lfts.dump, dump_fts or ibroute output,\n" +
			"or opensm.fdbs (formats are recognised by content; gzip accepted). Every connected CA port is\n" +
			"a host. Hosts are named H<node GUID> (16 hex digits; a CA with several connected ports gives\n" +
			"H<guid>:<port>), switches S<guid>, routers R<guid>; --names desc uses the node descriptions,\n" +
			"made safe and unique, host names still starting with H. Routes go to each host's base LID.\n" +
			"Any other fabric (-i FILE or gen:SPEC) is written as routed dot as well.\n" +
			"Example: orcs lft2dot ibnetdiscover.txt opensm-lfts.dump -o fabric.dot",
		Flags: append(fabricFlags(""),
			&cli.StringFlag{Name: "output_file", Aliases: []string{"o"}, Value: "-", Usage: "write the routed dot to `FILE`"},
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
	src, err := loadFabric(c, source.Tables, false, false)
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

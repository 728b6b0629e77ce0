package main

import (
	"fmt"
	"runtime"

	"github.com/urfave/cli/v2"

	"orcs/dot"
	"orcs/ib"
	"orcs/internal/outfile"
)

func init() { registerCommand(lft2dotCommand()) }

func lft2dotCommand() *cli.Command {
	return &cli.Command{
		Name:      "lft2dot",
		Usage:     "write an InfiniBand topology and its forwarding tables as routed ORCS dot",
		ArgsUsage: "TOPO LFTS",
		Description: "TOPO is ibnetdiscover output (plain or -s), an ibsim net file or opensm-subnet.lst;\n" +
			"LFTS the forwarding tables of the same fabric: opensm-lfts.dump, dump_fts or ibroute output,\n" +
			"or opensm.fdbs (formats are recognised by content; gzip accepted). Every connected CA port is\n" +
			"a host. Hosts are named H<node GUID> (16 hex digits; a CA with several connected ports gives\n" +
			"H<guid>:<port>), switches S<guid>, routers R<guid>; --names desc uses the node descriptions,\n" +
			"made safe and unique, host names still starting with H. Routes go to each host's base LID.\n" +
			"Example: orcs lft2dot ibnetdiscover.txt opensm-lfts.dump -o fabric.dot",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output_file", Aliases: []string{"o"}, Value: "-", Usage: "write the routed dot to `FILE`"},
			&cli.StringFlag{Name: "names", Value: "guid", Usage: "node names from the node GUID or the node description: `guid|desc`"},
		},
		Action: lft2dotAction,
	}
}

func lft2dotAction(c *cli.Context) error {
	for _, a := range c.Args().Slice() {
		if a == "-h" || a == "--help" { // after the arguments, where cli does not see it
			return cli.ShowSubcommandHelp(c)
		}
	}
	if c.Args().Len() != 2 {
		return fmt.Errorf("lft2dot: want TOPO LFTS (a topology and the forwarding tables of the same fabric), got %d arguments", c.Args().Len())
	}
	names, err := ib.ParseNameStyle(c.String("names"))
	if err != nil {
		return fmt.Errorf("lft2dot: --names: %w", err)
	}
	topo, lfts := c.Args().Get(0), c.Args().Get(1)
	f, err := ib.ReadFiles(topo, lfts, ib.Options{
		Names: names,
		Warn:  func(msg string) { fmt.Fprintf(errWriter(c), "orcs lft2dot: warning: %s\n", msg) },
	})
	if err != nil {
		return err
	}
	all := make([]int32, f.NumHosts())
	for i := range all {
		all[i] = int32(i)
	}
	if check := f.CheckRoutes(all, 1, runtime.NumCPU()); !check.OK() {
		msg := fmt.Sprintf("%d of %d host pairs do not route (%d unroutable, %d routing loops)",
			check.Unroutable+check.Loops, check.Pairs, check.Unroutable, check.Loops)
		if len(check.Examples) > 0 {
			msg += "; first: " + check.Examples[0].Error()
		}
		fmt.Fprintf(errWriter(c), "orcs lft2dot: warning: %s\n", msg)
	}
	out, err := outfile.Create(c.String("output_file"))
	if err != nil {
		return err
	}
	defer out.Abort()
	if err := dot.Write(out, f, dot.WriteOptions{}); err != nil {
		return err
	}
	return out.Commit()
}

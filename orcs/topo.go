package main

import (
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"orcs/dot"
	"orcs/ib"
	"orcs/lft"
)

// topoFlags are the flags that give the classic simulation an InfiniBand
// topology and its forwarding tables instead of a dot file (-i).
func topoFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "topo", Usage: "InfiniBand topology `FILE` instead of -i: ibnetdiscover output (plain or -s), an ibsim net file or opensm-subnet.lst (needs --lfts)"},
		&cli.StringFlag{Name: "lfts", Usage: "forwarding tables `FILE` of the --topo fabric: opensm-lfts.dump, dump_fts or ibroute output, opensm.fdbs"},
		&cli.BoolFlag{Name: "lmc-spread", Usage: "with --topo: host s reaches host d over LID base(d) + s mod 2^LMC, as multi-path MPI does; else over the base LID"},
		&cli.StringFlag{Name: "names", Value: "guid", Usage: "with --topo: node names from the node GUID (H<guid>, S<guid>) or the node description: `guid|desc`"},
	}
}

// loadFabric reads the fabric of the classic simulation: the topology and
// tables of --topo/--lfts when given, else the dot file of -i. It returns
// the fabric and the name of its input for results. keepAttrs keeps the
// edge attributes of a dot file; a fabric read from dumps has none, and
// writers derive its routing comments from the tables.
func loadFabric(c *cli.Context, keepAttrs bool) (*lft.Fabric, string, error) {
	topo, lfts := c.String("topo"), c.String("lfts")
	if topo == "" && lfts == "" {
		if c.Bool("lmc-spread") || c.IsSet("names") {
			return nil, "", fmt.Errorf("--lmc-spread and --names apply to --topo/--lfts input, not to a dot file")
		}
		input := c.String("input_file")
		f, err := dot.ReadFile(input, dot.Options{KeepAttrs: keepAttrs})
		return f, input, err
	}
	switch {
	case topo == "":
		return nil, "", fmt.Errorf("--lfts %s needs --topo: the topology of the same fabric (ibnetdiscover output, ibsim net file or opensm-subnet.lst)", lfts)
	case lfts == "":
		return nil, "", fmt.Errorf("--topo %s needs --lfts: the forwarding tables of the same fabric (opensm-lfts.dump, dump_fts output or opensm.fdbs)", topo)
	case c.IsSet("input_file"):
		return nil, "", fmt.Errorf("give the fabric either with -i (dot) or with --topo/--lfts, not both")
	}
	names, err := ib.ParseNameStyle(c.String("names"))
	if err != nil {
		return nil, "", fmt.Errorf("--names: %w", err)
	}
	f, err := ib.ReadFiles(topo, lfts, ib.Options{
		Names:     names,
		LMCSpread: c.Bool("lmc-spread"),
		Warn:      func(msg string) { fmt.Fprintf(errWriter(c), "orcs: warning: %s\n", msg) },
	})
	if err != nil {
		return nil, "", err
	}
	if c.Bool("lmc-spread") && !f.LMCSpread() {
		fmt.Fprintf(errWriter(c), "orcs: warning: --lmc-spread: no CA port of %s has LMC > 0, every host has one LID\n", topo)
	}
	return f, topo + "+" + lfts, nil
}

// errWriter is where warnings go.
func errWriter(c *cli.Context) io.Writer {
	if c.App != nil && c.App.ErrWriter != nil {
		return c.App.ErrWriter
	}
	return os.Stderr
}

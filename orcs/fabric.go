package main

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/urfave/cli/v2"

	"orcs/fabricarg"
)

// fabricFlags are the flags that name a fabric, the same in every command
// (see package source): -i FILE|gen:SPEC, or --topo FILE [--lfts FILE].
// inputDefault is -i's default ("-" for the classic simulation, which reads
// standard input like ORCS).
func fabricFlags(inputDefault string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "input_file", Aliases: []string{"input-file", "i"}, Value: inputDefault,
			Usage: "the fabric: a dot `FILE` (- = stdin, gzip accepted) or gen:SPEC (a generated topology, see orcs gen --help)"},
		&cli.StringFlag{Name: "topo", Usage: "InfiniBand topology `FILE` instead of -i: ibnetdiscover (plain, -s, -g, -p) or iblinkinfo output, an ibsim net file, opensm-subnet.lst, ibdiagnet2.db_csv"},
		&cli.StringFlag{Name: "lfts", Usage: "forwarding tables `FILE` of the --topo fabric: opensm-lfts.dump, dump_fts or ibroute output, opensm.fdbs, ibdiagnet2.fdbs"},
		&cli.BoolFlag{Name: "lmc-spread", Usage: "with --topo: host s reaches host d over LID base(d) + s mod 2^LMC, as multi-path MPI does; else over the base LID"},
		&cli.StringFlag{Name: "names", Value: "host", Usage: "with --topo: hosts named after the host name in their node description (H- added unless it starts with H), or all nodes after the GUID (H<guid>, S<guid>) or the description: `host|guid|desc`"},
		&cli.BoolFlag{Name: "include-aggregation-nodes", Usage: "with --topo: keep SHARP aggregation nodes (CAs inside switches) as hosts"},
	}
}

// loadFabric reads the fabric that the command line names. positional
// allows the fabric as the only argument (route, compare: FABRIC), an
// alias of -i. keepAttrs keeps the edge attributes of a dot file.
func loadFabric(c *cli.Context, need fabricarg.Need, keepAttrs, positional bool) (*fabricarg.Fabric, error) {
	a := fabricarg.Args{
		Input:     c.String("input_file"),
		Topo:      c.String("topo"),
		LFTs:      c.String("lfts"),
		LMCSpread: c.Bool("lmc-spread"),
		KeepAttrs: keepAttrs,
		Need:      need,
		Warn:      func(msg string) { warnOnce(c, msg) },

		IncludeAggregationNodes: c.Bool("include-aggregation-nodes"),
	}
	if c.IsSet("names") {
		a.Names = c.String("names")
	}
	if !c.IsSet("input_file") && (a.Topo != "" || a.LFTs != "") {
		a.Input = "" // -i's default gives way to --topo/--lfts
	}
	if positional && c.Args().Len() > 0 {
		switch {
		case c.Args().Len() > 1:
			return nil, fmt.Errorf("want one FABRIC (a dot file or gen:SPEC), got %d arguments", c.Args().Len())
		case c.IsSet("input_file") || a.Topo != "":
			return nil, fmt.Errorf("the fabric is given twice: as %q and with -i or --topo", c.Args().First())
		}
		a.Input = c.Args().First()
	}
	return fabricarg.Load(a)
}

// warnOnce prints a warning about the input once per run of the app: a
// command that reads a file twice (compare reads --topo for the
// emulation and again with --lfts for the row "current") says it once.
func warnOnce(c *cli.Context, msg string) {
	if c.App != nil {
		warnMu.Lock()
		if c.App.Metadata == nil {
			c.App.Metadata = map[string]any{}
		}
		seen, _ := c.App.Metadata["warned"].(map[string]bool)
		if seen == nil {
			seen = map[string]bool{}
			c.App.Metadata["warned"] = seen
		}
		done := seen[msg]
		seen[msg] = true
		warnMu.Unlock()
		if done {
			return
		}
	}
	fmt.Fprintf(errWriter(c), "orcs: warning: %s\n", msg)
}

// warnMu guards the warnings already printed (App.Metadata["warned"]).
var warnMu sync.Mutex

// errWriter is where warnings go.
func errWriter(c *cli.Context) io.Writer {
	if c.App != nil && c.App.ErrWriter != nil {
		return c.App.ErrWriter
	}
	return os.Stderr
}

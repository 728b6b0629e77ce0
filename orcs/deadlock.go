package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/urfave/cli/v2"

	"orcs/deadlock"
	"orcs/fabricarg"
	"orcs/opensm"
)

func init() {
	registerCommand(&cli.Command{
		Name:        "deadlock",
		Usage:       "check whether the routing is deadlock-free: credit loops in the channel dependency graph",
		ArgsUsage:   "[FABRIC]",
		Description: deadlock.Help + "\nExample: orcs deadlock --topo opensm-subnet.lst --lfts opensm-lfts.dump --names desc",
		Flags: append(fabricFlags(""),
			&cli.StringFlag{Name: "sl", Usage: "path SLs: saquery PR output or OpenSM's log of dfsssp's layers `FILE` (none: every path on SL 0)"},
			&cli.StringFlag{Name: "sl2vl", Usage: "SL-to-VL tables: opensm-sl2vl.dump or smpquery sl2vl output `FILE` (none: VL = SL)"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "output format: text or json"},
			&cli.StringFlag{Name: "output_file", Aliases: []string{"output-file", "o"}, Value: "-", Usage: "write the report to `FILE`"},
			&cli.IntFlag{Name: "examples", Value: 3, Usage: "flows listed per dependency of the loop"},
			&cli.IntFlag{Name: "threads", Aliases: []string{"j"}, Value: runtime.NumCPU(), Usage: "goroutines building the graph (0 = all cores)"},
		),
		Action: deadlockAction,
	})
}

func deadlockAction(c *cli.Context) error {
	if err := deadlock.CheckFormat(c.String("format")); err != nil {
		return fmt.Errorf("deadlock: %w", err)
	}
	nthreads, err := threads(c)
	if err != nil {
		return fmt.Errorf("deadlock: %w", err)
	}
	if n := c.Int("examples"); n < 0 {
		return fmt.Errorf("deadlock: --examples %d: want 0 or more flows per dependency", n)
	}
	// SHARP aggregation nodes are endpoints of real traffic: their paths
	// are checked whether or not --include-aggregation-nodes is given
	// (an InfiniBand topology is the only input that has them).
	if c.String("topo") != "" {
		if err := c.Set("include-aggregation-nodes", "true"); err != nil {
			return err
		}
	}
	src, err := loadFabric(c, fabricarg.Tables, false, true)
	if err != nil {
		return err
	}
	check := src.CheckRoutes(nil, 1, nthreads)
	if !check.OK() {
		fmt.Fprintf(errWriter(c), "orcs deadlock: warning: %s\n", check.Summary())
	}
	lanes, err := deadlock.Load(src.Fabric, deadlock.Files{SL: c.String("sl"), SL2VL: c.String("sl2vl"), LFTs: c.String("lfts")})
	if err != nil {
		return fmt.Errorf("deadlock: %w", err)
	}
	if lanes.SLSource == "" && c.String("sl") != "none" {
		if err := needsSLs(c.String("lfts")); err != nil {
			return fmt.Errorf("deadlock: %w", err)
		}
	}
	res, err := deadlock.Check(src.Fabric, lanes, deadlock.Options{Threads: nthreads, Examples: c.Int("examples")})
	if err != nil {
		return err
	}
	res.Unrouted = check.Failed()
	if err := writeOutput(c.String("output_file"), func(w io.Writer) error { return res.Write(w, c.String("format")) }); err != nil {
		return err
	}
	if !res.Free() {
		return cli.Exit("", 2) // a credit loop: exit status 2, the report says the rest
	}
	return nil
}

// needsSLs refuses tables of an engine that gives paths SLs of their own
// when no SL file was found: OpenSM's log beside the tables (opensm.log,
// as orcs route --keep keeps it) names the engine. On one lane the check
// would report the loops the engine avoids with its lanes.
func needsSLs(lfts string) error {
	if lfts == "" || lfts == "-" {
		return nil
	}
	logPath := filepath.Join(filepath.Dir(lfts), "opensm.log")
	data, err := os.ReadFile(logPath)
	if err != nil {
		return nil // no log: the engine is unknown
	}
	used := opensm.ParseLog(data).Used
	if !opensm.AssignsSLs(used) {
		return nil
	}
	return fmt.Errorf("%s says %s configured the tables, and %s puts paths on SLs of its own, but no SL file was given or found beside them: "+
		"on one lane the check would report loops its lanes avoid; give its SLs with --sl (saquery PR output; orcs route --keep keeps them "+
		"up to %d hosts, for dfsssp on any fabric), or --sl none to check every path on SL 0", logPath, used, used, opensm.MaxPathSLHosts)
}

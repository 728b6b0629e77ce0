// Command orcs analyses congestion of statically routed interconnects
// (InfiniBand): it reads a fabric with its forwarding tables, maps a
// communication pattern onto its hosts many times, and reports how congested
// the routes are, with the options and output of ORCS (2009).
//
// Usage:
//
//	orcs [classic ORCS options]         simulate (see orcs --help)
//	orcs merge [options] SHARD...       combine the shards of a split run
//	orcs gen [options] SPEC             generate a routed topology
package main

import (
	"errors"
	"fmt"
	"os"

	"orcs/infile"
	"orcs/internal/cliargs"
	"orcs/internal/interrupt"

	"github.com/urfave/cli/v2"
)

// version is the program's version.
const version = "1.0.0"

func main() {
	interrupt.Watch()
	app := newApp()
	if err := app.Run(cliargs.Interspersed(app, cliargs.AttachedValues(app, os.Args))); err != nil {
		if msg := err.Error(); msg != "" { // an exit status without a message (orcs deadlock: 2)
			fmt.Fprintf(os.Stderr, "orcs: %s\n", infile.ShortenTokens(err.Error()))
		}
		var ec cli.ExitCoder
		if errors.As(err, &ec) {
			os.Exit(ec.ExitCode())
		}
		os.Exit(1)
	}
}

func newApp() *cli.App {
	cli.VersionFlag = &cli.BoolFlag{Name: "version", Aliases: []string{"V"}, Usage: "print the version"}
	app := &cli.App{
		Name:    "orcs",
		Usage:   "oblivious routing congestion simulator for statically routed fabrics",
		Version: version,
		Description: "Without a command, orcs simulates like ORCS: it reads a routed fabric (-i, dot),\n" +
			"maps the pattern (-p) onto the hosts for every run (-n) and prints the metric (--metric).\n" +
			"Example: orcs --ptrn bisect_fb_sym --metric hist_acc_band -n 1000 -i testdata/ft16.dot",
		Flags:                  analyzeFlags(),
		Action:                 analyzeAction,
		UseShortOptionHandling: true,
		HideHelpCommand:        true,
		Commands:               commands(),
		ExitErrHandler:         func(*cli.Context, error) {}, // main reports errors
		OnUsageError:           usageError,
	}
	for _, c := range app.Commands {
		c.OnUsageError = usageError
	}
	return app
}

// usageError reports a bad command line in one line (see --help), instead
// of printing the whole help text.
func usageError(c *cli.Context, err error, _ bool) error {
	name := "orcs"
	if c != nil && c.Command != nil && c.Command.Name != "" && c.Command.Name != "orcs" {
		name += " " + c.Command.Name
	}
	return fmt.Errorf("%w (see %s --help)", err, name)
}

package main

import (
	"io"
	"sort"

	"github.com/urfave/cli/v2"

	"orcs/internal/outfile"
)

// subcommands holds the commands beside the classic ORCS flags; every
// command file registers its command in an init function.
var subcommands []*cli.Command

// registerCommand adds a subcommand.
func registerCommand(c *cli.Command) { subcommands = append(subcommands, c) }

// commands returns the registered subcommands sorted by name.
func commands() []*cli.Command {
	out := append([]*cli.Command(nil), subcommands...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// writeOutput writes path ("-" = stdout) with fn, atomically: a failing fn
// leaves no file behind.
func writeOutput(path string, fn func(w io.Writer) error) error {
	out, err := outfile.Create(path)
	if err != nil {
		return err
	}
	defer out.Abort()
	if err := fn(out); err != nil {
		return err
	}
	return out.Commit()
}

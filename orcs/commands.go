package main

import (
	"sort"

	"github.com/urfave/cli/v2"
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

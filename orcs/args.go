package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// interspersed moves the flags of a subcommand in front of its positional
// arguments, so that `orcs gen SPEC -o FILE` works like `orcs gen -o FILE
// SPEC` (urfave/cli stops parsing flags at the first argument). Flags are
// recognised by the subcommand's own definitions; "--" ends the flags.
func interspersed(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	var cmd *cli.Command
	for _, c := range app.Commands {
		if c.Name == args[1] {
			cmd = c
		}
	}
	if cmd == nil {
		return args
	}
	takesValue := map[string]bool{"help": false, "h": false}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, name := range f.Names() {
			takesValue[name] = !isBool
		}
	}
	var flags, positional []string
	rest := args[2:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			positional = append(positional, rest[i+1:]...)
			break
		}
		name := strings.TrimLeft(a, "-")
		name, _, hasValue := strings.Cut(name, "=")
		needs, known := takesValue[name]
		if !strings.HasPrefix(a, "-") || a == "-" || !known {
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		if needs && !hasValue && i+1 < len(rest) {
			flags = append(flags, rest[i+1])
			i++
		}
	}
	out := append([]string{args[0], args[1]}, flags...)
	if len(positional) > 0 {
		out = append(out, "--")
		out = append(out, positional...)
	}
	return out
}

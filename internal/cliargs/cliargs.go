// Package cliargs rewrites a command line before urfave/cli parses it, so
// that orcs takes its arguments as ORCS and getopt did: flags after a
// subcommand's positional arguments, and short options with attached
// values ("-n100").
package cliargs

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// Interspersed moves the flags of a subcommand in front of its positional
// arguments, so that `orcs gen SPEC -o FILE` works like `orcs gen -o FILE
// SPEC` (urfave/cli stops parsing flags at the first argument). Flags are
// recognised by the subcommand's own definitions; "--" ends the flags.
func Interspersed(app *cli.App, args []string) []string {
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
		if a == "-h" || a == "--help" { // help, whatever the arguments
			return []string{args[0], args[1], a}
		}
		name := strings.TrimLeft(a, "-")
		name, _, hasValue := strings.Cut(name, "=")
		needs, known := takesValue[name]
		if !strings.HasPrefix(a, "-") || a == "-" {
			positional = append(positional, a)
			continue
		}
		if !known { // left to the flag parser, which names it
			flags = append(flags, a)
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

// AttachedValues splits getopt-style short options with an attached value,
// as ORCS's command line took them ("-n100", "-ifabric.dot"), into two
// arguments for the classic flags. Long names given with one dash
// ("-num_runs") and combined boolean short options ("-dv") are left alone.
func AttachedValues(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	for _, c := range app.Commands {
		if c.Name == args[1] {
			return args // a subcommand: see Interspersed
		}
	}
	shortValue := map[string]bool{}
	known := map[string]bool{}
	for _, f := range app.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, name := range f.Names() {
			known[name] = true
			if len(name) == 1 && !isBool {
				shortValue[name] = true
			}
		}
	}
	out := []string{args[0]}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "-"), "=")
		if len(a) > 2 && a[0] == '-' && a[1] != '-' && shortValue[a[1:2]] && !known[name] {
			out = append(out, a[:2], a[2:])
			continue
		}
		out = append(out, a)
		// the value of a value-taking flag is never split
		if strings.HasPrefix(a, "-") && !strings.Contains(a, "=") && i+1 < len(args) {
			if f := lookupFlag(app.Flags, strings.TrimLeft(a, "-")); f != nil {
				if _, isBool := f.(*cli.BoolFlag); !isBool {
					out = append(out, args[i+1])
					i++
				}
			}
		}
	}
	return out
}

func lookupFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

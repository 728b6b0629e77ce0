package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"orcs/dot"
	"orcs/fabricarg"
	"orcs/gen"
	"orcs/ib"
	"orcs/internal/plural"
)

func init() { registerCommand(genCommand()) }

func genCommand() *cli.Command {
	return &cli.Command{
		Name:      "gen",
		Usage:     "generate a routed topology (k-ary n-trees, 2- and 3-level fat trees with taper, tori, meshes, Dragonflies, rail-optimized GPU fabrics and the DGX SuperPODs)",
		ArgsUsage: "SPEC",
		Description: "SPEC is NAME[:KEY=VALUE,...], e.g. kary:k=16,n=3 or \"torus dims=4x4 hosts=2\".\n\n" +
			gen.Usage(),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output_file", Aliases: []string{"output-file", "o"}, Value: "-", Usage: "write the routed dot to `FILE`"},
			&cli.StringFlag{Name: "format", Value: "dot", Usage: "`dot` (routed ORCS dot), ibsim (an ibsim net file with the generator's port numbers, for orcs route or OpenSM), ibnetdiscover, lfts or fdbs (the topology as ibnetdiscover prints it and the tables as OpenSM's opensm-lfts.dump or opensm.fdbs, for --topo/--lfts; at most 49 151 hosts and switches, a subnet's LIDs)"},
			&cli.BoolFlag{Name: "describe", Usage: "only print the size of the topology"},
		},
		Action: func(c *cli.Context) error {
			// The spec as -i takes it (gen:SPEC) is the spec.
			spec := strings.TrimPrefix(strings.Join(c.Args().Slice(), " "), fabricarg.GenPrefix)
			if spec == "" {
				return fmt.Errorf("gen: no topology given (see orcs gen --help)")
			}
			if c.Bool("describe") {
				size, err := gen.Describe(spec)
				if err != nil {
					return err
				}
				fmt.Println(size)
				return nil
			}
			format := c.String("format")
			if format != "dot" && format != "ibsim" && format != "ibnetdiscover" && format != "lfts" && format != "fdbs" {
				return fmt.Errorf("gen: unknown format %q (known: dot, ibsim, ibnetdiscover, lfts, fdbs)", format)
			}
			f, err := gen.Generate(spec)
			if err != nil {
				return err
			}
			err = writeOutput(c.String("output_file"), func(w io.Writer) error {
				switch format {
				case "ibsim":
					return ib.WriteSimNet(w, f, ib.SimOptions{KeepPorts: true})
				case "ibnetdiscover":
					return ib.WriteNetDiscover(w, f)
				case "lfts":
					return ib.WriteLFTDump(w, f)
				case "fdbs":
					return ib.WriteFDBs(w, f)
				}
				return dot.Write(w, f, dot.WriteOptions{})
			})
			if err != nil {
				return err
			}
			if c.String("output_file") != "-" {
				fmt.Fprintf(os.Stderr, "orcs gen: %s: %s, %s, %s\n",
					c.String("output_file"), plural.N(f.NumHosts(), "host"), plural.N(f.NumSwitches(), "switch"), plural.N(len(f.Links), "link"))
			}
			return nil
		},
	}
}

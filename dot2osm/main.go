// Command dot2osm converts a fabric in ORCS dot into an ibsim net file, the
// topology input of ibsim (and so of OpenSM running on the emulated
// fabric), as ORCS's tool of the same name did.
//
// Usage:
//
//	dot2osm IN.dot [OUT.net]
//	dot2osm [-o OUT.net] IN.dot
//
// IN may be "-" for standard input (gzip accepted); OUT defaults to
// standard output. Routing comments are ignored: any dot in which every
// edge has a reverse edge and every host (a node whose name starts with H)
// has exactly one link will do. Each edge is paired with its reverse edge
// (the k-th edge from a to b with the k-th edge from b to a) to form a
// cable, and every node numbers its ports 1, 2, … in the order of its
// out-edges, so a switch's port count is its number of out-edges. Node
// names become ibsim node ids (and so node descriptions). Errors name the
// file and line of the offending node or edge.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"orcs/ib"
	"orcs/infile"
	"orcs/internal/outfile"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

// run executes the command with args and returns its exit status.
func run(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("dot2osm", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write the net file to `FILE` (default: the second argument, or standard output)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: dot2osm [-o OUT.net] IN.dot [OUT.net]\n"+
			"Converts an ORCS dot fabric into an ibsim net file (IN may be - for stdin).\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	rest := fs.Args()
	switch {
	case len(rest) == 2 && *out == "":
		*out = rest[1]
	case len(rest) != 1:
		fs.Usage()
		return 2
	}
	if *out == "" {
		*out = "-"
	}
	if err := convert(rest[0], *out); err != nil {
		fmt.Fprintf(stderr, "dot2osm: %v\n", err)
		return 1
	}
	return 0
}

// convert reads the dot file in and writes its net file to out ("-" =
// standard output), atomically.
func convert(in, out string) error {
	data, err := infile.ReadAll(in)
	if err != nil {
		return err
	}
	name := in
	if in == "-" {
		name = "<stdin>"
	}
	net, err := ib.DotToSimNet(data, name)
	if err != nil {
		return err
	}
	f, err := outfile.Create(out)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := net.Write(f); err != nil {
		return err
	}
	return f.Commit()
}

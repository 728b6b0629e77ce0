package cliargs

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func testApp() *cli.App {
	return &cli.App{
		Name: "orcs",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "num_runs", Aliases: []string{"n"}},
			&cli.StringFlag{Name: "input_file", Aliases: []string{"i"}},
			&cli.BoolFlag{Name: "do_not_shuffle", Aliases: []string{"d"}},
		},
		Commands: []*cli.Command{{
			Name: "gen",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "output_file", Aliases: []string{"o"}},
				&cli.BoolFlag{Name: "describe"},
			},
		}},
	}
}

func TestAttachedValues(t *testing.T) {
	cases := []struct{ in, want string }{
		{"orcs -n100 -ifabric.dot", "orcs -n 100 -i fabric.dot"},
		{"orcs -n 100 -i -dfile", "orcs -n 100 -i -dfile"}, // a value is never split
		{"orcs -num_runs 5 -d", "orcs -num_runs 5 -d"},
		{"orcs --input_file=x -n3", "orcs --input_file=x -n 3"},
		{"orcs gen -ofile kary", "orcs gen -ofile kary"}, // subcommands are left alone
		{"orcs -- -n5", "orcs -- -n5"},
	}
	for _, c := range cases {
		got := strings.Join(AttachedValues(testApp(), strings.Fields(c.in)), " ")
		if got != c.want {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
}

func TestInterspersed(t *testing.T) {
	cases := []struct{ in, want string }{
		{"orcs gen kary:k=4 -o out --describe", "orcs gen -o out --describe -- kary:k=4"},
		{"orcs gen -o out kary", "orcs gen -o out -- kary"},
		{"orcs gen kary -x", "orcs gen -x -- kary"}, // unknown flags go to the parser, which names them
		{"orcs gen a b -h", "orcs gen -h"},
		{"orcs gen -- -o", "orcs gen -- -o"},
		{"orcs -n 3", "orcs -n 3"}, // not a subcommand
	}
	for _, c := range cases {
		got := strings.Join(Interspersed(testApp(), strings.Fields(c.in)), " ")
		if got != c.want {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
}

package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// defaultsThatDiffer lists the shared flags whose default differs between
// commands on purpose, with the reason (doc/analyzer.md says the same).
var defaultsThatDiffer = map[string]string{
	"input_file": "the classic simulation reads standard input like ORCS; the commands want a fabric named",
	"num_runs":   "ORCS's default is 1 run; compare compares distributions, 100 runs by default",
	"metric":     "ORCS's default is hist_max_cong; compare compares bandwidths (hist_acc_band)",
	"seed":       "the classic simulation draws a seed and prints it, as ORCS drew one; compare, samplingsim and regions --synthetic default to a fixed seed so that two of their runs compare",
	"format":     "each command's own set of formats",
	"ptrn":       "map places a job by its own communication (a pattern, a pattern file or --traffic): no default pattern",
}

// flagInfo is what must agree about a flag between commands.
type flagInfo struct {
	kind    string
	aliases []string
	def     string
}

func infoOf(f cli.Flag) flagInfo {
	names := f.Names()
	info := flagInfo{kind: fmt.Sprintf("%T", f), aliases: append([]string(nil), names[1:]...)}
	slices.Sort(info.aliases)
	if df, ok := f.(cli.DocGenerationFlag); ok {
		info.def = df.GetValue()
	}
	return info
}

// TestOneFlagVocabulary walks the flags of the classic simulation and of
// every command: a flag name that two of them use must have the same type
// and short forms and (but for the listed exceptions) the same default; a
// short form must name the same flag everywhere; and every ORCS snake_case
// name has its kebab-case spelling.
func TestOneFlagVocabulary(t *testing.T) {
	app := newApp()
	sets := map[string][]cli.Flag{"orcs": app.Flags}
	for _, c := range app.Commands {
		sets["orcs "+c.Name] = c.Flags
	}
	byName := map[string]map[string]flagInfo{} // flag → command → info
	byShort := map[string]map[string]string{}  // short form → command → flag
	for cmd, flags := range sets {
		for _, f := range flags {
			name := f.Names()[0]
			if byName[name] == nil {
				byName[name] = map[string]flagInfo{}
			}
			byName[name][cmd] = infoOf(f)
			for _, a := range f.Names()[1:] {
				if len(a) == 1 {
					if byShort[a] == nil {
						byShort[a] = map[string]string{}
					}
					byShort[a][cmd] = name
				}
			}
			if strings.Contains(name, "_") && !slices.Contains(f.Names(), strings.ReplaceAll(name, "_", "-")) {
				t.Errorf("%s --%s has no kebab-case spelling --%s", cmd, name, strings.ReplaceAll(name, "_", "-"))
			}
		}
	}
	for name, cmds := range byName {
		var first string
		var ref flagInfo
		for cmd, info := range cmds {
			if first == "" {
				first, ref = cmd, info
				continue
			}
			if info.kind != ref.kind || !slices.Equal(info.aliases, ref.aliases) {
				t.Errorf("--%s: %s has %s %v, %s has %s %v", name, cmd, info.kind, info.aliases, first, ref.kind, ref.aliases)
			}
			if info.def != ref.def && defaultsThatDiffer[name] == "" {
				t.Errorf("--%s: default %q in %s, %q in %s", name, info.def, cmd, ref.def, first)
			}
		}
	}
	for short, cmds := range byShort {
		seen := ""
		for cmd, name := range cmds {
			if seen != "" && name != seen {
				t.Errorf("-%s means --%s in %s but --%s elsewhere", short, name, cmd, seen)
			}
			seen = name
		}
	}
}

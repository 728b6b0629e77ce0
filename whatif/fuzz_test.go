package whatif

import (
	"strings"
	"testing"

	"orcs/gen"
)

// FuzzSets feeds arbitrary --fail specs to the parser: an error or sets
// whose failures all name a node of the fabric, never a panic.
func FuzzSets(f *testing.F) {
	for _, s := range []string{"link:S0_0/3", "switch:S1_1", "each-link", "each-switch", "random:2", "random:0",
		"link:H0/", "link:/1", "switch:", "random:-1", "link:S0_0/3,switch:S1_0", "link:S0_0/99999999999"} {
		f.Add(s, 2)
	}
	fab, err := gen.Generate("kary:k=2,n=2")
	if err != nil {
		f.Fatal(err)
	}
	plan, err := NewPlan(fab, true)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, spec string, trials int) {
		if trials > 50 {
			trials = 50
		}
		sets, err := plan.Sets(strings.Split(spec, ","), trials, 1)
		if err != nil {
			return
		}
		for _, s := range sets {
			for _, x := range s.Failures {
				if _, ok := plan.Fabric.NodeByName(x.Node); !ok {
					t.Fatalf("%q: set %s names no node %q", spec, s.Name, x.Node)
				}
			}
			if _, _, err := plan.Apply(s); err != nil && len(s.Failures) == 1 {
				t.Fatalf("%q: set %s does not apply: %v", spec, s.Name, err)
			}
		}
	})
}

package deadlock

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"orcs/fabricarg"
	"orcs/internal/randfabric"
	"orcs/lft"
)

// TestEntryWalkSame is a property test: building the graph by entry
// switches (buildByEntry) gives the same channels, dependencies, loops and
// example flows as walking every pair, on generated fabrics and on random
// tables full of loops and holes, with and without hosts left out.
func TestEntryWalkSame(t *testing.T) {
	var cases []*lft.Fabric
	var names []string
	for _, spec := range []string{"kary:k=4,n=3", "fattree3:pods=4,leaves=4,hosts=4,up=4,mup=2",
		"torus:dims=4x4", "mesh:dims=3x3", "fattree2:leaves=4,hosts=4,up=2"} {
		src, err := fabricarg.Load(fabricarg.Args{Input: "gen:" + spec})
		if err != nil {
			t.Fatal(err)
		}
		cases, names = append(cases, src.Fabric), append(names, spec)
	}
	r := rand.New(rand.NewPCG(27, 1))
	for i := range 40 {
		S, H := 1+r.IntN(8), 1+r.IntN(24)
		cases = append(cases, randfabric.Tables(r, randfabric.Spec{Switches: S, Hosts: H, Miss: []float64{0, 0.05, 0.3}[i%3], NoRoute: i%4 == 1}))
		names = append(names, fmt.Sprintf("random %d (%d switches, %d hosts)", i, S, H))
	}
	for i, f := range cases {
		for _, leave := range [][]bool{nil, randomLeave(r, f.NumHosts())} {
			var got, want *Result
			for _, pairwise := range []bool{false, true} {
				res, err := Check(f, nil, Options{Threads: 1 + i%2, Examples: 3, Leave: leave, pairwise: pairwise})
				if err != nil {
					t.Fatal(err)
				}
				if pairwise {
					want = res
				} else {
					got = res
				}
			}
			if got.g.entries() == nil {
				t.Fatalf("%s: the entry walk does not apply", names[i])
			}
			if !slices.Equal(got.g.used, want.g.used) || !slices.Equal(got.g.adjStart, want.g.adjStart) ||
				!slices.Equal(got.g.adj, want.g.adj) {
				t.Errorf("%s (leave %v): graphs differ: %d channels %d dependencies, pairwise %d %d",
					names[i], leave, got.Channels, got.Dependencies, want.Channels, want.Dependencies)
			}
			if a, b := text(t, got), text(t, want); a != b {
				t.Errorf("%s (leave %v): reports differ:\n%s\npairwise:\n%s", names[i], leave, a, b)
			}
		}
	}
}

// randomLeave leaves out each host with probability 1/4.
func randomLeave(r *rand.Rand, n int) []bool {
	l := make([]bool, n)
	for h := range l {
		l[h] = r.IntN(4) == 0
	}
	return l
}

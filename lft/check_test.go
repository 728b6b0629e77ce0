package lft_test

import (
	"math/rand/v2"
	"testing"

	"orcs/internal/randfabric"
	"orcs/lft"
)

// randomTables is randfabric.Tables of S switches and H hosts.
func randomTables(r *rand.Rand, S, H int, miss float64, perDest bool) *lft.Fabric {
	return randfabric.Tables(r, randfabric.Spec{Switches: S, Hosts: H, Miss: miss, PerDest: perDest})
}

// bruteCheck checks every pair with its own route walk.
func bruteCheck(f *lft.Fabric, hosts []int32, maxExamples int) (unroutable, loops int64, examples [][2]int32) {
	for _, d := range hosts {
		for _, s := range hosts {
			if s == d {
				continue
			}
			_, st := f.AppendRoute(nil, s, d)
			switch st {
			case lft.Unroutable:
				unroutable++
			case lft.Loop:
				loops++
			default:
				continue
			}
			if len(examples) < maxExamples {
				examples = append(examples, [2]int32{s, d})
			}
		}
	}
	return unroutable, loops, examples
}

// TestCheckRoutesAgreesWithWalks is a property test: on random tables with
// holes and loops, CheckRoutes counts exactly the pairs whose walk fails,
// and its examples are the first failing pairs in (destination, source)
// order, for all hosts and for subsets, on both check paths.
func TestCheckRoutesAgreesWithWalks(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for i := range 300 {
		S, H := 1+r.IntN(8), 2+r.IntN(12)
		miss := []float64{0, 0.02, 0.2}[i%3]
		f := randomTables(r, S, H, miss, i%4 == 3)
		hosts := []int32(nil)
		if i%2 == 1 {
			for h := range H {
				if r.IntN(2) == 0 {
					hosts = append(hosts, int32(h))
				}
			}
			if len(hosts) < 2 {
				hosts = []int32{0, 1}
			}
		}
		all := hosts
		if all == nil {
			for h := range H {
				all = append(all, int32(h))
			}
		}
		maxEx := r.IntN(5)
		u, l, ex := bruteCheck(f, all, maxEx)
		c := f.CheckRoutes(hosts, maxEx, 1+r.IntN(3))
		if c.Unroutable != u || c.Loops != l || c.Pairs != int64(len(all)*(len(all)-1)) {
			t.Fatalf("case %d (%d switches, %d hosts): check %d unroutable, %d loops of %d pairs; walks %d, %d",
				i, S, H, c.Unroutable, c.Loops, c.Pairs, u, l)
		}
		if len(c.Examples) != len(ex) {
			t.Fatalf("case %d: %d examples, want %d", i, len(c.Examples), len(ex))
		}
		for k, e := range c.Examples {
			if e.Src != ex[k][0] || e.Dst != ex[k][1] {
				t.Fatalf("case %d: example %d is %d→%d, want %d→%d", i, k, e.Src, e.Dst, ex[k][0], ex[k][1])
			}
		}
	}
}

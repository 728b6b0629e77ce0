package lft_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"orcs/lft"
)

// randomTables builds S switches in a random connected graph with H hosts
// (each on one switch by a "*" link) and random switch tables: every entry
// is a random out-link of the switch, or missing with probability miss. Such
// tables are full of loops and holes. With perDest, host 0 routes by
// destination instead of "*" (the general check path).
func randomTables(r *rand.Rand, S, H int, miss float64, perDest bool) *lft.Fabric {
	b := lft.NewBuilder()
	sw := make([]int32, S)
	for i := range sw {
		sw[i] = b.Node(fmt.Sprintf("S%d", i), lft.Switch)
	}
	out := make([][]int32, S)
	for i := 1; i < S; i++ { // a random tree, then extra cables
		j := r.IntN(i)
		out[i] = append(out[i], b.Link(sw[i], sw[j], 0, 0))
		out[j] = append(out[j], b.Link(sw[j], sw[i], 0, 0))
	}
	for range S {
		i, j := r.IntN(S), r.IntN(S)
		if i != j {
			out[i] = append(out[i], b.Link(sw[i], sw[j], 0, 0))
			out[j] = append(out[j], b.Link(sw[j], sw[i], 0, 0))
		}
	}
	names := make([]string, H)
	for h := range H {
		names[h] = fmt.Sprintf("H%d", h)
		v := b.Node(names[h], lft.Host)
		s := r.IntN(S)
		up := b.Link(v, sw[s], 0, 0)
		out[s] = append(out[s], b.Link(sw[s], v, 0, 0))
		if perDest && h == 0 {
			for d := 1; d < H; d++ {
				b.Route(up, b.Dest(fmt.Sprintf("H%d", d)))
			}
			continue
		}
		b.Route(up, lft.AnyDest)
	}
	for s := range S {
		for d := range H {
			if r.Float64() >= miss {
				b.Route(out[s][r.IntN(len(out[s]))], b.Dest(names[d]))
			}
		}
	}
	f, err := b.Build()
	if err != nil {
		panic(err)
	}
	return f
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

package mapping

import (
	"os"
	"testing"

	"orcs/patterns"
	"orcs/rng"
)

// taffetProblem is the 64×72 stencil on the tapered 4608-host fattree3.
func taffetProblem(b *testing.B) *Problem {
	f := fabric(b, "fattree3:pods=6,leaves=24,hosts=32,up=16")
	fh, err := os.Open("../testdata/stencil-64x72.ptrn")
	if err != nil {
		b.Fatal(err)
	}
	defer fh.Close()
	levels, err := patterns.Parse(fh, "stencil")
	if err != nil {
		b.Fatal(err)
	}
	c, err := FromLevels(levels, 64*72)
	if err != nil {
		b.Fatal(err)
	}
	p := problem(b, f, c)
	p.Grid, p.Seed = []int{64, 72}, 1
	return p
}

// BenchmarkSwap is one candidate of search on the Taffet stencil: swap two
// ranks (re-walking their 16 routes twice, one level each), compute the
// objective, undo.
func BenchmarkSwap(b *testing.B) {
	p := taffetProblem(b)
	start, _ := p.Place("linear")
	s, err := newSearcher(p, start)
	if err != nil {
		b.Fatal(err)
	}
	r := rng.New(1, 1)
	g := p.graphOf()
	b.ResetTimer()
	for range b.N {
		a, c := s.candidate(r, g)
		old := s.current()
		s.swap(a, c)
		s.undo(a, c, old.SumSq, old.SumSqJob)
	}
}

// BenchmarkSearchTaffet is --strategy search on the Taffet stencil (4608
// hosts, default budget: 460 800 candidates), starts included.
func BenchmarkSearchTaffet(b *testing.B) {
	p := taffetProblem(b)
	for range b.N {
		if _, err := p.Place("search"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearch4096 is --strategy search for 4096 ranks of a random
// sparse traffic matrix (every rank sends to about 6 others) on the
// 16-ary 3-tree (4096 hosts, default budget: 409 600 candidates).
func BenchmarkSearch4096(b *testing.B) {
	p := problem(b, fabric(b, "kary:k=16,n=3"), randomTraffic(4096, 6, 1))
	p.Seed = 1
	for range b.N {
		if _, err := p.Place("search"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBisectTorus4096 is --strategy bisect for 4096 ranks of a random
// sparse traffic matrix (about 6 per rank) on a 16×16×16 torus with one
// host per switch: cuts across the planes, then 40 swaps per rank.
func BenchmarkBisectTorus4096(b *testing.B) {
	p := problem(b, fabric(b, "torus:dims=16x16x16,hosts=1"), randomTraffic(4096, 6, 1))
	p.Seed = 1
	for range b.N {
		if _, err := p.Place("bisect"); err != nil {
			b.Fatal(err)
		}
	}
}

package regions

import (
	"math"
	"slices"
	"testing"

	"orcs/rng"
)

// path returns a hop graph of a path of nodes 0 … n: cable i goes from
// node i to node i+1 (one direction only), so cables i and j are |i−j|
// hops apart.
func path(t *testing.T, n, delta int) *Graph {
	t.Helper()
	cables := make([]Cable, n)
	for i := range cables {
		cables[i] = Cable{From: int32(i), To: int32(i + 1)}
	}
	g, err := HopGraph(n+1, cables, delta)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// groups returns the regions of seg as sorted cable lists, sorted.
func groups(seg Segment) [][]int32 {
	var out [][]int32
	for _, r := range seg.Regions {
		out = append(out, slices.Clone(r.Cables))
	}
	slices.SortFunc(out, func(a, b []int32) int { return slices.Compare(a, b) })
	return out
}

func segment(t *testing.T, g *Graph, p Params, vals []float64) Segment {
	t.Helper()
	s, err := NewSegmenter(g, p)
	if err != nil {
		t.Fatal(err)
	}
	seg, err := s.Segment(vals)
	if err != nil {
		t.Fatal(err)
	}
	return seg
}

// Each case is small enough to segment by hand.
func TestStages(t *testing.T) {
	for _, tc := range []struct {
		name  string
		n     int
		p     Params
		vals  []float64
		want  [][]int32
		means []float64 // of want, in order; nil: not checked
	}{
		// Stage 1 is a transitive closure: 0 and 6 differ by more than θp
		// but chain through 3; 20 is too far from 6.
		{"stage 1 chains", 5, Params{ThetaP: 4, Delta: 1}, []float64{0, 3, 6, 20, 22},
			[][]int32{{0, 1, 2}, {3, 4}}, []float64{3, 21}},
		// The threshold is inclusive: a difference of exactly θp joins.
		{"stage 1 inclusive", 3, Params{ThetaP: 4, Delta: 1}, []float64{0, 4, 8.5},
			[][]int32{{0, 1}, {2}}, nil},
		// δ: with δ 1 alternating values never touch; with δ 2 cables two
		// apart join over the one between.
		{"delta 1", 5, Params{ThetaP: 4, Delta: 1}, []float64{10, 50, 10, 50, 10},
			[][]int32{{0}, {1}, {2}, {3}, {4}}, nil},
		{"delta 2", 5, Params{ThetaP: 4, Delta: 2}, []float64{10, 50, 10, 50, 10},
			[][]int32{{0, 2, 4}, {1, 3}}, nil},
		// δ 0: nothing is near anything else.
		{"delta 0", 3, Params{ThetaP: 100, Delta: 0}, []float64{1, 1, 1},
			[][]int32{{0}, {1}, {2}}, nil},
		// Stage 2: regions of means 10 and 17 (7 apart) merge with θr 8 …
		{"stage 2 merges", 4, Params{ThetaP: 4, ThetaR: 8, Delta: 1}, []float64{10, 10, 17, 17},
			[][]int32{{0, 1, 2, 3}}, []float64{13.5}},
		// … not with θr 4 …
		{"stage 2 threshold", 4, Params{ThetaP: 4, ThetaR: 4, Delta: 1}, []float64{10, 10, 17, 17},
			[][]int32{{0, 1}, {2, 3}}, nil},
		// … and only neighbours merge: the two 10-regions are 3 apart.
		{"stage 2 neighbours only", 6, Params{ThetaP: 4, ThetaR: 8, Delta: 1}, []float64{10, 10, 50, 50, 10, 10},
			[][]int32{{0, 1}, {2, 3}, {4, 5}}, nil},
		// Stage 2 chains too: 10, 16, 22 (means 6 apart, θr 6).
		{"stage 2 chains", 6, Params{ThetaP: 1, ThetaR: 6, Delta: 1}, []float64{10, 10, 16, 16, 22, 22},
			[][]int32{{0, 1, 2, 3, 4, 5}}, nil},
		// Stage 3: the lone 30 (σ 3) merges into the neighbour of closest
		// mean, the 12s (18 away) rather than the 0s (30 away); the mean
		// becomes (4·12 + 30)/5.
		{"stage 3 closest mean", 9, Params{ThetaP: 4, Sigma: 3, Delta: 1}, []float64{0, 0, 0, 0, 30, 12, 12, 12, 12},
			[][]int32{{0, 1, 2, 3}, {4, 5, 6, 7, 8}}, []float64{0, 15.6}},
		// Stage 3 merges smallest first, with means updated: 40 (size 1)
		// joins 30 30 (mean 30, closer than the 0s); the last 0 (size 1)
		// then has one neighbour, the merged region, and joins it too:
		// (40 + 60 + 0)/4.
		{"stage 3 order", 8, Params{ThetaP: 4, Sigma: 3, Delta: 1}, []float64{0, 0, 0, 0, 40, 30, 30, 0},
			[][]int32{{0, 1, 2, 3}, {4, 5, 6, 7}}, []float64{0, 25}},
		// Stage 4: small regions with no neighbour within δ are dropped.
		{"stage 4 drops", 4, Params{ThetaP: 4, Sigma: 3, Delta: 0}, []float64{1, 1, 1, 1},
			nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seg := segment(t, path(t, tc.n, tc.p.Delta), tc.p, tc.vals)
			if got := groups(seg); !slices.EqualFunc(got, tc.want, slices.Equal) {
				t.Fatalf("regions %v, want %v", got, tc.want)
			}
			if tc.means != nil {
				got := groups(seg)
				for i, w := range tc.want {
					for _, r := range seg.Regions {
						if slices.Equal(r.Cables, w) && math.Abs(r.Mean-tc.means[i]) > 1e-9 {
							t.Errorf("region %v: mean %v, want %v", got[i], r.Mean, tc.means[i])
						}
					}
				}
			}
			for c, l := range seg.Label {
				if l >= 0 && !slices.Contains(seg.Regions[l].Cables, int32(c)) {
					t.Errorf("cable %d labelled %d, not in that region", c, l)
				}
			}
		})
	}
}

// bfsLine returns the hop distances between the cables of a graph given
// as a cable list: cables sharing a node are 1 apart.
func bfsLine(numNodes int, cables []Cable) [][]int {
	at := make([][]int, numNodes)
	for i, c := range cables {
		at[c.From] = append(at[c.From], i)
		if c.To != c.From {
			at[c.To] = append(at[c.To], i)
		}
	}
	n := len(cables)
	d := make([][]int, n)
	for s := range n {
		d[s] = make([]int, n)
		for i := range d[s] {
			d[s][i] = math.MaxInt
		}
		d[s][s] = 0
		q := []int{s}
		for len(q) > 0 {
			x := q[0]
			q = q[1:]
			for _, v := range []int32{cables[x].From, cables[x].To} {
				for _, y := range at[v] {
					if d[s][y] == math.MaxInt {
						d[s][y] = d[s][x] + 1
						q = append(q, y)
					}
				}
			}
		}
	}
	return d
}

// bruteStages12 is stages 1 and 2 by the definition: pairwise relations
// and a naive transitive closure.
func bruteStages12(dist [][]int, vals []float64, p Params) [][]int32 {
	n := len(vals)
	lab := make([]int, n)
	for i := range lab {
		lab[i] = i
	}
	relabel := func(a, b int) {
		from, to := lab[a], lab[b]
		if from == to {
			return
		}
		for i := range lab {
			if lab[i] == from {
				lab[i] = to
			}
		}
	}
	for i := range n {
		for j := range n {
			if dist[i][j] <= p.Delta && math.Abs(vals[i]-vals[j]) <= p.ThetaP {
				relabel(i, j)
			}
		}
	}
	mean := map[int]float64{}
	cnt := map[int]float64{}
	for i, l := range lab {
		mean[l] += vals[i]
		cnt[l]++
	}
	for l := range mean {
		mean[l] /= cnt[l]
	}
	m1 := slices.Clone(lab)
	for changed := true; changed; {
		changed = false
		for i := range n {
			for j := range n {
				if lab[i] != lab[j] && dist[i][j] <= p.Delta && math.Abs(mean[m1[i]]-mean[m1[j]]) <= p.ThetaR {
					relabel(i, j)
					changed = true
				}
			}
		}
	}
	byLab := map[int][]int32{}
	for i, l := range lab {
		byLab[l] = append(byLab[l], int32(i))
	}
	var out [][]int32
	for _, g := range byLab {
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b []int32) int { return slices.Compare(a, b) })
	return out
}

// The clique cover gives exactly the closures of the definition: random
// graphs, δ 0–4, random values with ties and near-ties; σ 0 so that stages
// 3 and 4 do nothing.
// Within one node (a switch and three hosts) the chain is transitive too:
// 0, 3 and 6 are one region with θp 4, although 0 and 6 differ by 6.
func TestStage1ChainsAtOneNode(t *testing.T) {
	cables := []Cable{{0, 1}, {0, 2}, {0, 3}, {0, 4}}
	g, err := HopGraph(5, cables, 1)
	if err != nil {
		t.Fatal(err)
	}
	got := groups(segment(t, g, Params{ThetaP: 4, Delta: 1}, []float64{6, 0, 3, 20}))
	if want := [][]int32{{0, 1, 2}, {3}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("regions %v, want %v", got, want)
	}
}

func TestClosuresMatchDefinition(t *testing.T) {
	r := rng.New(11, 0)
	for trial := range 2000 {
		nodes := 2 + r.IntN(9)
		var cables []Cable
		for range 1 + r.IntN(16) {
			a, b := int32(r.IntN(nodes)), int32(r.IntN(nodes))
			cables = append(cables, Cable{From: a, To: b})
		}
		delta := r.IntN(5)
		g, err := HopGraph(nodes, cables, delta)
		if err != nil {
			t.Fatal(err)
		}
		vals := make([]float64, len(cables))
		for i := range vals {
			vals[i] = float64(r.IntN(12)) * 1.5
		}
		p := Params{ThetaP: float64(r.IntN(4)), ThetaR: float64(r.IntN(6)), Delta: delta}
		got := groups(segment(t, g, p, vals))
		want := bruteStages12(bfsLine(nodes, cables), vals, p)
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("trial %d: cables %v δ %d values %v %+v:\n got %v\nwant %v", trial, cables, delta, vals, p, got, want)
		}
	}
}

// On a torus the graph joins exactly the cables whose midpoints are within
// L1 δ of each other, the shorter way round.
func TestGridGraphIsL1(t *testing.T) {
	dims := []int{5, 4, 3}
	coord := func(v int32) []int { return []int{int(v) % 5, int(v) / 5 % 4, int(v) / 20} }
	id := func(c []int) int32 { return int32(c[0] + 5*(c[1]+4*c[2])) }
	var cables []Cable
	for v := range int32(60) {
		for d := range 3 {
			for _, s := range []int{1, -1} {
				c := coord(v)
				c[d] = (c[d] + s + dims[d]) % dims[d]
				cables = append(cables, Cable{From: v, To: id(c)})
			}
		}
	}
	mid := func(c Cable) []int {
		a, b := coord(c.From), coord(c.To)
		out := make([]int, 3)
		for d := range 3 {
			lo, hi := min(a[d], b[d]), max(a[d], b[d])
			switch {
			case lo == hi:
				out[d] = 2 * lo
			case hi-lo == 1:
				out[d] = 2*lo + 1
			default:
				out[d] = 2*hi + 1
			}
		}
		return out
	}
	l1 := func(a, b []int) int {
		s := 0
		for d := range 3 {
			x := abs(a[d] - b[d])
			s += min(x, 2*dims[d]-x)
		}
		return s
	}
	for _, delta := range []int{0, 1, 2} {
		g, err := GridGraph(cables, coord, dims, true, delta)
		if err != nil {
			t.Fatal(err)
		}
		near := g.neighbours()
		for i := range cables {
			for j := range cables {
				want := l1(mid(cables[i]), mid(cables[j])) <= 2*delta
				if near[i][j] != want {
					t.Fatalf("δ %d: cables %v and %v: joined %v, L1 (doubled) %d", delta, cables[i], cables[j], near[i][j], l1(mid(cables[i]), mid(cables[j])))
				}
			}
		}
	}
}

// neighbours returns, for a small graph, whether two cables share an atom
// or a clique.
func (g *Graph) neighbours() [][]bool {
	out := make([][]bool, g.n)
	for i := range out {
		out[i] = make([]bool, g.n)
	}
	mark := func(atoms []int32) {
		var cs []int32
		for _, a := range atoms {
			cs = append(cs, g.atomCables[g.atomStart[a]:g.atomStart[a+1]]...)
		}
		for _, x := range cs {
			for _, y := range cs {
				out[x][y] = true
			}
		}
	}
	for a := range g.NumAtoms() {
		mark([]int32{int32(a)})
	}
	for k := range g.NumCliques() {
		mark(g.cliqAtoms[g.cliqStart[k]:g.cliqStart[k+1]])
	}
	return out
}

func TestSegmentRejects(t *testing.T) {
	g := path(t, 3, 2)
	s, err := NewSegmenter(g, MonetParams())
	if err != nil {
		t.Fatal(err)
	}
	for _, vals := range [][]float64{{1, 2}, {1, math.NaN(), 2}, {1, math.Inf(1), 2}} {
		if _, err := s.Segment(vals); err == nil {
			t.Errorf("%v: no error", vals)
		}
	}
	if _, err := NewSegmenter(g, Params{ThetaP: -1, Delta: 2}); err == nil {
		t.Error("θp −1 accepted")
	}
	if _, err := NewSegmenter(g, Params{Delta: 3}); err == nil {
		t.Error("δ of another graph accepted")
	}
}

// A region of stall 20 in noise of σ 2.5: Monet's chain with θp 12 leaks
// from the region into the background (a region cable 7 below 20 and a
// background cable 5 above 0 are within θp), and the region is lost; the
// median filter removes the per-cable noise, and the reassignment by raw
// value restores the region's border.
func TestSmoothingStopsLeaks(t *testing.T) {
	b, err := NewBench("torus", 2)
	if err != nil {
		t.Fatal(err)
	}
	r := rng.New(3, 0)
	var cab []int32
	for len(cab) < 1000 {
		cab = b.cuboid(r)
	}
	s := Sample{Values: make([]float64, b.Graph.NumCables()), Inq: make([]float64, b.Graph.NumCables()),
		Planted: [][]int32{cab}, OnInq: []bool{false}}
	for _, c := range cab {
		s.Values[c] = 20
	}
	for c := range s.Values {
		s.Values[c] += SynthNoise * normal(r)
	}
	inq := segment(t, b.Graph, MonetParams(), s.Inq)
	monet := ScoreSample(s, segment(t, b.Graph, Params{ThetaP: 12, ThetaR: 8, Sigma: 20, Delta: 2}, s.Values), inq)
	robust := ScoreSample(s, segment(t, b.Graph, Params{ThetaP: 8, ThetaR: 8, Sigma: 20, Delta: 2, Smooth: 1}, s.Values), inq)
	t.Logf("Monet %+v, robust %+v", monet, robust)
	if monet.Score > 0.5 || robust.Score < 0.95 {
		t.Errorf("score Monet %.3f (want ≤ 0.5: the leak), robust %.3f (want ≥ 0.95)", monet.Score, robust.Score)
	}
}

// An atom with more distinct value buckets than bucketRuns keeps is
// sorted instead: a star of 30 cables, values 3 apart chain (θp 4), values
// 5 apart do not.
func TestStage1ManyBuckets(t *testing.T) {
	var cables []Cable
	for i := range 30 {
		cables = append(cables, Cable{From: 0, To: int32(i + 1)})
	}
	g, err := HopGraph(31, cables, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		step float64
		want int
	}{{3, 1}, {5, 30}} {
		vals := make([]float64, 30)
		for i := range vals {
			vals[(i*7)%30] = float64(i) * tc.step // not in cable order
		}
		if got := len(segment(t, g, Params{ThetaP: 4, Delta: 1}, vals).Regions); got != tc.want {
			t.Errorf("step %v: %d regions, want %d", tc.step, got, tc.want)
		}
	}
}

// The robust variant's reassignment looks within δ, not only at a cable's
// own atom: under the ports reading a cuboid's region holds the cables that
// leave it but not their twins entering it, so the twin alone shares the
// leaving cable's L1 point. One cuboid of 3 links a side at stall 30 with
// the benchmark's noise: its 384 cables (64 switches × 6 output ports, 96
// of them leaving the box) must all be found in one region.
func TestReassignKeepsOneWayCables(t *testing.T) {
	b, err := NewBenchReading("torus", ReadPorts, 1)
	if err != nil {
		t.Fatal(err)
	}
	cub := b.cuboidCables([3]int{5, 5, 5}, [3]int{3, 3, 3})
	if len(cub) != 384 {
		t.Fatalf("%d cables", len(cub))
	}
	r := rng.New(3, 0)
	vals := make([]float64, b.Graph.NumCables())
	for c := range vals {
		vals[c] = SynthNoise * normal(r)
	}
	for _, c := range cub {
		vals[c] += 30
	}
	seg := segment(t, b.Graph, DefaultParams(L1).Resolve(b.Graph.NumCables()), vals)
	l := seg.Label[cub[0]]
	in := 0
	for _, c := range cub {
		if seg.Label[c] == l && l >= 0 {
			in++
		}
	}
	if in != len(cub) || len(seg.Regions[l].Cables) != len(cub) {
		t.Errorf("%d of the cuboid's %d cables in its region of %d", in, len(cub), len(seg.Regions[max(l, 0)].Cables))
	}
}

// dropSmall leaves regions of at least σ cables and takes the rest out.
func TestDropSmall(t *testing.T) {
	label := []int32{0, 0, 0, 1, 1, -1, 2, 2, 2, 2}
	dropSmall(label, 3, 3)
	if want := []int32{0, 0, 0, -1, -1, -1, 2, 2, 2, 2}; !slices.Equal(label, want) {
		t.Errorf("%v, want %v", label, want)
	}
}

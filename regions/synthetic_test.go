package regions

import (
	"math"
	"testing"
)

// Scores of hand-made segmentations of one planted sample.
func TestScoreByHand(t *testing.T) {
	// 20 cables; planted A = 0–9 (credit), B = 10–13 (inq).
	s := Sample{Values: make([]float64, 20), Inq: make([]float64, 20),
		Planted: [][]int32{span(0, 10), span(10, 14)}, OnInq: []bool{false, true}}
	for _, c := range span(0, 10) {
		s.Values[c] = 30
	}
	for _, c := range span(10, 14) {
		s.Inq[c] = 30
	}
	empty := seg(20, nil)
	for _, tc := range []struct {
		name           string
		credit, inq    Segment
		score, pr, rec float64
	}{
		{"perfect", seg(20, map[float64][]int32{30: span(0, 10)}), seg(20, map[float64][]int32{30: span(10, 14)}), 1, 1, 1},
		// A found as 0–7: IoU 8/10; B perfect; (0.8 + 1)/2.
		{"partial", seg(20, map[float64][]int32{30: span(0, 8)}), seg(20, map[float64][]int32{30: span(10, 14)}), 0.9, 1, 12.0 / 14},
		// A split in two: m = 3, best IoU of A 5/10; (0.5+1)/2 · 2/3.
		{"split", seg(20, map[float64][]int32{30: span(0, 5), 31: span(5, 10)}), seg(20, map[float64][]int32{30: span(10, 14)}), 0.5, 1, 1},
		// A found with 5 background cables: IoU 10/15, precision 14/19.
		{"too big", seg(20, map[float64][]int32{30: span(0, 15)}), seg(20, map[float64][]int32{30: span(10, 14)}), (10.0/15 + 1) / 2, 14.0 / 19, 1},
		// Nothing found: score 0, recall 0, precision 1 (nothing claimed).
		{"nothing", empty, empty, 0, 1, 0},
		// A region found in the credit stall with credit mean 1 but inq
		// mean 12 (cables 10–19, inq 30 on 10–13) counts (Monet ignores
		// regions whose credit and inq stalls are both below 5 %): m 3;
		// B's overlap 4 with it ties with the inq region's, the smaller
		// (IoU 1) is chosen; score 2/3, precision 14/24.
		{"counted by the other stall", seg(20, map[float64][]int32{30: span(0, 10), 1: span(10, 20)}), seg(20, map[float64][]int32{30: span(10, 14)}), 2.0 / 3, 14.0 / 24, 1},
	} {
		sc := ScoreSample(s, tc.credit, tc.inq)
		if math.Abs(sc.Score-tc.score) > 1e-9 || math.Abs(sc.Precision-tc.pr) > 1e-9 || math.Abs(sc.Recall-tc.rec) > 1e-9 {
			t.Errorf("%s: %+v, want score %v precision %v recall %v", tc.name, sc, tc.score, tc.pr, tc.rec)
		}
		if sc.OneToOne != sc.Score && tc.name != "nothing" {
			t.Errorf("%s: one-to-one score %v, want %v (every found region chosen once)", tc.name, sc.OneToOne, sc.Score)
		}
	}
	// Both planted regions best overlap one found region (cables 0–13,
	// credit): B (4 cables, first) IoU 4/14, A 10/14, score 0.5. Read one
	// to one, A may not choose it again and has no other: 2/14 = 1/7.
	sc := ScoreSample(s, seg(20, map[float64][]int32{30: span(0, 14)}), empty)
	if math.Abs(sc.Score-0.5) > 1e-9 || math.Abs(sc.OneToOne-1.0/7) > 1e-9 || math.Abs(sc.Precision-10.0/14) > 1e-9 || math.Abs(sc.Recall-10.0/14) > 1e-9 {
		t.Errorf("one region for two: %+v, want score 0.5, one-to-one 1/7, precision and recall 10/14", sc)
	}
	// A found region of mean below 5 % is ignored (in both metrics).
	low := seg(20, map[float64][]int32{30: span(0, 10), 1: span(15, 20)})
	if sc := ScoreSample(s, low, seg(20, map[float64][]int32{30: span(10, 14)})); sc.Found != 2 || sc.Score != 1 {
		t.Errorf("negligible region counted: %+v", sc)
	}
}

// Samples are reproducible and follow Monet's recipe.
func TestSyntheticSamples(t *testing.T) {
	b, err := NewBench("torus", 2)
	if err != nil {
		t.Fatal(err)
	}
	if b.Graph.NumCables() != 6*24*24*24 {
		t.Fatalf("%d cables", b.Graph.NumCables())
	}
	a, c := b.Sample(9, 3), b.Sample(9, 3)
	for i := range a.Values {
		if a.Values[i] != c.Values[i] {
			t.Fatal("same seed and index, different values")
		}
	}
	for i := range 20 {
		s := b.Sample(1, i)
		if n := len(s.Planted); n < 1 || n > 8 {
			t.Errorf("sample %d: %d regions", i, n)
		}
		for _, p := range s.Planted {
			// a cuboid of sides a, b, c links holds 2·(a(b+1)(c+1) + …) cables
			if len(p) < 2*3*3*4*4 || len(p) > 2*3*9*10*10 {
				t.Errorf("sample %d: a region of %d cables", i, len(p))
			}
		}
	}
	// The noise has σ 2.5 around 0 outside the regions.
	s := b.Sample(1, 0)
	in := map[int32]bool{}
	for _, p := range s.Planted {
		for _, c := range p {
			in[c] = true
		}
	}
	var sum, sq, n float64
	for c, v := range s.Inq {
		if !in[int32(c)] {
			sum += v
			sq += v * v
			n++
		}
	}
	mean, sd := sum/n, math.Sqrt(sq/n-(sum/n)*(sum/n))
	if math.Abs(mean) > 0.05 || math.Abs(sd-2.5) > 0.05 {
		t.Errorf("noise mean %.3f sd %.3f, want 0 and 2.5", mean, sd)
	}
}

// The benchmark on both fabrics, a few samples (doc/regions.md's 100 come from
// orcs regions --synthetic): the robust variant at Monet's θ 8 and at fine
// thresholds with the overlap attribution on the fat tree (the torus's
// default is TestBenchReadings').
func TestSyntheticBench(t *testing.T) {
	if testing.Short() {
		t.Skip("segments 3×10 samples")
	}
	for _, tc := range []struct {
		kind     string
		p        Params
		minScore float64
	}{
		{"torus", Params{ThetaP: 8, ThetaR: 8, Sigma: 20, Delta: 2, Smooth: 1}, 0.70},
		{"fattree", Params{ThetaP: 8, ThetaR: 8, Sigma: 20, Delta: 2, Smooth: 1}, 0.65},
		{"fattree", Params{ThetaP: 1.5, ThetaR: 1.5, Sigma: 20, Delta: 2, Smooth: 1, Overlaps: true}, 0.80},
	} {
		r, err := Synthetic(tc.kind, ReadLinks, tc.p, 10, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %+v: score %.3f precision %.3f recall %.3f", tc.kind, tc.p, r.Score, r.Precision, r.Recall)
		if r.Score < tc.minScore {
			t.Errorf("%s: score %.3f < %.2f", tc.kind, r.Score, tc.minScore)
		}
	}
}

// The torus's default method on every reading of Monet's benchmark, the
// first 3 samples of seed 1 each, a guard against regressions that costs
// seconds: a mean of 3 samples is too noisy for the 0.85, which the
// 100 samples per reading and seed of bench/regions-readings.sh show (the
// doc/regions.md's table), so each reading has a floor 0.03 under what its 3
// samples score today (0.908, 0.953, 0.805, 0.901).
func TestBenchReadings(t *testing.T) {
	if testing.Short() {
		t.Skip("segments 4 readings × 3 torus samples")
	}
	floor := map[Reading]float64{ReadLinks: 0.88, ReadSwitches: 0.92, ReadPorts: 0.775, ReadOneStall: 0.87}
	for _, r := range Readings {
		d, err := Synthetic("torus", r, DefaultParams(L1), 3, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: default %.3f", r, d.Score)
		if d.Score < floor[r] {
			t.Errorf("%s: the default scores %.3f < %.3f", r, d.Score, floor[r])
		}
	}
}

// Sample 6 of seed 1 under the one-stall reading plants 6 sources, some of
// nearly equal stall touching: with θp 1.5 two of them were found as one
// (4 regions, score 0.489); the default's θp 1 keeps them apart (5 regions,
// 0.635).
func TestOneStallTouchingSources(t *testing.T) {
	b, err := NewBenchReading("torus", ReadOneStall, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := DefaultParams(L1).Resolve(b.Graph.NumCables())
	seg, err := NewSegmenter(b.Graph, p)
	if err != nil {
		t.Fatal(err)
	}
	s := b.Sample(1, 6)
	credit, err := seg.Segment(s.Values)
	if err != nil {
		t.Fatal(err)
	}
	inq := Segment{Label: make([]int32, len(s.Inq))}
	for c := range inq.Label {
		inq.Label[c] = -1
	}
	sc := ScoreSample(s, credit, inq)
	t.Logf("one-stall sample 6: score %.3f, %d planted, %d found", sc.Score, sc.Planted, sc.Found)
	if sc.Score < 0.6 {
		t.Errorf("one-stall sample 6: score %.3f (%d planted, %d found), want ≥ 0.6", sc.Score, sc.Planted, sc.Found)
	}
}

// The ceiling of doc/regions.md: the oracle's mean score over the 100 samples
// of seed 1 (every overlap of planted regions is a region of its own and
// counts in m).
func TestOracleCeiling(t *testing.T) {
	if testing.Short() {
		t.Skip("draws 200 samples")
	}
	for _, tc := range []struct {
		kind string
		want float64
	}{{"torus", 0.860}, {"fattree", 0.730}} {
		if got := oracleScore(t, tc.kind, Oracle); math.Abs(got-tc.want) > 0.0005 {
			t.Errorf("%s: oracle %.4f, doc/regions.md says %.3f", tc.kind, got, tc.want)
		}
	}
}

// oracleScore returns the mean score of the segmentations oracle gives
// over the 100 samples of seed 1 of the benchmark of kind.
func oracleScore(t *testing.T, kind string, oracle func(Sample) (credit, inq Segment)) float64 {
	b, err := NewBench(kind, 2)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for i := range 100 {
		s := b.Sample(1, i)
		c, q := oracle(s)
		sum += ScoreSample(s, c, q).Score
	}
	return sum / 100
}

// What a cuboid of 3 links a side holds under each reading, counted by
// hand: with both ends in the box of 4×4×4 switches, 3 links × 16 lines ×
// 2 directions per dimension = 288 cables; in the box of 3×3×3 switches,
// 2 × 9 × 2 per dimension = 108; the output ports of the 64 switches of the
// 4×4×4 box, 6 each = 384. One-stall plants every region on the credit
// stall.
func TestReadings(t *testing.T) {
	b, err := NewBenchReading("torus", ReadLinks, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		r    Reading
		want int
	}{{ReadLinks, 288}, {ReadSwitches, 108}, {ReadPorts, 384}, {ReadOneStall, 288}} {
		b.Reading = tc.r
		// a corner at 22 wraps around the torus in x
		if got := len(b.cuboidCables([3]int{22, 0, 5}, [3]int{3, 3, 3})); got != tc.want {
			t.Errorf("%s: %d cables, want %d", tc.r, got, tc.want)
		}
		if tc.r == ReadPorts {
			// every cable leaving the box is in, none entering it
			in := map[int32]bool{}
			for _, c := range b.cuboidCables([3]int{0, 0, 0}, [3]int{3, 3, 3}) {
				in[c] = true
			}
			for i, c := range b.cables {
				inside := func(v int32) bool { return b.coord[v][0] <= 3 && b.coord[v][1] <= 3 && b.coord[v][2] <= 3 }
				if in[int32(i)] != inside(c.From) {
					t.Fatalf("ports: cable %v → %v in %v", b.coord[c.From], b.coord[c.To], in[int32(i)])
				}
			}
		}
		inq := 0
		for i := range 8 {
			for _, on := range b.Sample(1, i).OnInq {
				if on {
					inq++
				}
			}
		}
		if (inq == 0) != (tc.r == ReadOneStall) {
			t.Errorf("%s: %d regions on the inq stall in 8 samples", tc.r, inq)
		}
	}
	if _, err := NewBenchReading("fattree", ReadPorts, 2); err == nil {
		t.Error("the fat tree accepted the ports reading")
	}
	if _, err := ParseReading("cubes"); err == nil {
		t.Error("an unknown reading parsed")
	}
}

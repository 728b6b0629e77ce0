package regions

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"orcs/gen"
	"orcs/lft"
	"orcs/rng"
)

// Monet's synthetic benchmark (appendix D): on a 24×24×24 torus, 1 to 8
// random cuboid regions, each side 3 to 9 links, add a stall drawn
// uniformly from 20–50 % to all their cables; then Gaussian noise (μ 0,
// σ 2.5) goes on every cable. The segmentation is scored against the
// planted regions.
const (
	SynthTorusSide = 24
	SynthMinSide   = 3
	SynthMaxSide   = 9
	SynthMinStall  = 20.0
	SynthMaxStall  = 50.0
	SynthNoise     = 2.5
	SynthMaxPlant  = 8
	// SynthFatTree is the fat tree of the benchmark's tree variant: a
	// 3-level 16-ary tree, 4096 hosts, 768 switches, 24 576 directed
	// cables (planted sub-trees cover about as much of it as the cuboids
	// of the torus).
	SynthFatTree = "kary:k=16,n=3"
	// SignificantStall is the mean below which a region is ignored by the
	// score (Monet: "< 5 %").
	SignificantStall = 5.0
)

// Reading is one reading of Monet's appendix D, which leaves open what a
// planted cuboid of "3 to 9 links per side" holds and where its stall goes.
// Every reading draws the same random numbers, so the samples of one seed
// differ only in the cables planted and the stall they go on.
type Reading string

// The readings of the benchmark.
const (
	// ReadLinks: a side of a links spans a+1 switches; the region is the
	// cables with both ends in the box, both directions; each region on the
	// credit or the inq stall at random (this project's first reading).
	ReadLinks Reading = "links"
	// ReadSwitches: a box of a switches per side (a−1 links); the cables
	// with both ends in it, both directions.
	ReadSwitches Reading = "switches"
	// ReadPorts: a box of a+1 switches per side as ReadLinks, and the region
	// is the output ports of its switches: every cable leaving a switch of
	// the box, those that leave the box included (a port counter counts
	// per output port), but not the cables entering it.
	ReadPorts Reading = "ports"
	// ReadOneStall: the boxes of ReadLinks, every region on the credit
	// stall, which alone is segmented (as on InfiniBand, whose ports count
	// one kind of stall, PortXmitWait), so that all overlaps add up in one
	// stall.
	ReadOneStall Reading = "one-stall"
)

// Readings lists every reading, ReadLinks first.
var Readings = []Reading{ReadLinks, ReadSwitches, ReadPorts, ReadOneStall}

// ParseReading returns the reading named s ("" is ReadLinks).
func ParseReading(s string) (Reading, error) {
	if s == "" {
		return ReadLinks, nil
	}
	for _, r := range Readings {
		if string(r) == s {
			return r, nil
		}
	}
	return "", fmt.Errorf("benchmark reading %q: want links, switches, ports or one-stall", s)
}

// Bench is the fabric of a synthetic benchmark: its graph and how to plant
// regions on it.
type Bench struct {
	// Kind is "torus" or "fattree".
	Kind string
	// Reading says what a planted region holds (see Reading); the fat tree
	// knows ReadLinks (its sub-trees, both directions) and ReadOneStall.
	Reading Reading
	Graph   *Graph
	// Fabric is the fat tree (nil for the torus, which is built as a
	// lattice of switches only).
	Fabric *lft.Fabric

	cables []Cable
	coord  [][3]int // torus: node coordinates
	tree   *gen.Tree
	down   [][]int32 // fat tree: per node, links to the level below
}

// NewBench builds the benchmark fabric of kind "torus" or "fattree" with
// the graph for distance delta.
func NewBench(kind string, delta int) (*Bench, error) {
	return NewBenchReading(kind, ReadLinks, delta)
}

// NewBenchReading builds the benchmark fabric of kind "torus" or "fattree"
// whose samples plant regions as reading r says, with the graph for
// distance delta.
func NewBenchReading(kind string, r Reading, delta int) (*Bench, error) {
	if kind == "fattree" && r != ReadLinks && r != ReadOneStall {
		return nil, fmt.Errorf("benchmark reading %q: the fat tree's sub-trees know links and one-stall", r)
	}
	b := &Bench{Kind: kind, Reading: r}
	switch kind {
	case "torus":
		n := SynthTorusSide
		b.coord = make([][3]int, n*n*n)
		id := func(x, y, z int) int32 { return int32(((x + n) % n) + n*(((y+n)%n)+n*((z+n)%n))) }
		for z := range n {
			for y := range n {
				for x := range n {
					b.coord[id(x, y, z)] = [3]int{x, y, z}
				}
			}
		}
		for v := range b.coord {
			c := b.coord[v]
			for d := range 3 {
				for _, s := range []int{1, -1} {
					o := c
					o[d] += s
					b.cables = append(b.cables, Cable{From: int32(v), To: id(o[0], o[1], o[2])})
				}
			}
		}
		g, err := GridGraph(b.cables, func(v int32) []int { return b.coord[v][:] }, []int{n, n, n}, true, delta)
		if err != nil {
			return nil, err
		}
		b.Graph = g
	case "fattree":
		nw, err := gen.Build(SynthFatTree)
		if err != nil {
			return nil, err
		}
		b.Fabric, b.tree = nw.Fabric, nw.Tree
		b.down = make([][]int32, len(b.Fabric.Nodes))
		for i, l := range b.Fabric.Links {
			b.cables = append(b.cables, Cable{From: l.From, To: l.To})
			if b.tree.Level(l.To) < b.tree.Level(l.From) {
				b.down[l.From] = append(b.down[l.From], int32(i))
			}
		}
		g, err := HopGraph(len(b.Fabric.Nodes), b.cables, delta)
		if err != nil {
			return nil, err
		}
		b.Graph = g
	default:
		return nil, fmt.Errorf("synthetic benchmark %q: want torus or fattree", kind)
	}
	return b, nil
}

// Sample is one synthetic sample: the values and the planted regions.
// As in Monet's benchmark every cable has two stall values, credit and
// inq, and each planted region adds its stall to one of them (chosen at
// random); the two are segmented separately.
type Sample struct {
	// Values is the credit stall of every cable, Inq its inq stall.
	Values, Inq []float64
	// Planted lists the cables of every planted region (sorted).
	Planted [][]int32
	// OnInq says, per planted region, that it was added to Inq.
	OnInq []bool
}

// normal draws a standard normal deviate (Box–Muller).
func normal(r *rng.Stream) float64 {
	u := r.Float64()
	for u == 0 {
		u = r.Float64()
	}
	return math.Sqrt(-2*math.Log(u)) * math.Cos(2*math.Pi*r.Float64())
}

// Sample draws sample i of the benchmark with the given seed: every sample
// has its own random stream, so samples can be drawn in any order.
func (b *Bench) Sample(seed uint64, i int) Sample {
	r := rng.New(seed, uint64(i))
	vals := make([]float64, len(b.cables))
	inq := make([]float64, len(b.cables))
	k := 1 + r.IntN(SynthMaxPlant)
	var planted [][]int32
	var onInq []bool
	for range k {
		var cab []int32
		if b.Kind == "torus" {
			cab = b.cuboid(r)
		} else {
			cab = b.subtree(r)
		}
		s := SynthMinStall + (SynthMaxStall-SynthMinStall)*r.Float64()
		which := r.IntN(2) == 1 && b.Reading != ReadOneStall
		dst := vals
		if which {
			dst = inq
		}
		for _, c := range cab {
			dst[c] += s
		}
		planted = append(planted, cab)
		onInq = append(onInq, which)
	}
	for c := range vals {
		vals[c] += SynthNoise * normal(r)
		inq[c] += SynthNoise * normal(r)
	}
	return Sample{Values: vals, Inq: inq, Planted: planted, OnInq: onInq}
}

// cuboid draws a cuboid of the torus: a corner and 3–9 links per side;
// its cables are those with both ends inside (both directions).
func (b *Bench) cuboid(r *rng.Stream) []int32 {
	var o, a [3]int
	for d := range 3 {
		o[d] = r.IntN(SynthTorusSide)
		a[d] = SynthMinSide + r.IntN(SynthMaxSide-SynthMinSide+1)
	}
	return b.cuboidCables(o, a)
}

// cuboidCables returns the cables of the cuboid of the torus with corner
// o and a[d] links along dimension d (around the torus), as the bench's
// reading takes them: with both ends inside (both directions) for
// ReadLinks and ReadOneStall, with both ends in the box of a[d] switches a
// side for ReadSwitches, leaving a switch inside for ReadPorts.
func (b *Bench) cuboidCables(o, a [3]int) []int32 {
	n := SynthTorusSide
	last := a // the largest offset inside, per dimension
	if b.Reading == ReadSwitches {
		for d := range last {
			last[d]--
		}
	}
	in := func(v int32) bool {
		for d := range 3 {
			if ((b.coord[v][d]-o[d])%n+n)%n > last[d] {
				return false
			}
		}
		return true
	}
	var out []int32
	for i, c := range b.cables {
		if in(c.From) && (b.Reading == ReadPorts || in(c.To)) {
			out = append(out, int32(i))
		}
	}
	return out
}

// subtree draws a connected sub-tree of the fat tree: a random switch of
// the middle or top level, 3 to 9 of its down cables (as a cuboid has 3
// to 9 links a side), and below each switch reached 3 to 9 of its down
// cables again, both directions of each.
func (b *Bench) subtree(r *rng.Stream) []int32 {
	f := b.Fabric
	lvl := 1 + r.IntN(b.tree.Levels-1)
	sws := b.tree.Switches(lvl)
	root := sws[r.IntN(len(sws))]
	var out []int32
	var grow func(v int32)
	grow = func(v int32) {
		down := slices.Clone(b.down[v])
		if len(down) == 0 {
			return
		}
		r.ShuffleInt32(down)
		k := min(len(down), SynthMinSide+r.IntN(SynthMaxSide-SynthMinSide+1))
		for _, l := range down[:k] {
			out = append(out, l, b.reverse(l))
			grow(f.Links[l].To)
		}
	}
	grow(root)
	slices.Sort(out)
	return slices.Compact(out)
}

// reverse returns the link in the other direction of link l's cable.
func (b *Bench) reverse(l int32) int32 {
	f := b.Fabric
	link := f.Links[l]
	for _, m := range f.OutLinks(link.To) {
		if ml := f.Links[m]; ml.To == link.From && ml.ToPort == link.FromPort {
			return m
		}
	}
	return l
}

// Score is the outcome of scoring one sample.
type Score struct {
	// Score is Monet's: (1/n)·Σ IoU(Aᵢ, B_jᵢ) · n/max(n, m), the planted
	// regions Aᵢ taken from smallest to largest, B_jᵢ the found region of
	// largest overlap with Aᵢ (any found region, of either stall), n planted
	// and m found regions; found regions whose means in both stalls are
	// below 5 % are ignored.
	Score float64
	// OneToOne is the score with every found region chosen for at most one
	// planted region: going through the Aᵢ from smallest to largest, B_jᵢ is
	// the region of largest overlap among those not chosen yet (the reading
	// under which the order of the Aᵢ matters).
	OneToOne float64
	// Precision and Recall are by cable: a cable is found when it is in a
	// region that counts, and planted when it is in a planted region.
	Precision, Recall float64
	// Planted and Found are n and m.
	Planted, Found int
}

// ScoreSample scores the segmentations of s's credit stalls (credit) and
// inq stalls (inq): the regions found are those of both.
func ScoreSample(s Sample, credit, inq Segment) Score {
	var found []Region // significant regions of both passes
	keep := [2][]bool{}
	for pass, seg := range []Segment{credit, inq} {
		other := s.Inq
		if pass == 1 {
			other = s.Values
		}
		keep[pass] = make([]bool, len(seg.Regions))
		for i, r := range seg.Regions {
			if significant(r, other) {
				keep[pass][i] = true
				found = append(found, r)
			}
		}
	}
	n, m := len(s.Planted), len(found)
	// A cable may be in one region of each pass: overlaps count per pass.
	inCredit := make([]int32, len(credit.Label)) // cable → found index+1
	inInq := make([]int32, len(credit.Label))
	k := 0
	for pass, seg := range []Segment{credit, inq} {
		dst := inCredit
		if pass == 1 {
			dst = inInq
		}
		for i, r := range seg.Regions {
			if !keep[pass][i] {
				continue
			}
			k++
			for _, c := range r.Cables {
				dst[c] = int32(k)
			}
		}
	}
	planted := slices.Clone(s.Planted)
	slices.SortStableFunc(planted, func(a, b []int32) int { return len(a) - len(b) })
	sum, sum1 := 0.0, 0.0
	overlap := make([]int, m+1)
	used := make([]bool, m+1)
	for _, a := range planted {
		clear(overlap)
		for _, c := range a {
			overlap[inCredit[c]]++
			overlap[inInq[c]]++
		}
		// the largest overlap; of equal overlaps the smaller region (the
		// larger IoU); for the one-to-one reading only among the found
		// regions not chosen yet
		pick := func(free bool) (int, int) {
			best, inter := 0, 0
			for j := 1; j <= m; j++ {
				if free && used[j] {
					continue
				}
				if overlap[j] > inter || (overlap[j] == inter && inter > 0 && len(found[j-1].Cables) < len(found[best-1].Cables)) {
					best, inter = j, overlap[j]
				}
			}
			return best, inter
		}
		if best, inter := pick(false); best > 0 { // else no overlap: IoU 0
			sum += float64(inter) / float64(len(a)+len(found[best-1].Cables)-inter)
		}
		if best, inter := pick(true); best > 0 {
			used[best] = true
			sum1 += float64(inter) / float64(len(a)+len(found[best-1].Cables)-inter)
		}
	}
	sc := Score{Planted: n, Found: m}
	if n > 0 {
		sc.Score = sum / float64(n) * float64(n) / float64(max(n, m))
		sc.OneToOne = sum1 / float64(n) * float64(n) / float64(max(n, m))
	}
	// Precision and recall by cable and metric.
	truthC := make([]bool, len(credit.Label))
	truthI := make([]bool, len(credit.Label))
	for i, a := range s.Planted {
		for _, c := range a {
			if s.OnInq[i] {
				truthI[c] = true
			} else {
				truthC[c] = true
			}
		}
	}
	tp, fp, fn := 0, 0, 0
	count := func(t, f bool) {
		switch {
		case t && f:
			tp++
		case f:
			fp++
		case t:
			fn++
		}
	}
	for c := range truthC {
		count(truthC[c], inCredit[c] > 0)
		count(truthI[c], inInq[c] > 0)
	}
	sc.Precision, sc.Recall = 1, 1
	if tp+fp > 0 {
		sc.Precision = float64(tp) / float64(tp+fp)
	}
	if tp+fn > 0 {
		sc.Recall = float64(tp) / float64(tp+fn)
	}
	return sc
}

// BenchResult is the mean score of a benchmark run.
type BenchResult struct {
	// Kind, Samples, Seed and Params say what ran.
	Kind    string  `json:"kind"`
	Reading Reading `json:"reading"`
	Samples int     `json:"samples"`
	Seed    uint64  `json:"seed"`
	Params  Params  `json:"params"`
	// Score, Precision and Recall are the means over the samples.
	Score     float64 `json:"score"`
	OneToOne  float64 `json:"score_one_to_one"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	// PerSample holds every sample's score.
	PerSample []Score `json:"-"`
}

// runBench is RunBench that calls progress (when not nil) with the
// samples done of all before each sample and at the end.
func runBench(b *Bench, p Params, samples int, seed uint64, progress func(done, total int)) (BenchResult, error) {
	p = p.Resolve(b.Graph.NumCables())
	seg, err := NewSegmenter(b.Graph, p)
	if err != nil {
		return BenchResult{}, err
	}
	res := BenchResult{Kind: b.Kind, Reading: b.Reading, Samples: samples, Seed: seed, Params: p}
	for i := range samples {
		if progress != nil {
			progress(i, samples)
		}
		s := b.Sample(seed, i)
		credit, err := seg.Segment(s.Values)
		if err != nil {
			return res, err
		}
		var inq Segment
		if b.Reading == ReadOneStall {
			// one stall: the inq values are noise and not segmented
			inq = Segment{Label: make([]int32, len(s.Inq))}
			for c := range inq.Label {
				inq.Label[c] = -1
			}
		} else if inq, err = seg.Segment(s.Inq); err != nil {
			return res, err
		}
		sc := ScoreSample(s, credit, inq)
		res.PerSample = append(res.PerSample, sc)
		res.Score += sc.Score
		res.OneToOne += sc.OneToOne
		res.Precision += sc.Precision
		res.Recall += sc.Recall
	}
	if progress != nil {
		progress(samples, samples)
	}
	if samples > 0 {
		res.Score /= float64(samples)
		res.OneToOne /= float64(samples)
		res.Precision /= float64(samples)
		res.Recall /= float64(samples)
	}
	return res, nil
}

// significant reports whether a region found in one stall counts, with
// other the values of the other stall: Monet ignores "regions created by
// segmentation that have both inq- and credit-stall < 5 %", so a region
// counts when its mean (in its own stall) or its mean in other reaches 5 %.
func significant(r Region, other []float64) bool {
	if r.Mean >= SignificantStall {
		return true
	}
	sum := 0.0
	for _, c := range r.Cables {
		sum += other[c]
	}
	return sum >= SignificantStall*float64(len(r.Cables))
}

// MaxSamples bounds the synthetic samples of one benchmark run: each
// segments a torus of 41 472 cables (0.2 s to seconds), so 1000 samples
// are minutes (the paper's benchmark and the tables of doc/regions.md use 100–200).
const MaxSamples = 1000

// Synthetic runs the benchmark of kind (torus or fattree), read as
// reading, with p over
// samples samples of seed; a non-nil seedErr (from parsing the seed) is
// returned first.
func Synthetic(kind string, reading Reading, p Params, samples int, seed uint64, seedErr error) (BenchResult, error) {
	return SyntheticProgress(kind, reading, p, samples, seed, seedErr, nil)
}

// SyntheticProgress is Synthetic that calls progress (when not nil) with
// the samples done of all before each sample and once at the end.
func SyntheticProgress(kind string, reading Reading, p Params, samples int, seed uint64, seedErr error, progress func(done, total int)) (BenchResult, error) {
	if err := errors.Join(seedErr, p.Check()); err != nil {
		return BenchResult{}, err
	}
	if samples < 1 || samples > MaxSamples {
		return BenchResult{}, fmt.Errorf("%d samples: want 1 to %d", samples, MaxSamples)
	}
	b, err := NewBenchReading(kind, reading, p.Delta)
	if err != nil {
		return BenchResult{}, err
	}
	return runBench(b, p, samples, seed, progress)
}

// Write writes the benchmark result as text or JSON.
func (r BenchResult) Write(w io.Writer, format string) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(r)
	}
	p := r.Params
	ov := ""
	if p.Overlaps {
		ov = ", overlap attribution"
	}
	_, err := fmt.Fprintf(w, "synthetic %s benchmark (reading %s), %d samples, seed %d, θp %g, θr %g, σ %d, δ %d, smoothing %d%s\nscore %.3f  precision %.3f  recall %.3f  (score with each found region matched once: %.3f)\n",
		r.Kind, r.Reading, r.Samples, r.Seed, p.ThetaP, p.ThetaR, p.Sigma, p.Delta, p.Smooth, ov, r.Score, r.Precision, r.Recall, r.OneToOne)
	return err
}

// Oracle returns the segmentations of s's credit and inq stalls that know
// the planted regions: every distinct set of overlapping planted regions
// of a stall is a region of its own (what a perfect segmentation by value
// finds), the rest of the cables in none. Its score bounds what a
// segmentation by stall value can reach on the benchmark.
func Oracle(s Sample) (credit, inq Segment) {
	mk := func(onInq bool, vals []float64) Segment {
		n := len(vals)
		key := make([]string, n)
		for k, p := range s.Planted {
			if s.OnInq[k] != onInq {
				continue
			}
			for _, c := range p {
				key[c] += fmt.Sprintf("%d,", k)
			}
		}
		ids := map[string]int32{}
		label := make([]int32, n)
		var regs []Region
		for c := range n {
			label[c] = -1
			if key[c] == "" {
				continue
			}
			id, ok := ids[key[c]]
			if !ok {
				id = int32(len(regs))
				ids[key[c]] = id
				regs = append(regs, Region{})
			}
			label[c] = id
		}
		return buildSegment(label, regs, vals)
	}
	return mk(false, s.Values), mk(true, s.Inq)
}

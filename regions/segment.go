package regions

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Params are the thresholds of the segmentation (Monet §4.2).
type Params struct {
	// ThetaP is θp: two cables within δ whose stall values differ by at
	// most ThetaP (percentage points) fall in the same stage-1 region.
	ThetaP float64 `json:"theta_p"`
	// ThetaR is θr: two neighbouring regions whose mean stalls differ by at
	// most ThetaR are merged in stage 2.
	ThetaR float64 `json:"theta_r"`
	// Sigma is σ: regions of fewer cables are merged into a neighbour
	// (stage 3) or dropped (stage 4). SigmaAuto scales Monet's 20 with the
	// fabric (ScaledSigma); Extract and Synthetic resolve it.
	Sigma int `json:"sigma"`
	// SigmaBase is σ on Monet's 82 944 cables that SigmaAuto scales (0:
	// Monet's 20).
	SigmaBase int `json:"-"`
	// Delta is δ, the neighbourhood distance (hops, or L1 on grids).
	Delta int `json:"delta"`
	// Smooth, when positive, is the robust variant of this package (see
	// Segmenter): the number of median-filter rounds over the atoms of each
	// cable before stage 1, and a reassignment of every cable by its own
	// value after stage 4. 0 is Monet's method.
	Smooth int `json:"smooth,omitempty"`
	// Overlaps enables the overlap-attribution stage of this package (see
	// Segmenter), after stage 4: a region whose mean is the sum
	// of the means of two neighbouring regions, within θr, is their
	// overlap and joins the smaller of them. false is Monet's method.
	Overlaps bool `json:"overlaps,omitempty"`
}

// MonetParams are Monet's production parameters: θp = θr = 4, σ = 20,
// δ = 2.
// The bounds of the user's sizes: δ beyond MaxDelta hops joins cables
// across more than any fabric's diameter, and MaxSmooth rounds of the
// median filter settle any stall map (each round costs a pass over the
// cables of every window).
const (
	MaxDelta  = 64
	MaxSmooth = 100
)

func MonetParams() Params { return Params{ThetaP: 4, ThetaR: 4, Sigma: 20, Delta: 2} }

// DefaultParams are the command's defaults for a graph of metric m, σ
// scaled with the fabric in both:
//
//   - L1 (tori and meshes, Monet's setting and benchmark): the robust
//     variant with overlap attribution, θp = 1, θr = 1.5, δ = 1, one round
//     of smoothing, σ 40 on Monet's 82 944 cables (the reassignment leaves
//     fragments of regions that a larger σ removes; chosen on samples
//     10–29 of seed 2 among 20, 35, 50 and 80). θp 1 instead of 1.5 keeps
//     apart sources of nearly equal stall that touch, which the one-stall
//     reading plants most often (chosen on seed 1, confirmed on seed 2):
//     the default scores 0.86 to 0.96 on the four readings of the
//     benchmark, above Monet's method on each (bench/regions-readings.sh);
//   - Hops (fat trees and every fabric read from InfiniBand files): Monet's
//     production thresholds, θp = θr = 4, δ = 2. The median filter of the
//     robust variant has only a cable's two directions there, and real
//     congestion is one-way (a congestion tree waits on the ports towards
//     its root): it averages a hot direction with its cold twin and leaves
//     the hot cable in no region.
func DefaultParams(m Metric) Params {
	if m == L1 {
		return Params{ThetaP: 1, ThetaR: 1.5, Sigma: SigmaAuto, SigmaBase: 40, Delta: 1, Smooth: 1, Overlaps: true}
	}
	return Params{ThetaP: 4, ThetaR: 4, Sigma: SigmaAuto, Delta: 2}
}

// SigmaAuto as Params.Sigma asks for σ scaled with the fabric (ScaledSigma).
const SigmaAuto = -1

// MonetCables is the size of the fabric Monet chose σ = 20 for: the
// directed links of Blue Waters' 24×24×24 torus.
const MonetCables = 82944

// ScaledSigma returns σ for a fabric of n directed cables: Monet's 20 for
// 82 944 cables times the square root of the fabric's share of that,
// rounded, at least 1 (1 up to 466 cables, 11 on the 24 576 cables of a
// 4096-host 16-ary 3-tree). In proportion to n, σ would fall to 6 on that
// tree and its benchmark would score 0.604 instead of 0.720 (σ 11: 0.716),
// the fragments of the sub-trees counting as regions; the root keeps σ 1
// on small fabrics, where a hot spot of a few cables matters.
func ScaledSigma(n int) int { return scaledSigma(n, 20) }

// scaledSigma is base on MonetCables cables, scaled to n cables as
// ScaledSigma does.
func scaledSigma(n, base int) int {
	return max(1, int(math.Round(float64(base)*math.Sqrt(float64(n)/MonetCables))))
}

// Resolve returns p with σ resolved for a fabric of n cables: SigmaAuto
// becomes SigmaBase (20 if 0) scaled to n cables as ScaledSigma does; any
// other σ stays.
func (p Params) Resolve(n int) Params {
	if p.Sigma == SigmaAuto {
		p.Sigma = scaledSigma(n, cmp.Or(p.SigmaBase, 20))
	}
	return p
}

// Check reports whether p is usable (σ may be SigmaAuto).
func (p Params) Check() error {
	switch {
	case !(p.ThetaP >= 0) || math.IsInf(p.ThetaP, 0):
		return fmt.Errorf("θp %v: want a finite value ≥ 0", p.ThetaP)
	case !(p.ThetaR >= 0) || math.IsInf(p.ThetaR, 0):
		return fmt.Errorf("θr %v: want a finite value ≥ 0", p.ThetaR)
	case p.Sigma < 0 && p.Sigma != SigmaAuto:
		return fmt.Errorf("σ %d: want ≥ 0", p.Sigma)
	case p.Delta < 0 || p.Delta > MaxDelta:
		return fmt.Errorf("δ %d: want 0 to %d hops", p.Delta, MaxDelta)
	case p.Smooth < 0 || p.Smooth > MaxSmooth:
		return fmt.Errorf("smoothing rounds %d: want 0 to %d", p.Smooth, MaxSmooth)
	}
	return nil
}

// Segment is the outcome of one segmentation: the regions of one window.
type Segment struct {
	// Label is, per cable, the index of its region in Regions, or -1 for a
	// cable in no region (its region was smaller than σ).
	Label []int32
	// Regions are ordered by size (largest first), then by smallest cable.
	Regions []Region
	// Dropped lists the cables in no region, in increasing order: those
	// of regions smaller than σ (stage 4) and, with Params.Smooth, the
	// outliers of the reassignment; DroppedStall their stall values.
	Dropped      []int32
	DroppedStall []float64
}

// LowStall is the lower bound of Monet's class low (5 %): a cable at or
// above it is congested, and is never left out of the output unsaid.
const LowStall = 5.0

// Region is one congestion region of one window.
type Region struct {
	// Cables lists the region's cables in increasing order.
	Cables []int32
	// Mean and Max are the mean and largest stall of its cables.
	Mean, Max float64
}

// Severity returns the region's severity class.
func (r *Region) Severity() Severity { return Classify(r.Mean) }

// unionFind is a disjoint-set forest with union by size and path halving.
type unionFind struct {
	parent, size []int32
}

func (u *unionFind) reset(n int) {
	if cap(u.parent) < n {
		u.parent = make([]int32, n)
		u.size = make([]int32, n)
	}
	u.parent, u.size = u.parent[:n], u.size[:n]
	for i := range u.parent {
		u.parent[i] = int32(i)
		u.size[i] = 1
	}
}

func (u *unionFind) find(x int32) int32 {
	p := u.parent
	for p[x] != x {
		p[x] = p[p[x]]
		x = p[x]
	}
	return x
}

// link joins the set of the root x with the set of y and returns the new
// root.
func (u *unionFind) link(x, y int32) int32 {
	y = u.find(y)
	if x == y {
		return x
	}
	if u.size[x] < u.size[y] || (u.size[x] == u.size[y] && y < x) {
		x, y = y, x
	}
	u.parent[y] = x
	u.size[x] += u.size[y]
	return x
}

// union joins the sets of x and y and returns the new root.
func (u *unionFind) union(x, y int32) int32 {
	return u.link(u.find(x), y)
}

// Segmenter runs the four stages of Monet's segmentation on one graph. It
// keeps its scratch space between calls, so one Segmenter serves a series
// of windows without allocating per cable; it is not safe for concurrent
// use (use one per goroutine).
//
// The stages, over the cables of the graph with stall values v:
//
//  1. Cables within δ whose values differ by at most θp are grouped, as the
//     equivalence classes of the transitive closure of that relation.
//  2. Regions within δ of each other (some cable of one within δ of some
//     cable of the other) whose mean values differ by at most θr are
//     grouped the same way, with the means of stage 1.
//  3. Regions of fewer than σ cables, smallest first, are merged into the
//     region within δ whose mean is closest to theirs (ties: the larger,
//     then the one with the smallest cable); the merged region's mean is
//     updated before the next merge.
//  4. Regions still smaller than σ are dropped.
//
// Both closures are exact and never list pairs: within one atom or clique
// of the graph every cable is within δ of every other, and the closure of
// "values differ by at most θ" over a set is the chain of its sorted values
// with gaps of at most θ. So each atom's cables form runs [lo, hi] with
// inner gaps ≤ θ (found by buckets of width θ in stage 1, see bucketRuns,
// and by sorting in stage 2); two runs of one clique join when their
// intervals come within θ of each other, found by one sweep over the runs
// in order of lo.
//
// With Params.Smooth > 0 the values are first replaced, Smooth times, by
// the median over each cable's atoms (the cables at its two ends, or at
// its L1 point), which removes per-cable noise so that a threshold chain
// cannot leak across a region's border through two noisy cables; after
// stage 4 every cable is reassigned, by its own unsmoothed value, to the
// region within its atoms whose mean is closest, when that mean lies
// within max(θp, 4σ̂) of the value, σ̂ the per-cable noise estimated from
// the median absolute deviation of the values from their medians (a cable
// farther from every region's mean is an outlier and stays out). This
// restores the sharp borders that the median blurs.
//
// With Params.Overlaps a fifth stage attributes overlaps (see attribute):
// congestion from two sources adds up where their trees share cables, so
// the shared cables form a region of their own whose mean is the sum of the
// two sources' means; such a region joins the smaller of the two.
type Segmenter struct {
	g *Graph
	p Params

	vals []float64 // values of the current window (float32-exact)

	items  []int32 // per atom, its items (cables or regions) at atomStart offsets
	icnt   []int32 // per atom, the number of items
	runLo  []float64
	runHi  []float64
	runRep []int32
	rcnt   []int32
	merge  []int32 // scratch: run indices of one clique

	uf1, uf2, uf3 unionFind
	label1        []int32 // cable → stage-1 region
	mean1         []float64
	sum           []float64
	cnt           []int32
	stamp         []int32
	label2        []int32 // cable → stage-2 region
	sum2          []float64
	size2         []int32
	memStart      []int32 // CSR of cables per stage-2 region
	members       []int32
	chain, tail   []int32 // merged stage-2 regions, linked from their root
	smooth        []float64
	med           []float64
	key           []float64 // stage-1 bucket of every cable
}

// NewSegmenter returns a segmenter of g with parameters p; p.Delta must be
// g's δ.
func NewSegmenter(g *Graph, p Params) (*Segmenter, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	if p.Delta != g.Delta {
		return nil, fmt.Errorf("δ %d, but the graph was built for δ %d", p.Delta, g.Delta)
	}
	if p.Sigma < 0 {
		return nil, fmt.Errorf("σ %d: resolve it for the fabric first (Params.Resolve)", p.Sigma)
	}
	n, na := g.n, len(g.atomCables)
	s := &Segmenter{
		g: g, p: p,
		vals:  make([]float64, n),
		items: make([]int32, na), icnt: make([]int32, g.NumAtoms()),
		runLo: make([]float64, na), runHi: make([]float64, na), runRep: make([]int32, na),
		rcnt:   make([]int32, g.NumAtoms()),
		label1: make([]int32, n), label2: make([]int32, n),
	}
	return s, nil
}

// Segment runs the segmentation on values (one per cable of the graph,
// kept to float32 precision; NaN is an error).
func (s *Segmenter) Segment(values []float64) (Segment, error) {
	g := s.g
	if len(values) != g.n {
		return Segment{}, fmt.Errorf("%d values for %d cables", len(values), g.n)
	}
	for c, v := range values {
		if v != v || v > math.MaxFloat32 || v < -math.MaxFloat32 {
			return Segment{}, fmt.Errorf("cable %d: stall value %v", c, v)
		}
		s.vals[c] = float64(float32(v))
	}
	raw := s.vals
	if s.p.Smooth > 0 {
		raw = slices.Clone(s.vals)
		for range s.p.Smooth {
			s.medianFilter()
		}
	}
	// Stage 1: cables.
	s.uf1.reset(g.n)
	s.bucketRuns(s.p.ThetaP, &s.uf1)
	s.sweeps(s.p.ThetaP, &s.uf1)
	s.mean1 = grow(s.mean1, g.n)
	s.cnt = growI(s.cnt, g.n)
	r1 := s.compact(&s.uf1, s.label1, nil)
	for r := range r1 {
		s.mean1[r] /= float64(s.cnt[r])
	}

	// Stage 2: stage-1 regions, by their means.
	s.atomRegions(s.label1, r1, s.mean1)
	s.uf2.reset(r1)
	s.closure(s.mean1, s.p.ThetaR, &s.uf2)
	r2 := s.compact(&s.uf2, s.label2, s.label1)

	// Stage 3 and 4.
	s.sum2 = grow(s.sum2, r2)
	s.size2 = growI(s.size2, r2)
	clear(s.sum2)
	clear(s.size2)
	for c, r := range s.label2 {
		s.sum2[r] += s.vals[c]
		s.size2[r]++
	}
	s.mergeSmall(r2)

	// The final regions: roots of stage 3 of at least σ cables.
	label := make([]int32, g.n)
	final := make([]int32, r2) // stage-2 region → final index, or -1
	var regs []Region
	for r := range r2 {
		final[r] = -1
	}
	for r := range r2 {
		root := s.uf3.find(int32(r))
		if int(s.size2[root]) < s.p.Sigma {
			continue
		}
		if final[root] < 0 {
			final[root] = int32(len(regs))
			regs = append(regs, Region{})
		}
		final[r] = final[root]
	}
	for c := range label {
		label[c] = final[s.label2[c]]
	}
	if s.p.Smooth > 0 {
		s.reassign(label, regs, raw)
	}
	if s.p.Overlaps {
		s.attribute(label, len(regs), raw)
	}
	if s.p.Smooth > 0 || s.p.Overlaps {
		dropSmall(label, len(regs), s.p.Sigma)
	}
	seg := buildSegment(label, regs, raw)
	if s.p.Smooth > 0 {
		copy(s.vals, raw)
	}
	return seg, nil
}

// dropSmall takes the cables of every region (of label, nr of them) with
// fewer than sigma cables out of it: the reassignment and the overlap
// attribution move cables between regions after stage 4, and the rest of a
// region that lost most of its cables is no region (stage 4 again).
func dropSmall(label []int32, nr, sigma int) {
	size := make([]int, nr)
	for _, l := range label {
		if l >= 0 {
			size[l]++
		}
	}
	for c, l := range label {
		if l >= 0 && size[l] < sigma {
			label[c] = -1
		}
	}
}

// buildSegment fills the regions' cables and statistics from the labels
// and orders them.
func buildSegment(label []int32, regs []Region, vals []float64) Segment {
	size := make([]int32, len(regs))
	for _, l := range label {
		if l >= 0 {
			size[l]++
		}
	}
	all := make([]int32, 0, len(label))
	for i := range regs {
		regs[i] = Region{Max: math.Inf(-1)}
	}
	start := make([]int, len(regs)+1)
	for i, z := range size {
		start[i+1] = start[i] + int(z)
	}
	all = all[:start[len(regs)]]
	fill := slices.Clone(start[:len(regs)])
	sums := make([]float64, len(regs))
	for c, l := range label {
		if l < 0 {
			continue
		}
		all[fill[l]] = int32(c)
		fill[l]++
		sums[l] += vals[c]
		if v := vals[c]; v > regs[l].Max {
			regs[l].Max = v
		}
	}
	kept := regs[:0]
	for i := range regs {
		if size[i] == 0 {
			continue
		}
		r := regs[i]
		r.Cables = all[start[i]:start[i+1]:start[i+1]]
		r.Mean = sums[i] / float64(size[i])
		kept = append(kept, r)
	}
	slices.SortFunc(kept, func(a, b Region) int {
		if len(a.Cables) != len(b.Cables) {
			return len(b.Cables) - len(a.Cables)
		}
		return int(a.Cables[0] - b.Cables[0])
	})
	for c := range label {
		label[c] = -1
	}
	for i, r := range kept {
		for _, c := range r.Cables {
			label[c] = int32(i)
		}
	}
	seg := Segment{Label: label, Regions: kept}
	for c, l := range label {
		if l < 0 {
			seg.Dropped = append(seg.Dropped, int32(c))
			seg.DroppedStall = append(seg.DroppedStall, vals[c])
		}
	}
	return seg
}

func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

func growI(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

// maxBuckets is the number of distinct value buckets of an atom above
// which bucketRuns sorts the atom instead.
const maxBuckets = 12

// bucketRuns finds the stage-1 runs of every atom without sorting: with
// buckets of width θ (value ⌊v/θ⌋), the cables of one bucket differ by less
// than θ and chain; two buckets chain when they are consecutive and the
// smallest value of the upper one is within θ of the largest of the lower
// one (a bucket between two others is at least θ wide, so buckets farther
// apart never chain). An atom with more than maxBuckets buckets is sorted.
func (s *Segmenter) bucketRuns(theta float64, uf *unionFind) {
	g := s.g
	vals := s.vals
	key := grow(s.key, g.n)
	s.key = key
	for c, v := range vals {
		if theta > 0 {
			key[c] = math.Floor(v / theta)
		} else {
			key[c] = v
		}
	}
	var bk [maxBuckets]float64
	var lo, hi [maxBuckets]float64
	var rep [maxBuckets]int32
	for a := range g.NumAtoms() {
		cab := g.atomCables[g.atomStart[a]:g.atomStart[a+1]]
		nb := 0
		for _, c := range cab {
			k, v := key[c], vals[c]
			j := 0
			for j < nb && bk[j] != k {
				j++
			}
			if j == nb {
				if nb == maxBuckets {
					nb = -1
					break
				}
				bk[j], lo[j], hi[j], rep[j] = k, v, v, uf.find(c)
				nb++
				continue
			}
			rep[j] = uf.union(rep[j], c)
			if v < lo[j] {
				lo[j] = v
			}
			if v > hi[j] {
				hi[j] = v
			}
		}
		if nb < 0 {
			its := s.items[g.atomStart[a] : g.atomStart[a]+int32(len(cab))]
			copy(its, cab)
			slices.SortFunc(its, func(x, y int32) int {
				switch {
				case vals[x] < vals[y]:
					return -1
				case vals[x] > vals[y]:
					return 1
				}
				return int(x - y)
			})
			s.sortedRuns(a, its, vals, theta, uf)
			continue
		}
		// insertion sort of the buckets by key
		for i := 1; i < nb; i++ {
			for j := i; j > 0 && bk[j] < bk[j-1]; j-- {
				bk[j], bk[j-1] = bk[j-1], bk[j]
				lo[j], lo[j-1] = lo[j-1], lo[j]
				hi[j], hi[j-1] = hi[j-1], hi[j]
				rep[j], rep[j-1] = rep[j-1], rep[j]
			}
		}
		base := g.atomStart[a]
		nr := int32(0)
		for j := range nb {
			if nr > 0 && theta > 0 && bk[j] == bk[j-1]+1 && lo[j]-s.runHi[base+nr-1] <= theta {
				s.runRep[base+nr-1] = uf.union(s.runRep[base+nr-1], rep[j])
				s.runHi[base+nr-1] = hi[j]
				continue
			}
			s.runLo[base+nr], s.runHi[base+nr], s.runRep[base+nr] = lo[j], hi[j], rep[j]
			nr++
		}
		s.rcnt[a] = nr
	}
}

// closure joins, in uf, the items of every atom and clique whose values
// chain with gaps of at most theta. Each atom's items must be in s.items
// (s.icnt of them at the atom's offset), in increasing value.
func (s *Segmenter) closure(vals []float64, theta float64, uf *unionFind) {
	g := s.g
	for a := range g.NumAtoms() {
		s.sortedRuns(a, s.items[g.atomStart[a]:g.atomStart[a]+s.icnt[a]], vals, theta, uf)
	}
	s.sweeps(theta, uf)
}

// sortedRuns finds the runs of atom a from its items in increasing value
// and joins each run's items in uf.
func (s *Segmenter) sortedRuns(a int, its []int32, vals []float64, theta float64, uf *unionFind) {
	{
		base := s.g.atomStart[a]
		nr := int32(0)
		hi, root := 0.0, int32(-1)
		for _, it := range its {
			v := vals[it]
			if root >= 0 && v-hi <= theta {
				root = uf.link(root, it)
				hi = v
				continue
			}
			if root >= 0 {
				s.runHi[base+nr-1], s.runRep[base+nr-1] = hi, root
			}
			s.runLo[base+nr] = v
			nr++
			hi, root = v, uf.find(it)
		}
		if root >= 0 {
			s.runHi[base+nr-1], s.runRep[base+nr-1] = hi, root
		}
		s.rcnt[a] = nr
	}
}

// sweeps joins, for every clique, the runs of its atoms that come within
// theta of each other.
func (s *Segmenter) sweeps(theta float64, uf *unionFind) {
	g := s.g
	for k := range g.NumCliques() {
		atoms := g.cliqAtoms[g.cliqStart[k]:g.cliqStart[k+1]]
		if len(atoms) == 2 {
			s.sweep2(atoms[0], atoms[1], theta, uf)
			continue
		}
		s.merge = s.merge[:0]
		for _, a := range atoms {
			base := g.atomStart[a]
			for i := range s.rcnt[a] {
				s.merge = append(s.merge, base+i)
			}
		}
		slices.SortFunc(s.merge, func(x, y int32) int {
			if s.runLo[x] < s.runLo[y] {
				return -1
			}
			if s.runLo[x] > s.runLo[y] {
				return 1
			}
			return int(x - y)
		})
		hi, rep := math.Inf(-1), int32(-1)
		for _, r := range s.merge {
			if rep >= 0 && s.runLo[r]-hi <= theta {
				uf.union(rep, s.runRep[r])
				if s.runHi[r] > hi {
					hi = s.runHi[r]
				}
				continue
			}
			hi, rep = s.runHi[r], s.runRep[r]
		}
	}
}

// sweep2 is the sweep of closure for a clique of two atoms: a merge of
// their run lists.
func (s *Segmenter) sweep2(a, b int32, theta float64, uf *unionFind) {
	g := s.g
	i, ie := g.atomStart[a], g.atomStart[a]+s.rcnt[a]
	j, je := g.atomStart[b], g.atomStart[b]+s.rcnt[b]
	hi, rep := math.Inf(-1), int32(-1)
	for i < ie || j < je {
		var r int32
		if j >= je || (i < ie && s.runLo[i] <= s.runLo[j]) {
			r = i
			i++
		} else {
			r = j
			j++
		}
		if rep >= 0 && s.runLo[r]-hi <= theta {
			uf.union(rep, s.runRep[r])
			if s.runHi[r] > hi {
				hi = s.runHi[r]
			}
			continue
		}
		hi, rep = s.runHi[r], s.runRep[r]
	}
}

// compact labels every element of uf by a dense index of its root, in
// order of first appearance, and returns the number of roots. Without via
// (stage 1) the elements are the cables, and the sums and counts of their
// values per region go to s.mean1 and s.cnt; with via, element c is via[c]
// (a cable's stage-1 region) and the label is written per cable.
func (s *Segmenter) compact(uf *unionFind, label, via []int32) int {
	n := len(uf.parent)
	idx := growI(s.stamp, n)
	s.stamp = idx
	for i := range idx {
		idx[i] = -1
	}
	next := int32(0)
	for c := range label {
		x := int32(c)
		if via != nil {
			x = via[c]
		}
		r := uf.find(x)
		l := idx[r]
		if l < 0 {
			l = next
			idx[r] = l
			next++
			if via == nil {
				s.mean1[l], s.cnt[l] = 0, 0
			}
		}
		label[c] = l
		if via == nil {
			s.mean1[l] += s.vals[c]
			s.cnt[l]++
		}
	}
	return int(next)
}

// atomRegions fills s.items with the distinct regions (of label, nr of
// them) of every atom, in increasing value of vals. Every cable of an atom
// lies in one of the atom's stage-1 runs, and a run lies in one region, so
// the runs' representatives name all of the atom's regions.
func (s *Segmenter) atomRegions(label []int32, nr int, vals []float64) {
	g := s.g
	s.collectAtomRegions(label, nr, func(a int) []int32 {
		base := g.atomStart[a]
		return s.runRep[base : base+s.rcnt[a]]
	})
	for a := range g.NumAtoms() {
		base := g.atomStart[a]
		its := s.items[base : base+s.icnt[a]]
		// insertion sort: an atom holds few regions
		for i := 1; i < len(its); i++ {
			x := its[i]
			j := i - 1
			for j >= 0 && (vals[its[j]] > vals[x] || (vals[its[j]] == vals[x] && its[j] > x)) {
				its[j+1] = its[j]
				j--
			}
			its[j+1] = x
		}
	}
}

// collectAtomRegions sets, for every atom a, s.items[atomStart[a]:] and
// s.icnt[a] to the distinct regions (of label, nr of them; −1 is none) of
// the cables cables(a).
func (s *Segmenter) collectAtomRegions(label []int32, nr int, cables func(a int) []int32) {
	g := s.g
	st := growI(s.stamp, nr)
	s.stamp = st
	for i := range st {
		st[i] = -1
	}
	for a := range g.NumAtoms() {
		base := g.atomStart[a]
		n := int32(0)
		for _, c := range cables(a) {
			if r := label[c]; r >= 0 && st[r] != int32(a) {
				st[r] = int32(a)
				s.items[base+n] = r
				n++
			}
		}
		s.icnt[a] = n
	}
}

// mergeSmall is stage 3: stage-2 regions (r2 of them, statistics in
// sum2/size2/mx2, cables labelled by label2) smaller than σ merge into
// the region within δ of closest mean. uf3 holds the result.
func (s *Segmenter) mergeSmall(r2 int) {
	sigma := int32(s.p.Sigma)
	s.uf3.reset(r2)
	var small []int32
	for r := range r2 {
		if s.size2[r] < sigma {
			small = append(small, int32(r))
		}
	}
	if len(small) == 0 || r2 == 1 {
		return
	}
	slices.SortFunc(small, func(a, b int32) int {
		if s.size2[a] != s.size2[b] {
			return int(s.size2[a] - s.size2[b])
		}
		return int(a - b)
	})
	// Distinct stage-2 regions of every atom.
	s.atomRegionsUnsorted(s.label2, r2)
	s.regionMembers(s.label2, r2)
	seen := growI(s.stamp, r2)
	s.stamp = seen
	for i := range seen {
		seen[i] = -1
	}
	for _, r := range small {
		if s.uf3.find(r) != r || s.size2[r] >= sigma {
			continue
		}
		mean := s.sum2[r] / float64(s.size2[r])
		hot := Classify(mean) > Negligible
		best, bestD := int32(-1), math.Inf(1)
		consider := func(q int32) {
			q = s.uf3.find(q)
			if q == r || seen[q] == r {
				return
			}
			seen[q] = r
			qm := s.sum2[q] / float64(s.size2[q])
			if hot && Classify(qm) == Negligible {
				return // a hot region is not hidden in a cold one
			}
			d := math.Abs(qm - mean)
			if best < 0 || d < bestD || (d == bestD && (s.size2[q] > s.size2[best] ||
				(s.size2[q] == s.size2[best] && s.first(q) < s.first(best)))) {
				best, bestD = q, d
			}
		}
		for m := r; m >= 0; m = s.chain[m] {
			for _, c := range s.members[s.memStart[m]:s.memStart[m+1]] {
				s.nearRegions(c, consider)
			}
		}
		if best < 0 {
			continue
		}
		s.join(best, r)
	}
}

// first returns the smallest cable of the merged region rooted at r.
func (s *Segmenter) first(r int32) int32 {
	f := int32(math.MaxInt32)
	for m := r; m >= 0; m = s.chain[m] {
		if s.memStart[m] < s.memStart[m+1] {
			f = min(f, s.members[s.memStart[m]])
		}
	}
	return f
}

// regionMembers sets s.members[s.memStart[r]:s.memStart[r+1]] to the
// cables of every region r of label (nr of them; −1 is none), in cable
// order, and starts every region's chain (s.chain, next region or −1;
// s.tail, the last) with the region alone: a region that others join
// holds the cables of its chain. It uses s.stamp as scratch.
func (s *Segmenter) regionMembers(label []int32, nr int) {
	s.memStart = growI(s.memStart, nr+1)
	clear(s.memStart)
	for _, r := range label {
		if r >= 0 {
			s.memStart[r+1]++
		}
	}
	for r := range nr {
		s.memStart[r+1] += s.memStart[r]
	}
	s.members = growI(s.members, s.g.n)
	fill := append(s.stamp[:0], s.memStart[:nr]...)
	s.stamp = fill
	for c, r := range label {
		if r >= 0 {
			s.members[fill[r]] = int32(c)
			fill[r]++
		}
	}
	s.chain = growI(s.chain, nr)
	s.tail = growI(s.tail, nr)
	for r := range nr {
		s.chain[r] = -1
		s.tail[r] = int32(r)
	}
}

// join merges the stage-3 regions rooted at a and b.
func (s *Segmenter) join(a, b int32) {
	root := s.uf3.union(a, b)
	other := a
	if root == a {
		other = b
	}
	s.sum2[root] += s.sum2[other]
	s.size2[root] += s.size2[other]
	s.appendChain(root, other)
}

// appendChain appends the chain of regions of other (see regionMembers) to
// that of root.
func (s *Segmenter) appendChain(root, other int32) {
	s.chain[s.tail[root]] = other
	s.tail[root] = s.tail[other]
}

// atomRegionsUnsorted fills s.items with the distinct regions of every
// atom.
func (s *Segmenter) atomRegionsUnsorted(label []int32, nr int) {
	g := s.g
	s.collectAtomRegions(label, nr, func(a int) []int32 {
		return g.atomCables[g.atomStart[a]:g.atomStart[a+1]]
	})
}

// medianFilter replaces every cable's value by the median of the values of
// its neighbourhood (Graph.nearCables).
func (s *Segmenter) medianFilter() {
	g := s.g
	s.smooth = grow(s.smooth, g.n)
	for c := range g.n {
		s.med = s.med[:0]
		for _, d := range g.nearCables[g.nearStart[c]:g.nearStart[c+1]] {
			s.med = append(s.med, s.vals[d])
		}
		slices.Sort(s.med)
		m := len(s.med)
		if m%2 == 1 {
			s.smooth[c] = s.med[m/2]
		} else {
			s.smooth[c] = float64(float32((s.med[m/2-1] + s.med[m/2]) / 2))
		}
	}
	copy(s.vals, s.smooth)
}

// reassign moves every cable, by its raw value, to the region within δ
// (its own included) whose mean is closest, if that mean is within
// max(θp, 4σ̂) of the value (σ̂ from noiseSD); else the cable leaves its
// region. Region means are those of the segmentation on smoothed values.
// Within δ, not only within the cable's atoms: where only one direction
// of a cable is congested (a port counter counts per output port), the
// cable's atom may hold its other direction alone.
func (s *Segmenter) reassign(label []int32, regs []Region, raw []float64) {
	g := s.g
	sum := make([]float64, len(regs))
	n := make([]float64, len(regs))
	for c, l := range label {
		if l >= 0 {
			sum[l] += s.vals[c]
			n[l]++
		}
	}
	mean := make([]float64, len(regs))
	for i := range mean {
		mean[i] = sum[i] / n[i]
	}
	tol := max(s.p.ThetaP, 4*noiseSD(raw, s.vals))
	s.atomRegionsUnsorted(label, len(regs))
	out := slices.Clone(label)
	for c := range g.n {
		best, bestD := int32(-1), math.Inf(1)
		v := raw[c]
		s.nearRegions(int32(c), func(l int32) {
			if dd := math.Abs(mean[l] - v); dd < bestD || (dd == bestD && l < best) {
				best, bestD = l, dd
			}
		})
		if bestD > tol {
			best = -1
		}
		out[c] = best
	}
	copy(label, out)
}

// noiseSD estimates the standard deviation of the per-cable noise from the
// residuals of the values raw after the median filter (smooth): 1.4826 times
// their median absolute deviation, which the cables at regions' borders (a
// small fraction, with large residuals) do not move much.
func noiseSD(raw, smooth []float64) float64 {
	res := make([]float64, len(raw))
	for c := range raw {
		res[c] = raw[c] - smooth[c]
	}
	med := func(v []float64) float64 {
		slices.Sort(v)
		if len(v) == 0 {
			return 0
		}
		if len(v)%2 == 1 {
			return v[len(v)/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	m := med(slices.Clone(res))
	for c := range res {
		res[c] = math.Abs(res[c] - m)
	}
	return 1.4826 * med(res)
}

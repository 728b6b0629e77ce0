package regions

import (
	"math"
	"slices"
)

// attribute is the overlap-attribution stage (Params.Overlaps), run after
// stage 4 (and after the reassignment of the robust variant) on the r2
// final regions: label gives every cable's region (-1: none), raw the
// cables' values; regions that join others are left empty and label is
// rewritten.
//
// Stall adds up where two congestion trees share cables: a cable that
// carries the backlog of two hot spots waits for credits on behalf of both
// (Monet's synthetic regions add their stalls the same way). A value-based
// segmentation then finds the shared cables as a region of their own,
// whose mean is the sum of the two sources' means, and reports three
// regions for two sources. This stage recognises such a region O: two
// distinct neighbours R1, R2 of O (within δ), each of mean above θr (so
// distinguishable from no congestion), with |mean(O) − mean(R1) − mean(R2)|
// ≤ θr (of several such pairs the closest sum). O then joins the smaller of
// R1 and R2 (fewer cables): a partition must give the shared cables to one
// source, and the smaller one loses the larger fraction of its extent if
// they are cut out of it. Regions are taken in decreasing mean, so that a
// triple overlap joins a pairwise one (its pair is that overlap and the
// third source) before the pairwise one is attributed; a region's mean in
// these sums stays that of its own cables before the stage (the source's
// stall) after others joined it.
func (s *Segmenter) attribute(label []int32, r2 int, raw []float64) {
	theta := s.p.ThetaR
	sum := make([]float64, r2)
	size := make([]int32, r2) // cables, with those of the regions that joined
	for c, l := range label {
		if l >= 0 {
			sum[l] += raw[c]
			size[l]++
		}
	}
	base := make([]float64, r2)
	var cand []int32
	for r := range r2 {
		if size[r] == 0 {
			continue // emptied by the reassignment: no cables, no neighbour
		}
		base[r] = sum[r] / float64(size[r])
		if base[r] > 2*theta {
			cand = append(cand, int32(r))
		}
	}
	if len(cand) == 0 {
		return
	}
	slices.SortFunc(cand, func(a, b int32) int {
		switch {
		case base[a] > base[b]:
			return -1
		case base[a] < base[b]:
			return 1
		}
		return int(a - b)
	})
	s.atomRegionsUnsorted(label, r2)
	s.regionMembers(label, r2)
	owner := make([]int32, r2) // the region a region joined, or itself
	for r := range owner {
		owner[r] = int32(r)
	}
	find := func(r int32) int32 {
		for owner[r] != r {
			r = owner[r]
		}
		return r
	}
	seen := make([]int32, r2)
	for i := range seen {
		seen[i] = -1
	}
	var nb []int32
	for _, o := range cand {
		nb = nb[:0]
		add := func(q int32) {
			q = find(q)
			if q == o || seen[q] == o || base[q] <= theta {
				return
			}
			seen[q] = o
			nb = append(nb, q)
		}
		// o's cables: its own and those of the regions that joined it
		for m := o; m >= 0; m = s.chain[m] {
			for _, c := range s.members[s.memStart[m]:s.memStart[m+1]] {
				s.nearRegions(c, add)
			}
		}
		slices.Sort(nb) // deterministic choice among equal sums
		best1, best2, bestD := int32(-1), int32(-1), math.Inf(1)
		for i, q1 := range nb {
			for _, q2 := range nb[i+1:] {
				if d := math.Abs(base[o] - base[q1] - base[q2]); d <= theta && d < bestD {
					best1, best2, bestD = q1, q2, d
				}
			}
		}
		if best1 < 0 {
			continue
		}
		dst := best1
		if size[best2] < size[best1] {
			dst = best2
		}
		owner[o] = dst
		s.appendChain(dst, o)
		size[dst] += size[o]
	}
	for c, r := range label {
		if r >= 0 {
			label[c] = find(r)
		}
	}
}

// nearRegions calls f with the region of every cable within δ of cable c,
// c's own included, as s.items lists the regions of every atom (filled by
// atomRegionsUnsorted); a region may come more than once.
func (s *Segmenter) nearRegions(c int32, f func(q int32)) {
	g := s.g
	for _, a := range g.cabAtoms[g.cabStart[c]:g.cabStart[c+1]] {
		at := g.atomStart[a]
		for _, q := range s.items[at : at+s.icnt[a]] {
			f(q)
		}
		for _, k := range g.atomCliqs[g.atomCliqStart[a]:g.atomCliqStart[a+1]] {
			for _, b := range g.cliqAtoms[g.cliqStart[k]:g.cliqStart[k+1]] {
				bb := g.atomStart[b]
				for _, q := range s.items[bb : bb+s.icnt[b]] {
					f(q)
				}
			}
		}
	}
}

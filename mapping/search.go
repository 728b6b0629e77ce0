package mapping

import (
	"fmt"
	"math"

	"orcs/rng"
)

func init() {
	register(&Strategy{
		Name: "search",
		Doc: "simulated annealing over swaps of two hosts' ranks, each scored incrementally by walking the routes of " +
			"the two ranks through the tables; starts from the best constructive placement (LibTopoMap's threshold accepting refinement)",
		Place: placeSearch,
	})
}

// searchStream is the random stream of search.
const searchStream = 2

// MaxSearchLoads bounds the loads search keeps (one per level and cable,
// 8 bytes each: 512 MiB).
const MaxSearchLoads = 1 << 26

// DefaultBudget is the number of candidate swaps search evaluates when
// Problem.Budget is 0: 100 per rank, at least 200 000.
func DefaultBudget(ranks int) int { return max(200000, 100*ranks) }

// MaxBudget is the largest budget of a job of ranks ranks: ten times the
// default (a candidate swap costs about 10 µs on 16 ranks, so 2 million
// are some 20 s of search).
func MaxBudget(ranks int) int { return 10 * DefaultBudget(ranks) }

// starts are the strategies whose best placement search starts from.
var starts = []string{"linear", "random", "greedy", "rcm", "bisect", "tile"}

func placeSearch(p *Problem) (Placement, error) {
	best, bestObj := Placement(nil), Objective{}
	for _, name := range starts {
		s, _ := Lookup(name)
		pl, err := s.Place(p)
		if err != nil {
			if name == "tile" {
				continue // no grid, or no tile fits: not a start
			}
			return nil, fmt.Errorf("start %s: %w", name, err)
		}
		if o := p.Score(pl); best == nil || p.Mode.Better(o, bestObj) {
			best, bestObj = pl, o
		}
	}
	s, err := newSearcher(p, best)
	if err != nil {
		return nil, err
	}
	budget := p.Budget
	if budget <= 0 {
		budget = DefaultBudget(p.Comm.Ranks)
	}
	found := s.anneal(budget)
	if p.Mode.Better(p.Score(found), bestObj) {
		return found, nil
	}
	return best, nil
}

// searcher keeps a placement with every level's cable loads and evaluates
// swaps of two slots (hosts of the allocation) incrementally.
type searcher struct {
	p    *Problem
	mode Mode
	msgs []Message
	// incident messages of every rank (CSR)
	incStart, incIDs []int32
	nl               int     // cables (directed links)
	load             []int64 // load[level·nl + link]
	lmax             []int64 // per level: the largest load
	nmax             []int32 // per level: cables at lmax
	congestion       int64   // Σ lmax
	sumsq            float64 // Σ load²
	job              []int64 // per cable: the load of all levels together
	sumsqJob         float64 // Σ job²
	slotHost         []int32 // slot → host (p.order)
	slotRank         []int32 // slot → rank, −1 = free
	rankSlot         []int32 // rank → slot
	// undo journal of the current move
	jIdx     []int32
	jOld     []int64
	touched  []int32 // levels changed by the current move
	savedMax []int64
	savedN   []int32
	stamp    []uint32 // per level: move number that touched it
	move     uint32
	path     []int32
}

func newSearcher(p *Problem, start Placement) (*searcher, error) {
	nl := len(p.Fabric.Links)
	if int64(p.Comm.Levels)*int64(nl) > MaxSearchLoads {
		return nil, fmt.Errorf("search keeps a load per level and cable: %d levels × %d cables is more than %d; give the traffic as one level (a traffic matrix)",
			p.Comm.Levels, nl, MaxSearchLoads)
	}
	s := &searcher{p: p, mode: p.Mode, msgs: p.Comm.Msgs, nl: nl,
		load: make([]int64, p.Comm.Levels*nl), job: make([]int64, nl), lmax: make([]int64, p.Comm.Levels),
		nmax: make([]int32, p.Comm.Levels), stamp: make([]uint32, p.Comm.Levels),
		slotHost: p.order, slotRank: make([]int32, len(p.order)), rankSlot: make([]int32, p.Comm.Ranks)}
	s.incStart, s.incIDs = p.Comm.incidence()
	slotOf := make(map[int32]int32, len(p.order))
	for i, h := range p.order {
		slotOf[h] = int32(i)
		s.slotRank[i] = -1
	}
	for r, h := range start {
		s.rankSlot[r] = slotOf[h]
		s.slotRank[slotOf[h]] = int32(r)
	}
	for i := range s.msgs {
		s.walk(int32(i), 1)
	}
	s.commit()
	for lv := range s.lmax {
		s.rescan(int32(lv))
		s.congestion += s.lmax[lv]
	}
	return s, nil
}

// walk adds sign times message m's weight to the loads of its route under
// the current placement, keeping sumsq, the level maxima and the journal.
func (s *searcher) walk(m int32, sign int64) {
	msg := &s.msgs[m]
	lv := msg.Level
	if s.stamp[lv] != s.move {
		s.stamp[lv] = s.move
		s.touched = append(s.touched, lv)
		s.savedMax = append(s.savedMax, s.lmax[lv])
		s.savedN = append(s.savedN, s.nmax[lv])
	}
	src := s.slotHost[s.rankSlot[msg.Src]]
	dst := s.slotHost[s.rankSlot[msg.Dst]]
	s.path, _ = s.p.Fabric.AppendRoute(s.path[:0], src, dst)
	base := int(lv) * s.nl
	d := sign * msg.Weight
	lmax, nmax := s.lmax[lv], s.nmax[lv]
	for _, l := range s.path {
		i := base + int(l)
		old := s.load[i]
		nw := old + d
		s.load[i] = nw
		s.jIdx = append(s.jIdx, int32(i))
		s.jOld = append(s.jOld, old)
		s.sumsq += float64(nw)*float64(nw) - float64(old)*float64(old)
		j := s.job[l]
		s.job[l] = j + d
		s.sumsqJob += float64(j+d)*float64(j+d) - float64(j)*float64(j)
		if d < 0 {
			if old == lmax {
				nmax--
			}
		} else if nw > lmax {
			lmax, nmax = nw, 1
		} else if nw == lmax {
			nmax++
		}
	}
	s.lmax[lv], s.nmax[lv] = lmax, nmax
}

// rescan recomputes level lv's largest load and its count.
func (s *searcher) rescan(lv int32) {
	var m int64
	var n int32
	for _, c := range s.load[int(lv)*s.nl : int(lv+1)*s.nl] {
		if c > m {
			m, n = c, 1
		} else if c == m {
			n++
		}
	}
	s.lmax[lv], s.nmax[lv] = m, n
}

// commit forgets the journal: the current placement stays.
func (s *searcher) commit() {
	s.jIdx, s.jOld = s.jIdx[:0], s.jOld[:0]
	s.touched, s.savedMax, s.savedN = s.touched[:0], s.savedMax[:0], s.savedN[:0]
	s.move++
}

// swap exchanges the ranks of slots a and b (either may be free) and
// updates the loads; it returns the new congestion and sum of squares.
// undo reverts it; commit keeps it.
func (s *searcher) swap(a, b int32) (int64, float64) {
	ra, rb := s.slotRank[a], s.slotRank[b]
	s.each(ra, rb, -1)
	s.slotRank[a], s.slotRank[b] = rb, ra
	if ra >= 0 {
		s.rankSlot[ra] = b
	}
	if rb >= 0 {
		s.rankSlot[rb] = a
	}
	s.each(ra, rb, 1)
	c := s.congestion
	for k, lv := range s.touched {
		if s.nmax[lv] == 0 {
			s.rescan(lv)
		}
		c += s.lmax[lv] - s.savedMax[k]
	}
	return c, s.sumsq
}

// each walks the messages of ranks ra and rb (−1: none), each once.
func (s *searcher) each(ra, rb int32, sign int64) {
	if ra >= 0 {
		for _, m := range s.incIDs[s.incStart[ra]:s.incStart[ra+1]] {
			s.walk(m, sign)
		}
	}
	if rb >= 0 {
		for _, m := range s.incIDs[s.incStart[rb]:s.incStart[rb+1]] {
			if msg := &s.msgs[m]; msg.Src != ra && msg.Dst != ra || ra < 0 {
				s.walk(m, sign)
			}
		}
	}
}

// undo reverts the current move's loads, maxima and ranks (a, b: the slots
// of swap).
func (s *searcher) undo(a, b int32, sumsq, sumsqJob float64) {
	for i := len(s.jIdx) - 1; i >= 0; i-- {
		idx := s.jIdx[i]
		s.job[int(idx)%s.nl] += s.jOld[i] - s.load[idx]
		s.load[idx] = s.jOld[i]
	}
	s.sumsqJob = sumsqJob
	for k, lv := range s.touched {
		s.lmax[lv], s.nmax[lv] = s.savedMax[k], s.savedN[k]
	}
	s.sumsq = sumsq
	ra, rb := s.slotRank[a], s.slotRank[b]
	s.slotRank[a], s.slotRank[b] = rb, ra
	if ra >= 0 {
		s.rankSlot[ra] = b
	}
	if rb >= 0 {
		s.rankSlot[rb] = a
	}
	s.commit()
}

// placement returns the current placement.
func (s *searcher) placement() Placement {
	pl := make(Placement, len(s.rankSlot))
	copyPlacement(pl, s)
	return pl
}

// candidate draws a swap: a rank's slot and, with equal chances, any
// slot, a slot on the leaf switch of one of the rank's partners, or a slot
// on the rank's own leaf switch.
func (s *searcher) candidate(r *rng.Stream, g *Graph) (int32, int32) {
	rank := int32(r.IntN(len(s.rankSlot)))
	a := s.rankSlot[rank]
	groups := s.p.groups
	var grp int32
	switch r.IntN(3) {
	case 0:
		return a, int32(r.IntN(len(s.slotRank)))
	case 1:
		deg := g.Start[rank+1] - g.Start[rank]
		if deg == 0 {
			return a, int32(r.IntN(len(s.slotRank)))
		}
		q := g.Adj[g.Start[rank]+int32(r.IntN(int(deg)))]
		grp = s.p.groupOf[s.rankSlot[q]]
	default:
		grp = s.p.groupOf[a]
	}
	lo, hi := groups[grp], groups[grp+1]
	return a, lo + int32(r.IntN(int(hi-lo)))
}

// key returns o's criteria as anneal weighs them: the first is never
// allowed to rise, the others are annealed. By congestion: the congestion,
// then the sums of squares per level and of the job; by sums of squares:
// nothing fixed, then the sum of squares per level and the congestion.
func (s *searcher) key(o Objective) [3]float64 {
	if s.mode == BySumSq {
		return [3]float64{0, o.SumSq, float64(o.Congestion)}
	}
	return [3]float64{float64(o.Congestion), o.SumSq, o.SumSqJob}
}

// current returns the objective of the current placement as tracked.
func (s *searcher) current() Objective {
	return Objective{Congestion: s.congestion, SumSq: s.sumsq, SumSqJob: s.sumsqJob}
}

// try swaps slots a and b and keeps the swap if accept, given the
// criteria before and after, says so; it returns whether it did.
func (s *searcher) try(a, b int32, accept func(old, nw [3]float64) bool) bool {
	old := s.current()
	c, sq := s.swap(a, b)
	nw := Objective{Congestion: c, SumSq: sq, SumSqJob: s.sumsqJob}
	if !accept(s.key(old), s.key(nw)) {
		s.undo(a, b, old.SumSq, old.SumSqJob)
		return false
	}
	s.congestion = c
	s.commit()
	return true
}

// anneal runs budget candidate swaps from the current placement and
// returns the best placement seen. A swap that lowers the first criterion
// is taken, one that raises it is not; at an equal first criterion, the
// first of the others that differs decides: a fall is taken, a rise Δ with
// probability exp(−Δ/T). T starts at a tenth of the mean rise of the first
// 1000 candidates and falls geometrically to a thousandth of that over
// 90 % of the budget; then it is 0 (descent only).
func (s *searcher) anneal(budget int) Placement {
	r := rng.New(s.p.Seed, searchStream)
	g := s.p.graphOf()
	best := s.placement()
	bestKey := s.key(s.current())
	probe := min(1000, budget/10)
	coolEnd := budget * 9 / 10
	var rise, temp, factor float64
	rises := 0
	accept := func(old, nw [3]float64) bool {
		if nw[0] != old[0] {
			return nw[0] < old[0]
		}
		k := 1
		if nw[1] == old[1] {
			k = 2
		}
		d := nw[k] - old[k]
		switch {
		case d <= 0:
			return true
		case rises >= 0 && rises < probe:
			rise += d
			rises++
			return false
		case temp > 0:
			return r.Float64() < math.Exp(-d/temp)
		}
		return false
	}
	for i := 0; i < budget; i++ {
		if i == probe {
			if rises > 0 {
				temp = rise / float64(rises) / 10
			}
			rises = -1 // probing is over
			if steps := coolEnd - i; steps > 0 {
				factor = math.Pow(1e-3, 1/float64(steps))
			}
		} else if i > probe {
			temp *= factor
			if i >= coolEnd {
				temp = 0
			}
		}
		a, b := s.candidate(r, g)
		if a == b || s.slotRank[a] < 0 && s.slotRank[b] < 0 || !s.try(a, b, accept) {
			continue
		}
		if k := s.key(s.current()); less3(k, bestKey) {
			bestKey = k
			copyPlacement(best, s)
		}
	}
	return best
}

// less3 compares criteria lexicographically.
func less3(a, b [3]float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// improves is the acceptance of a descent: the criteria nw after a swap
// are lower than old before it.
func improves(old, nw [3]float64) bool { return less3(nw, old) }

// descendInGroups improves the order of ranks inside each leaf switch:
// budget candidate swaps of two slots of one leaf, each taken when it
// improves the objective. Which ranks share a leaf does not change.
func (s *searcher) descendInGroups(budget int) Placement {
	r := rng.New(s.p.Seed, searchStream+1)
	groups := s.p.groups
	for range budget {
		a := s.rankSlot[r.IntN(len(s.rankSlot))]
		grp := s.p.groupOf[a]
		lo, hi := groups[grp], groups[grp+1]
		if b := lo + int32(r.IntN(int(hi-lo))); a != b {
			s.try(a, b, improves)
		}
	}
	return s.placement()
}

// copyPlacement writes the searcher's current placement into pl.
func copyPlacement(pl Placement, s *searcher) {
	for r, sl := range s.rankSlot {
		pl[r] = s.slotHost[sl]
	}
}

package analyze

import (
	"cmp"
	"slices"

	"orcs/gen"
	"orcs/internal/workers"
	"orcs/lft"
	"orcs/metrics"
	"orcs/patterns"
	"orcs/rng"
)

// HotCables finds the n most loaded cables of the simulation and the flows
// behind them: those of the level where each cable's peak happened
// (PeakFlows) and every flow over it in any level and run (Flows, most
// frequent first). A cable's load in a level is the number of routes of
// the level that use it; its peak in a run is its largest level load;
// cables rank by the mean peak over runs, then by the largest load, then by
// link id. It walks every run of s again (twice: once for the loads, once
// for the flows of the chosen cables), with the same mappings as Run, so
// the result depends only on the seed, never on the thread count.
func (s *Analysis) HotCables(n int) ([]metrics.HotCable, error) {
	if n <= 0 {
		return nil, nil
	}
	f := s.fabric
	L := len(f.Links)
	threads := min(s.cfg.Threads, max(1, s.cfg.Runs))
	cl := s.cableLoads()
	sum, maxLoad, maxRun, maxLvl := cl.sumPeak, cl.max, cl.maxRun, cl.maxLvl
	order := make([]int32, 0, L)
	for l := range L {
		if maxLoad[l] > 0 {
			order = append(order, int32(l))
		}
	}
	slices.SortFunc(order, func(a, b int32) int {
		return cmp.Or(cmp.Compare(sum[b], sum[a]), cmp.Compare(maxLoad[b], maxLoad[a]), cmp.Compare(a, b))
	})
	order = order[:min(n, len(order))]
	runs := s.runCount()
	hot := make([]metrics.HotCable, len(order))
	slot := make([]int32, L) // link → hot cable + 1
	for i, l := range order {
		k := f.Links[l]
		hot[i] = metrics.HotCable{Rank: i + 1, Link: l, From: f.Nodes[k.From].Name, FromPort: k.FromPort,
			To: f.Nodes[k.To].Name, ToPort: k.ToPort, MeanPeak: float64(sum[l]) / float64(max(runs, 1)),
			MaxLoad: maxLoad[l], MaxRun: int(maxRun[l]), MaxLevel: int(maxLvl[l])}
		slot[l] = int32(i + 1)
	}
	if len(hot) == 0 {
		return hot, nil
	}
	// Second pass: the flows over the chosen cables, by level and ranks
	// (a rank pair maps to other hosts in other runs: the hosts shown are
	// those of its first run).
	type flowKey struct{ cable, level, srcRank, dstRank int32 }
	type flowSeen struct{ runs, firstRun, srcHost, dstHost int32 }
	counts := make([]map[flowKey]flowSeen, threads)
	// The peak flows of a cable come from one run and level, which one
	// thread walks: each thread keeps those it met, in the level's order.
	peaks := make([][][]metrics.HotFlow, threads)
	s.eachRun(threads, func(t int) func(r, first int, perm []int32, levels []patterns.Level) {
		m := map[flowKey]flowSeen{}
		counts[t] = m
		peak := make([][]metrics.HotFlow, len(hot))
		peaks[t] = peak
		var path []int32
		return func(r, first int, perm []int32, levels []patterns.Level) {
			for li, lv := range levels {
				for _, pr := range lv {
					var st lft.RouteStatus
					if path, st = f.AppendRoute(path[:0], perm[pr.Src], perm[pr.Dst]); st != lft.RouteOK {
						continue
					}
					for _, l := range path {
						if c := slot[l]; c > 0 {
							if h := &hot[c-1]; h.MaxRun == r && h.MaxLevel == first+li {
								peak[c-1] = append(peak[c-1], metrics.HotFlow{Level: first + li, SrcRank: pr.Src, DstRank: pr.Dst,
									SrcHost: f.HostName(int(perm[pr.Src])), DstHost: f.HostName(int(perm[pr.Dst])), Run: r})
							}
							key := flowKey{c - 1, int32(first + li), pr.Src, pr.Dst}
							v, ok := m[key]
							if !ok || int32(r) < v.firstRun {
								v.firstRun, v.srcHost, v.dstHost = int32(r), perm[pr.Src], perm[pr.Dst]
							}
							v.runs++
							m[key] = v
						}
					}
				}
			}
		}
	})
	total := map[flowKey]flowSeen{}
	for _, m := range counts {
		for k, c := range m {
			v, ok := total[k]
			if !ok || c.firstRun < v.firstRun {
				v.firstRun, v.srcHost, v.dstHost = c.firstRun, c.srcHost, c.dstHost
			}
			v.runs += c.runs
			total[k] = v
		}
	}
	per := make([][]metrics.HotFlow, len(hot))
	for k, c := range total {
		per[k.cable] = append(per[k.cable], metrics.HotFlow{Level: int(k.level), SrcRank: k.srcRank, DstRank: k.dstRank,
			SrcHost: f.HostName(int(c.srcHost)), DstHost: f.HostName(int(c.dstHost)), Run: int(c.firstRun), Runs: int(c.runs)})
	}
	for i := range hot {
		fl := per[i]
		slices.SortFunc(fl, func(a, b metrics.HotFlow) int {
			return cmp.Or(cmp.Compare(b.Runs, a.Runs), cmp.Compare(a.Level, b.Level), cmp.Compare(a.SrcRank, b.SrcRank),
				cmp.Compare(a.DstRank, b.DstRank))
		})
		hot[i].DistinctFlows = len(fl)
		hot[i].Flows = fl
		hot[i].PeakFlows = []metrics.HotFlow{}
		for _, p := range peaks {
			if p != nil && len(p[i]) > 0 {
				hot[i].PeakFlows = p[i]
			}
		}
		for j := range hot[i].PeakFlows {
			pf := &hot[i].PeakFlows[j]
			pf.Runs = int(total[flowKey{int32(i), int32(pf.Level), pf.SrcRank, pf.DstRank}].runs)
		}
	}
	return hot, nil
}

// cableLoads is every cable's load over the runs (see HotCables).
type cableLoads struct {
	sumPeak             []int64
	max, maxRun, maxLvl []int32
}

// CableLoads returns every cable's (directed link's) mean peak load — the
// mean over runs of its largest load in a level, the number of routes that
// share it at once — and its largest load in any level of any run, indexed
// by link. It walks every run once (shared with HotCables), with the same
// mappings as Run: the result depends only on the seed.
func (s *Analysis) CableLoads() (meanPeak []float64, maxLoad []int32) {
	cl := s.cableLoads()
	runs := float64(max(s.runCount(), 1))
	meanPeak = make([]float64, len(cl.sumPeak))
	for l, v := range cl.sumPeak {
		meanPeak[l] = float64(v) / runs
	}
	return meanPeak, cl.max
}

// Topology describes the fabric with every cable's load (CableLoads) for
// drawings; net, when not nil, is the generator's description of the
// fabric and adds the routing's name and a torus's or mesh's coordinates.
func (s *Analysis) Topology(net *gen.Network) *metrics.Topology {
	mean, peak := s.CableLoads()
	var coord func(int32) []int
	if net != nil && net.Grid != nil {
		coord = net.Grid.Coord
	}
	t := metrics.NewTopology(s.fabric, mean, peak, coord)
	if net != nil {
		// Not re-routed by another engine: the generator's own fabric (gen:
		// input), or one with the same digest (a dot file of it).
		if s.fabric == net.Fabric || s.fabric.Digest() == net.Fabric.Digest() {
			t.Routing = net.Routing()
		}
		if g := net.Grid; g != nil {
			t.Grid = &metrics.TopologyGrid{Dims: g.Dims, Torus: g.Torus}
		}
	}
	return t
}

// cableLoads walks every run and sums each cable's peak load per run.
func (s *Analysis) cableLoads() *cableLoads {
	if s.loads != nil {
		return s.loads
	}
	f := s.fabric
	L := len(f.Links)
	threads := min(s.cfg.Threads, max(1, s.cfg.Runs))
	type loads struct {
		sumPeak         []int64
		max             []int32
		maxRun, maxLvl  []int32
		peak            []int32
		touched, levelT []int32
	}
	parts := make([]*loads, threads)
	s.eachRun(threads, func(t int) func(r, first int, perm []int32, levels []patterns.Level) {
		p := &loads{sumPeak: make([]int64, L), max: make([]int32, L), maxRun: make([]int32, L),
			maxLvl: make([]int32, L), peak: make([]int32, L)}
		parts[t] = p
		load := make([]int32, L)
		var path []int32
		return func(r, first int, perm []int32, levels []patterns.Level) {
			for li, lv := range levels {
				li += first
				path = path[:0]
				for _, pr := range lv {
					start := len(path)
					var st lft.RouteStatus
					if path, st = f.AppendRoute(path, perm[pr.Src], perm[pr.Dst]); st != lft.RouteOK {
						path = path[:start]
					}
				}
				for _, l := range path {
					load[l]++
				}
				for _, l := range path {
					c := load[l]
					if c == 0 {
						continue
					}
					if p.peak[l] == 0 {
						p.touched = append(p.touched, l)
					}
					p.peak[l] = max(p.peak[l], c)
					if c > p.max[l] || c == p.max[l] && (int32(r) < p.maxRun[l] || int32(r) == p.maxRun[l] && int32(li) < p.maxLvl[l]) {
						p.max[l], p.maxRun[l], p.maxLvl[l] = c, int32(r), int32(li)
					}
					load[l] = 0
				}
			}
			for _, l := range p.touched {
				p.sumPeak[l] += int64(p.peak[l])
				p.peak[l] = 0
			}
			p.touched = p.touched[:0]
		}
	})
	cl := &cableLoads{sumPeak: make([]int64, L), max: make([]int32, L), maxRun: make([]int32, L), maxLvl: make([]int32, L)}
	for _, p := range parts {
		if p == nil {
			continue
		}
		for l := range L {
			cl.sumPeak[l] += p.sumPeak[l]
			if c := p.max[l]; c > cl.max[l] || c == cl.max[l] && c > 0 && (p.maxRun[l] < cl.maxRun[l] || p.maxRun[l] == cl.maxRun[l] && p.maxLvl[l] < cl.maxLvl[l]) {
				cl.max[l], cl.maxRun[l], cl.maxLvl[l] = c, p.maxRun[l], p.maxLvl[l]
			}
		}
	}
	s.loads = cl
	return cl
}

// runCount is the number of runs the simulation's shard owns.
func (s *Analysis) runCount() int { return int(s.cfg.Shard.Runs(int64(s.cfg.Runs))) }

// eachRun draws every owned run's mapping and levels (only the configured
// level with -l; first is the index of the first level handed over) and
// hands them to a per-thread function, threads at a time. Which thread gets
// which run does not matter to callers that only sum and take minima and
// maxima.
func (s *Analysis) eachRun(threads int, newFn func(t int) func(r, first int, perm []int32, levels []patterns.Level)) {
	type thread struct {
		fn     func(r, first int, perm []int32, levels []patterns.Level)
		perm   []int32
		st     rng.Stream
		levels []patterns.Level
	}
	state := make([]thread, threads)
	for t := range state {
		state[t] = thread{fn: newFn(t), perm: make([]int32, len(s.hosts))}
	}
	workers.Run(nil, threads, s.runCount(), func(t, k int) error {
		th := &state[t]
		r := s.cfg.Shard.Run(k)
		th.levels = s.draw(r, &th.st, th.perm, th.levels)
		lv, first := th.levels, 0
		if s.cfg.Level >= 0 && s.cfg.Level < len(th.levels) {
			lv, first = th.levels[s.cfg.Level:s.cfg.Level+1], s.cfg.Level
		}
		th.fn(r, first, th.perm, lv)
		return nil
	})
}

package analyze

import (
	"fmt"
	"io"
	"sync"

	"orcs/lft"
	"orcs/metrics"
	"orcs/patterns"
	"orcs/rng"
)

// worker simulates runs with its own scratch state and accumulators.
type worker struct {
	s      *Analysis
	f      *lft.Fabric
	values []float64 // shared; each run writes only its own slot
	acc    metrics.Result
	stream rng.Stream
	perm   []int32 // rank → host index for the current run
	levels []patterns.Level
	walk   Walker
	delay  metrics.DelayTracker
	counts []int64 // connections of the run per weight
	hist   []int32 // a level's connections per weight, four histograms (count)
	// small is hist for levels whose weights are all below smallWeights,
	// all 0 between levels
	small [4 * smallWeights]int32
	// sends and recvs count a level's messages per rank (NeedsIdeal)
	sends, recvs []int32
}

func (s *Analysis) newWorker(values []float64) *worker {
	w := &worker{s: s, f: s.fabric, values: values, perm: make([]int32, len(s.hosts))}
	w.walk.Init(s.fabric, s.metric.NeedsLinkLoad)
	w.walk.PerRoute = s.cfg.Compat == metrics.CompatORCS2
	if s.metric.NeedsLinkLoad {
		w.acc.LinkLoad = w.walk.Sum
	}
	w.delay.ORCS2 = s.cfg.Compat == metrics.CompatORCS2
	if s.metric.NeedsIdeal {
		w.sends, w.recvs = make([]int32, len(s.hosts)), make([]int32, len(s.hosts))
	}
	return w
}

// run simulates run r.
func (w *worker) run(r int) error {
	s := w.s
	w.levels = s.draw(r, &w.stream, w.perm, w.levels)
	levels := w.levels
	if s.cfg.Level >= 0 {
		if s.cfg.Level >= len(levels) {
			return fmt.Errorf("run %d: level %d does not exist", r, s.cfg.Level)
		}
		levels = levels[s.cfg.Level : s.cfg.Level+1]
	}
	if s.metric.NeedsDelay {
		w.delay.Reset(len(w.perm), s.source.FirstRanks())
	}
	var st metrics.RunStats
	for i := range w.counts {
		w.counts[i] = 0
	}
	for li, lv := range levels {
		weights, failed := w.walk.level(lv, w.perm, s.oneToOne != nil && s.oneToOne[li])
		if failed > 0 {
			w.acc.RouteErrors += int64(failed)
		}
		levelMax, conns := w.count(weights)
		st.Connections += conns
		st.SumLevelMax += int64(levelMax)
		if s.metric.NeedsIdeal {
			st.SumLevelIdeal += int64(w.ideal(lv))
		}
		if int64(levelMax) > st.MaxWeight {
			st.MaxWeight = int64(levelMax)
		}
		if s.metric.NeedsDelay {
			w.delay.Level(lv, weights)
		}
		if s.cfg.Verbose != nil {
			fmt.Fprintf(s.cfg.Verbose, "run %d level %d: %d connections, max congestion %d\n", r, li, len(lv), levelMax)
		}
	}
	for wt, c := range w.counts {
		if c > 0 {
			st.SumInvWeight += float64(c) / float64(wt)
			w.acc.AddWeights(wt, c)
		}
	}
	if s.metric.NeedsDelay {
		st.Delay = w.delay.Delay()
	}
	w.values[s.cfg.Shard.Slot(r)] = s.metric.Value(st)
	return nil
}

// count adds the level's weights to w.counts and returns the largest and
// the number of connections; weight 0 (a failed route) is not counted.
// The weights go into four histograms side by side (w.hist, weight wt of
// the i-th connection at 4·wt + i mod 4), summed into w.counts after the
// loop: a level has few distinct weights, and one histogram made each
// count wait for the one before it to the same weight.
func (w *worker) count(weights []int32) (levelMax int32, conns int64) {
	// First as if every weight were below smallWeights: the histograms'
	// places masked (no bounds checks), the weights' bits or-ed together
	// to tell, and no pass for the largest weight before the counts.
	const mask = 4*smallWeights - 1
	h := &w.small
	var all int32
	i := 0
	for ; i+4 <= len(weights); i += 4 {
		ws := weights[i : i+4 : i+4]
		all |= ws[0] | ws[1] | ws[2] | ws[3]
		h[4*ws[0]&mask]++
		h[(4*ws[1]+1)&mask]++
		h[(4*ws[2]+2)&mask]++
		h[(4*ws[3]+3)&mask]++
	}
	for ; i < len(weights); i++ {
		all |= weights[i]
		h[4*weights[i]&mask]++
	}
	if uint32(all) >= smallWeights {
		*h = [4 * smallWeights]int32{}
		return w.countLarge(weights)
	}
	// The largest weight is at most all, and close below it.
	levelMax = all
	for levelMax > 0 && h[4*levelMax]|h[4*levelMax+1]|h[4*levelMax+2]|h[4*levelMax+3] == 0 {
		levelMax--
	}
	n := int(levelMax) + 1
	conns = w.addCounts(h[:4*n], len(weights))
	clear(h[:4*n])
	return levelMax, conns
}

// addCounts adds the four histograms h (weights 0 … len(h)/4−1, see
// count) of a level of conns weights to w.counts and returns its
// connections: those of weight above 0.
func (w *worker) addCounts(h []int32, conns int) int64 {
	n := len(h) / 4
	if len(w.counts) < n {
		w.counts = append(w.counts, make([]int64, max(n, 8)-len(w.counts))...)
	}
	counts := w.counts
	for wt := 1; wt < n; wt++ {
		counts[wt] += int64(h[4*wt]) + int64(h[4*wt+1]) + int64(h[4*wt+2]) + int64(h[4*wt+3])
	}
	return int64(conns) - int64(h[0]) - int64(h[1]) - int64(h[2]) - int64(h[3])
}

// smallWeights bounds the weights that count takes in its first pass.
const smallWeights = 64

// countLarge is count for levels with a weight of smallWeights or more.
func (w *worker) countLarge(weights []int32) (levelMax int32, conns int64) {
	var m0, m1, m2, m3 int32 // four maxima side by side, for the same reason
	i := 0
	for ; i+4 <= len(weights); i += 4 {
		ws := weights[i : i+4 : i+4]
		m0, m1, m2, m3 = max(m0, ws[0]), max(m1, ws[1]), max(m2, ws[2]), max(m3, ws[3])
	}
	for ; i < len(weights); i++ {
		m0 = max(m0, weights[i])
	}
	levelMax = max(m0, m1, m2, m3)
	n := int(levelMax) + 1
	if cap(w.hist) < 4*n {
		w.hist = make([]int32, 4*n)
	}
	h := w.hist[:4*n]
	clear(h)
	for i = 0; i+4 <= len(weights); i += 4 {
		ws := weights[i : i+4 : i+4]
		h[4*ws[0]]++
		h[4*ws[1]+1]++
		h[4*ws[2]+2]++
		h[4*ws[3]+3]++
	}
	for ; i < len(weights); i++ {
		h[4*weights[i]]++
	}
	return levelMax, w.addCounts(h, len(weights))
}

// ideal returns the largest congestion of the level on a non-blocking
// fabric: the most messages a rank sends or receives (the load of its
// host's own links).
func (w *worker) ideal(lv patterns.Level) int32 {
	var m int32
	for _, p := range lv {
		w.sends[p.Src]++
		w.recvs[p.Dst]++
		m = max(m, w.sends[p.Src], w.recvs[p.Dst])
	}
	for _, p := range lv {
		w.sends[p.Src], w.recvs[p.Dst] = 0, 0
	}
	return m
}

// Walker builds the cable congestion map of one level at a time: it walks
// every route of the level, counts how many routes use each link, and gives
// every connection its congestion w, the largest count on its route.
type Walker struct {
	f    *lft.Fabric
	load []int32 // per link, zero between levels
	w    []int32
	// pairs of the level as host indices, and the batch that walks them
	src, dst []int32
	batch    lft.RouteBatch
	// Sum, when enabled, accumulates every level's load per link.
	Sum []int64
	// PerRoute makes Sum follow ORCS 2.0's get_cable_cong rule: ORCS 2.0
	// adds its running cable congestion map to the global one after every
	// route of a level, not once per level. After the j-th of a level's m
	// routes the running map counts, per link, the routes 1 … j using it;
	// summed over j, route i (counted from 1, in pattern order, failed
	// routes included) adds m−i+1 to every link it uses. Early routes thus
	// count several times: a gather onto one host over 15 routes puts
	// 15+14+…+1 = 120 on the host's down-link instead of 15.
	PerRoute bool
	// Hops counts the links walked so far.
	Hops int64
	// the fused walk's scratch, per pair (see levelFused): where its entry
	// is, its first link (position words: the slot standing for it), its
	// entry switch's first slot, its entry (link words) or decoded slots
	// (position words)
	at, first, base, low []int32
	lw                   [][8]uint16
	iw                   []uint64 // a level's inner words
	last                 []int32  // the last link of each pair (inner words)
	lpath                []uint16 // the counted links of a level's link words, back to back
	pw                   [][8]int32
	slotLoad             []int32 // a level's loads by slot (position words)
}

// Init prepares the walker for fabric f; sum enables Sum.
func (k *Walker) Init(f *lft.Fabric, sum bool) {
	k.f = f
	k.load = make([]int32, len(f.Links))
	if sum {
		k.Sum = make([]int64, len(f.Links))
	}
}

// Level walks the level's pairs, with ranks mapped to host indices by perm,
// and returns each pair's congestion (0 for a pair whose route failed) and
// the number of failed routes. The returned slice is reused by the next call.
func (k *Walker) Level(lv patterns.Level, perm []int32) ([]int32, int) {
	return k.level(lv, perm, false)
}

// level is Level; oneToOne tells that every rank of lv sends at most once
// and receives at most once (see levelFused).
func (k *Walker) level(lv patterns.Level, perm []int32, oneToOne bool) ([]int32, int) {
	if w, ok := k.levelFused(lv, perm, oneToOne); ok {
		k.w = w
		return w, 0
	}
	if cap(k.src) < len(lv) {
		k.src, k.dst = make([]int32, len(lv)), make([]int32, len(lv))
	}
	src, dst := k.src[:len(lv)], k.dst[:len(lv)]
	for i, p := range lv {
		src[i], dst[i] = perm[p.Src], perm[p.Dst]
	}
	load, b := k.load, &k.batch
	failed := b.Walk(k.f, src, dst, load)
	k.Hops += b.Hops()
	w := b.Congestion(load, k.w)
	path, ends := b.Path(), b.Ends()
	switch {
	case k.Sum != nil && k.PerRoute:
		start, m := int32(0), int64(len(ends))
		for i, end := range ends {
			for _, l := range path[start:end] {
				k.Sum[l] += m - int64(i)
			}
			start = end
		}
		for _, l := range path {
			load[l] = 0
		}
	case k.Sum != nil:
		for _, l := range path {
			if c := load[l]; c != 0 {
				k.Sum[l] += int64(c)
				load[l] = 0
			}
		}
	case 4*len(path) >= len(load): // clearing every counter costs less
		clear(load)
	default:
		for _, l := range path {
			load[l] = 0
		}
	}
	k.w = w
	return w, failed
}

// SyncWriter returns a writer that serialises the writes of several
// goroutines to w (for Config.Verbose).
func SyncWriter(w io.Writer) io.Writer { return &lockedWriter{w: w} }

// lockedWriter serialises writes from worker goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

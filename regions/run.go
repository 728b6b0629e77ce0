package regions

import (
	"runtime"
	"sync"

	"orcs/internal/workers"
)

// Run segments windows 0 … n−1 on threads goroutines (one Segmenter each;
// threads < 1 means all cores) and hands every window's segmentation to
// sink in window order, so that the tracking, which needs the previous
// window, stays sequential and the result does not depend on threads.
// values(w) returns window w's values; it is called from several
// goroutines at once. The first error stops the run.
func Run(g *Graph, p Params, n, threads int, values func(w int) []float64, sink func(w int, seg Segment) error) error {
	if threads < 1 {
		threads = runtime.NumCPU()
	}
	threads = max(1, min(threads, n))
	segs := make([]*Segmenter, threads)
	for i := range segs {
		s, err := NewSegmenter(g, p)
		if err != nil {
			return err
		}
		segs[i] = s
	}
	// Batches of windows are segmented while the previous batch goes to
	// sink: two buffers, one being filled, one being drained.
	batch := 8 * threads
	type buf struct {
		lo, hi int
		out    []Segment
		errs   []error
		wg     sync.WaitGroup
	}
	bufs := [2]*buf{{out: make([]Segment, batch), errs: make([]error, batch)}, {out: make([]Segment, batch), errs: make([]error, batch)}}
	start := func(b *buf, lo int) {
		b.lo, b.hi = lo, min(n, lo+batch)
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			workers.Run(nil, threads, b.hi-b.lo, func(t, k int) error {
				b.out[k], b.errs[k] = segs[t].Segment(values(b.lo + k))
				return nil
			})
		}()
	}
	// Only one batch is segmented at a time (goroutine t uses segs[t]);
	// the results of the other own no segmenter memory.
	drain := func(b *buf) error {
		for w := b.lo; w < b.hi; w++ {
			if b.errs[w-b.lo] != nil {
				return b.errs[w-b.lo]
			}
			if err := sink(w, b.out[w-b.lo]); err != nil {
				return err
			}
			b.out[w-b.lo] = Segment{}
		}
		return nil
	}
	start(bufs[0], 0)
	for i, lo := 0, 0; lo < n; i, lo = i+1, lo+batch {
		cur, next := bufs[i%2], bufs[(i+1)%2]
		cur.wg.Wait()
		if lo+batch < n {
			start(next, lo+batch)
		}
		if err := drain(cur); err != nil {
			next.wg.Wait()
			return err
		}
	}
	return nil
}

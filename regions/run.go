package regions

import (
	"runtime"
	"sync"
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
	batch := 8 * threads
	out := make([]Segment, batch)
	errs := make([]error, batch)
	for lo := 0; lo < n; lo += batch {
		hi := min(n, lo+batch)
		var wg sync.WaitGroup
		for t := range threads {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for w := lo + t; w < hi; w += threads {
					out[w-lo], errs[w-lo] = segs[t].Segment(values(w))
				}
			}()
		}
		wg.Wait()
		for w := lo; w < hi; w++ {
			if errs[w-lo] != nil {
				return errs[w-lo]
			}
			if err := sink(w, out[w-lo]); err != nil {
				return err
			}
			out[w-lo] = Segment{}
		}
	}
	return nil
}

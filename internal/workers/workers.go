// Package workers runs numbered jobs on a few goroutines: the one worker
// pool of orcs. Jobs are taken in the order of their numbers, each
// goroutine has a number of its own for its private state (scratch
// buffers, partial accumulators), and a caller that writes job j's result
// to slot j of a slice gets results in job order, whatever the number of
// goroutines: the determinism every command promises (same --seed, same
// bytes on 1 or 16 threads).
package workers

import (
	"context"
	"sync"
	"sync/atomic"
)

// Count is the number of goroutines Run starts for n requested and jobs
// jobs: min(n, jobs), at least 1. A caller sizes its per-worker state
// with it.
func Count(n, jobs int) int {
	return max(1, min(n, jobs))
}

// Run calls fn(worker, job) for every job from 0 to jobs-1 on Count(n,
// jobs) goroutines (worker is the goroutine's number, 0 to Count-1) and
// returns when every call has returned. Jobs start in the order of their
// numbers. Once a job fails no job above it starts, and once ctx (nil:
// never) is done no job starts; Run returns the error of the
// lowest-numbered job that failed — the same on any number of goroutines,
// since every job below it runs — or else ctx's error when a job was left
// out.
func Run(ctx context.Context, n, jobs int, fn func(worker, job int) error) error {
	if jobs <= 0 {
		return nil
	}
	workers := Count(n, jobs)
	var (
		next    atomic.Int64
		failed  atomic.Int64 // the lowest failing job so far, jobs for none
		mu      sync.Mutex
		errs    = map[int]error{}
		skipped atomic.Bool
		wg      sync.WaitGroup
	)
	failed.Store(int64(jobs))
	work := func(w int) {
		for {
			j := int(next.Add(1) - 1)
			if j >= jobs {
				return
			}
			if int64(j) > failed.Load() {
				return
			}
			if ctx != nil && ctx.Err() != nil {
				skipped.Store(true)
				return
			}
			if e := fn(w, j); e != nil {
				mu.Lock()
				errs[j] = e
				if int64(j) < failed.Load() {
					failed.Store(int64(j))
				}
				mu.Unlock()
			}
		}
	}
	if workers == 1 {
		work(0)
	} else {
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				work(w)
			}()
		}
		wg.Wait()
	}
	if f := int(failed.Load()); f < jobs {
		return errs[f]
	}
	if skipped.Load() {
		return ctx.Err()
	}
	return nil
}

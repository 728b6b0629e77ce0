package workers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// TestRunEveryJobOnce runs every job exactly once, each worker number
// within Count, on 1 to 16 goroutines and for no, one and many jobs.
func TestRunEveryJobOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 16} {
		for _, jobs := range []int{0, 1, 2, 7, 1000} {
			seen := make([]atomic.Int32, jobs)
			var bad atomic.Bool
			err := Run(context.Background(), n, jobs, func(w, j int) error {
				if w < 0 || w >= Count(n, jobs) {
					bad.Store(true)
				}
				seen[j].Add(1)
				return nil
			})
			if err != nil || bad.Load() {
				t.Fatalf("n=%d jobs=%d: error %v, worker out of range %v", n, jobs, err, bad.Load())
			}
			for j := range seen {
				if c := seen[j].Load(); c != 1 {
					t.Fatalf("n=%d jobs=%d: job %d ran %d times", n, jobs, j, c)
				}
			}
		}
	}
}

// TestRunLowestError returns the error of the lowest failing job on any
// number of goroutines, and starts no job above it on one goroutine.
func TestRunLowestError(t *testing.T) {
	for _, n := range []int{1, 2, 4, 16} {
		for range 20 {
			var ran atomic.Int32
			started38 := make(chan struct{})
			err := Run(nil, n, 200, func(w, j int) error {
				ran.Add(1)
				switch {
				case j == 37 && n > 1:
					<-started38 // 38 runs beside 37 and fails after it
				case j == 38 && n > 1:
					close(started38)
					time.Sleep(time.Millisecond)
				}
				if j == 37 || j == 38 || j == 150 {
					return fmt.Errorf("job %d", j)
				}
				return nil
			})
			if err == nil || err.Error() != "job 37" {
				t.Fatalf("n=%d: error %v, want job 37's", n, err)
			}
			if n == 1 && ran.Load() != 38 {
				t.Fatalf("one goroutine ran %d jobs, want 38 (0 to 37)", ran.Load())
			}
		}
	}
}

// TestRunInOrder starts jobs in the order of their numbers (on one
// goroutine: exactly that order).
func TestRunInOrder(t *testing.T) {
	var order []int
	Run(nil, 1, 50, func(w, j int) error { order = append(order, j); return nil })
	if !slices.IsSorted(order) || len(order) != 50 {
		t.Errorf("order %v", order)
	}
}

// TestRunCancelled starts no job once ctx is done and says so.
func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Int32
	err := Run(ctx, 2, 100, func(w, j int) error {
		if j == 10 {
			cancel()
		}
		ran.Add(1)
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if r := ran.Load(); r >= 100 {
		t.Errorf("%d jobs ran after the cancel", r)
	}
}

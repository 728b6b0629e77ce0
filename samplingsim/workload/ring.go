package workload

import "orcs/registry"

func init() {
	registerWorkload(&workload{
		name: "ring",
		doc:  "ring exchange: rank i sends to rank i−shift (mod n), iters times; an iteration waits for the previous send and receive, or with closed=true only for the previous send's receipt and a think time (thesis §4.4)",
		params: append([]registry.Param{
			{Key: "size", Default: "131072", Doc: "message bytes"},
			{Key: "iters", Default: "1", Doc: "iterations (closed loop: messages per rank)"},
			{Key: "shift", Default: "1", Doc: "distance of the partner"},
		}, closedParams...),
		build: buildRing,
	})
}

func buildRing(args *registry.Reader, b *JobBuilder) error {
	size, iters, shift := args.IntAtLeast("size", 1), args.IntAtLeast("iters", 1), args.IntAtLeast("shift", 1)
	closed, gap := closedLoop(args)
	if err := args.Err(); err != nil {
		return err
	}
	n := b.Ranks()
	if shift%n == 0 {
		return errorf("shift=%d is a multiple of the %d ranks: every rank would send to itself", shift, n)
	}
	if closed {
		// The ring of CODES's pattern 6: every message of rank i goes to
		// rank i−shift; a rank does not wait for its own receives.
		b.reserve(n, iters)
		dsts := make([]int, iters)
		for i := range n {
			for k := range dsts {
				dsts[k] = ((i-shift)%n + n) % n
			}
			sendClosed(b, i, dsts, int64(size), gap)
		}
		return nil
	}
	wait := make([]int32, n)
	for i := range wait {
		wait[i] = -1
	}
	next := make([]int32, n)
	for it := range iters {
		for i := range next {
			next[i] = -1
			if it < iters-1 {
				next[i] = b.Gate()
			}
		}
		for i := range n {
			dst := ((i-shift)%n + n) % n
			var sig []int32
			if next[i] >= 0 {
				sig = []int32{next[i], next[dst]} // sender's and receiver's next iteration
			}
			b.Send(i, dst, int64(size), wait[i], sig...)
		}
		copy(wait, next)
	}
	return nil
}

package workload

import "orcs/registry"

func init() {
	registerWorkload(&workload{
		name: "stencil",
		doc: "2-D stencil on an x×y grid, rank = i + x·j (row major): every rank exchanges boundaries " +
			"with its +x, −x, +y, −y neighbours in sequence (thesis §4.2); edge ranks wait",
		params: []registry.Param{
			{Key: "x", Default: "64", Doc: "grid width"},
			{Key: "y", Default: "72", Doc: "grid height"},
			{Key: "size", Default: "65536", Doc: "bytes per boundary"},
			{Key: "iters", Default: "1", Doc: "rounds of the four exchanges"},
		},
		build: buildStencil,
	})
}

// buildStencil: in phase k a rank sends to its neighbour in direction k; its
// phase k+1 starts after its own phase-k send and the phase-k message it
// receives (from the opposite neighbour) have been delivered.
func buildStencil(args *registry.Reader, b *JobBuilder) error {
	X, Y, size, iters := args.IntAtLeast("x", 1), args.IntAtLeast("y", 1), args.IntAtLeast("size", 1), args.IntAtLeast("iters", 1)
	if err := args.Err(); err != nil {
		return err
	}
	n := X * Y
	if n > b.Ranks() {
		return errorf("a %d×%d grid needs %d ranks, the job has %d", X, Y, n, b.Ranks())
	}
	if n < 2 {
		return errorf("a %d×%d grid has no neighbours", X, Y)
	}
	dirs := [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}
	neighbour := func(r, k int) int {
		i, j := r%X+dirs[k][0], r/X+dirs[k][1]
		if i < 0 || i >= X || j < 0 || j >= Y {
			return -1
		}
		return i + X*j
	}
	wait := make([]int32, n)
	for i := range wait {
		wait[i] = -1
	}
	next := make([]int32, n)
	for range iters {
		for k := range 4 {
			// A rank's next gate exists if it sends or receives in phase k.
			for r := range n {
				next[r] = wait[r]
				if neighbour(r, k) >= 0 || neighbour(r, k^1) >= 0 {
					next[r] = b.Gate()
				}
			}
			for r := range n {
				if d := neighbour(r, k); d >= 0 {
					b.Send(r, d, int64(size), wait[r], next[r], next[d])
				}
			}
			copy(wait, next)
		}
	}
	return nil
}

package workload

import "orcs/registry"

func init() {
	registerWorkload(&workload{
		name: "barrier",
		doc:  "dissemination barrier: ⌈log2 n⌉ rounds, in round k rank i sends a small message to i+2^k (mod n); iters barriers",
		params: []registry.Param{
			{Key: "size", Default: "8", Doc: "message bytes"},
			{Key: "iters", Default: "100", Doc: "barriers"},
		},
		build: buildBarrier,
	})
}

func buildBarrier(args *registry.Reader, b *JobBuilder) error {
	size, iters := args.IntAtLeast("size", 1), args.IntAtLeast("iters", 1)
	if err := args.Err(); err != nil {
		return err
	}
	n := b.Ranks()
	st := newStepper(b)
	pairs := make([][2]int, n)
	st.iterations(iters, func() {
		for d := 1; d < n; d *= 2 {
			for i := range n {
				pairs[i] = [2]int{i, (i + d) % n}
			}
			st.step(pairs, int64(size))
		}
	})
	return nil
}

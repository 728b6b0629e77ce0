package workload

import "orcs/registry"

func init() {
	registerWorkload(&workload{
		name: "allreduce",
		doc:  "recursive-doubling allreduce of size bytes: log2 p exchange rounds among the largest power of two p ≤ n ranks (the other ranks fold in before and get the result after); iters allreduces",
		params: []registry.Param{
			{Key: "size", Default: "8", Doc: "bytes per rank (the vector)"},
			{Key: "iters", Default: "100", Doc: "allreduces"},
		},
		build: buildAllreduce,
	})
}

func buildAllreduce(args *registry.Reader, b *JobBuilder) error {
	size, iters := args.IntAtLeast("size", 1), args.IntAtLeast("iters", 1)
	if err := args.Err(); err != nil {
		return err
	}
	n := b.Ranks()
	p := 1
	for p*2 <= n {
		p *= 2
	}
	st := newStepper(b)
	var pairs [][2]int
	st.iterations(iters, func() {
		if n > p {
			pairs = pairs[:0]
			for r := p; r < n; r++ {
				pairs = append(pairs, [2]int{r, r - p})
			}
			st.step(pairs, int64(size))
		}
		for d := 1; d < p; d *= 2 {
			pairs = pairs[:0]
			for i := range p {
				pairs = append(pairs, [2]int{i, i ^ d})
			}
			st.step(pairs, int64(size))
		}
		if n > p {
			pairs = pairs[:0]
			for r := p; r < n; r++ {
				pairs = append(pairs, [2]int{r - p, r})
			}
			st.step(pairs, int64(size))
		}
	})
	return nil
}

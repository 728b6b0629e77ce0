package workload

import "orcs/registry"

func init() {
	registerWorkload(&workload{
		name: "alltoall",
		doc:  "alltoall: every rank sends size bytes to every other rank (to i+1, i+2, … in order, all posted at once), iters times; an iteration waits for the rank's sends and receives of the previous one",
		params: []registry.Param{
			{Key: "size", Default: "4096", Doc: "bytes per pair"},
			{Key: "iters", Default: "10", Doc: "alltoalls"},
		},
		build: buildAlltoall,
	})
}

func buildAlltoall(args *registry.Reader, b *JobBuilder) error {
	size, iters := args.IntAtLeast("size", 1), args.IntAtLeast("iters", 1)
	if err := args.Err(); err != nil {
		return err
	}
	b.target.Jobs[b.job].Alltoall = true
	n := b.Ranks()
	st := newStepper(b)
	pairs := make([][2]int, 0, n*(n-1))
	for i := range n {
		for s := 1; s < n; s++ {
			pairs = append(pairs, [2]int{i, (i + s) % n})
		}
	}
	st.iterations(iters, func() { st.step(pairs, int64(size)) })
	return nil
}

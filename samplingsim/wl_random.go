package samplingsim

import "orcs/registry"

func init() {
	registerWorkload(&workload{
		name: "random",
		doc:  "uniform random traffic: every rank sends msgs messages, each to a random other rank, all at once or with closed=true one at a time (thesis §4.4 background)",
		params: append([]registry.Param{
			{Key: "msgs", Default: "10", Doc: "messages per rank"},
			{Key: "size", Default: "131072", Doc: "message bytes"},
		}, closedParams...),
		build: buildRandom,
	})
}

func buildRandom(args *registry.Reader, b *JobBuilder) error {
	msgs, size := positive(args, "msgs"), positive(args, "size")
	closed, gap := closedLoop(args)
	if err := args.Err(); err != nil {
		return err
	}
	n, r := b.Ranks(), b.Rand()
	dsts := make([]int, msgs)
	for i := range n {
		for k := range dsts {
			d := r.IntN(n - 1)
			if d >= i {
				d++
			}
			dsts[k] = d
		}
		if closed {
			sendClosed(b, i, dsts, int64(size), gap)
			continue
		}
		for _, d := range dsts {
			b.Send(i, d, int64(size), -1)
		}
	}
	return nil
}

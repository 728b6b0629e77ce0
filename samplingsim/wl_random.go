package samplingsim

import "orcs/registry"

func init() {
	registerWorkload(&workload{
		name: "random",
		doc:  "uniform random traffic: every rank sends msgs messages, each to a random other rank (thesis §4.4 background)",
		params: []registry.Param{
			{Key: "msgs", Default: "10", Doc: "messages per rank"},
			{Key: "size", Default: "131072", Doc: "message bytes"},
		},
		build: buildRandom,
	})
}

func buildRandom(args *registry.Reader, b *JobBuilder) error {
	msgs, size := positive(args, "msgs"), positive(args, "size")
	if err := args.Err(); err != nil {
		return err
	}
	n, r := b.Ranks(), b.Rand()
	for i := range n {
		for range msgs {
			d := r.IntN(n - 1)
			if d >= i {
				d++
			}
			b.Send(i, d, int64(size), -1)
		}
	}
	return nil
}

package samplingsim

func init() {
	registerWorkload(&workload{
		name: "random",
		doc:  "uniform random traffic: every rank sends msgs messages, each to a random other rank (thesis §4.4 background)",
		params: []param{
			{key: "msgs", def: "10", doc: "messages per rank"},
			{key: "size", def: "131072", doc: "message bytes"},
		},
		build: buildRandom,
	})
}

func buildRandom(s spec, b *JobBuilder) error {
	msgs, err := positive(s, "msgs", 1)
	if err != nil {
		return err
	}
	size, err := positive(s, "size", 1)
	if err != nil {
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

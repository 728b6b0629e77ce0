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
	p := params{s: s, b: b}
	msgs, size := p.positive("msgs"), p.positive("size")
	if p.err != nil {
		return p.err
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

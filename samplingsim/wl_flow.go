package samplingsim

func init() {
	registerWorkload(&workload{
		name: "flow",
		doc:  "one flow: rank src sends msgs messages to rank dst",
		params: []param{
			{key: "src", def: "0", doc: "sending rank"},
			{key: "dst", def: "1", doc: "receiving rank"},
			{key: "msgs", def: "1", doc: "messages"},
			{key: "size", def: "1048576", doc: "message bytes"},
		},
		build: buildFlow,
	})
}

func buildFlow(s spec, b *JobBuilder) error {
	p := params{s: s, b: b}
	src, dst, msgs, size := p.rank("src"), p.rank("dst"), p.positive("msgs"), p.positive("size")
	if p.err != nil {
		return p.err
	}
	if src == dst {
		return errorf("src and dst are both rank %d", src)
	}
	for range msgs {
		b.Send(src, dst, int64(size), -1)
	}
	return nil
}

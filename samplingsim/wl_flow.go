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
	src, err := rankParam(s, "src", b)
	if err != nil {
		return err
	}
	dst, err := rankParam(s, "dst", b)
	if err != nil {
		return err
	}
	if src == dst {
		return errorf("src and dst are both rank %d", src)
	}
	msgs, err := positive(s, "msgs", 1)
	if err != nil {
		return err
	}
	size, err := positive(s, "size", 1)
	if err != nil {
		return err
	}
	for range msgs {
		b.Send(src, dst, int64(size), -1)
	}
	return nil
}

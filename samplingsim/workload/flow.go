package workload

import "orcs/registry"

func init() {
	registerWorkload(&workload{
		name: "flow",
		doc:  "one flow: rank src sends msgs messages to rank dst",
		params: []registry.Param{
			{Key: "src", Default: "0", Doc: "sending rank"},
			{Key: "dst", Default: "1", Doc: "receiving rank"},
			{Key: "msgs", Default: "1", Doc: "messages"},
			{Key: "size", Default: "1048576", Doc: "message bytes"},
		},
		build: buildFlow,
	})
}

func buildFlow(args *registry.Reader, b *JobBuilder) error {
	src, dst, msgs, size := rank(args, "src", b), rank(args, "dst", b), args.IntAtLeast("msgs", 1), args.IntAtLeast("size", 1)
	if err := args.Err(); err != nil {
		return err
	}
	if src == dst {
		return errorf("src and dst are both rank %d", src)
	}
	for range msgs {
		b.Send(src, dst, int64(size), -1)
	}
	return nil
}

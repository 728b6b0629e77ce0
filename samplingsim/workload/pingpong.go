package workload

import "orcs/registry"

func init() {
	registerWorkload(&workload{
		name: "pingpong",
		doc:  "ping-pong between rank 0 and rank peer, iters round trips (De Sensi §4.1); one iteration is a round trip",
		params: []registry.Param{
			{Key: "size", Default: "8", Doc: "message bytes"},
			{Key: "iters", Default: "100", Doc: "round trips"},
			{Key: "peer", Default: "-1", Doc: "the partner rank; -1 = the last rank"},
		},
		build: buildPingPong,
	})
}

func buildPingPong(args *registry.Reader, b *JobBuilder) error {
	size, iters := args.IntAtLeast("size", 1), args.IntAtLeast("iters", 1)
	peer := b.Ranks() - 1
	if args.Int("peer") != -1 {
		peer = rank(args, "peer", b)
	}
	if err := args.Err(); err != nil {
		return err
	}
	if peer == 0 {
		return errorf("peer=0: rank 0 cannot ping itself")
	}
	st := newStepper(b)
	st.iterations(iters, func() {
		st.step([][2]int{{0, peer}}, int64(size))
		st.step([][2]int{{peer, 0}}, int64(size))
	})
	return nil
}

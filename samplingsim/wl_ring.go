package samplingsim

func init() {
	registerWorkload(&workload{
		name: "ring",
		doc:  "ring exchange: rank i sends to rank i−shift (mod n), iters times; an iteration waits for the previous send and receive (thesis §4.4)",
		params: []param{
			{key: "size", def: "131072", doc: "message bytes"},
			{key: "iters", def: "1", doc: "iterations"},
			{key: "shift", def: "1", doc: "distance of the partner"},
		},
		build: buildRing,
	})
}

func buildRing(s spec, b *JobBuilder) error {
	p := params{s: s, b: b}
	size, iters, shift := p.positive("size"), p.positive("iters"), p.positive("shift")
	if p.err != nil {
		return p.err
	}
	n := b.Ranks()
	if shift%n == 0 {
		return errorf("shift=%d is a multiple of the %d ranks: every rank would send to itself", shift, n)
	}
	wait := make([]int32, n)
	for i := range wait {
		wait[i] = -1
	}
	next := make([]int32, n)
	for it := range iters {
		for i := range next {
			next[i] = -1
			if it < iters-1 {
				next[i] = b.Gate()
			}
		}
		for i := range n {
			dst := ((i-shift)%n + n) % n
			var sig []int32
			if next[i] >= 0 {
				sig = []int32{next[i], next[dst]} // sender's and receiver's next iteration
			}
			b.Send(i, dst, int64(size), wait[i], sig...)
		}
		copy(wait, next)
	}
	return nil
}

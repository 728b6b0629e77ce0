package workload

import (
	"math"

	"orcs/registry"
	"orcs/samplingsim/plan"
)

func init() {
	registerWorkload(&workload{
		name: "random",
		doc:  "uniform random traffic: every rank sends msgs messages, each to a random other rank (thesis §4.4 background): all ready at once; with gbps > 0 an open-loop noisy neighbour whose messages become ready as a Poisson process of gbps offered load per rank; with closed=true one at a time, each after the previous one arrived and a think time",
		params: append([]registry.Param{
			{Key: "msgs", Default: "10", Doc: "messages per rank"},
			{Key: "size", Default: "131072", Doc: "message bytes"},
			{Key: "gbps", Default: "0", Doc: "offered load per rank in Gb/s: messages ready at exponentially distributed gaps of mean size·8/gbps (0 = all ready at once)"},
		}, closedParams...),
		build: buildRandom,
	})
}

// maxRandomStart bounds the ready times of paced random messages (ps, a
// quarter of the plan.Time range: about 27 days).
const maxRandomStart = float64(math.MaxInt64 / 4)

// buildRandom adds msgs messages per rank to random other ranks. With
// gbps = 0 they are all ready at once, so every NIC sends back to back as
// fast as the network lets it: a burst that saturates the fabric and is
// over after msgs·size at line rate. With gbps > 0 they are ready at the
// arrival times of a Poisson process of rate gbps/(8·size) per rank, an
// open-loop background of a given offered load that lasts
// msgs·size·8/gbps on average — the steady noise of other jobs on a
// production system that De Sensi et al. measure against (SC'19 §3.1,
// §6 "System state"), rather than a transient.
func buildRandom(args *registry.Reader, b *JobBuilder) error {
	msgs, size, gbps := args.IntAtLeast("msgs", 1), args.IntAtLeast("size", 1), args.Float("gbps")
	if gbps < 0 || math.IsInf(gbps, 0) || math.IsNaN(gbps) {
		args.Failf("gbps=%g must be a non-negative number", gbps)
	}
	closed, gap := closedLoop(args)
	if closed && gbps > 0 {
		args.Failf("gbps=%g with closed=true: the messages follow either a rate (open loop) or each other (closed loop)", gbps)
	}
	if err := args.Err(); err != nil {
		return err
	}
	n, r := b.Ranks(), b.Rand()
	first := len(b.target.Msgs)
	b.reserve(n, msgs)
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
	if gbps == 0 || b.target.Counting() {
		return nil
	}
	// The ready times are drawn after the destinations, so the same seed
	// gives the same messages with and without a rate.
	mean := float64(size) * 8 / gbps * 1e3 // ps
	for i := range n {
		t := 0.0
		for k := range msgs {
			t += -math.Log(1-r.Float64()) * mean
			if t > maxRandomStart {
				return errorf("gbps=%g: rank %d's message %d would become ready after %.3g s; give a higher rate or fewer messages", gbps, i, k+1, t/1e12)
			}
			b.target.Msgs[first+i*msgs+k].Start += plan.Time(t)
		}
	}
	return nil
}

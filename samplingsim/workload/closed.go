package workload

import (
	"math"
	"time"

	"orcs/registry"
	"orcs/samplingsim/plan"
)

// The closed loop of the thesis's synthetic traffic. Taffet's experiments of
// §4.4 ran in CODES's synthetic fat-tree traffic generator
// (src/network-workloads/model-net-synthetic-fattree.c of his CODES fork,
// traffic pattern 6 "UNIFORM_NN": a ring on the hosts whose (i+1)² has an
// even number of one bits, uniform random traffic among the others). There
// a rank sends its messages one at a time: it issues the first an
// exponentially distributed time (mean arrival_time, 1000 ns by default)
// after the start, and each next one the same kind of time after the
// destination has received the previous one completely (the receiver's ACK
// reaches the sender 0.01 ns later). A rank thus never has two messages in
// the network, and a message held up by endpoint congestion holds up its
// sender's next ones — unlike the open loop, where every message is handed
// to the NIC at once and the NIC sends them back to back.

// closedParams are the parameters that switch a workload to the closed loop.
var closedParams = []registry.Param{
	{Key: "closed", Default: "false", Doc: "closed loop (CODES synthetic traffic, thesis §4.4): a rank's next message starts a think time after its previous one is received"},
	{Key: "gap", Default: "1us", Doc: "mean of the exponential think time of the closed loop (CODES arrival_time)"},
}

// closedLoop reads the closed-loop parameters: whether the loop is closed
// and the mean think time.
func closedLoop(args *registry.Reader) (bool, plan.Time) {
	closed := args.Bool("closed")
	d := args.Duration("gap")
	if d < 0 {
		args.Failf("gap=%v must not be negative", d)
	}
	if d > time.Duration(plan.LongestTime/plan.Nanosecond) {
		args.Failf("gap=%v is longer than the largest simulated time, 2^63 ps (about 106 days)", d)
	}
	if args.Has("gap") && !closed {
		args.Failf("gap=%v needs closed=true (the open loop has no think time)", d)
	}
	return closed, plan.Time(d.Nanoseconds()) * plan.Nanosecond
}

// sendClosed adds the messages of rank src to dsts, in order, in the closed
// loop: message k waits until message k−1 has been received and then an
// exponential think time of mean gap (message 0: the think time from the
// start). The think times come from the job's random stream.
func sendClosed(b *JobBuilder, src int, dsts []int, size int64, gap plan.Time) {
	wait := int32(-1)
	for k, dst := range dsts {
		var sig []int32
		next := int32(-1)
		if k < len(dsts)-1 {
			next = b.Gate()
			sig = []int32{next}
		}
		b.send(plan.Message{Src: b.hosts[src], Dst: b.hosts[dst], Bytes: size, Job: b.job, Start: b.start, Wait: wait,
			Delay: expTime(b, gap)}, sig...)
		wait = next
	}
}

// expTime draws an exponentially distributed time of mean m from the job's
// random stream (0 for m = 0).
func expTime(b *JobBuilder, m plan.Time) plan.Time {
	if m == 0 {
		return 0
	}
	return plan.Time(math.Round(-float64(m) * math.Log(1-b.Rand().Float64())))
}

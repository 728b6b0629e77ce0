package workload

import (
	"math"

	"orcs/registry"
	"orcs/samplingsim/plan"
)

func init() {
	registerWorkload(&workload{
		name: "saturation",
		doc: "uniform traffic with hot spots (Kuszmaul and Kuszmaul): every rank sends msgs messages at an offered load of gbps, " +
			"each to one of hot ranks drawn at random with probability frac, else to a random other non-hot rank; " +
			"with stop=1 the hot ranks stop receiving",
		params: []registry.Param{
			{Key: "hot", Default: "1", Doc: "number of hot ranks"},
			{Key: "frac", Default: "0.05", Doc: "fraction of the messages sent to the hot ranks"},
			{Key: "msgs", Default: "100", Doc: "messages per rank"},
			{Key: "size", Default: "4096", Doc: "message bytes"},
			{Key: "gbps", Default: "50", Doc: "offered load per rank in Gb/s"},
			{Key: "stop", Default: "1", Doc: "1: the hot ranks stop receiving; 0: they receive at line rate"},
		},
		build: buildSaturation,
	})
}

func buildSaturation(args *registry.Reader, b *JobBuilder) error {
	hot, msgs, size := args.IntAtLeast("hot", 1), args.IntAtLeast("msgs", 1), args.IntAtLeast("size", 1)
	frac, gbps, stop := args.Float("frac"), args.Float("gbps"), args.Int("stop")
	n := b.Ranks()
	if !(frac >= 0 && frac <= 1) {
		args.Failf("frac=%g must be in [0, 1]", frac)
	}
	if !(gbps > 0) || math.IsInf(gbps, 0) {
		args.Failf("gbps=%g must be a positive number", gbps)
	}
	if stop != 0 && stop != 1 {
		args.Failf("stop=%d must be 0 or 1", stop)
	}
	if hot > n-2 {
		args.Failf("hot=%d leaves fewer than 2 of the %d ranks to the other traffic", hot, n)
	}
	if err := args.Err(); err != nil {
		return err
	}
	rnd := b.Rand()
	isHot := make([]bool, n)
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	rnd.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	hots := perm[:hot]
	for i := range hot {
		isHot[hots[i]] = true
		if stop == 1 {
			b.Stop(hots[i])
		}
	}
	cool := make([]int, 0, n-hot)
	for r := range n {
		if !isHot[r] {
			cool = append(cool, r)
		}
	}
	interval := plan.Time(float64(size) * 8 / gbps * 1e3) // ps
	base := b.start
	defer func() { b.start = base }()
	for i := range msgs {
		b.start = base + plan.Time(i)*interval
		for r := range n {
			var d int
			if rnd.Float64() < frac {
				d = hots[rnd.IntN(hot)]
				if d == r {
					continue
				}
			} else {
				for d = r; d == r; {
					d = cool[rnd.IntN(len(cool))]
				}
			}
			b.Send(r, d, int64(size), -1)
		}
	}
	return nil
}

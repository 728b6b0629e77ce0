package workload

import (
	"math"

	"orcs/registry"
	"orcs/samplingsim/plan"
)

func init() {
	registerWorkload(&workload{
		name: "hotspot",
		doc: "every rank but hot sends msgs messages to rank hot at an offered rate of gbps each " +
			"(0 = as fast as it can); a hot spot that fills buffers at the rate of its excess load",
		params: []registry.Param{
			{Key: "hot", Default: "0", Doc: "the hot rank"},
			{Key: "msgs", Default: "100", Doc: "messages per sender"},
			{Key: "size", Default: "4096", Doc: "message bytes"},
			{Key: "gbps", Default: "0", Doc: "offered load per sender in Gb/s (0 = no limit)"},
		},
		build: buildHotspot,
	})
}

func buildHotspot(args *registry.Reader, b *JobBuilder) error {
	hot, msgs, size, gbps := rank(args, "hot", b), args.IntAtLeast("msgs", 1), args.IntAtLeast("size", 1), args.Float("gbps")
	if gbps < 0 || math.IsInf(gbps, 0) || math.IsNaN(gbps) {
		args.Failf("gbps=%g must be a non-negative number", gbps)
	}
	if err := args.Err(); err != nil {
		return err
	}
	var interval plan.Time
	if gbps > 0 {
		interval = plan.Time(float64(size) * 8 / gbps * 1e3) // ps
	}
	base := b.start
	defer func() { b.start = base }()
	for i := range msgs {
		b.start = base + plan.Time(i)*interval
		for r := range b.Ranks() {
			if r != hot {
				b.Send(r, hot, int64(size), -1)
			}
		}
	}
	return nil
}

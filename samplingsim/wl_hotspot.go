package samplingsim

import "math"

func init() {
	registerWorkload(&workload{
		name: "hotspot",
		doc: "every rank but hot sends msgs messages to rank hot at an offered rate of gbps each " +
			"(0 = as fast as it can); a hot spot that fills buffers at the rate of its excess load",
		params: []param{
			{key: "hot", def: "0", doc: "the hot rank"},
			{key: "msgs", def: "100", doc: "messages per sender"},
			{key: "size", def: "4096", doc: "message bytes"},
			{key: "gbps", def: "0", doc: "offered load per sender in Gb/s (0 = no limit)"},
		},
		build: buildHotspot,
	})
}

func buildHotspot(s spec, b *JobBuilder) error {
	p := params{s: s, b: b}
	hot, msgs, size := p.rank("hot"), p.positive("msgs"), p.positive("size")
	if p.err != nil {
		return p.err
	}
	gbps, err := s.float("gbps")
	if err != nil {
		return err
	}
	if gbps < 0 || math.IsInf(gbps, 0) || math.IsNaN(gbps) {
		return errorf("gbps=%g must be a non-negative number", gbps)
	}
	var interval Time
	if gbps > 0 {
		interval = Time(float64(size) * 8 / gbps * 1e3) // ps
	}
	base := b.start
	defer func() { b.start = base }()
	for i := range msgs {
		b.start = base + Time(i)*interval
		for r := range b.Ranks() {
			if r != hot {
				b.Send(r, hot, int64(size), -1)
			}
		}
	}
	return nil
}

package samplingsim

import (
	"orcs/patterns"
)

func init() {
	registerWorkload(&workload{
		name: "pattern",
		doc:  "an ORCS pattern: every pair of a level sends one message; a level starts when the previous one is delivered",
		params: []param{
			{key: "name", def: "bisect", doc: "pattern name (see orcs --help), or file:PATH"},
			{key: "size", def: "65536", doc: "message bytes"},
		},
		build: buildPattern,
	})
}

func buildPattern(s spec, b *JobBuilder) error {
	size, err := positive(s, "size", 1)
	if err != nil {
		return err
	}
	src, err := patterns.Compile(patterns.Spec{Name: s.str("name")}, b.Ranks())
	if err != nil {
		return err
	}
	levels := src.Levels(b.Rand(), nil)
	wait := int32(-1)
	for _, lv := range levels {
		if len(lv) == 0 {
			continue
		}
		done := b.Gate()
		for _, p := range lv {
			b.Send(int(p.Src), int(p.Dst), int64(size), wait, done)
		}
		wait = done
	}
	return nil
}

package workload

import (
	"orcs/patterns"
	"orcs/registry"
)

func init() {
	registerWorkload(&workload{
		name: "pattern",
		doc:  "an ORCS pattern: every pair of a level sends one message; a level starts when the previous one is delivered",
		params: []registry.Param{
			{Key: "name", Default: "bisect", Doc: "pattern name (see orcs --help), or file:PATH"},
			{Key: "size", Default: "65536", Doc: "message bytes"},
		},
		build: buildPattern,
	})
}

func buildPattern(args *registry.Reader, b *JobBuilder) error {
	name, size := args.String("name"), args.IntAtLeast("size", 1)
	if err := args.Err(); err != nil {
		return err
	}
	src, err := patterns.Compile(patterns.Spec{Name: name}, b.Ranks())
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

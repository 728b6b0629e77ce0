package mapping

import "orcs/rng"

func init() {
	register(&Strategy{
		Name:  "random",
		Doc:   "ranks on hosts of the allocation drawn uniformly at random (--seed)",
		Place: placeRandom,
	})
}

// randomStream is the stream index of random (search uses its own).
const randomStream = 1

func placeRandom(p *Problem) (Placement, error) {
	hosts := append([]int32(nil), p.Hosts...)
	rng.New(p.Seed, randomStream).ShuffleInt32(hosts)
	return Placement(hosts[:p.Comm.Ranks]), nil
}

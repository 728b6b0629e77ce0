package mapping

func init() {
	register(&Strategy{
		Name:  "linear",
		Doc:   "rank i on the i-th host of the allocation as given (Slurm's block distribution)",
		Place: placeLinear,
	})
}

func placeLinear(p *Problem) (Placement, error) {
	return Placement(append([]int32(nil), p.Hosts[:p.Comm.Ranks]...)), nil
}

package workload

import "orcs/registry"

func init() {
	registerWorkload(&workload{
		name: "halo3d",
		doc:  "3D halo exchange (ember halo3d): ranks on an x×y×z torus grid, each sends size bytes to its 6 face neighbours, iters times; 0 = the largest cube that fits",
		params: []registry.Param{
			{Key: "x", Default: "0", Doc: "grid size in x (0: cube)"},
			{Key: "y", Default: "0", Doc: "grid size in y"},
			{Key: "z", Default: "0", Doc: "grid size in z"},
			{Key: "size", Default: "8192", Doc: "bytes per face"},
			{Key: "iters", Default: "20", Doc: "exchanges"},
		},
		build: buildHalo3D,
	})
}

func buildHalo3D(args *registry.Reader, b *JobBuilder) error {
	x, y, z := args.IntAtLeast("x", 0), args.IntAtLeast("y", 0), args.IntAtLeast("z", 0)
	size, iters := args.IntAtLeast("size", 1), args.IntAtLeast("iters", 1)
	if err := args.Err(); err != nil {
		return err
	}
	n := b.Ranks()
	if x == 0 && y == 0 && z == 0 {
		c := 1
		for (c+1)*(c+1)*(c+1) <= n {
			c++
		}
		x, y, z = c, c, c
	}
	if x < 1 || y < 1 || z < 1 || x*y*z > n {
		return errorf("grid %d×%d×%d: every size must be ≥ 1 and the grid must fit the %d ranks", x, y, z, n)
	}
	if x*y*z < 2 {
		return errorf("grid %d×%d×%d has one rank: no neighbour to exchange with", x, y, z)
	}
	id := func(i, j, k int) int { return ((k+z)%z*y+(j+y)%y)*x + (i+x)%x }
	var pairs [][2]int
	for k := range z {
		for j := range y {
			for i := range x {
				me := id(i, j, k)
				for _, nb := range [6]int{id(i+1, j, k), id(i-1, j, k), id(i, j+1, k), id(i, j-1, k), id(i, j, k+1), id(i, j, k-1)} {
					if nb != me {
						pairs = append(pairs, [2]int{me, nb})
					}
				}
			}
		}
	}
	st := newStepper(b)
	st.iterations(iters, func() { st.step(pairs, int64(size)) })
	return nil
}

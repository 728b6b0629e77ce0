package mapping

import (
	"fmt"
	"strconv"
	"strings"
)

func init() {
	register(&Strategy{
		Name: "tile",
		Doc: "geometric tiling of a 2-D/3-D stencil (--grid): one tile of the grid per leaf switch, the tile shape of " +
			"least surface whose size is the hosts per leaf, tiles and the ranks inside a tile in row-major order (Taffet §4.2.3)",
		Place: placeTile,
	})
}

// ParseGrid reads a grid spec "XxY" or "XxYxZ" (the fastest-varying
// dimension first, as rank = x + X·y + X·Y·z).
func ParseGrid(s string) ([]int, error) {
	parts := strings.Split(s, "x")
	if len(parts) < 2 || len(parts) > 3 {
		return nil, fmt.Errorf("grid %q: want XxY or XxYxZ", s)
	}
	dims := make([]int, len(parts))
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 1 || v > MaxRanks {
			return nil, fmt.Errorf("grid %q: dimension %q is not a number from 1 to %d", s, p, MaxRanks)
		}
		dims[i] = v
	}
	return dims, nil
}

// TileShape returns the tile of area size that divides the grid with the
// least surface (Σ over dimensions of size/t_i, the tile's boundary ranks
// counted per direction), ties to the wider first dimension; nil if no
// tile of that area divides the grid.
func TileShape(grid []int, size int) []int {
	var best []int
	bestSurf := 0
	cur := make([]int, len(grid))
	var rec func(d, rest int)
	rec = func(d, rest int) {
		if d == len(grid)-1 {
			if rest > grid[d] || grid[d]%rest != 0 {
				return
			}
			cur[d] = rest
			surf := 0
			for _, t := range cur {
				surf += size / t
			}
			if best == nil || surf < bestSurf {
				best, bestSurf = append([]int(nil), cur...), surf
			}
			return
		}
		for t := min(rest, grid[d]); t >= 1; t-- {
			if rest%t == 0 && grid[d]%t == 0 {
				cur[d] = t
				rec(d+1, rest/t)
			}
		}
	}
	rec(0, size)
	return best
}

func placeTile(p *Problem) (Placement, error) {
	grid := append([]int(nil), p.Grid...)
	if p.Grid == nil {
		return nil, fmt.Errorf("tile needs the job's grid: give --grid XxY or XxYxZ (neighbor2d and neighbor3d give it)")
	}
	n := 1
	for _, d := range grid {
		n *= d
	}
	if n != p.Comm.Ranks {
		return nil, fmt.Errorf("grid %v has %d ranks, the job %d", grid, n, p.Comm.Ranks)
	}
	size := p.GroupSize()
	shape := TileShape(grid, size)
	if shape == nil {
		return nil, fmt.Errorf("no tile of %d ranks (the hosts per leaf switch) divides the grid %v", size, grid)
	}
	for len(grid) < 3 {
		grid, shape = append(grid, 1), append(shape, 1)
	}
	tx, ty := grid[0]/shape[0], grid[1]/shape[1]
	pl := make(Placement, p.Comm.Ranks)
	for r := range p.Comm.Ranks {
		x, y, z := r%grid[0], r/grid[0]%grid[1], r/(grid[0]*grid[1])
		tile := x/shape[0] + tx*(y/shape[1]+ty*(z/shape[2]))
		in := x%shape[0] + shape[0]*(y%shape[1]+shape[1]*(z%shape[2]))
		pl[r] = p.order[tile*size+in]
	}
	return pl, nil
}

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
			"least surface whose size is the hosts per leaf, tiles in row-major order (Taffet §4.2.3); inside a tile row q starts " +
			"k·q columns in (mod the tile's width), the k whose routes load the cables least by the objective (k = 0: row-major order), " +
			"so that d-mod-k tables spread a tile's side columns over distinct up-links",
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
	// The skew of the rows: the one whose routes of the job's
	// communication, level by level, load the cables least (Score, by the
	// problem's objective); the smallest k of equal scores.
	var best Placement
	var bestObj Objective
	for k := range shape[0] {
		pl := tilePlacement(p, grid, shape, size, k)
		if o := p.Score(pl); best == nil || p.Mode.Better(o, bestObj) {
			best, bestObj = pl, o
		}
	}
	return best, nil
}

// tilePlacement places the tiles of shape on the leaf groups in row-major
// order, and inside a tile the rank at (i, q), q its row (y and z folded),
// on slot ((i + k·q) mod w) + w·q of its leaf: k = 0 is row-major order,
// k > 0 skews the rows so that a tile's side columns fall on slots that
// differ mod the leaf's up-links (Taffet's 8×4 tile on Tapered with k = 2:
// slot = ((i + 2j) mod 8) + 8j).
func tilePlacement(p *Problem, grid, shape []int, size, k int) Placement {
	tx, ty := grid[0]/shape[0], grid[1]/shape[1]
	w := shape[0]
	pl := make(Placement, p.Comm.Ranks)
	for r := range p.Comm.Ranks {
		x, y, z := r%grid[0], r/grid[0]%grid[1], r/(grid[0]*grid[1])
		tile := x/shape[0] + tx*(y/shape[1]+ty*(z/shape[2]))
		q := y%shape[1] + shape[1]*(z%shape[2])
		in := (x%w+k*q)%w + w*q
		pl[r] = p.order[tile*size+in]
	}
	return pl
}

package mapping

import (
	"slices"
	"testing"

	"orcs/patterns"
	"orcs/samplingsim"
)

// stencilComm is the non-periodic 2-D stencil on an x×y grid (rank = i + x·j),
// one level per direction +x, −x, +y, −y, as testdata/stencil-64x72.ptrn.
func stencilComm(t *testing.T, x, y int) *Comm {
	t.Helper()
	dirs := [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}
	levels := make([]patterns.Level, 4)
	for k, d := range dirs {
		for r := range x * y {
			if i, j := r%x+d[0], r/x+d[1]; i >= 0 && i < x && j >= 0 && j < y {
				levels[k] = append(levels[k], patterns.Pair{Src: int32(r), Dst: int32(i + x*j)})
			}
		}
	}
	c, err := FromLevels(levels, x*y)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestTileSkew (issue 21, item 5): on a scaled copy of Taffet's Tapered
// (fattree3:pods=2,leaves=8,hosts=16,up=8: 16 hosts and 8 up-links a leaf,
// d-mod-k tables) the 16×16 stencil's 4×4 tiles in row-major order put a
// tile's side column on slots 0, 4, 8, 12 — up-links 0, 4, 0, 4 — so two
// routes of the ±x exchange share each used up-link (leaf up-link load 2,
// congestion 6 over the 4 levels). The tile strategy skews row q of a tile
// by k·q columns and takes the k whose routes load the cables least: k = 1
// here (slots 0, 5, 10, 15 — up-links 0, 5, 2, 7), one route per cable and
// level (congestion 4), and with static routing samplingsim finishes it
// at least 15 % sooner than the row-major tiling.
func TestTileSkew(t *testing.T) {
	f := fabric(t, "fattree3:pods=2,leaves=8,hosts=16,up=8")
	p := problem(t, f, stencilComm(t, 16, 16))
	p.Grid = []int{16, 16}
	tile, err := p.Place("tile")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check(tile); err != nil {
		t.Fatal(err)
	}
	grid, shape := []int{16, 16, 1}, []int{4, 4, 1}
	row, skew1 := tilePlacement(p, grid, shape, 16, 0), tilePlacement(p, grid, shape, 16, 1)
	// By hand: the rank at (i, j) of tile t sits on host 16t + ((i + j) mod 4) + 4j.
	for r := range tile {
		x, y := r%16, r/16
		tl, i, j := x/4+4*(y/4), x%4, y%4
		if want := int32(16*tl + (i+j)%4 + 4*j); skew1[r] != want {
			t.Fatalf("k = 1: rank %d on host %d, want %d", r, skew1[r], want)
		}
	}
	if !slices.Equal(tile, skew1) {
		t.Errorf("strategy tile is not the tiling skewed by k = 1")
	}
	ot, or := p.Score(tile), p.Score(row)
	t.Logf("tile: %+v; row-major tiles: %+v", ot, or)
	if ot.Congestion != 4 || ot.LeafUp != 1 || or.LeafUp != 2 || or.Congestion != 6 {
		t.Errorf("tile congestion %d (leaf up %d), row-major tiles %d (leaf up %d); want 4 (1) and 6 (2)", ot.Congestion, ot.LeafUp, or.Congestion, or.LeafUp)
	}
	v := Verify{Config: samplingsim.DefaultConfig(), Workload: "stencil:x=16,y=16,size=131072"}
	sim := func(pl Placement) samplingsim.Time {
		end, err := p.Simulate(pl, v)
		if err != nil {
			t.Fatal(err)
		}
		return end
	}
	ts, tr := sim(tile), sim(row)
	t.Logf("static routing: skewed tiles %s, row-major tiles %s (%+.1f %%)", samplingsim.FormatTime(ts), samplingsim.FormatTime(tr), 100*(float64(ts)/float64(tr)-1))
	if float64(ts) > 0.85*float64(tr) {
		t.Errorf("skewed tiles %s, row-major tiles %s: want at least 15 %% faster", samplingsim.FormatTime(ts), samplingsim.FormatTime(tr))
	}
}

package mapping

import (
	"os"
	"slices"
	"testing"

	"orcs/patterns"
	"orcs/samplingsim"
)

// taffetTiling places the 64×72 stencil (rank = x + 64·y) with one tile of
// tw×th ranks per leaf switch of 32 hosts (tiles in row-major order), the
// ranks of a tile on the leaf's slots by slot(i, j) for the rank at (i, j)
// inside its tile.
func taffetTiling(tw, th int, slot func(i, j int) int) Placement {
	pl := make(Placement, 64*72)
	for r := range pl {
		x, y := r%64, r/64
		tile := x/tw + (64/tw)*(y/th)
		pl[r] = int32(tile*32 + slot(x%tw, y%th))
	}
	return pl
}

// routedSlots is the hand tiling that respects the routing of
// fattree3:…,hosts=32,up=16, where traffic to host d leaves a leaf on
// up-link d mod 16: an 8×4 tile whose bottom row sits on slots 0–7 and top
// row on slots 24–31 (the ±y receivers: 16 distinct up-links), and whose
// side columns' middle ranks sit on slots 20, 12 (left) and 19, 11
// (right), distinct modulo 16 from the corners: every phase of the stencil
// crosses each up-link at most once.
func routedSlots() func(i, j int) int {
	var slot [4][8]int
	used := map[int]bool{}
	for i := range 8 {
		slot[0][i], slot[3][i] = i, 24+i
		used[i], used[24+i] = true, true
	}
	slot[1][0], slot[2][0], slot[1][7], slot[2][7] = 20, 12, 19, 11
	for _, s := range []int{20, 12, 19, 11} {
		used[s] = true
	}
	next := 8
	for j := 1; j <= 2; j++ {
		for i := 1; i < 7; i++ {
			for used[next] {
				next++
			}
			slot[j][i] = next
			used[next] = true
		}
	}
	return func(i, j int) int { return slot[j][i] }
}

// TestTaffetStencil is Taffet's §4.2 experiment on the shipped tapered
// fattree3 (6 pods × 24 leaves × 32 hosts = 4608, 2:1 taper at the
// leaves): search finds a placement of the 64×72 stencil in which no two
// routes of a phase share any cable (congestion = 4 phases × 1, leaf
// up-links 1), and samplingsim finishes it at least as fast as the best
// hand tiling — row-major 8×4 and 4×8 tiles (the thesis's), the 8×4
// tile whose slots follow the routing and the tile strategy's skewed 8×4
// tiles (one route per cable and phase too).
func TestTaffetStencil(t *testing.T) {
	if testing.Short() {
		t.Skip("4608 hosts: a few seconds")
	}
	f := fabric(t, "fattree3:pods=6,leaves=24,hosts=32,up=16")
	fh, err := os.Open("../testdata/stencil-64x72.ptrn")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	levels, err := patterns.Parse(fh, "stencil-64x72.ptrn")
	if err != nil {
		t.Fatal(err)
	}
	c, err := FromLevels(levels, 64*72)
	if err != nil {
		t.Fatal(err)
	}
	p := problem(t, f, c)
	p.Grid, p.Seed = []int{64, 72}, 1
	search, err := p.Place("search")
	if err != nil {
		t.Fatal(err)
	}
	obj := p.Score(search)
	if obj.Congestion != 4 || obj.MaxLoad != 1 || obj.LeafUp != 1 {
		t.Fatalf("search: %+v, want congestion 4 (one route per cable and phase)", obj)
	}
	tile, err := p.Place("tile")
	if err != nil {
		t.Fatal(err)
	}
	linear, _ := p.Place("linear")
	hand := map[string]Placement{
		"tile 8x4 (strategy tile)": tile,
		"tile 4x8":                 taffetTiling(4, 8, func(i, j int) int { return i + 4*j }),
		"tile 8x4 routed":          taffetTiling(8, 4, routedSlots()),
	}
	for name, pl := range hand {
		if err := p.Check(pl); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	// The tile strategy skews the rows of a tile so that d-mod-k spreads
	// its side columns (k = 1, the smallest of the skews that load no cable
	// of a level twice; the row-major order's side columns share up-links).
	if !slices.Equal(hand["tile 8x4 (strategy tile)"], taffetTiling(8, 4, func(i, j int) int { return (i+j)%8 + 8*j })) {
		t.Fatal("strategy tile is not the 8×4 tiling skewed by one column a row")
	}
	if o := p.Score(tile); o.Congestion != 4 || o.LeafUp != 1 {
		t.Fatalf("strategy tile: %+v, want congestion 4 (one route per cable and phase)", o)
	}
	hand["tile 8x4 row-major"] = taffetTiling(8, 4, func(i, j int) int { return i + 8*j })
	for _, wl := range []string{"stencil:x=64,y=72", "stencil:x=64,y=72,size=262144"} {
		v := Verify{Config: samplingsim.DefaultConfig(), Workload: wl}
		sim := func(pl Placement) samplingsim.Time {
			end, err := p.Simulate(pl, v)
			if err != nil {
				t.Fatal(err)
			}
			return end
		}
		got, row := sim(search), sim(linear)
		best, bestName := samplingsim.Time(-1), ""
		for name, pl := range hand {
			if tm := sim(pl); best < 0 || tm < best {
				best, bestName = tm, name
			}
		}
		t.Logf("%s: search %s, best hand tiling (%s) %s, row major %s (search %+.1f %% vs row major)", wl,
			samplingsim.FormatTime(got), bestName, samplingsim.FormatTime(best), samplingsim.FormatTime(row),
			100*(float64(got)/float64(row)-1))
		if got > best {
			t.Errorf("%s: search finishes in %s, the best hand tiling (%s) in %s", wl, samplingsim.FormatTime(got), bestName, samplingsim.FormatTime(best))
		}
	}
}

// TestStencilFile: the shipped stencil-64x72.ptrn is Taffet's 64×72
// stencil, level k = direction k of +x, −x, +y, −y, pairs by source.
func TestStencilFile(t *testing.T) {
	fh, err := os.Open("../testdata/stencil-64x72.ptrn")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	levels, err := patterns.Parse(fh, "stencil-64x72.ptrn")
	if err != nil {
		t.Fatal(err)
	}
	dirs := [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}
	want := make([]patterns.Level, 4)
	for k, d := range dirs {
		for r := range 64 * 72 {
			if x, y := r%64+d[0], r/64+d[1]; x >= 0 && x < 64 && y >= 0 && y < 72 {
				want[k] = append(want[k], patterns.Pair{Src: int32(r), Dst: int32(x + 64*y)})
			}
		}
	}
	if len(levels) != 4 {
		t.Fatalf("%d levels, want 4", len(levels))
	}
	for k := range want {
		if !slices.Equal(levels[k], want[k]) {
			t.Fatalf("level %d differs from direction %v", k, dirs[k])
		}
	}
}

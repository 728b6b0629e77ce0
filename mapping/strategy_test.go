package mapping

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"orcs/patterns"
)

// TestNeverWorse: over fixed seeds, on random sparse traffic matrices and
// on alltoall, on a tapered two-level tree, a three-level fat tree, a
// tapered three-level tree, a 4×4 torus (cut across its planes by the
// generator's coordinates), the same torus without them (cut by hop
// distances) and a 4×4 mesh, bisect and search are never worse on the
// objective than linear, random, greedy and rcm.
func TestNeverWorse(t *testing.T) {
	fabrics := []string{"fattree2:leaves=8,hosts=8,up=2", "kary:k=4,n=3", "fattree3:pods=2,leaves=4,hosts=8,up=4,mup=2",
		"torus:dims=4x4,hosts=4", "torus:dims=4x4,hosts=4 without coordinates", "mesh:dims=4x4,hosts=4"}
	alltoall, err := PatternComm(patterns.Spec{Name: "alltoall"}, 64)
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range fabrics {
		gen, anonymous := strings.CutSuffix(spec, " without coordinates")
		f := fabric(t, gen)
		if anonymous {
			f.GraphName = "" // not recognised as the generator's: no coordinates
		}
		comms := map[string]*Comm{"alltoall": alltoall}
		for seed := uint64(1); seed <= 4; seed++ {
			comms[fmt.Sprintf("traffic%d", seed)] = randomTraffic(64, 1+int(seed), seed)
		}
		for name, c := range comms {
			for _, mode := range []Mode{ByCongestion, BySumSq} {
				p := problem(t, f, c)
				p.Seed, p.Budget, p.Mode = 11, 10000, mode
				obj := map[string]Objective{}
				for _, s := range Names() {
					pl, err := p.Place(s)
					if err != nil {
						continue // tile: no grid
					}
					obj[s] = p.Score(pl)
				}
				for _, good := range []string{"bisect", "search"} {
					for _, plain := range []string{"linear", "random", "greedy", "rcm"} {
						if mode.Better(obj[plain], obj[good]) {
							t.Errorf("%s %s %s: %s %+v is better than %s %+v", spec, name, mode, plain, obj[plain], good, obj[good])
						}
					}
				}
			}
		}
	}
}

// TestRCMPath: on a path numbered in a scrambled order (3–0–5–1–4–2),
// Cuthill–McKee starts at a pseudo-peripheral end: from the least-degree
// end of lowest number, 2, the far end 3; it walks the path from 3, and
// the reverse order runs from 2 to 3.
func TestRCMPath(t *testing.T) {
	path := []int32{3, 0, 5, 1, 4, 2} // the path visits ranks in this order
	c := &Comm{Ranks: 6, Levels: 1}
	for i := 0; i+1 < len(path); i++ {
		c.Msgs = append(c.Msgs, Message{Src: path[i], Dst: path[i+1], Weight: 1})
	}
	got := RCM(c.Graph())
	rev := slices.Clone(path)
	slices.Reverse(rev)
	if !slices.Equal(got, rev) {
		t.Fatalf("RCM order %v, want %v", got, rev)
	}
	// Two components each keep their ranks together.
	c.Msgs = []Message{{Src: 0, Dst: 2, Weight: 1}, {Src: 2, Dst: 4, Weight: 1}, {Src: 1, Dst: 3, Weight: 1}, {Src: 3, Dst: 5, Weight: 1}}
	got = RCM(c.Graph())
	even := func(r int32) bool { return r%2 == 0 }
	if even(got[0]) != even(got[1]) || even(got[1]) != even(got[2]) || even(got[3]) != even(got[5]) {
		t.Fatalf("RCM order %v mixes the components {0,2,4} and {1,3,5}", got)
	}
}

// TestBisectKeepsCliques: four cliques of 8 ranks that talk only inside,
// numbered round-robin (rank r in clique r mod 4), on four leaves of 8
// hosts: bisect puts each clique on one leaf (no traffic between leaves),
// where linear spreads every clique over all leaves.
func TestBisectKeepsCliques(t *testing.T) {
	c := &Comm{Ranks: 32, Levels: 1, Unit: "bytes"}
	for a := range 32 {
		for b := range 32 {
			if a != b && a%4 == b%4 {
				c.Msgs = append(c.Msgs, Message{Src: int32(a), Dst: int32(b), Weight: 1})
			}
		}
	}
	p := problem(t, fabric(t, "fattree2:leaves=4,hosts=8,up=4"), c)
	for _, s := range []string{"bisect", "greedy"} {
		pl, err := p.Place(s)
		if err != nil {
			t.Fatal(err)
		}
		if o := p.Score(pl); o.LeafUp != 0 {
			t.Errorf("%s: traffic leaves a leaf switch (%+v): %v", s, o, pl)
		}
	}
	lin, _ := p.Place("linear")
	if o := p.Score(lin); o.LeafUp == 0 {
		t.Errorf("linear keeps the cliques on their leaves?")
	}
}

func TestTileShape(t *testing.T) {
	for _, tc := range []struct {
		grid []int
		size int
		want []int
	}{
		{[]int{64, 72}, 32, []int{8, 4}}, // Taffet §4.2: 8×4 tiles (4×8 has the same surface; the wider first)
		{[]int{16, 8}, 8, []int{4, 2}},   // samplingsim's TestStencilMapping
		{[]int{8, 8, 8}, 8, []int{2, 2, 2}},
		{[]int{8, 8, 8}, 16, []int{4, 2, 2}},
		{[]int{6, 5}, 10, []int{2, 5}},
		{[]int{7, 3}, 4, nil},
	} {
		if got := TileShape(tc.grid, tc.size); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("TileShape(%v, %d) = %v, want %v", tc.grid, tc.size, got, tc.want)
		}
	}
	for _, bad := range []string{"64", "4x", "0x4", "2x2x2x2", "ax4", "-1x4"} {
		if _, err := ParseGrid(bad); err == nil {
			t.Errorf("ParseGrid(%q) accepted", bad)
		}
	}
	if g, err := ParseGrid("64x72"); err != nil || !slices.Equal(g, []int{64, 72}) {
		t.Errorf("ParseGrid(64x72) = %v, %v", g, err)
	}
}

// TestTileHandDerived: a 4×4 grid on 4 leaves of 4 hosts: tiles of 2×2,
// tile (i, j) on leaf i + 2j, ranks inside row-major.
func TestTileHandDerived(t *testing.T) {
	c, err := PatternComm(patterns.Spec{Name: "neighbor2d"}, 16)
	if err != nil {
		t.Fatal(err)
	}
	p := problem(t, fabric(t, "fattree2:leaves=4,hosts=4,up=2"), c)
	p.Grid = []int{4, 4}
	pl, err := p.Place("tile")
	if err != nil {
		t.Fatal(err)
	}
	want := Placement{0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15}
	if !slices.Equal(pl, want) {
		t.Fatalf("tile: %v, want %v", pl, want)
	}
	p.Grid = nil
	if _, err := p.Place("tile"); err == nil {
		t.Fatal("tile without a grid: no error")
	}
}

// TestDeterministic: the same seed gives the same placement; another seed
// another random placement.
func TestDeterministic(t *testing.T) {
	p := problem(t, fabric(t, "kary:k=4,n=3"), randomTraffic(64, 3, 2))
	p.Seed, p.Budget = 5, 5000
	for _, s := range Names() {
		a, err1 := p.Place(s)
		b, err2 := p.Place(s)
		if (err1 == nil) != (err2 == nil) || !slices.Equal(a, b) {
			t.Errorf("%s: two runs differ", s)
		}
	}
	a, _ := p.Place("random")
	p.Seed = 6
	if b, _ := p.Place("random"); slices.Equal(a, b) {
		t.Error("seeds 5 and 6 give the same random placement")
	}
}

// TestGreedyFollowsPartners: on a ring of 8 switches with one host each,
// linear_bfs visits the switches 0, 1, 7, 2, 6, …; for a chain of ranks
// 0→1→…→7 greedy puts each rank on the free host nearest its placed
// partner, around the ring: every message crosses one switch-to-switch
// cable (3 hops, 21 in all), where filling hosts in linear_bfs order
// would jump across the ring.
func TestGreedyFollowsPartners(t *testing.T) {
	c := &Comm{Ranks: 8, Levels: 1, Unit: "bytes"}
	for r := range int32(7) {
		c.Msgs = append(c.Msgs, Message{Src: r, Dst: r + 1, Weight: 10 - int64(r)})
	}
	p := problem(t, fabric(t, "torus:dims=8,hosts=1"), c)
	pl, err := p.Place("greedy")
	if err != nil {
		t.Fatal(err)
	}
	if o := p.Score(pl); o.Hops != 21 {
		t.Fatalf("greedy: %v, %+v; want 21 hops", pl, o)
	}
}

// TestHostNames: Slurm names from --hosts win; fabric names made from node
// descriptions give the machine's name.
func TestHostNames(t *testing.T) {
	p := problem(t, fabric(t, "kary:k=2,n=2"), randomTraffic(4, 2, 1))
	got := p.HostNames(nil)
	if got[0] != p.Fabric.HostName(0) || strings.HasPrefix(got[0], "H-") {
		t.Fatalf("generated names: %v", got)
	}
	given := []string{"a", "b", "c", "d"}
	if got := p.HostNames(given); !slices.Equal(got, given) {
		t.Fatalf("with --hosts names: %v", got)
	}
}

// TestLinearKeepsAllocationOrder: linear puts rank i on the i-th host of
// the allocation as given (Slurm's block distribution), whatever the
// fabric's order of those hosts; hosts beyond the job stay free.
func TestLinearKeepsAllocationOrder(t *testing.T) {
	f := fabric(t, "fattree2:leaves=2,hosts=4,up=1")
	c := &Comm{Ranks: 4, Levels: 1, Unit: "bytes", Msgs: []Message{{Src: 0, Dst: 1, Weight: 1}}}
	hosts := []int32{6, 1, 4, 3, 0}
	p, err := NewProblem(f, c, hosts)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := p.Place("linear")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Placement{6, 1, 4, 3}); !slices.Equal(pl, want) {
		t.Fatalf("linear placed ranks on hosts %v, want %v", pl, want)
	}
}

// TestGreedyHeaviestFirst: rank 2 talks to 0, 1 and 3 (weight 1 each), so
// every rank starts with no placed partner and rank 2 has the most
// traffic (3 against 1): greedy places it first, on the first host of the
// linear_bfs order (leaf L0). Then 0, 1, 3 tie on traffic to placed ranks
// and on volume, and go in rank order: 0 to L0's other host (2 hops from
// rank 2 against 4 across the spine), 1 and 3 to L1 (L0 is full). With
// ranks taken in plain rank order instead, rank 0 would hold the first
// host.
func TestGreedyHeaviestFirst(t *testing.T) {
	c := &Comm{Ranks: 4, Levels: 1, Unit: "bytes", Msgs: []Message{
		{Src: 0, Dst: 2, Weight: 1}, {Src: 1, Dst: 2, Weight: 1}, {Src: 3, Dst: 2, Weight: 1}}}
	p := problem(t, fabric(t, "fattree2:leaves=2,hosts=2,up=1"), c)
	pl, err := p.Place("greedy")
	if err != nil {
		t.Fatal(err)
	}
	o := p.order
	if want := (Placement{o[1], o[2], o[0], o[3]}); !slices.Equal(pl, want) {
		t.Fatalf("greedy placed ranks on hosts %v, want %v (linear_bfs order %v)", pl, want, o)
	}
}

package analyze

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"orcs/lft"
	"orcs/patterns"
	"orcs/rng"
)

// starFabric is one switch S with hosts H0 … H(n-1), built without files.
func starFabric(t *testing.T, n int) *lft.Fabric { return starFabricWithout(t, n, -1) }

// starFabricWithout is starFabric whose switch has no entry towards host
// unrouted (-1: none left out).
func starFabricWithout(t *testing.T, n, unrouted int) *lft.Fabric {
	t.Helper()
	b := lft.NewBuilder()
	hosts := make([]int32, n)
	for i := range hosts {
		hosts[i] = b.Node("H"+strconv.Itoa(i), lft.Host)
	}
	s := b.Node("S", lft.Switch)
	for i, h := range hosts {
		b.Route(b.Link(h, s, 1, i+1), lft.AnyDest)
		down := b.Link(s, h, i+1, 1)
		if i != unrouted {
			b.Route(down, b.Dest(b.NodeName(h)))
		}
	}
	f, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestWalkerResetsLoadBetweenLevels walks two levels that use the same
// cables (H0→S→H1 twice): each level starts from an empty congestion map,
// so the second level's connection has w = 1, not 2, and the summed map
// (get_cable_cong) holds one route per level on each cable.
func TestWalkerResetsLoadBetweenLevels(t *testing.T) {
	f := starFabric(t, 3)
	perm := []int32{0, 1, 2}
	one := patterns.Level{{Src: 0, Dst: 1}}
	two := patterns.Level{{Src: 0, Dst: 1}, {Src: 2, Dst: 1}} // S→H1 carries 2
	for _, sum := range []bool{false, true} {
		var k Walker
		k.Init(f, sum)
		for i, c := range []struct {
			lv   patterns.Level
			want []int32
		}{{one, []int32{1}}, {two, []int32{2, 2}}, {one, []int32{1}}, {one, []int32{1}}} {
			w, failed := k.Level(c.lv, perm)
			if failed != 0 || len(w) != len(c.want) {
				t.Fatalf("sum %v, level %d: %v, %d failed", sum, i, w, failed)
			}
			for j := range w {
				if w[j] != c.want[j] {
					t.Fatalf("sum %v, level %d: w = %v, want %v (load of an earlier level kept)", sum, i, w, c.want)
				}
			}
		}
		if !sum {
			continue
		}
		// H0→S: 4 levels × 1; S→H1: 1 + 2 + 1 + 1; H2→S: 1.
		want := map[string]int64{`"H0" -> "S"`: 4, `"S" -> "H1"`: 5, `"H2" -> "S"`: 1}
		for l, got := range k.Sum {
			if got != want[f.LinkName(int32(l))] {
				t.Errorf("sum of %s = %d, want %d", f.LinkName(int32(l)), got, want[f.LinkName(int32(l))])
			}
		}
	}
}

// TestRunResetsLoadBetweenLevels runs a pattern file of three levels,
// H0 → H1, H1 → H0, H0 → H1, through the whole simulation: levels 1 and 3
// use the same cables, yet every level's largest w is 1, so sum_max_cong
// is 3, every connection gets full bandwidth and the chain of the three
// messages takes 3.
func TestRunResetsLoadBetweenLevels(t *testing.T) {
	f := starFabric(t, 2)
	file := filepath.Join(t.TempDir(), "same.txt")
	if err := os.WriteFile(file, []byte("0 1\n\n1 0\n\n0 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for metric, want := range map[string]float64{"sum_max_cong": 3, "hist_acc_band": 1, "dep_max_delay": 3} {
		res := simulate(t, f, Config{Pattern: patterns.Spec{Name: "file:" + file}, Metric: metric,
			Subset: SubsetLinearBFS, NoShuffle: true, Level: -1, Runs: 1, Seed: 1, Threads: 1})
		if got := res.Values[0]; got != want {
			t.Errorf("%s = %v, want %v", metric, got, want)
		}
	}
}

// TestCountSkipsFailedRoutes: worker.count counts the weights of a level
// (hand-derived: weights 0 2 1 0 2 9 are a largest 9, four connections,
// one of weight 1, two of 2, one of 9, growing the counts past their first
// 8), leaves out the failed routes (weight 0) and keeps nothing of them
// for the next level.
func TestCountSkipsFailedRoutes(t *testing.T) {
	var w worker
	for level := range 2 {
		m, conns := w.count([]int32{0, 2, 1, 0, 2, 9})
		if m != 9 || conns != 4 {
			t.Fatalf("level %d: largest %d, %d connections; want 9, 4", level, m, conns)
		}
		want := []int64{0, 1, 2, 0, 0, 0, 0, 0, 0, 1}
		for wt := range want {
			if got := w.counts[wt] / int64(level+1); got != want[wt] || w.counts[wt]%int64(level+1) != 0 {
				t.Fatalf("level %d: counts %v, want %v times %d", level, w.counts, want, level+1)
			}
		}
	}
}

// TestCountAsOneHistogram: worker.count's four histograms give, level
// after level, the counts, largest weight and connections of one
// histogram counted weight by weight, for levels of every length mod 4
// (the tail after the groups of four) and weights that repeat or are 0,
// below smallWeights and not (countLarge), in any order of the two, one
// weight of 63 or 64 among small ones, or none but 0.
func TestCountAsOneHistogram(t *testing.T) {
	st := rng.New(11, 1)
	var w worker
	want := make([]int64, 301)
	for level := range 600 {
		weights := make([]int32, st.IntN(38))
		top := 1 + st.IntN(40)
		switch level % 5 {
		case 1:
			top = 1 + st.IntN(300)
		case 2:
			top = 1
		}
		for i := range weights {
			weights[i] = int32(st.IntN(top))
		}
		if level%5 == 3 && len(weights) > 0 {
			weights[st.IntN(len(weights))] = int32(smallWeights - 1 + st.IntN(2))
		}
		var wantMax int32
		wantConns := int64(0)
		for _, wt := range weights {
			wantMax = max(wantMax, wt)
			if wt > 0 {
				want[wt]++
				wantConns++
			}
		}
		m, conns := w.count(weights)
		if m != wantMax || conns != wantConns {
			t.Fatalf("level %d %v: largest %d, %d connections; want %d, %d", level, weights, m, conns, wantMax, wantConns)
		}
		for wt, c := range want {
			got := int64(0)
			if wt < len(w.counts) {
				got = w.counts[wt]
			}
			if got != c {
				t.Fatalf("level %d: weight %d counted %d times, want %d", level, wt, got, c)
			}
		}
	}
}

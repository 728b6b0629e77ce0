package analyze

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"orcs/gen"
	"orcs/lft"
	"orcs/metrics"
	"orcs/patterns"
	"orcs/rng"
)

func fabric(t testing.TB, spec string) *lft.Fabric {
	t.Helper()
	f, err := gen.Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func simulate(t testing.TB, f *lft.Fabric, cfg Config) *metrics.Result {
	t.Helper()
	s, err := New(f, cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func render(t testing.TB, format string, res *metrics.Result, f *lft.Fabric) string {
	t.Helper()
	m, err := metrics.Lookup(res.Meta.Metric)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := metrics.Render(&b, format, m, res, f); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestDeterministicAcrossThreadsAndShards runs every metric with several
// thread counts and as three merged shards: the output must be identical.
func TestDeterministicAcrossThreadsAndShards(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	for _, metric := range metrics.Names() {
		for _, pat := range []patterns.Spec{{Name: "bisect_fb_sym"}, {Name: "rand"},
			{Name: "ptrnvsptrn", First: "tree", Second: "rand", Part: 24}} {
			cfg := Config{Pattern: pat, Metric: metric, Runs: 101, Seed: 42, Subset: SubsetRand, Commsize: 48}
			var want string
			for _, threads := range []int{1, 2, 8} {
				cfg.Threads = threads
				for _, format := range []string{"text", "json"} {
					got := render(t, format, simulate(t, f, cfg), f)
					if threads == 1 && format == "json" {
						want = got
					}
					if format == "json" && got != want {
						t.Fatalf("%s/%s: -j %d differs from -j 1", metric, pat.Name, threads)
					}
				}
			}
			var files []*ShardFile
			var names []string
			for i := 0; i < 3; i++ {
				c := cfg
				c.Shard = Shard{Index: i, Count: 3}
				var buf bytes.Buffer
				if err := NewShardFile(simulate(t, f, c), c.Shard).Write(&buf); err != nil {
					t.Fatal(err)
				}
				// Round trip through the file format.
				sf, err := DecodeShard(bytes.NewReader(buf.Bytes()), "shard", len(f.Links))
				if err != nil {
					t.Fatal(err)
				}
				files = append(files, sf)
				names = append(names, "shard")
			}
			// Shards given in any order.
			files[0], files[2] = files[2], files[0]
			merged, err := Merge(files, names)
			if err != nil {
				t.Fatal(err)
			}
			if got := render(t, "json", merged, f); got != want {
				t.Fatalf("%s/%s: merged shards differ from the unsplit run", metric, pat.Name)
			}
		}
	}
}

func TestMergeRefusesIncompleteOrMixedShards(t *testing.T) {
	f := fabric(t, "kary:k=4,n=2")
	cfg := Config{Pattern: patterns.Spec{Name: "bisect"}, Metric: "hist_acc_band", Runs: 10, Seed: 1}
	shard := func(i, n int, seed uint64) *ShardFile {
		c := cfg
		c.Seed = seed
		c.Shard = Shard{Index: i, Count: n}
		return NewShardFile(simulate(t, f, c), c.Shard)
	}
	cases := []struct {
		name  string
		files []*ShardFile
		want  string
	}{
		{"missing", []*ShardFile{shard(0, 3, 1), shard(2, 3, 1)}, "missing shards [1] of 3"},
		{"twice", []*ShardFile{shard(0, 2, 1), shard(0, 2, 1), shard(1, 2, 1)}, "shard 0/2 given twice"},
		{"other seed", []*ShardFile{shard(0, 2, 1), shard(1, 2, 2)}, "describes another simulation"},
		{"other split", []*ShardFile{shard(0, 2, 1), shard(1, 3, 1)}, "shard of a 3-way split"},
	}
	for _, c := range cases {
		names := make([]string, len(c.files))
		for i := range names {
			names[i] = "f" + string(rune('0'+i))
		}
		if _, err := Merge(c.files, names); err == nil || !bytes.Contains([]byte(err.Error()), []byte(c.want)) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// TestRouteProperties: on valid tables every route ends at its destination
// and never revisits a node.
func TestRouteProperties(t *testing.T) {
	for _, spec := range []string{"kary:k=4,n=3", "fattree2:leaves=6,hosts=4,up=2,spines=2", "torus:dims=3x4,hosts=2", "mesh:dims=3x3"} {
		f := fabric(t, spec)
		n := int32(f.NumHosts())
		for s := int32(0); s < n; s++ {
			for d := int32(0); d < n; d++ {
				links, st := f.AppendRoute(nil, s, d)
				if st != lft.RouteOK {
					t.Fatalf("%s: %d->%d status %d", spec, s, d, st)
				}
				if s == d {
					if len(links) != 0 {
						t.Fatalf("self route not empty")
					}
					continue
				}
				seen := map[int32]bool{f.HostNode(int(s)): true}
				at := f.HostNode(int(s))
				for _, l := range links {
					if f.Links[l].From != at {
						t.Fatalf("%s: route %d->%d is not a walk", spec, s, d)
					}
					at = f.Links[l].To
					if seen[at] {
						t.Fatalf("%s: route %d->%d revisits %s", spec, s, d, f.Nodes[at].Name)
					}
					seen[at] = true
				}
				if at != f.HostNode(int(d)) {
					t.Fatalf("%s: route %d->%d ends at %s", spec, s, d, f.Nodes[at].Name)
				}
			}
		}
	}
}

// TestWeightAndBandwidthBounds: 1 ≤ w for every connection and 0 < BW ≤ 1
// for every run, over random patterns and mappings.
func TestWeightAndBandwidthBounds(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	for _, p := range []string{"rand", "bisect", "alltoall", "gather", "neighbor2d", "recdbl"} {
		res := simulate(t, f, Config{Pattern: patterns.Spec{Name: p}, Metric: "hist_acc_band", Runs: 50, Seed: 3})
		if res.Weights[0] != 0 {
			t.Errorf("%s: %d connections with w = 0", p, res.Weights[0])
		}
		for r, v := range res.Values {
			if !(v > 0 && v <= 1) {
				t.Fatalf("%s: run %d bandwidth %v outside (0,1]", p, r, v)
			}
		}
	}
}

// TestWalkerCountsLoads checks the congestion model by brute force: w of a
// connection is the largest number of the level's routes sharing one of its
// links.
func TestWalkerCountsLoads(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	n := f.NumHosts()
	r := rng.New(5, 0)
	var k Walker
	k.Init(f, true)
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	for trial := 0; trial < 50; trial++ {
		r.ShuffleInt32(perm)
		var lv patterns.Level
		for i := 0; i < 20; i++ {
			s, d := r.IntN(n), r.IntN(n)
			if s != d {
				lv = append(lv, patterns.Pair{Src: int32(s), Dst: int32(d)})
			}
		}
		count := map[int32]int32{}
		var routes [][]int32
		for _, p := range lv {
			links, _ := f.AppendRoute(nil, perm[p.Src], perm[p.Dst])
			routes = append(routes, links)
			for _, l := range links {
				count[l]++
			}
		}
		w, failed := k.Level(lv, perm)
		if failed != 0 {
			t.Fatal("failed routes")
		}
		for i, links := range routes {
			var m int32
			for _, l := range links {
				m = max(m, count[l])
			}
			if w[i] != m {
				t.Fatalf("trial %d pair %d: w = %d, brute force %d", trial, i, w[i], m)
			}
		}
	}
	for _, c := range k.load {
		if c != 0 {
			t.Fatal("walker left load behind between levels")
		}
	}
}

func TestLinearBFSFillsLeavesFirst(t *testing.T) {
	f := fabric(t, "kary:k=4,n=2")
	order := LinearBFS(f)
	if len(order) != f.NumHosts() {
		t.Fatalf("order has %d hosts", len(order))
	}
	// The first 4 hosts must share one leaf switch.
	leaf := func(h int32) int32 { return f.Links[f.OutLinks(f.HostNode(int(h)))[0]].To }
	for _, h := range order[1:4] {
		if leaf(h) != leaf(order[0]) {
			t.Fatalf("first four hosts %v are not on one leaf", order[:4])
		}
	}
}

func TestNoShuffleIsDeterministicWithoutSeed(t *testing.T) {
	f := fabric(t, "kary:k=4,n=2")
	a := simulate(t, f, Config{Pattern: patterns.Spec{Name: "bisect_fb_sym"}, Metric: "sum_max_cong", Runs: 3, Seed: 1, NoShuffle: true})
	b := simulate(t, f, Config{Pattern: patterns.Spec{Name: "bisect_fb_sym"}, Metric: "sum_max_cong", Runs: 3, Seed: 999, NoShuffle: true})
	for i := range a.Values {
		if a.Values[i] != b.Values[i] || math.IsNaN(a.Values[i]) {
			t.Fatalf("run %d: %v vs %v", i, a.Values[i], b.Values[i])
		}
	}
}

// TestRunCountBounded checks that run counts whose values cannot be kept
// are refused with a hint, and that a shard keeps only its own runs.
func TestRunCountBounded(t *testing.T) {
	f := fabric(t, "kary:k=2,n=2")
	for _, runs := range []int{math.MaxInt64, 1 << 36} {
		_, err := New(f, Config{Pattern: patterns.Spec{Name: "bisect"}, Metric: "hist_max_cong", Runs: runs})
		if err == nil || !strings.Contains(err.Error(), "split them with --shard I/N (N ≥ ") || strings.Contains(err.Error(), "≥ -") {
			t.Errorf("%d runs: %v", runs, err)
		}
	}
	s, err := New(f, Config{Pattern: patterns.Spec{Name: "bisect"}, Metric: "hist_max_cong", Runs: 1 << 36,
		Shard: Shard{Index: 5, Count: 1 << 20}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Values) != 1<<16 {
		t.Errorf("shard keeps %d values, want its %d runs", len(res.Values), 1<<16)
	}
}

// TestRunStopsOnContext checks that a cancelled context stops the runs.
func TestRunStopsOnContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s, err := New(fabric(t, "kary:k=2,n=2"), Config{Pattern: patterns.Spec{Name: "bisect"}, Metric: "hist_max_cong", Runs: 1000, Context: ctx})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(); !errors.Is(err, context.Canceled) {
		t.Errorf("Run on a cancelled context: %v", err)
	}
}

package analyze

import (
	"math"
	"strings"
	"testing"

	"orcs/gen"
	"orcs/internal/railtest"
	"orcs/lft"
	"orcs/patterns"
)

// busBand runs pattern with hist_bus_band and returns the per-run values.
func busBand(t *testing.T, f *lft.Fabric, cfg Config) []float64 {
	t.Helper()
	cfg.Metric = "hist_bus_band"
	cfg.Level = -1
	if cfg.Runs == 0 {
		cfg.Runs = 1
	}
	cfg.Seed, cfg.Threads = 1, 1
	s, err := New(f, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	return r.Values
}

// TestBusBandHandDerived: the bus-bandwidth fraction of each collective
// on 4 nodes × 2 rails, derived by hand.
//
// Rail-optimized (leaf r holds rail r, one cable to the spine): rings,
// trees and PXN stay on their leaf (1); all-to-all without PXN has 3 steps
// within the rails (congestion 1) and 3 steps in which all 4 HCAs of a
// rail send to the other rail over one cable (4): 6 / (3·1 + 3·4) = 0.4.
//
// Node leaves (nodes 1, 2 on leaf 0, nodes 3, 4 on leaf 1, one cable
// each way): the ring in rank order crosses from node 2 to node 3 and
// from node 4 to node 1 on both rails, 2 flows on a cable: 1/2. The tree
// (ideal 4: an inner node's HCA sends to its parent, two children and,
// as a leaf of the other tree, one parent) has, counting nodes from 0,
// tree 0 = {1–2, 2–0, 3–2} and tree 1 = {0–1, 1–3, 2–1}: the edges 1–2,
// 2–0, 1–3 and 2–1 join the leaves, each both ways, so cable L0→S carries
// 4 flows per rail, 8 with both rails: 4/8 = 0.5.
func TestBusBandHandDerived(t *testing.T) {
	rail, err := railtest.Fabric(4, 2, 2, railtest.RailLeaves)
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := railtest.Fabric(4, 2, 2, func(node, _ int) int { return node / 2 })
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		fabric  *lft.Fabric
		name    string
		pattern string
		want    float64
	}{
		{rail, "rail", "nccl_ring_allreduce", 1},
		{rail, "rail", "nccl_tree_allreduce", 1},
		{rail, "rail", "nccl_alltoall", 0.4},
		{rail, "rail", "nccl_alltoall_pxn", 1},
		{pairs, "node leaves", "nccl_ring_allreduce", 0.5},
		{pairs, "node leaves", "nccl_tree_allreduce", 0.5},
	} {
		got := busBand(t, tc.fabric, Config{Pattern: patterns.Spec{Name: tc.pattern}, NoShuffle: true})
		if len(got) != 1 || math.Abs(got[0]-tc.want) > 1e-12 {
			t.Errorf("%s, %s: %v, want %v", tc.name, tc.pattern, got, tc.want)
		}
	}
}

// TestBusBandRingOrder: on node leaves, the ring in node order 1, 3, 2, 4
// (--hosts, -d) crosses between the leaves at every hop: cable L0→S
// carries 1→3 and 2→4 on both rails, 4 flows: 1/4.
func TestBusBandRingOrder(t *testing.T) {
	f, err := railtest.Fabric(4, 2, 2, func(node, _ int) int { return node / 2 })
	if err != nil {
		t.Fatal(err)
	}
	alloc, err := Allocation(f, railtest.Host(0, 0)+","+railtest.Host(2, 0)+","+railtest.Host(1, 0)+","+railtest.Host(3, 0))
	if err != nil {
		t.Fatal(err)
	}
	got := busBand(t, f, Config{Pattern: patterns.Spec{Name: "nccl_ring_allreduce"}, Allocation: alloc, NoShuffle: true})
	if got[0] != 0.25 {
		t.Errorf("ring 1, 3, 2, 4: %v, want 0.25", got[0])
	}
}

// TestNodePlacementKeepsNodes: every run of a collective maps the ranks
// of a node block onto one node's HCAs in rail order, and different runs
// draw different node orders; a single-HCA service node is left out.
func TestNodePlacementKeepsNodes(t *testing.T) {
	f, err := railtest.Fabric(6, 4, 4, railtest.RailLeaves)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(f, Config{Pattern: patterns.Spec{Name: "nccl_alltoall_pxn"}, Metric: "hist_bus_band", Level: -1, Runs: 20, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if s.Commsize() != 24 {
		t.Fatalf("commsize %d, want 24 GPUs", s.Commsize())
	}
	orders := map[string]bool{}
	for run := range 20 {
		hosts, _ := s.Draw(run)
		var order []string
		for r, h := range hosts {
			name := f.HostName(int(h))
			node, hca, _ := strings.Cut(name, " ")
			if hca != "mlx5_"+string(rune('0'+r%4)) {
				t.Fatalf("run %d: rank %d on %s, not rail %d", run, r, name, r%4)
			}
			if r%4 == 0 {
				order = append(order, node)
			} else if node != order[len(order)-1] {
				t.Fatalf("run %d: rank %d on %s, its node's rank 0 on %s", run, r, name, order[len(order)-1])
			}
		}
		orders[strings.Join(order, ",")] = true
	}
	if len(orders) < 10 {
		t.Errorf("20 runs drew %d node orders", len(orders))
	}
}

// TestNodePlacementErrors: commsizes that are not whole nodes, and
// fabrics without two full nodes, are refused with the layout.
func TestNodePlacementErrors(t *testing.T) {
	f, err := railtest.Fabric(3, 2, 2, railtest.RailLeaves)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		commsize int
		want     string
	}{
		{5, "commsize 5 is not 2 to 3 whole nodes of 2 GPUs (3 nodes × 2 HCAs)"},
		{2, "commsize 2 is not 2 to 3 whole nodes"},
	} {
		_, err := New(f, Config{Pattern: patterns.Spec{Name: "nccl_ring_allreduce"}, Metric: "hist_bus_band", Level: -1, Runs: 1, Commsize: tc.commsize})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("commsize %d: %v, want %q", tc.commsize, err, tc.want)
		}
	}
	one, err := railtest.Fabric(1, 2, 2, railtest.RailLeaves)
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(one, Config{Pattern: patterns.Spec{Name: "nccl_ring_allreduce"}, Metric: "hist_bus_band", Level: -1, Runs: 1})
	if err == nil || !strings.Contains(err.Error(), "1 node of the fabric (1 node × 2 HCAs) has an HCA on each of 2 rails: at least 2 are needed") {
		t.Errorf("one node: %v", err)
	}
}

// BenchmarkBusBandAlltoall: one run of the plain NCCL all-to-all on 16
// nodes × 8 rails (15·8 levels of 128 flows) with hist_bus_band, placed
// by node.
func BenchmarkBusBandAlltoall(b *testing.B) {
	f, err := railtest.Fabric(16, 8, 8, railtest.RailLeaves)
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(f, Config{Pattern: patterns.Spec{Name: "nccl_alltoall"}, Metric: "hist_bus_band", Level: -1, Runs: b.N, Seed: 1, Threads: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	if _, err := s.Run(); err != nil {
		b.Fatal(err)
	}
}

// TestBusBandThreads: a collective's per-run values are the same on 1 and
// 16 threads for one seed (each run draws its node order from its own
// stream).
func TestBusBandThreads(t *testing.T) {
	f, err := railtest.Fabric(8, 2, 4, func(node, _ int) int { return node / 2 })
	if err != nil {
		t.Fatal(err)
	}
	var vals [2][]float64
	for i, threads := range []int{1, 16} {
		s, err := New(f, Config{Pattern: patterns.Spec{Name: "nccl_tree_allreduce"}, Metric: "hist_bus_band", Level: -1, Runs: 200, Seed: 9, Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Run()
		if err != nil {
			t.Fatal(err)
		}
		vals[i] = r.Values
	}
	distinct := map[float64]bool{}
	for k := range vals[0] {
		if vals[0][k] != vals[1][k] {
			t.Fatalf("run %d: %v on 1 thread, %v on 16", k, vals[0][k], vals[1][k])
		}
		distinct[vals[0][k]] = true
	}
	if len(distinct) < 2 {
		t.Errorf("200 node orders gave one value %v: the placements do not differ", distinct)
	}
}

// TestNodePlacementSkipsServiceNodes: a service node with one HCA of a
// 2-rail fabric (its list of HCAs shorter than the rails) is no GPU node:
// 2 units × 4 node slots with one service node leave 7 nodes × 2 rails,
// 14 ranks, and every run's placement keeps to their HCAs.
func TestNodePlacementSkipsServiceNodes(t *testing.T) {
	f, err := gen.Generate("rail:units=2,nodes=4,rails=2,service=1")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"nccl_ring_allreduce", "nccl_tree_allreduce", "nccl_alltoall"} {
		s, err := New(f, Config{Pattern: patterns.Spec{Name: p}, Metric: "hist_bus_band", Level: -1, Runs: 5, Seed: 1, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		if s.Commsize() != 14 {
			t.Fatalf("%s: commsize %d, want 14 (7 nodes × 2 rails)", p, s.Commsize())
		}
		if _, err := s.Run(); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		hosts, _ := s.Draw(0)
		for r, h := range hosts {
			if name := f.HostName(int(h)); strings.HasSuffix(name, "mlx5_0") != (r%2 == 0) {
				t.Fatalf("%s: rank %d on %s", p, r, name)
			}
		}
	}
}

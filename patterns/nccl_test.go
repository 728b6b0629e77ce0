package patterns

import (
	"reflect"
	"strings"
	"testing"
)

// ncclLevels compiles a collective on nodes × rails GPUs.
func ncclLevels(t *testing.T, name string, nodes, rails int) []Level {
	t.Helper()
	src, err := Compile(Spec{Name: name, Rails: rails}, nodes*rails)
	if err != nil {
		t.Fatal(err)
	}
	return src.Levels(nil, nil)
}

// pairs writes "a→b" pairs for a table.
func pairs(ps ...int32) Level {
	var lv Level
	for i := 0; i+1 < len(ps); i += 2 {
		lv = append(lv, Pair{ps[i], ps[i+1]})
	}
	return lv
}

// TestNCCLHandDerived: the flows of each collective on 4 nodes × 2 rails
// (GPU c of node i is rank 2i+c), derived by hand from NCCL's
// constructions.
func TestNCCLHandDerived(t *testing.T) {
	ring := []Level{pairs(0, 2, 2, 4, 4, 6, 6, 0, 1, 3, 3, 5, 5, 7, 7, 1)}
	// tree 0 (btree of 4 nodes): 2 → 0, 1 → 2, 3 → 2; tree 1 (its
	// mirror): 0 → 1, 1 → 3, 2 → 1; every edge both ways, on both rails.
	tree := []Level{pairs(
		2, 4, 4, 2, 4, 0, 0, 4, 6, 4, 4, 6, // rail 0, tree 0: nodes 1→2, 2→0, 3→2
		0, 2, 2, 0, 2, 6, 6, 2, 4, 2, 2, 4, // rail 0, tree 1: nodes 0→1, 1→3, 2→1
		3, 5, 5, 3, 5, 1, 1, 5, 7, 5, 5, 7, // rail 1, tree 0
		1, 3, 3, 1, 3, 7, 7, 3, 5, 3, 3, 5, // rail 1, tree 1
	)}
	a2a := []Level{
		pairs(0, 2, 1, 3, 2, 4, 3, 5, 4, 6, 5, 7, 6, 0, 7, 1), // k=1, s=0
		pairs(0, 3, 1, 2, 2, 5, 3, 4, 4, 7, 5, 6, 6, 1, 7, 0), // k=1, s=1: rail 0 → rail 1
		pairs(0, 4, 1, 5, 2, 6, 3, 7, 4, 0, 5, 1, 6, 2, 7, 3), // k=2, s=0
		pairs(0, 5, 1, 4, 2, 7, 3, 6, 4, 1, 5, 0, 6, 3, 7, 2),
		pairs(0, 6, 1, 7, 2, 0, 3, 1, 4, 2, 5, 3, 6, 4, 7, 5), // k=3, s=0
		pairs(0, 7, 1, 6, 2, 1, 3, 0, 4, 3, 5, 2, 6, 5, 7, 4),
	}
	pxn := []Level{
		pairs(0, 2, 1, 3, 2, 4, 3, 5, 4, 6, 5, 7, 6, 0, 7, 1),
		pairs(0, 4, 1, 5, 2, 6, 3, 7, 4, 0, 5, 1, 6, 2, 7, 3),
		pairs(0, 6, 1, 7, 2, 0, 3, 1, 4, 2, 5, 3, 6, 4, 7, 5),
	}
	for _, tc := range []struct {
		name string
		want []Level
	}{
		{"nccl_ring_allreduce", ring}, {"nccl_ring_allgather", ring}, {"nccl_ring_reducescatter", ring},
		{"nccl_tree_allreduce", tree}, {"nccl_alltoall", a2a}, {"nccl_alltoall_pxn", pxn},
	} {
		if got := ncclLevels(t, tc.name, 4, 2); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s on 4 nodes × 2 rails:\n got %v\nwant %v", tc.name, got, tc.want)
		}
	}
}

// TestNCCLTreeOdd: 3 nodes, one rail: tree 0 is 1 → 2 → 0, tree 1 the
// btree shifted by one node: 2 → 0 → 1.
func TestNCCLTreeOdd(t *testing.T) {
	want := []Level{pairs(1, 2, 2, 1, 2, 0, 0, 2, 0, 1, 1, 0, 2, 0, 0, 2)}
	if got := ncclLevels(t, "nccl_tree_allreduce", 3, 1); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestNCCLBtreeDiagram: btreeParent gives NCCL's 14-rank tree of its
// comment.
func TestNCCLBtreeDiagram(t *testing.T) {
	want := []int{-1, 2, 4, 2, 8, 6, 4, 6, 0, 10, 12, 10, 8, 12}
	for r, p := range want {
		if got := btreeParent(14, r); got != p {
			t.Errorf("parent of %d: %d, want %d", r, got, p)
		}
	}
}

// TestNCCLProperties: on several shapes, every pattern's flows join GPUs
// of different nodes; all-to-all sends every ordered pair of GPUs on
// different nodes exactly once; PXN stays on its rail and sends each
// (node, node, rail) once; the ring and the trees use every rail alike;
// each tree is a spanning tree (nodes−1 edges per tree and rail, both ways).
func TestNCCLProperties(t *testing.T) {
	for _, shape := range [][2]int{{1, 1}, {2, 1}, {2, 3}, {3, 2}, {5, 4}, {8, 8}, {13, 2}} {
		nodes, rails := shape[0], shape[1]
		n := nodes * rails
		for _, name := range Names() {
			if !Collective(name) {
				continue
			}
			seen := map[Pair]int{}
			for _, lv := range ncclLevels(t, name, nodes, rails) {
				for _, p := range lv {
					if int(p.Src)/rails == int(p.Dst)/rails || p.Src < 0 || int(p.Dst) >= n {
						t.Fatalf("%s %v: pair %v inside a node or out of range", name, shape, p)
					}
					if strings.Contains(name, "pxn") && int(p.Src)%rails != int(p.Dst)%rails {
						t.Fatalf("%s %v: pair %v leaves its rail", name, shape, p)
					}
					seen[p]++
				}
			}
			switch name {
			case "nccl_alltoall":
				if len(seen) != n*(n-rails) {
					t.Errorf("%s %v: %d distinct pairs, want %d", name, shape, len(seen), n*(n-rails))
				}
			case "nccl_alltoall_pxn", "nccl_ring_allreduce":
				if want := nodes * (nodes - 1) * rails; name == "nccl_alltoall_pxn" && len(seen) != want {
					t.Errorf("%s %v: %d distinct pairs, want %d", name, shape, len(seen), want)
				}
			case "nccl_tree_allreduce":
				total := 0
				for _, c := range seen {
					total += c
				}
				if nodes > 1 && total != 2*2*(nodes-1)*rails {
					t.Errorf("%s %v: %d flows, want %d", name, shape, total, 4*(nodes-1)*rails)
				}
			}
			for p, c := range seen {
				if c != 1 && name != "nccl_tree_allreduce" {
					t.Errorf("%s %v: pair %v %d times", name, shape, p, c)
				}
			}
		}
	}
}

// TestNCCLNeedsRails: a collective with negative rails, or with ranks that are
// not whole nodes, is refused with the reason.
func TestNCCLNeedsRails(t *testing.T) {
	if _, err := Compile(Spec{Name: "nccl_ring_allreduce", Rails: -1}, 8); err == nil || !strings.Contains(err.Error(), "-1 GPUs (rails) per node") {
		t.Errorf("-1 rails: %v", err)
	}
	if _, err := Compile(Spec{Name: "nccl_alltoall", Rails: 4}, 10); err == nil || !strings.Contains(err.Error(), "10 ranks are not whole nodes of 4 GPUs") {
		t.Errorf("10 of 4: %v", err)
	}
	if Collective("ring") || !Collective("nccl_alltoall_pxn") {
		t.Error("Collective: ring is not one, nccl_alltoall_pxn is")
	}
}

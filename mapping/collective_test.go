package mapping

import (
	"bytes"
	"strings"
	"testing"

	"orcs/analyze"
	"orcs/internal/railtest"
)

// TestCollectiveNodeOrders: a ring allreduce on 4 nodes × 2 GPUs, nodes
// 1, 2 on leaf L0 and 3, 4 on L1, one cable each way to the spine, in the
// allocation's order 1, 3, 2, 4. By hand: that order crosses between the
// leaves at every hop, so cable L0→S carries 1→3 and 2→4 on both rails
// (4 flows): 1/4. Sorted by leaves (1, 2, 3, 4) the ring crosses once
// each way, 2 flows: 1/2, which no order beats (a ring over two leaves
// crosses at least once each way, on both rails); search finds 1/2 too.
// Every node order keeps a node's GPUs on its HCAs in rail order, and the
// Slurm host file names each node once per GPU.
func TestCollectiveNodeOrders(t *testing.T) {
	f, err := railtest.Fabric(4, 2, 2, func(node, _ int) int { return node / 2 })
	if err != nil {
		t.Fatal(err)
	}
	alloc, err := analyze.Allocation(f, strings.Join([]string{railtest.Host(0, 0), railtest.Host(2, 0), railtest.Host(1, 0), railtest.Host(3, 0)}, ","))
	if err != nil {
		t.Fatal(err)
	}
	np, err := CollectiveProblem(f, alloc, "nccl_ring_allreduce", 0)
	if err != nil {
		t.Fatal(err)
	}
	np.Seed = 1
	rep, pl, err := np.RunNodes(Options{Strategy: "search", Compare: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"linear": 0.25, "leaves": 0.5, "search": 0.5}
	for _, row := range rep.Rows {
		if w, ok := want[row.Name]; ok && row.BusBandwidth != w {
			t.Errorf("%s: bus bandwidth %v, want %v", row.Name, row.BusBandwidth, w)
		}
		if row.Name == "linear" && row.Obj.Congestion != 4 || row.Name == "leaves" && row.Obj.Congestion != 2 {
			t.Errorf("%s: congestion %d", row.Name, row.Obj.Congestion)
		}
	}
	if len(rep.Rows) != len(NodeStrategies) || rep.Rows[rep.Chosen].Name != "search" {
		t.Fatalf("rows %+v, chosen %d", rep.Rows, rep.Chosen)
	}
	for r, h := range pl {
		name := f.HostName(int(h))
		if !strings.HasSuffix(name, "mlx5_"+string(rune('0'+r%2))) || name[:6] != f.HostName(int(pl[r-r%2]))[:6] {
			t.Fatalf("rank %d on %s: placement %v", r, name, pl)
		}
	}
	names := make([]string, len(np.Hosts))
	for i, h := range np.Hosts {
		names[i] = np.Layout.Nodes[np.Layout.NodeOf(h)].Name
	}
	leaves, _ := np.PlaceNodes("leaves")
	var b bytes.Buffer
	if err := WriteSlurmHostfile(&b, np.Placement(leaves), np.HostNames(names)); err != nil {
		t.Fatal(err)
	}
	if b.String() != "node01\nnode01\nnode02\nnode02\nnode03\nnode03\nnode04\nnode04\n" {
		t.Errorf("Slurm host file:\n%s", b.String())
	}
	b.Reset()
	if err := rep.Write(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "verdict: the search node order gives nccl_ring_allreduce on 4 nodes × 2 GPUs 50.0% of the bus bandwidth under this routing (the allocation's order: 25.0%); 2.00× faster steps") {
		t.Errorf("report:\n%s", b.String())
	}
	if _, _, err := np.RunNodes(Options{Strategy: "greedy"}); err == nil || !strings.Contains(err.Error(), "placed by node") {
		t.Errorf("greedy: %v", err)
	}
}

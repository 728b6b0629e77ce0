package nodes

import (
	"testing"

	"orcs/lft"
)

// TestFromFabric: hosts grouped by the first word of their names, nodes
// in natural order (node2 before node10), rails in natural order of the
// HCA names, a service node of one HCA padded with -1.
func TestFromFabric(t *testing.T) {
	b := lft.NewBuilder()
	sw := b.Node("S", lft.Switch)
	for _, name := range []string{"node10 mlx5_1", "node2 mlx5_10", "node2 mlx5_2", "node10 mlx5_0", "login 1"} {
		h := b.Node(name, lft.Host)
		b.Route(b.Link(h, sw, 1, 0), lft.AnyDest)
		b.Route(b.Link(sw, h, 0, 1), b.Dest(name))
	}
	f, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	l, err := FromFabric(f)
	if err != nil {
		t.Fatal(err)
	}
	host := func(name string) int32 { v, _ := f.NodeByName(name); return f.HostIndex(v) }
	want := []Node{
		{"login", []int32{host("login 1"), -1}},
		{"node2", []int32{host("node2 mlx5_2"), host("node2 mlx5_10")}},
		{"node10", []int32{host("node10 mlx5_0"), host("node10 mlx5_1")}},
	}
	if l.Rails != 2 || len(l.Nodes) != 3 {
		t.Fatalf("%d rails, nodes %+v", l.Rails, l.Nodes)
	}
	for i, n := range want {
		g := l.Nodes[i]
		if g.Name != n.Name || g.HCAs[0] != n.HCAs[0] || g.HCAs[1] != n.HCAs[1] {
			t.Errorf("node %d: %+v, want %+v", i, g, n)
		}
	}
	if k, ok := l.Lookup("node10"); !ok || k != 2 || l.NodeOf(host("node2 mlx5_10")) != 1 {
		t.Errorf("Lookup node10: %d %v; NodeOf", k, ok)
	}
	if s := l.Summary(); s != "2 nodes × 2 HCAs, 1 node × 1 HCA" {
		t.Errorf("Summary %q", s)
	}
}

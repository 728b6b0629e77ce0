package nodes

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"orcs/dot"
	"orcs/gen"
	"orcs/lft"
)

func TestSplit(t *testing.T) {
	for _, tt := range []struct{ in, machine, hca string }{
		{"dgx017 mlx5_3", "dgx017", "mlx5_3"},
		{"dgx017\tmlx5_3", "dgx017", "mlx5_3"},
		{"H-dgx017_mlx5_3", "dgx017", "mlx5_3"},
		{"H-dgx017 mlx5_3", "dgx017", "mlx5_3"},
		{"H-node003:2", "node003", "2"},
		{"H0002c903000a1b2c:2", "H0002c903000a1b2c", "2"},
		{"H17", "H17", ""},
		{"H-login01", "login01", ""},
		{"gpu-a-12 HCA-1", "gpu-a-12", "HCA-1"},
	} {
		m, h := Split(tt.in)
		if m != tt.machine || h != tt.hca {
			t.Errorf("Split(%q) = %q, %q; want %q, %q", tt.in, m, h, tt.machine, tt.hca)
		}
	}
}

func TestNaturalCompare(t *testing.T) {
	in := []string{"dgx10", "dgx2", "dgx1", "svc01", "dgx002", "dgx", "a10b2", "a10b10", "a9"}
	slices.SortFunc(in, NaturalCompare)
	want := []string{"a9", "a10b2", "a10b10", "dgx", "dgx1", "dgx002", "dgx2", "dgx10", "svc01"}
	if !slices.Equal(in, want) {
		t.Errorf("sorted %v, want %v", in, want)
	}
}

func layoutOf(t *testing.T, f *lft.Fabric) *Layout {
	t.Helper()
	l, err := FromFabric(f)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestFromGen checks a generated rail fabric, derived by hand: 2 units of
// 2 slots × 2 rails with one service node in the last slot: dgx001 and
// dgx002 in unit 0 (leaves S0_0, S0_1), dgx003 in unit 1, svc01 on rail 0
// of unit 1's slot 1.
func TestFromGen(t *testing.T) {
	f, err := gen.Generate("rail:units=2,nodes=2,rails=2,service=1")
	if err != nil {
		t.Fatal(err)
	}
	l := layoutOf(t, f)
	var got []string
	for _, n := range l.Nodes {
		var hcas []string
		for _, h := range n.HCAs {
			hcas = append(hcas, f.HostName(int(h)))
		}
		got = append(got, n.Name+"="+strings.Join(hcas, ","))
	}
	want := []string{
		"dgx001=H-dgx001_mlx5_0,H-dgx001_mlx5_1",
		"dgx002=H-dgx002_mlx5_0,H-dgx002_mlx5_1",
		"dgx003=H-dgx003_mlx5_0,H-dgx003_mlx5_1",
		"svc01=H-svc01_mlx5_0",
	}
	if !slices.Equal(got, want) {
		t.Errorf("nodes\n got %v\nwant %v", got, want)
	}
	if l.Rails != 2 || l.Summary() != "3 nodes × 2 HCAs, 1 node × 1 HCA" {
		t.Errorf("Rails %d, Summary %q", l.Rails, l.Summary())
	}
	for h := range f.NumHosts() {
		n := l.NodeOf(int32(h))
		if n < 0 || !slices.Contains(l.Nodes[n].HCAs, int32(h)) || l.Nodes[n].HCAs[l.RailOf(int32(h))] != int32(h) {
			t.Errorf("host %d: node %d rail %d", h, n, l.RailOf(int32(h)))
		}
	}
	if l.NodeOf(-1) != -1 || l.NodeOf(int32(f.NumHosts())) != -1 {
		t.Error("NodeOf out of range is not -1")
	}
	if i, ok := l.Lookup("dgx003"); !ok || i != 2 {
		t.Errorf("Lookup(dgx003) = %d, %v", i, ok)
	}
	if _, ok := l.Lookup("dgx004"); ok {
		t.Error("Lookup(dgx004) found a node")
	}
	if w := l.CheckRails(f); w != nil {
		t.Errorf("CheckRails on a correct fabric: %v", w)
	}
}

func TestSuperPODSummary(t *testing.T) {
	for spec, want := range map[string]string{
		"superpod-h100:su=1": "31 nodes × 8 HCAs, 4 nodes × 1 HCA",
		"superpod-h100":      "127 nodes × 8 HCAs, 4 nodes × 1 HCA",
		"superpod-a100:su=2": "40 nodes × 8 HCAs",
	} {
		f, err := gen.Generate(spec)
		if err != nil {
			t.Fatal(err)
		}
		l := layoutOf(t, f)
		if got := l.Summary(); got != want {
			t.Errorf("%s: %q, want %q", spec, got, want)
		}
		if w := l.CheckRails(f); w != nil {
			t.Errorf("%s: CheckRails: %v", spec, w)
		}
	}
}

// TestCheckRails swaps the names of two HCAs of dgx002 in a generated
// fabric's dot: mlx5_0 now sits on rail 1's leaf and mlx5_1 on rail 0's.
func TestCheckRails(t *testing.T) {
	f, err := gen.Generate("rail:units=1,nodes=4,rails=2")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := dot.Write(&buf, f, dot.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	text := strings.NewReplacer("H-dgx002_mlx5_0", "H-dgx002_mlx5_1", "H-dgx002_mlx5_1", "H-dgx002_mlx5_0").Replace(buf.String())
	g, err := dot.Read([]byte(text), "swapped.dot", dot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := layoutOf(t, g).CheckRails(g)
	want := []string{
		"dgx002 HCA mlx5_1 (rail 1) is cabled to leaf S0_0, whose other HCAs are of rail 0",
		"dgx002 HCA mlx5_0 (rail 0) is cabled to leaf S0_1, whose other HCAs are of rail 1",
	}
	if !slices.Equal(w, want) {
		t.Errorf("CheckRails\n got %q\nwant %q", w, want)
	}
	// A fat tree whose nodes have both HCAs on one leaf is no rail fabric.
	k, err := gen.Generate("kary:k=2,n=2")
	if err != nil {
		t.Fatal(err)
	}
	if w := layoutOf(t, k).CheckRails(k); w != nil {
		t.Errorf("kary: %v", w)
	}
}

// TestRailNumbers: mlx5_N gives rail N, a missing number leaves -1; names
// without numbers are ordered by name.
func TestRailNumbers(t *testing.T) {
	b := lft.NewBuilder()
	sw := b.Node("S1", lft.Switch)
	for i, name := range []string{"n1 mlx5_2", "n1 mlx5_0", "n2 ib_b", "n2 ib_a", "n10 x"} {
		h := b.Node("H"+string(rune('a'+i)), lft.Host)
		b.SetNodeInfo(h, uint64(i+1), name)
		b.Route(b.Link(h, sw, 1, i+1), lft.AnyDest)
		b.Link(sw, h, i+1, 1)
	}
	for i := range 5 {
		b.Route(int32(2*i+1), b.Dest("H"+string(rune('a'+i))))
	}
	f, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	l := layoutOf(t, f)
	if len(l.Nodes) != 3 || l.Nodes[0].Name != "n1" || l.Nodes[1].Name != "n2" || l.Nodes[2].Name != "n10" {
		t.Fatalf("nodes %+v", l.Nodes)
	}
	if got := l.Nodes[0].HCAs; !slices.Equal(got, []int32{1, -1, 0}) {
		t.Errorf("n1 HCAs %v, want [1 -1 0]", got)
	}
	if got := l.Nodes[1].HCAs; !slices.Equal(got, []int32{3, 2}) {
		t.Errorf("n2 HCAs %v, want [3 2]", got)
	}
	if l.Rails != 3 || l.Summary() != "2 nodes × 2 HCAs, 1 node × 1 HCA" {
		t.Errorf("Rails %d, Summary %q", l.Rails, l.Summary())
	}
}

func TestEmpty(t *testing.T) {
	if _, err := FromFabric(nil); err == nil {
		t.Error("FromFabric(nil) gave no error")
	}
}

// BenchmarkFromFabric groups the 1 020 HCAs of a 4-unit DGX H100
// SuperPOD and checks its rails.
func BenchmarkFromFabric(b *testing.B) {
	f, err := gen.Generate("superpod-h100")
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		l, err := FromFabric(f)
		if err != nil {
			b.Fatal(err)
		}
		if l.CheckRails(f) != nil {
			b.Fatal("rails")
		}
	}
}

package gen

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"orcs/dot"
	"orcs/lft"
)

// specs are the fabrics every generic property is checked on.
var specs = []string{
	"kary:k=2,n=1",
	"kary:k=4,n=1",
	"kary:k=2,n=2",
	"kary:k=4,n=2",
	"kary:k=2,n=5",
	"kary:k=3,n=3",
	"kary:k=4,n=3",
	"kary:k=5,n=2",
	"kary:k=3,n=4",
	"fattree2:leaves=1,hosts=3",
	"fattree2:leaves=4,hosts=4",
	"fattree2:leaves=6,hosts=4,up=2",
	"fattree2:leaves=5,hosts=3,up=6,spines=4",
	"fattree2:leaves=5,hosts=4,up=7,spines=3",
	"fattree2:leaves=7,hosts=5,up=3,spines=1",
	"fattree2:leaves=3,hosts=2,up=5,spines=5",
	"torus:dims=2",
	"torus:dims=5",
	"torus:dims=4x4",
	"torus:dims=2x3",
	"torus:dims=3x4x2,hosts=2",
	"torus:dims=5x3,hosts=3",
	"torus:dims=2x2x2x2",
	"mesh:dims=2",
	"mesh:dims=6",
	"mesh:dims=4x4",
	"mesh:dims=3x4x2,hosts=2",
	"mesh:dims=5x2,hosts=3",
	"fattree3:pods=1,leaves=1,hosts=1",
	"fattree3:pods=2,leaves=3,hosts=2",
	"fattree3:pods=3,leaves=2,hosts=4,up=2,mup=1",
	"fattree3:pods=2,leaves=2,hosts=2,up=3,mup=3",
	"fattree3:pods=3,leaves=2,hosts=2,up=4,mup=2,rep=2",
	"fattree3:pods=3,leaves=2,hosts=2,up=4,mup=2,lmul=2",
	"fattree3:pods=2,leaves=3,hosts=3,up=6,mup=2,rep=3,lmul=2",
	"rail:nodes=1,rails=1",
	"rail:units=2,nodes=4,rails=4",
	"rail:units=2,nodes=4,rails=2,up=2,spines=1",
	"rail:units=3,nodes=4,rails=2,service=3",
	"rail:units=2,nodes=4,rails=4,up=4,spines=2,cores=8",
	"rail:units=3,nodes=2,rails=2,up=2,spines=2,cores=2,sup=2,service=1",
	"rail:units=2,nodes=3,rails=3,up=3,spines=3,cores=3,sup=3",
	"superpod-h100:su=1",
	"superpod-a100:su=1",
}

func build(t testing.TB, spec string) *Network {
	t.Helper()
	s, err := Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func allHosts(f *lft.Fabric) []int32 {
	hosts := make([]int32, f.NumHosts())
	for i := range hosts {
		hosts[i] = int32(i)
	}
	return hosts
}

// bfs returns the hop distance from node src to every node (-1: unreachable).
func bfs(f *lft.Fabric, src int32) []int {
	dist := make([]int, len(f.Nodes))
	for i := range dist {
		dist[i] = -1
	}
	dist[src] = 0
	queue := []int32{src}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, l := range f.OutLinks(v) {
			if w := f.Links[l].To; dist[w] < 0 {
				dist[w] = dist[v] + 1
				queue = append(queue, w)
			}
		}
	}
	return dist
}

func TestSizeMatchesFabric(t *testing.T) {
	for _, spec := range specs {
		n := build(t, spec)
		f := n.Fabric
		got := Size{Hosts: f.NumHosts(), Switches: f.NumSwitches(), Links: len(f.Links)}
		for _, l := range f.Links {
			if f.SwitchIndex(l.From) >= 0 {
				got.Radix = max(got.Radix, int(l.FromPort))
			}
		}
		want, err := Describe(spec)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: fabric has %v, Describe says %v", spec, got, want)
		}
		if n.Spec.String() != f.GraphName {
			t.Errorf("%s: graph name %q, want %q", spec, f.GraphName, n.Spec)
		}
	}
}

func TestNames(t *testing.T) {
	for _, spec := range specs {
		f := build(t, spec).Fabric
		for v, node := range f.Nodes {
			isHost := f.HostIndex(int32(v)) >= 0
			if isHost != (node.Kind == lft.Host) || isHost != strings.HasPrefix(node.Name, "H") ||
				(!isHost && !strings.HasPrefix(node.Name, "S")) {
				t.Fatalf("%s: node %d %q of kind %v", spec, v, node.Name, node.Kind)
			}
		}
		for h := range f.NumHosts() {
			want := "H" + strconv.Itoa(h)
			if rail := strings.HasPrefix(spec, "rail") || strings.HasPrefix(spec, "superpod"); rail {
				want = f.HostName(h) // named after node and HCA: TestRailNames
			}
			if f.HostName(h) != want || f.HostNode(h) != int32(h) {
				t.Fatalf("%s: host %d is %q, node %d", spec, h, f.HostName(h), f.HostNode(h))
			}
		}
	}
}

// TestCables checks that links come in full-duplex pairs with swapped
// ports, that no port is used twice, that ports start at 1 and stay within
// the radix, and that every host has exactly one link, on port 1.
func TestCables(t *testing.T) {
	type key struct{ from, to, fromPort, toPort int32 }
	for _, spec := range specs {
		n := build(t, spec)
		f := n.Fabric
		radix := int32(n.Spec.Size().Radix)
		links := map[key]int{}
		for _, l := range f.Links {
			links[key{l.From, l.To, l.FromPort, l.ToPort}]++
		}
		outPorts := map[[2]int32]bool{}
		inPorts := map[[2]int32]bool{}
		for i, l := range f.Links {
			if links[key{l.To, l.From, l.ToPort, l.FromPort}] != 1 {
				t.Fatalf("%s: link %s ports %d→%d has no single reverse link", spec, f.LinkName(int32(i)), l.FromPort, l.ToPort)
			}
			// Pairs are adjacent: forward link at an even id, reverse next.
			if i%2 == 0 {
				r := f.Links[i+1]
				if r.From != l.To || r.To != l.From || r.FromPort != l.ToPort || r.ToPort != l.FromPort {
					t.Fatalf("%s: link %d is not followed by its reverse", spec, i)
				}
			}
			for _, end := range [][2]int32{{l.From, l.FromPort}, {l.To, l.ToPort}} {
				limit := radix
				if f.HostIndex(end[0]) >= 0 {
					limit = 1
				}
				if end[1] < 1 || end[1] > limit {
					t.Fatalf("%s: link %s uses port %d of %s; want 1 … %d", spec,
						f.LinkName(int32(i)), end[1], f.Nodes[end[0]].Name, limit)
				}
			}
			if outPorts[[2]int32{l.From, l.FromPort}] || inPorts[[2]int32{l.To, l.ToPort}] {
				t.Fatalf("%s: link %s reuses a port", spec, f.LinkName(int32(i)))
			}
			outPorts[[2]int32{l.From, l.FromPort}] = true
			inPorts[[2]int32{l.To, l.ToPort}] = true
		}
		for h := range f.NumHosts() {
			if out := f.OutLinks(f.HostNode(h)); len(out) != 1 {
				t.Fatalf("%s: host %s has %d links", spec, f.HostName(h), len(out))
			}
		}
	}
}

// TestRoutes checks that the tables are complete (every switch has an
// entry for every host), that every ordered host pair routes, and that
// every route is as short as the shortest path in the graph.
func TestRoutes(t *testing.T) {
	for _, spec := range specs {
		f := build(t, spec).Fabric
		H := f.NumHosts()
		for s := range f.NumSwitches() {
			for d := range H {
				if f.NextHop(0, f.SwitchNode(s), int32(d)) < 0 {
					t.Fatalf("%s: switch %s has no entry for %s", spec, f.Nodes[f.SwitchNode(s)].Name, f.HostName(d))
				}
			}
		}
		if c := f.CheckRoutes(allHosts(f), 3, 2); !c.OK() || c.Pairs != int64(H*(H-1)) {
			t.Fatalf("%s: CheckRoutes: %d pairs, %d unroutable, %d loops; e.g. %v", spec, c.Pairs, c.Unroutable, c.Loops, c.Examples)
		}
		var buf []int32
		for src := range H {
			dist := bfs(f, f.HostNode(src))
			for dst := range H {
				var st lft.RouteStatus
				buf, st = f.AppendRoute(buf[:0], int32(src), int32(dst))
				if st != lft.RouteOK {
					t.Fatalf("%s: route %d→%d: status %v", spec, src, dst, st)
				}
				if want := dist[f.HostNode(dst)]; len(buf) != want {
					t.Fatalf("%s: route %s→%s has %d hops, shortest path %d", spec, f.HostName(src), f.HostName(dst), len(buf), want)
				}
			}
		}
	}
}

// loads walks the route of every pair and counts the routes on each link.
func loads(t testing.TB, f *lft.Fabric, pairs [][2]int32) []int {
	load := make([]int, len(f.Links))
	var buf []int32
	for _, p := range pairs {
		var st lft.RouteStatus
		buf, st = f.AppendRoute(buf[:0], p[0], p[1])
		if st != lft.RouteOK {
			t.Fatalf("route %d→%d: status %v", p[0], p[1], st)
		}
		for _, l := range buf {
			load[l]++
		}
	}
	return load
}

func shift(n, s int) [][2]int32 {
	pairs := make([][2]int32, n)
	for i := range pairs {
		pairs[i] = [2]int32{int32(i), int32((i + s) % n)}
	}
	return pairs
}

// TestKaryDModK checks the d-mod-k rule itself: below the lowest common
// ancestor a switch of level l sends traffic for host d up on port
// k+1+(⌊d/k^l⌋ mod k), and towards its own subtree down.
func TestKaryDModK(t *testing.T) {
	for _, kn := range [][2]int{{2, 4}, {3, 3}, {4, 3}, {5, 2}} {
		k, n := kn[0], kn[1]
		net := build(t, fmt.Sprintf("kary:k=%d,n=%d", k, n))
		f := net.Fabric
		if net.Tree.Levels != n {
			t.Fatalf("k=%d n=%d: %d levels", k, n, net.Tree.Levels)
		}
		for l := range n {
			for _, v := range net.Tree.Switches(l) {
				for d := range f.NumHosts() {
					link := f.Links[f.NextHop(0, v, int32(d))]
					dl := d / pow(k, l) % k
					up := int(link.FromPort) > k
					if up && int(link.FromPort) != k+1+dl {
						t.Fatalf("k=%d n=%d: %s sends %d up on port %d, want %d", k, n, f.Nodes[v].Name, d, link.FromPort, k+1+dl)
					}
					if !up && int(link.FromPort) != dl+1 {
						t.Fatalf("k=%d n=%d: %s sends %d down on port %d, want %d", k, n, f.Nodes[v].Name, d, link.FromPort, dl+1)
					}
					if up != (net.Tree.Level(link.To) == l+1) || (!up && net.Tree.Level(link.To) != l-1) {
						t.Fatalf("k=%d n=%d: port %d of %s leads to %s", k, n, link.FromPort, f.Nodes[v].Name, f.Nodes[link.To].Name)
					}
				}
			}
		}
	}
}

// TestKaryShift checks Zahavi's result for d-mod-k: every shift
// permutation i → (i+s) mod N is free of congestion, and the shift by
// k^(n-1), whose routes all climb to the top, loads every link exactly once.
func TestKaryShift(t *testing.T) {
	for _, kn := range [][2]int{{2, 4}, {3, 3}, {4, 3}, {5, 2}, {2, 1}} {
		k, n := kn[0], kn[1]
		f := build(t, fmt.Sprintf("kary:k=%d,n=%d", k, n)).Fabric
		N := f.NumHosts()
		for s := 1; s < N; s++ {
			load := loads(t, f, shift(N, s))
			if m := slices.Max(load); m > 1 {
				t.Fatalf("k=%d n=%d shift %d: a link carries %d routes", k, n, s, m)
			}
		}
		for l, c := range loads(t, f, shift(N, pow(k, n-1))) {
			if c != 1 {
				t.Fatalf("k=%d n=%d shift k^(n-1): link %s carries %d routes, want 1", k, n, f.LinkName(int32(l)), c)
			}
		}
	}
}

// TestFatTree2Shift checks that the up-links spread the destinations
// evenly: the shift by one leaf (every host sends to the same position on
// the next leaf) loads every used leaf–spine link with ⌈hosts/up⌉ routes
// at most, and exactly once without taper.
func TestFatTree2Shift(t *testing.T) {
	for _, spec := range []string{
		"fattree2:leaves=4,hosts=4",
		"fattree2:leaves=6,hosts=4,up=2",
		"fattree2:leaves=5,hosts=6,up=4,spines=2",
		"fattree2:leaves=5,hosts=3,up=6,spines=4",
		"fattree2:leaves=3,hosts=8,up=8,spines=3",
	} {
		net := build(t, spec)
		f, s := net.Fabric, net.Spec
		h, up := s.num("hosts"), s.num("up")
		want := (h + up - 1) / up
		load := loads(t, f, shift(f.NumHosts(), h))
		if m := slices.Max(load); m != want {
			t.Errorf("%s: shift by one leaf: most loaded link carries %d routes, want %d", spec, m, want)
		}
		if h == up {
			for l, c := range load {
				if c != 1 {
					t.Errorf("%s: link %s carries %d routes, want 1", spec, f.LinkName(int32(l)), c)
				}
			}
		}
		// All shifts are congestion-free without taper.
		for sh := 1; h == up && sh < f.NumHosts(); sh++ {
			if m := slices.Max(loads(t, f, shift(f.NumHosts(), sh))); m > 1 {
				t.Errorf("%s: shift %d: a link carries %d routes", spec, sh, m)
			}
		}
	}
}

func TestFatTree2Ports(t *testing.T) {
	net := build(t, "fattree2:leaves=3,hosts=2,up=5,spines=2")
	f := net.Fabric
	// Leaf up-link t (port hosts+1+t) goes to spine t mod 2.
	for _, v := range net.Tree.Switches(0) {
		for _, l := range f.OutLinks(v) {
			k := f.Links[l]
			if k.FromPort <= 2 {
				continue
			}
			tt := int(k.FromPort) - 3
			if want := fmt.Sprintf("S1_%d", tt%2); f.Nodes[k.To].Name != want {
				t.Errorf("%s up-link %d goes to %s, want %s", f.Nodes[v].Name, tt, f.Nodes[k.To].Name, want)
			}
		}
	}
	if got, want := len(f.OutLinks(net.Tree.Roots()[0])), 9; got != want {
		t.Errorf("spine 0 has %d links, want %d", got, want)
	}
	if got, want := len(f.OutLinks(net.Tree.Roots()[1])), 6; got != want {
		t.Errorf("spine 1 has %d links, want %d", got, want)
	}
}

func TestTree(t *testing.T) {
	net := build(t, "kary:k=3,n=3")
	tr := net.Tree
	if got := tr.Level(0); got != -1 {
		t.Errorf("Level(host) = %d", got)
	}
	for l := range 3 {
		for _, v := range tr.Switches(l) {
			name := net.Fabric.Nodes[v].Name
			if tr.Level(v) != l || !strings.HasPrefix(name, fmt.Sprintf("S%d_", l)) {
				t.Errorf("switch %s: level %d, want %d", name, tr.Level(v), l)
			}
		}
		if len(tr.Switches(l)) != 9 {
			t.Errorf("level %d has %d switches", l, len(tr.Switches(l)))
		}
	}
	if roots := tr.Roots(); len(roots) != 9 || net.Fabric.Nodes[roots[0]].Name != "S2_0" {
		t.Errorf("Roots() = %v", roots)
	}
	if net.Grid != nil {
		t.Error("tree has a Grid")
	}
}

// torusDistance is the switch-to-switch hop count between a and b.
func torusDistance(g *Grid, a, b []int) int {
	hops := 0
	for i, d := range g.Dims {
		x := (b[i] - a[i] + d) % d
		if g.Torus {
			x = min(x, d-x)
		} else {
			x = max(b[i]-a[i], a[i]-b[i])
		}
		hops += x
	}
	return hops
}

// TestGridDOR checks dimension-order routing: the switch hops of every
// route equal the (torus) Manhattan distance, the route finishes one
// dimension before it starts the next, x first, it keeps one direction in
// a dimension, and on a torus it goes the positive way when both ways are
// equally long.
func TestGridDOR(t *testing.T) {
	for _, spec := range specs {
		net := build(t, spec)
		g, f := net.Grid, net.Fabric
		if g == nil {
			continue
		}
		var buf []int32
		for src := range f.NumHosts() {
			for dst := range f.NumHosts() {
				buf, _ = f.AppendRoute(buf[:0], int32(src), int32(dst))
				if src == dst {
					continue
				}
				a, b := g.Coord(int32(src)), g.Coord(int32(dst))
				if want := torusDistance(g, a, b) + 2; len(buf) != want {
					t.Fatalf("%s: route %d→%d (%v→%v) has %d hops, want %d", spec, src, dst, a, b, len(buf), want)
				}
				lastDim, lastDir := -1, 0
				for _, l := range buf[1 : len(buf)-1] {
					from, to := g.Coord(f.Links[l].From), g.Coord(f.Links[l].To)
					dim := -1
					for i := range from {
						if from[i] != to[i] {
							dim = i
						}
					}
					positive := int(f.Links[l].FromPort) == g.Port(dim, true)
					dir := -1
					if positive {
						dir = 1
					}
					if d := g.Dims[dim]; to[dim] != (from[dim]+dir+d)%d {
						t.Fatalf("%s: link %s on port %d is not the %+d link of dimension %d", spec, f.LinkName(l), f.Links[l].FromPort, dir, dim)
					}
					if dim < lastDim || (dim == lastDim && dir != lastDir) {
						t.Fatalf("%s: route %v→%v is not in dimension order", spec, a, b)
					}
					if d := g.Dims[dim]; g.Torus && !positive && 2*((b[dim]-a[dim]+d)%d) == d {
						t.Fatalf("%s: route %v→%v takes the negative way on a tie", spec, a, b)
					}
					lastDim, lastDir = dim, dir
				}
			}
		}
	}
}

func TestGridCoords(t *testing.T) {
	net := build(t, "torus:dims=4x3x2,hosts=2")
	g, f := net.Grid, net.Fabric
	if g.NumSwitches() != 24 || !g.Torus || g.HostsPerSwitch != 2 || !slices.Equal(g.Dims, []int{4, 3, 2}) {
		t.Fatalf("grid = %+v", g)
	}
	for s := range f.NumSwitches() {
		v := f.SwitchNode(s)
		c := g.Coord(v)
		want := fmt.Sprintf("S%d_%d_%d", c[0], c[1], c[2])
		if f.Nodes[v].Name != want || g.Switch(c) != v {
			t.Errorf("switch %s: Coord %v, name %s, Switch(Coord) = %d", f.Nodes[v].Name, c, want, g.Switch(c))
		}
	}
	if got := g.Coord(f.HostNode(13)); !slices.Equal(got, []int{2, 1, 0}) {
		t.Errorf("Coord(H13) = %v, want [2 1 0]", got)
	}
	if g.Switch([]int{4, 0, 0}) != -1 || g.Switch([]int{0, 0}) != -1 || g.Switch([]int{0, -1, 0}) != -1 {
		t.Error("Switch accepts coordinates outside the grid")
	}
	// The x+ port of S3_0_1 wraps around to S0_0_1, arriving on its x- port.
	v := g.Switch([]int{3, 0, 1})
	for _, l := range f.OutLinks(v) {
		if k := f.Links[l]; int(k.FromPort) == g.Port(0, true) {
			if f.Nodes[k.To].Name != "S0_0_1" || int(k.ToPort) != g.Port(0, false) {
				t.Errorf("x+ link of S3_0_1 = %s ports %d→%d", f.LinkName(l), k.FromPort, k.ToPort)
			}
		}
	}
	if g.Port(0, true) != 3 || g.Port(2, false) != 8 {
		t.Errorf("ports: x+ %d, z- %d", g.Port(0, true), g.Port(2, false))
	}
	// A mesh border switch lacks the links that would leave the mesh.
	if n := len(f.OutLinks(v)); n != 8 {
		t.Errorf("torus switch has %d links, want 8", n)
	}
	mesh := build(t, "mesh:dims=3x3")
	if mesh.Grid.Torus {
		t.Error("mesh has wrap-around")
	}
	for c, want := range map[[2]int]int{{0, 0}: 3, {1, 0}: 4, {2, 2}: 3, {1, 1}: 5} {
		if n := len(mesh.Fabric.OutLinks(mesh.Grid.Switch(c[:]))); n != want {
			t.Errorf("mesh switch %v has %d links, want %d", c, n, want)
		}
	}
}

// TestRoundTrip writes every fabric as dot and reads it back: the nodes,
// the host order, the links and every table entry must be the same.
func TestRoundTrip(t *testing.T) {
	for _, spec := range specs {
		f := build(t, spec).Fabric
		var buf bytes.Buffer
		if err := dot.Write(&buf, f, dot.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		g, err := dot.Read(buf.Bytes(), spec, dot.Options{})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if g.GraphName != f.GraphName || len(g.Nodes) != len(f.Nodes) || len(g.Links) != len(f.Links) ||
			g.NumHosts() != f.NumHosts() {
			t.Fatalf("%s: read back %q with %d nodes, %d links, %d hosts", spec, g.GraphName, len(g.Nodes), len(g.Links), g.NumHosts())
		}
		for v := range f.Nodes {
			if g.Nodes[v].Name != f.Nodes[v].Name || g.Nodes[v].Kind != f.Nodes[v].Kind {
				t.Fatalf("%s: node %d is %v, want %v", spec, v, g.Nodes[v], f.Nodes[v])
			}
		}
		for h := range f.NumHosts() {
			if g.HostName(h) != f.HostName(h) {
				t.Fatalf("%s: host %d is %s, want %s", spec, h, g.HostName(h), f.HostName(h))
			}
		}
		for l := range f.Links {
			if g.Links[l].From != f.Links[l].From || g.Links[l].To != f.Links[l].To {
				t.Fatalf("%s: link %d is %s, want %s", spec, l, g.LinkName(int32(l)), f.LinkName(int32(l)))
			}
		}
		for v := range f.Nodes {
			for d := range f.NumHosts() {
				if a, b := f.NextHop(0, int32(v), int32(d)), g.NextHop(0, int32(v), int32(d)); a != b {
					t.Fatalf("%s: NextHop(%s, %s) = %d, read back %d", spec, f.Nodes[v].Name, f.HostName(d), a, b)
				}
			}
		}
	}
}

// TestLarge builds the 4096-host 16-ary 3-tree and checks its routes.
func TestLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large fabric")
	}
	f := build(t, "kary:k=16,n=3").Fabric
	if f.NumHosts() != 4096 || f.NumSwitches() != 768 {
		t.Fatalf("16-ary 3-tree has %d hosts, %d switches", f.NumHosts(), f.NumSwitches())
	}
	if c := f.CheckRoutes(allHosts(f), 3, 2); !c.OK() {
		t.Fatalf("CheckRoutes: %d unroutable, %d loops", c.Unroutable, c.Loops)
	}
	// Routes between hosts of one leaf, one pod, and different pods are 2,
	// 4 and 6 hops long.
	for _, tt := range [][3]int{{0, 15, 2}, {0, 16, 4}, {0, 255, 4}, {0, 256, 6}, {4095, 0, 6}} {
		route, _ := f.AppendRoute(nil, int32(tt[0]), int32(tt[1]))
		if len(route) != tt[2] {
			t.Errorf("route %d→%d has %d hops, want %d", tt[0], tt[1], len(route), tt[2])
		}
	}
}

func BenchmarkGenerateKary16x3(b *testing.B) {
	s, err := Parse("kary:k=16,n=3")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.Build(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteDotKary16x3(b *testing.B) {
	f := build(b, "kary:k=16,n=3").Fabric
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := dot.Write(&buf, f, dot.WriteOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}

func ExampleDescribe() {
	size, err := Describe("kary:k=16,n=3")
	if err != nil {
		panic(err)
	}
	fmt.Println(size)
	// Output: 4096 hosts, 768 switches, 24576 links (12288 cables), radix 32
}

func ExampleGenerate() {
	f, err := Generate("torus:dims=4x4")
	if err != nil {
		panic(err)
	}
	route, _ := f.AppendRoute(nil, 0, 10) // H0 at (0,0) to H10 at (2,2)
	for _, l := range route {
		fmt.Println(f.LinkName(l))
	}
	// Output:
	// "H0" -> "S0_0"
	// "S0_0" -> "S1_0"
	// "S1_0" -> "S2_0"
	// "S2_0" -> "S2_1"
	// "S2_1" -> "S2_2"
	// "S2_2" -> "H10"
}

// Every generator names the routing it builds (the report shows it).
func TestRoutingNamed(t *testing.T) {
	want := map[string]string{"kary:k=2,n=2": "d-mod-k", "torus:dims=3x3": "dimension order", "mesh:dims=2x2": "dimension order",
		"dragonfly:a=2,h=1,p=1": "minimal", "fattree2:leaves=2,hosts=2,up=1": "d-mod-k-like"}
	for _, name := range Names() {
		topo, _ := topologies.Lookup(name)
		if topo.routing == "" {
			t.Errorf("%s names no routing", name)
		}
	}
	for spec, routing := range want {
		s, err := Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		n, err := s.Build()
		if err != nil {
			t.Fatal(err)
		}
		if n.Routing() != routing {
			t.Errorf("%s: routing %q, want %q", spec, n.Routing(), routing)
		}
	}
}

// TestRailBalanced checks the d-mod-k spread of the rail fabrics: every
// switch sends the destinations that routes bring to it evenly over its
// up-links (counts differ by at most one), and the hosts are named after
// node and rail, HCA k of a node on the leaf of rail k of its unit.
func TestRailBalanced(t *testing.T) {
	// Fabrics without empty ports: a slot whose rails are not all taken
	// (superpod-h100's UFM slot) leaves its up-link index fewer
	// destinations, as d-mod-k does for any missing host.
	for _, spec := range []string{"rail:units=2,nodes=4,rails=4", "rail:units=3,nodes=4,rails=2,service=2",
		"rail:units=3,nodes=4,rails=2,up=4,spines=2,cores=4", "rail:units=1,nodes=32,rails=8,up=32,spines=4", "superpod-a100:su=2"} {
		n := build(t, spec)
		f := n.Fabric
		// reach[v][d]: some route to d passes through v.
		reach := make([]map[int32]bool, len(f.Nodes))
		var buf []int32
		for src := range f.NumHosts() {
			for d := range f.NumHosts() {
				buf, _ = f.AppendRoute(buf[:0], int32(src), int32(d))
				for _, l := range buf {
					v := f.Links[l].From
					if reach[v] == nil {
						reach[v] = map[int32]bool{}
					}
					reach[v][int32(d)] = true
				}
			}
		}
		for s := range f.NumSwitches() {
			v := f.SwitchNode(s)
			level := n.Tree.Level(v)
			if level == n.Tree.Levels-1 {
				continue
			}
			count := map[int32]int{}
			for _, l := range f.OutLinks(v) {
				if n.Tree.Level(f.Links[l].To) > level {
					count[l] = 0
				}
			}
			for d := range reach[v] {
				l := f.NextHop(0, v, d)
				if _, up := count[l]; up {
					count[l]++
				}
			}
			lo, hi := 1<<30, 0
			for _, c := range count {
				lo, hi = min(lo, c), max(hi, c)
			}
			if hi-lo > 1 {
				t.Errorf("%s: switch %s spreads its up traffic %d to %d destinations per up-link", spec, f.Nodes[v].Name, lo, hi)
			}
		}
	}
	f := build(t, "rail:units=2,nodes=2,rails=2,service=1").Fabric
	var got []string
	for h := range f.NumHosts() {
		leaf := f.Links[f.OutLinks(f.HostNode(h))[0]]
		got = append(got, fmt.Sprintf("%s@%s:%d", f.HostName(h), f.Nodes[leaf.To].Name, leaf.ToPort))
	}
	want := "H-dgx001_mlx5_0@S0_0:1 H-dgx001_mlx5_1@S0_1:1 H-dgx002_mlx5_0@S0_0:2 H-dgx002_mlx5_1@S0_1:2 " +
		"H-dgx003_mlx5_0@S0_2:1 H-dgx003_mlx5_1@S0_3:1 H-svc01_mlx5_0@S0_2:2"
	if strings.Join(got, " ") != want {
		t.Errorf("hosts\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}

// TestRailOnly: in a rail-only fabric (2 units × 4 slots × 2 rails, 4
// spines: S1_0, S1_1 for rail 0, S1_2, S1_3 for rail 1) HCAs of one rail
// reach each other over their rail's spines only, in the fewest hops, and
// HCAs of different rails have no route.
func TestRailOnly(t *testing.T) {
	spec := "rail:units=2,nodes=4,rails=2,spines=4,railonly=1"
	n := build(t, spec)
	f := n.Fabric
	want, err := Describe(spec)
	if err != nil {
		t.Fatal(err)
	}
	got := Size{Hosts: f.NumHosts(), Switches: f.NumSwitches(), Links: len(f.Links)}
	for _, l := range f.Links {
		if f.SwitchIndex(l.From) >= 0 {
			got.Radix = max(got.Radix, int(l.FromPort))
		}
	}
	if got != want {
		t.Errorf("fabric has %v, Describe says %v", got, want)
	}
	var buf []int32
	routed := 0
	for src := range f.NumHosts() {
		dist := bfs(f, f.HostNode(src))
		for dst := range f.NumHosts() {
			if src == dst {
				continue
			}
			var st lft.RouteStatus
			buf, st = f.AppendRoute(buf[:0], int32(src), int32(dst))
			sameRail := src%2 == dst%2 // hosts go node by node, rail 0 then rail 1
			if sameRail != (st == lft.RouteOK) {
				t.Fatalf("%s → %s: status %v", f.HostName(src), f.HostName(dst), st)
			}
			if !sameRail {
				continue
			}
			routed++
			if len(buf) != dist[f.HostNode(dst)] {
				t.Fatalf("%s → %s: %d hops, shortest %d", f.HostName(src), f.HostName(dst), len(buf), dist[f.HostNode(dst)])
			}
			for _, l := range buf {
				if v := f.Links[l].To; f.Nodes[v].Name == "S1_"+strconv.Itoa(2-2*(src%2)) || f.Nodes[v].Name == "S1_"+strconv.Itoa(3-2*(src%2)) {
					t.Fatalf("%s → %s crosses the other rail's spine %s", f.HostName(src), f.HostName(dst), f.Nodes[v].Name)
				}
			}
		}
	}
	if routed != 2*8*7 {
		t.Errorf("%d routed pairs, want 112", routed)
	}
	// The tables themselves hold no route across rails: spine S1_i (rail
	// i/2) and leaf S0_e (rail e mod 2) have entries for their rail only.
	for s := range f.NumSwitches() {
		v := f.SwitchNode(s)
		name := f.Nodes[v].Name
		num, _ := strconv.Atoi(name[3:])
		rail := num % 2
		if strings.HasPrefix(name, "S1_") {
			rail = num / 2
		}
		for d := range f.NumHosts() {
			if has := f.NextHop(0, v, int32(d)) >= 0; has != (d%2 == rail) {
				t.Errorf("%s (rail %d) has an entry for %s: %v", name, rail, f.HostName(d), has)
			}
		}
	}
	for _, bad := range []string{"rail:units=1,nodes=2,rails=2,spines=3,railonly=1", "rail:units=1,nodes=2,rails=2,spines=2,cores=2,railonly=1", "rail:nodes=2,railonly=2"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

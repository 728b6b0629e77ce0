package lft_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"orcs/lft"
)

// cable adds the two directed links of a cable between x and y and returns
// them (x→y, y→x).
func cable(b *lft.Builder, x, y int32) (int32, int32) {
	return b.Link(x, y, 0, 0), b.Link(y, x, 0, 0)
}

func mustBuild(t *testing.T, b *lft.Builder) *lft.Fabric {
	t.Helper()
	f, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// node returns the id of the named node.
func node(t *testing.T, f *lft.Fabric, name string) int32 {
	t.Helper()
	v, ok := f.NodeByName(name)
	if !ok {
		t.Fatalf("no node %s", name)
	}
	return v
}

// linkNames describes a route as "A->B B->C …".
func linkNames(f *lft.Fabric, route []int32) string {
	s := make([]string, len(route))
	for i, l := range route {
		s[i] = f.Nodes[f.Links[l].From].Name + "->" + f.Nodes[f.Links[l].To].Name
	}
	return strings.Join(s, " ")
}

// randomTree builds a random tree of 1 … 8 switches with 2 … 12 hosts
// hung on random switches, routed on the unique (shortest) paths. Table
// entries are added in random order, one destination at a time or as
// comment lists, followed by decoy wildcard entries that must not win.
// It returns the fabric and, for every host pair, the tree distance in
// links.
func randomTree(t *testing.T, r *rand.Rand) (*lft.Fabric, [][]int) {
	t.Helper()
	nsw, nh := 1+r.IntN(8), 2+r.IntN(11)
	b := lft.NewBuilder()
	// Hosts first (host index = node id), then switches.
	host := make([]int32, nh)
	for h := range host {
		host[h] = b.Node(fmt.Sprintf("H%d", h), lft.Host)
	}
	sw := make([]int32, nsw)
	for s := range sw {
		sw[s] = b.Node(fmt.Sprintf("S%d", s), lft.Switch)
	}
	// adj[s] maps a neighbour switch to the link s uses to reach it.
	adj := make([]map[int]int32, nsw)
	for s := range adj {
		adj[s] = map[int]int32{}
	}
	parent := make([]int, nsw)
	for s := 1; s < nsw; s++ {
		p := r.IntN(s)
		parent[s] = p
		up, down := cable(b, sw[s], sw[p])
		adj[s][p], adj[p][s] = up, down
	}
	at := make([]int, nh)     // switch of each host
	down := make([]int32, nh) // switch → host link
	for h := range host {
		at[h] = r.IntN(nsw)
		upLink, downLink := cable(b, host[h], sw[at[h]])
		b.Route(upLink, lft.AnyDest)
		down[h] = downLink
	}
	// dist[x][y] between switches by BFS; next[x][y]: x's neighbour towards y.
	dist := make([][]int, nsw)
	next := make([][]int, nsw)
	for y := range nsw {
		dist[y], next[y] = make([]int, nsw), make([]int, nsw)
	}
	for y := range nsw {
		for x := range nsw {
			dist[x][y] = -1
		}
		dist[y][y] = 0
		queue := []int{y}
		for len(queue) > 0 {
			u := queue[0]
			queue = queue[1:]
			for v := range adj[u] {
				if dist[v][y] < 0 {
					dist[v][y], next[v][y] = dist[u][y]+1, u
					queue = append(queue, v)
				}
			}
		}
	}
	// Every switch entry as (link, destination host), in random order.
	type entry struct {
		link int32
		dst  int
	}
	var entries []entry
	for s := range nsw {
		for d := range nh {
			if at[d] == s {
				entries = append(entries, entry{down[d], d})
			} else {
				entries = append(entries, entry{adj[s][next[s][at[d]]], d})
			}
		}
	}
	r.Shuffle(len(entries), func(i, j int) { entries[i], entries[j] = entries[j], entries[i] })
	for len(entries) > 0 {
		// Either one entry, or every remaining entry of the first one's
		// link as a comment list.
		e := entries[0]
		if r.IntN(2) == 0 {
			b.Route(e.link, b.Dest(fmt.Sprintf("H%d", e.dst)))
			entries = entries[1:]
			continue
		}
		var names []string
		rest := entries[:0]
		for _, x := range entries {
			if x.link == e.link {
				names = append(names, fmt.Sprintf("H%d", x.dst))
			} else {
				rest = append(rest, x)
			}
		}
		entries = rest
		b.RouteList(e.link, []byte(strings.Join(names, ", ")))
	}
	// Decoys after the real entries, which must not win: "*" on every
	// switch-to-switch link, and entries (single or as a list) sending some
	// destinations over a random link of the switch.
	for s := range nsw {
		links := []int32{}
		for _, l := range adj[s] {
			b.Route(l, lft.AnyDest)
			links = append(links, l)
		}
		for d := range nh {
			if at[d] == s {
				links = append(links, down[d])
			}
		}
		slices.Sort(links)
		for d := range nh {
			l, name := links[r.IntN(len(links))], fmt.Sprintf("H%d", d)
			switch r.IntN(3) {
			case 0:
				b.Route(l, b.Dest(name))
			case 1:
				b.RouteList(l, []byte(name))
			}
		}
	}
	f := mustBuild(t, b)
	hops := make([][]int, nh)
	for s := range nh {
		hops[s] = make([]int, nh)
		for d := range nh {
			if s != d {
				hops[s][d] = dist[at[s]][at[d]] + 2
			}
		}
	}
	return f, hops
}

// TestRouteWalkReachesDestination: on random routed trees every route is a
// chain of links from the source host to the destination host on the
// shortest path, and NextHop, Explain and CheckRoutes agree with it.
func TestRouteWalkReachesDestination(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		f, hops := randomTree(t, r)
		n := int32(f.NumHosts())
		var buf []int32
		for s := range n {
			for d := range n {
				var st lft.RouteStatus
				buf, st = f.AppendRoute(buf[:0], s, d)
				if s == d {
					if st != lft.RouteOK || len(buf) != 0 {
						t.Fatalf("trial %d: route %d to itself: %v %v", trial, s, st, buf)
					}
					continue
				}
				if st != lft.RouteOK {
					t.Fatalf("trial %d: %s to %s: %v", trial, f.HostName(int(s)), f.HostName(int(d)), st)
				}
				if len(buf) != hops[s][d] {
					t.Fatalf("trial %d: %s to %s: %d links (%s), shortest path has %d", trial,
						f.HostName(int(s)), f.HostName(int(d)), len(buf), linkNames(f, buf), hops[s][d])
				}
				v := f.HostNode(int(s))
				for _, l := range buf {
					if f.Links[l].From != v || f.NextHop(s, v, d) != l {
						t.Fatalf("trial %d: %s to %s: broken chain %s", trial, f.HostName(int(s)), f.HostName(int(d)), linkNames(f, buf))
					}
					v = f.Links[l].To
				}
				if v != f.HostNode(int(d)) || f.NextHop(s, v, d) != -1 {
					t.Fatalf("trial %d: %s to %s ends at %s", trial, f.HostName(int(s)), f.HostName(int(d)), f.Nodes[v].Name)
				}
				if e := f.Explain(s, d); e != nil {
					t.Fatalf("trial %d: Explain of a routed pair: %v", trial, e)
				}
			}
		}
		all := make([]int32, n)
		for i := range all {
			all[i] = int32(i)
		}
		c := f.CheckRoutes(all, 5, 1+trial%3)
		if !c.OK() || c.Pairs != int64(n)*int64(n-1) || len(c.Examples) != 0 {
			t.Fatalf("trial %d: CheckRoutes %+v", trial, c)
		}
	}
}

// brokenFabric: H0, H1 on S0; H2, H3 on S1; one cable S0–S1. S1 has no
// entry for H1, and S0 and S1 send H3 to each other (a loop).
func brokenFabric(t *testing.T) *lft.Fabric {
	t.Helper()
	b := lft.NewBuilder()
	h := make([]int32, 4)
	for i := range h {
		h[i] = b.Node(fmt.Sprintf("H%d", i), lft.Host)
	}
	s0, s1 := b.Node("S0", lft.Switch), b.Node("S1", lft.Switch)
	down := make([]int32, 4)
	for i, x := range h {
		s := s0
		if i >= 2 {
			s = s1
		}
		up, dn := cable(b, x, s)
		b.Route(up, lft.AnyDest)
		down[i] = dn
	}
	s0s1, s1s0 := cable(b, s0, s1)
	b.RouteList(down[0], []byte("H0"))
	b.RouteList(down[1], []byte("H1"))
	b.RouteList(s0s1, []byte("H2,H3"))
	b.RouteList(down[2], []byte("H2"))
	b.RouteList(s1s0, []byte("H0 H3")) // H1 missing; H3 goes back: loop
	b.RouteList(down[3], []byte("H3")) // too late: the entry above wins
	return mustBuild(t, b)
}

func TestRouteStatuses(t *testing.T) {
	f := brokenFabric(t)
	// H2 → H1: up to S1, which has no entry: the link walked stays.
	route, st := f.AppendRoute(nil, 2, 1)
	if st != lft.Unroutable || linkNames(f, route) != "H2->S1" {
		t.Errorf("H2 to H1: %v, %q", st, linkNames(f, route))
	}
	// H0 → H3: S0 → S1 → S0 → …: a loop, cut after more hops than nodes.
	route, st = f.AppendRoute([]int32{99}, 0, 3)
	if st != lft.Loop || route[0] != 99 || len(route) != 1+len(f.Nodes) ||
		!strings.HasPrefix(linkNames(f, route[1:]), "H0->S0 S0->S1 S1->S0 S0->S1") {
		t.Errorf("H0 to H3: %v, %q", st, linkNames(f, route[1:]))
	}
	// Routed pairs still route.
	if route, st = f.AppendRoute(nil, 0, 2); st != lft.RouteOK || linkNames(f, route) != "H0->S0 S0->S1 S1->H2" {
		t.Errorf("H0 to H2: %v, %q", st, linkNames(f, route))
	}
	for st, want := range map[lft.RouteStatus]string{lft.RouteOK: "route ok", lft.Unroutable: "unroutable", lft.Loop: "routing loop"} {
		if st.String() != want {
			t.Errorf("%d.String() = %q, want %q", st, st.String(), want)
		}
	}
}

func TestExplain(t *testing.T) {
	f := brokenFabric(t)
	s0, s1 := node(t, f, "S0"), node(t, f, "S1")
	e := f.Explain(2, 1)
	if e == nil || e.Status != lft.Unroutable || e.Src != 2 || e.Dst != 1 || e.Node != s1 || e.Cycle != nil {
		t.Fatalf("Explain(H2, H1) = %+v", e)
	}
	if got, want := e.Error(), "no route from H2 to H1: node S1 has no table entry for H1"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	e = f.Explain(0, 3)
	if e == nil || e.Status != lft.Loop || e.Node != s0 || !slices.Equal(e.Cycle, []int32{s0, s1, s0}) {
		t.Fatalf("Explain(H0, H3) = %+v", e)
	}
	if got, want := e.Error(), "routing loop from H0 to H3 at node S0: S0 -> S1 -> S0"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// From H2 the loop is entered at S1.
	e = f.Explain(2, 3)
	if e == nil || e.Node != s1 || e.Error() != "routing loop from H2 to H3 at node S1: S1 -> S0 -> S1" {
		t.Fatalf("Explain(H2, H3) = %v", e)
	}
	if e := f.Explain(0, 2); e != nil {
		t.Errorf("Explain(H0, H2) = %v, want nil", e)
	}
	if e := f.Explain(1, 1); e != nil {
		t.Errorf("Explain(H1, H1) = %v, want nil", e)
	}
}

func TestRouteErrorIsError(t *testing.T) {
	f := brokenFabric(t)
	var err error = f.Explain(3, 1)
	wrapped := fmt.Errorf("fabric check: %w", err)
	var re *lft.RouteError
	if !errors.As(wrapped, &re) {
		t.Fatalf("errors.As found no *RouteError in %v", wrapped)
	}
	if re.Status != lft.Unroutable || re.Src != 3 || re.Dst != 1 {
		t.Errorf("unwrapped %+v", re)
	}
	if wrapped.Error() != "fabric check: no route from H3 to H1: node S1 has no table entry for H1" {
		t.Errorf("wrapped text %q", wrapped)
	}
	// A RouteError made outside a fabric still describes itself.
	bare := &lft.RouteError{Status: lft.Loop, Src: 1, Dst: 2, Node: 7}
	if bare.Error() != "route from host 1 to host 2: routing loop at node 7" {
		t.Errorf("bare error %q", bare.Error())
	}
}

// TestCheckRoutesCounts: in brokenFabric the missing entry S1→H1 breaks
// H2→H1 and H3→H1; the loop for H3 catches H0, H1 and H2. The other 7 of
// the 12 ordered pairs route.
func TestCheckRoutesCounts(t *testing.T) {
	f := brokenFabric(t)
	all := []int32{0, 1, 2, 3}
	for _, threads := range []int{1, 4} {
		c := f.CheckRoutes(all, 10, threads)
		if c.Pairs != 12 || c.Unroutable != 2 || c.Loops != 3 || c.OK() {
			t.Fatalf("threads %d: %d pairs, %d unroutable, %d loops", threads, c.Pairs, c.Unroutable, c.Loops)
		}
		var got []string
		for _, e := range c.Examples {
			got = append(got, fmt.Sprintf("%s>%s:%v", f.HostName(int(e.Src)), f.HostName(int(e.Dst)), e.Status))
		}
		slices.Sort(got)
		want := []string{"H0>H3:routing loop", "H1>H3:routing loop", "H2>H1:unroutable", "H2>H3:routing loop", "H3>H1:unroutable"}
		if !slices.Equal(got, want) {
			t.Errorf("threads %d: examples %v, want %v", threads, got, want)
		}
	}
	if c := f.CheckRoutes(all, 1, 2); len(c.Examples) != 1 || c.Unroutable+c.Loops != 5 {
		t.Errorf("maxExamples 1: %d examples, %d failures", len(c.Examples), c.Unroutable+c.Loops)
	}
	// Among H0, H1, H2 only H2→H1 fails.
	if c := f.CheckRoutes([]int32{0, 1, 2}, 10, 1); c.Pairs != 6 || c.Unroutable != 1 || c.Loops != 0 {
		t.Errorf("subset: %+v", c)
	}
	if c := f.CheckRoutes([]int32{0, 2}, 10, 1); !c.OK() || c.Pairs != 2 {
		t.Errorf("routed subset: %+v", c)
	}
}

func TestRow(t *testing.T) {
	f := brokenFabric(t)
	lk := func(from, to string) int32 {
		for _, l := range f.OutLinks(node(t, f, from)) {
			if f.Nodes[f.Links[l].To].Name == to {
				return l
			}
		}
		t.Fatalf("no link %s->%s", from, to)
		return -1
	}
	row, uni := f.Row(node(t, f, "S0"))
	if want := []int32{lk("S0", "H0"), lk("S0", "H1"), lk("S0", "S1"), lk("S0", "S1")}; !slices.Equal(row, want) || uni != -1 {
		t.Errorf("S0 row %v %d, want %v", row, uni, want)
	}
	row, _ = f.Row(node(t, f, "S1"))
	if want := []int32{lk("S1", "S0"), -1, lk("S1", "H2"), lk("S1", "S0")}; !slices.Equal(row, want) {
		t.Errorf("S1 row %v, want %v", row, want)
	}
	// Hosts that send everything over one link: no row, the uniform link.
	if row, uni := f.Row(node(t, f, "H2")); row != nil || uni != lk("H2", "S1") {
		t.Errorf("H2: row %v, uniform %d", row, uni)
	}

	// A host with two cables that routes by destination gets a full row
	// (its own entry -1).
	b := lft.NewBuilder()
	h0, h1, h2 := b.Node("H0", lft.Host), b.Node("H1", lft.Host), b.Node("H2", lft.Host)
	sa, sb := b.Node("SA", lft.Switch), b.Node("SB", lft.Switch)
	a, _ := cable(b, h0, sa)
	c, _ := cable(b, h0, sb)
	_, ah1 := cable(b, h1, sa)
	_, bh2 := cable(b, h2, sb)
	b.Route(a, b.Dest("H1"))
	b.Route(c, lft.AnyDest)
	b.Route(ah1, b.Dest("H1"))
	b.Route(bh2, b.Dest("H2"))
	g := mustBuild(t, b)
	if row, uni := g.Row(h0); !slices.Equal(row, []int32{-1, a, c}) || uni != -1 {
		t.Errorf("H0 row %v, uniform %d", row, uni)
	}
	if g.NextHop(0, h0, 1) != a || g.NextHop(0, h0, 2) != c {
		t.Error("H0 does not route by destination")
	}
	if row, _ := g.Row(sb); !slices.Equal(row, []int32{-1, -1, bh2}) {
		t.Errorf("SB row %v", row)
	}
}

// twoSwitch builds H0, H1 on S0 and H2, H3 on S1 with two parallel
// cables: base tables use cable A, and with spread the offset-1 tables
// (sources H1, H3 with LMC 1 everywhere) use cable B. spread1 edits the
// offset-1 table before Build; nil means no LMC spread.
func twoSwitch(t *testing.T, spread1 func(tab []int32, link map[string]int32)) (*lft.Fabric, map[string]int32, error) {
	t.Helper()
	b := lft.NewBuilder()
	link := map[string]int32{}
	var hosts []int32
	for i := range 4 {
		hosts = append(hosts, b.Node(fmt.Sprintf("H%d", i), lft.Host))
	}
	s := []int32{b.Node("S0", lft.Switch), b.Node("S1", lft.Switch)}
	for i, h := range hosts {
		up, dn := cable(b, h, s[i/2])
		b.Route(up, lft.AnyDest)
		b.Route(dn, b.Dest(fmt.Sprintf("H%d", i)))
		link[fmt.Sprintf("S%d->H%d", i/2, i)] = dn
	}
	link["S0->S1 A"], link["S1->S0 A"] = cable(b, s[0], s[1])
	link["S0->S1 B"], link["S1->S0 B"] = cable(b, s[0], s[1])
	b.RouteList(link["S0->S1 A"], []byte("H2,H3"))
	b.RouteList(link["S1->S0 A"], []byte("H0,H1"))
	if spread1 != nil {
		// Switch index 0 = S0, 1 = S1; 4 hosts per row.
		tab := []int32{
			link["S0->H0"], link["S0->H1"], link["S0->S1 B"], link["S0->S1 B"],
			link["S1->S0 B"], link["S1->S0 B"], link["S1->H2"], link["S1->H3"],
		}
		spread1(tab, link)
		b.SetLMCSpread([]int32{1, 1, 1, 1}, [][]int32{nil, tab})
	}
	f, err := b.Build()
	return f, link, err
}

func TestLMCSpread(t *testing.T) {
	base, link, err := twoSwitch(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, _, err := twoSwitch(t, func([]int32, map[string]int32) {})
	if err != nil {
		t.Fatal(err)
	}
	if base.LMCSpread() || !f.LMCSpread() {
		t.Fatal("LMCSpread flag")
	}
	s0, s1 := node(t, f, "S0"), node(t, f, "S1")
	for src := int32(0); src < 4; src++ {
		for dst := int32(0); dst < 4; dst++ {
			if src/2 == dst/2 {
				continue // same switch: no switch-to-switch cable
			}
			from, sw := s0, "S0->S1"
			if src >= 2 {
				from, sw = s1, "S1->S0"
			}
			want := link[sw+" A"]
			if src%2 == 1 {
				want = link[sw+" B"]
			}
			if got := f.NextHop(src, from, dst); got != want {
				t.Errorf("spread NextHop(H%d, %s, H%d) = link %d, want %d (cable B)", src, f.Nodes[from].Name, dst, got, want)
			}
			if got := base.NextHop(src, from, dst); got != link[sw+" A"] {
				t.Errorf("base NextHop(H%d, …, H%d) = %s", src, dst, base.LinkName(got))
			}
			route, st := f.AppendRoute(nil, src, dst)
			if st != lft.RouteOK || len(route) != 3 || route[1] != want {
				t.Errorf("spread route H%d to H%d: %v %s", src, dst, st, linkNames(f, route))
			}
			route, _ = base.AppendRoute(nil, src, dst)
			if route[1] != link[sw+" A"] {
				t.Errorf("base route H%d to H%d: %s", src, dst, linkNames(base, route))
			}
		}
	}
	// The base rows stay those of the Route entries.
	if row, _ := f.Row(s0); !slices.Equal(row, []int32{link["S0->H0"], link["S0->H1"], link["S0->S1 A"], link["S0->S1 A"]}) {
		t.Errorf("S0 base row %v", row)
	}
	if c := f.CheckRoutes([]int32{0, 1, 2, 3}, 5, 2); !c.OK() {
		t.Errorf("CheckRoutes of the spread fabric: %+v", c)
	}
	if f.Digest() == base.Digest() {
		t.Error("spread and base fabric share a digest")
	}
}

// TestLMCSpreadBrokenTable: an offset-1 table without S1's entry for H0
// breaks H3 → H0 (H3 is odd: offset 1) although every base route works.
// Build refuses it and names the pair.
func TestLMCSpreadBrokenTable(t *testing.T) {
	base, _, err := twoSwitch(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := base.CheckRoutes([]int32{0, 1, 2, 3}, 5, 1); !c.OK() {
		t.Fatalf("base tables: %+v", c)
	}
	_, _, err = twoSwitch(t, func(tab []int32, _ map[string]int32) { tab[4+0] = -1 })
	if err == nil || !strings.Contains(err.Error(), "LMC spread: 1 host pairs do not route") ||
		!strings.Contains(err.Error(), "first: H3 to H0") {
		t.Errorf("Build: %v", err)
	}
	// A loop in the offset-1 table: S1 sends H0 back over cable B, S0
	// sends it to S1 again.
	_, _, err = twoSwitch(t, func(tab []int32, link map[string]int32) { tab[0] = link["S0->S1 B"] })
	if err == nil || !strings.Contains(err.Error(), "first: H1 to H0") {
		t.Errorf("Build with an offset-1 loop: %v", err)
	}
	// CheckRoutes walks every offset: the same hole, made after Build,
	// is found although the base table (used by even sources) is complete.
	f, link, err := twoSwitch(t, func([]int32, map[string]int32) {})
	if err != nil {
		t.Fatal(err)
	}
	lft.SetSpreadEntry(f, 1, 1, 0, -1)
	c := f.CheckRoutes([]int32{0, 1, 2, 3}, 5, 2)
	if c.Unroutable != 1 || c.Loops != 0 || len(c.Examples) != 1 ||
		c.Examples[0].Error() != "no route from H3 to H0: node S1 has no table entry for H0" {
		t.Errorf("CheckRoutes with a hole at offset 1: %+v", c)
	}
	if _, st := f.AppendRoute(nil, 3, 0); st != lft.Unroutable {
		t.Errorf("H3 to H0: %v", st)
	}
	if _, st := f.AppendRoute(nil, 2, 0); st != lft.RouteOK {
		t.Errorf("H2 to H0 (offset 0): %v", st)
	}
	// And a loop at offset 1 (S0 sends H0 to S1, S1 back): both odd
	// sources H1 and H3 loop.
	lft.SetSpreadEntry(f, 1, 1, 0, link["S1->S0 B"])
	lft.SetSpreadEntry(f, 1, 0, 0, link["S0->S1 B"])
	if c := f.CheckRoutes([]int32{0, 1, 2, 3}, 5, 1); c.Unroutable != 0 || c.Loops != 2 {
		t.Errorf("CheckRoutes with a loop at offset 1: %+v", c)
	}
	if e := f.Explain(1, 0); e == nil || e.Error() != "routing loop from H1 to H0 at node S0: S0 -> S1 -> S0" {
		t.Errorf("Explain(H1, H0) = %v", e)
	}

	// A table of the wrong size and a mask without its table.
	b := lft.NewBuilder()
	h := b.Node("H0", lft.Host)
	b.Node("H1", lft.Host)
	b.Route(b.Link(h, h, 0, 0), lft.AnyDest)
	b.SetLMCSpread([]int32{1, 1}, [][]int32{nil, {1, 2, 3}})
	if _, err := b.Build(); err == nil || !strings.Contains(err.Error(), "table of offset 1 has 3 entries") {
		t.Errorf("short table: %v", err)
	}
	b.SetLMCSpread([]int32{3, 0}, [][]int32{nil, {}})
	if _, err := b.Build(); err == nil || !strings.Contains(err.Error(), "host H0: mask 3 needs 4 tables") {
		t.Errorf("missing tables: %v", err)
	}
}

// TestDigestFollowsTables: equal fabrics share a digest; one changed table
// entry (or one more) changes it.
func TestDigestFollowsTables(t *testing.T) {
	a, b := brokenFabric(t), brokenFabric(t)
	if a.Digest() != b.Digest() {
		t.Fatal("equal fabrics, different digests")
	}
	base, _, _ := twoSwitch(t, nil)
	one, _, _ := twoSwitch(t, nil)
	if base.Digest() != one.Digest() {
		t.Fatal("equal fabrics, different digests")
	}
	// The same fabric with S0's entry for H3 over cable B instead of A.
	bld := lft.NewBuilder()
	var hosts []int32
	for i := range 4 {
		hosts = append(hosts, bld.Node(fmt.Sprintf("H%d", i), lft.Host))
	}
	s := []int32{bld.Node("S0", lft.Switch), bld.Node("S1", lft.Switch)}
	for i, h := range hosts {
		up, dn := cable(bld, h, s[i/2])
		bld.Route(up, lft.AnyDest)
		bld.Route(dn, bld.Dest(fmt.Sprintf("H%d", i)))
	}
	a01, a10 := cable(bld, s[0], s[1])
	b01, _ := cable(bld, s[0], s[1])
	bld.RouteList(b01, []byte("H3"))
	bld.RouteList(a01, []byte("H2,H3"))
	bld.RouteList(a10, []byte("H0,H1"))
	changed := mustBuild(t, bld)
	if r, _ := changed.Row(s[0]); r[3] != b01 {
		t.Fatalf("S0 row %v: entry for H3 not over cable B", r)
	}
	if changed.Digest() == base.Digest() {
		t.Error("a changed table entry kept the digest")
	}
}

// TestRouteCheckVerdict: the verdict of brokenFabric's checks, from the
// counts TestCheckRoutesCounts derives by hand (5 of 12 pairs fail: 2
// unroutable, 3 in a loop; H0 and H2 route), with what the caller left out.
func TestRouteCheckVerdict(t *testing.T) {
	f := brokenFabric(t)
	bad := f.CheckRoutes([]int32{0, 1, 2, 3}, 1, 1)
	bad.LeftOut = []string{"the 2 hosts outside --hosts"}
	first := bad.Examples[0].Error()
	want := "5 of 12 host pairs do not route (2 unroutable, 3 in routing loops): checked 12 ordered pairs of 4 hosts, " +
		"each to its destination's base LID, hop by hop through the tables of 2 switches; first: " + first +
		". Left out: the 2 hosts outside --hosts; routes to and from the switches' own LIDs (management traffic)."
	if got := bad.Verdict(f); got != want {
		t.Errorf("verdict\n got %s\nwant %s", got, want)
	}
	ok := f.CheckRoutes([]int32{0, 2}, 1, 1)
	want = "Every pair routes without a loop: checked 2 ordered pairs of 2 hosts, each to its destination's base LID, " +
		"hop by hop through the tables of 2 switches. Left out: routes to and from the switches' own LIDs (management traffic)."
	if got := ok.Verdict(f); got != want {
		t.Errorf("verdict\n got %s\nwant %s", got, want)
	}
	var b bytes.Buffer
	if err := ok.Write(&b, f); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(b.String(), "\n"+want+"\n") {
		t.Errorf("the text does not end in the verdict:\n%s", b.String())
	}
	b.Reset()
	if err := bad.WriteJSON(&b, f, "f.dot"); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Verdict string   `json:"verdict"`
		LeftOut []string `json:"left_out"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil || doc.Verdict != bad.Verdict(f) || len(doc.LeftOut) != 1 {
		t.Errorf("JSON %v: %s", err, b.String())
	}
}

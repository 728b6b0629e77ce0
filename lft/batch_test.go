package lft_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"orcs/lft"
)

// checkBatch walks the pairs with a RouteBatch in every way it walks (one
// route after the other and in rounds through the tables, and by entry
// routes of link, inner (where the fabric's routes fit them) and position
// words), and compares every route, the failure count and the link loads
// with per-pair AppendRoute walks.
func checkBatch(t *testing.T, f *lft.Fabric, b *lft.RouteBatch, src, dst []int32) {
	t.Helper()
	defer lft.UseWalk(f, "tables")
	restore := lft.SetRoundsAbove(0)
	defer restore()
	for _, mode := range []string{"tables", "rounds", "links", "inner", "words"} {
		above := 1 << 40
		if mode == "rounds" {
			above = 0
		}
		lft.SetRoundsAbove(above)
		kind := mode
		if mode == "rounds" {
			kind = "tables"
		}
		// "inner" where a route does not fit an inner word: the link
		// words compiled instead are walked.
		if !lft.UseWalk(f, kind) && mode != "inner" {
			t.Fatalf("%s: no entry routes", mode)
		}
		load := make([]int32, len(f.Links))
		want := make([]int32, len(f.Links))
		failed := b.Walk(f, src, dst, load)
		wantFailed := 0
		var hops int64
		var path []int32
		for i := range src {
			route, st := f.AppendRoute(nil, src[i], dst[i])
			if st != lft.RouteOK {
				wantFailed++
				route = nil
			}
			for _, l := range route {
				want[l]++
			}
			path = append(path, route...)
			hops += int64(len(route))
			if got := b.Route(i); !slices.Equal(got, route) {
				t.Fatalf("%s, pair %d (H%d→H%d): batch route %v, AppendRoute %v (%v)", mode, i, src[i], dst[i], got, route, st)
			}
			if b.Ends()[i] != int32(len(path)) {
				t.Fatalf("%s, pair %d: route ends at %d, want %d", mode, i, b.Ends()[i], len(path))
			}
		}
		if !slices.Equal(b.Path(), path) {
			t.Errorf("%s: path is not the routes one after the other", mode)
		}
		if failed != wantFailed {
			t.Errorf("%s: %d failed routes, want %d", mode, failed, wantFailed)
		}
		if b.Hops() != hops {
			t.Errorf("%s: %d hops, want %d", mode, b.Hops(), hops)
		}
		if !slices.Equal(load, want) {
			t.Errorf("%s: loads differ from the routes' link counts", mode)
		}
	}
}

// TestRouteBatchAgreesWithWalks: on random tables full of holes and loops,
// with and without per-destination host tables, the batch walk gives the
// routes of AppendRoute pair by pair, and counts the links of the routes
// that do not fail.
func TestRouteBatchAgreesWithWalks(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for trial := range 40 {
		S, H := 2+r.IntN(12), 2+r.IntN(30)
		f := randomTables(r, S, H, 0.2*r.Float64(), trial%3 == 0)
		var b lft.RouteBatch // one batch over several walks: buffers are reused
		for range 3 {
			n := r.IntN(3 * H)
			src, dst := make([]int32, n), make([]int32, n)
			for i := range src {
				src[i], dst[i] = int32(r.IntN(H)), int32(r.IntN(H))
			}
			checkBatch(t, f, &b, src, dst)
		}
	}
}

// chain builds hosts H0 and H1 at the two ends of a line of n switches, so
// that their route has n+1 links.
func chain(t *testing.T, n int) *lft.Fabric {
	b := lft.NewBuilder()
	h0, h1 := b.Node("H0", lft.Host), b.Node("H1", lft.Host)
	prev := h0
	var up []int32
	for i := range n {
		s := b.Node(fmt.Sprintf("S%d", i), lft.Switch)
		a, back := cable(b, prev, s)
		up = append(up, a)
		b.Route(back, b.Dest("H0"))
		prev = s
	}
	last, back := cable(b, prev, h1)
	b.Route(back, lft.AnyDest)
	b.Route(up[0], lft.AnyDest)
	for _, l := range up[1:] {
		b.Route(l, b.Dest("H1"))
	}
	b.Route(last, b.Dest("H1"))
	return mustBuild(t, b)
}

// TestRouteBatchLongRoutes: routes longer than the room a batch starts
// with (a 3-level fat tree's) are walked in full, and loads are counted
// once although the batch walks again with more room.
func TestRouteBatchLongRoutes(t *testing.T) {
	for _, n := range []int{1, 6, 7, 8, 30} {
		f := chain(t, n)
		var b lft.RouteBatch
		src, dst := []int32{0, 1, 0, 1, 1}, []int32{1, 0, 0, 1, 0}
		checkBatch(t, f, &b, src, dst)
		if got := len(b.Route(0)); got != n+1 {
			t.Errorf("%d switches: route of %d links, want %d", n, got, n+1)
		}
		checkBatch(t, f, &b, src, dst) // again, with the grown room
	}
}

// star builds one switch with n hosts, each routed over its own port.
func star(t *testing.T, n int) *lft.Fabric {
	b := lft.NewBuilder()
	s := b.Node("S0", lft.Switch)
	for i := range n {
		name := fmt.Sprintf("H%d", i)
		up, dn := cable(b, b.Node(name, lft.Host), s)
		b.Route(up, lft.AnyDest)
		b.Route(dn, b.Dest(name))
	}
	return mustBuild(t, b)
}

// TestWideTables: a switch of up to 254 ports keeps one byte per table
// entry; one of more ports two bytes, and routes over its high ports stay
// right. (The star's row has no two equal blocks of 64 entries: the
// tables are its blocks, padded to 64 entries, and a block number each.)
func TestWideTables(t *testing.T) {
	for _, tc := range []struct{ ports, entryBytes int }{{254, 1}, {255, 2}, {300, 2}} {
		f := star(t, tc.ports)
		blocks := (tc.ports + 63) / 64
		if got, want := f.TableBytes(), 4*blocks+tc.entryBytes*64*blocks; got != want {
			t.Errorf("%d ports: tables of %d bytes, want %d", tc.ports, got, want)
		}
		s := f.SwitchNode(0)
		for _, d := range []int32{0, 253, int32(tc.ports - 1)} {
			l := f.NextHop(0, s, d)
			if l < 0 || f.Links[l].To != f.HostNode(int(d)) {
				t.Fatalf("%d ports: switch towards H%d takes link %d", tc.ports, d, l)
			}
		}
		var src, dst []int32
		for i := range tc.ports {
			src, dst = append(src, int32(i)), append(dst, int32((i*7+1)%tc.ports))
		}
		var b lft.RouteBatch
		checkBatch(t, f, &b, src, dst)
	}
}

// TestPortAndLinkTablesAgree: a fabric built with link tables (small
// fabrics) and without (tables of ports only, as large fabrics are) route
// every pair the same way, LMC spread and broken tables included.
func TestPortAndLinkTablesAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	for trial := range 30 {
		seed := r.Uint64()
		S, H, miss, perDest := 2+r.IntN(10), 2+r.IntN(25), 0.2*r.Float64(), trial%3 == 0
		withLinks := randomTables(rand.New(rand.NewPCG(seed, 1)), S, H, miss, perDest)
		restore := lft.SetLinkTablesUpTo(0)
		ports := randomTables(rand.New(rand.NewPCG(seed, 1)), S, H, miss, perDest)
		restore()
		if !lft.HasLinkTables(withLinks) || lft.HasLinkTables(ports) {
			t.Fatalf("link tables: %v and %v, want true and false", lft.HasLinkTables(withLinks), lft.HasLinkTables(ports))
		}
		if withLinks.Digest() != ports.Digest() {
			t.Fatalf("trial %d: the two builds differ", trial)
		}
		for s := range int32(H) {
			for d := range int32(H) {
				a, sa := withLinks.AppendRoute(nil, s, d)
				b, sb := ports.AppendRoute(nil, s, d)
				if sa != sb || !slices.Equal(a, b) {
					t.Fatalf("trial %d, H%d→H%d: %v %v with link tables, %v %v without", trial, s, d, a, sa, b, sb)
				}
			}
		}
	}
}

// TestForwardIsNextHopAtTheFarEnd: Forward(src, l, dst) is the next hop of
// the node link l leads to, for every link and pair, on random tables with
// holes and loops and with per-destination host tables.
func TestForwardIsNextHopAtTheFarEnd(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 13))
	spread, _, err := twoSwitch(t, func([]int32, map[string]int32) {}) // LMC spread
	if err != nil {
		t.Fatal(err)
	}
	for trial := range 21 {
		H := 2 + r.IntN(12)
		var f *lft.Fabric
		if trial == 20 {
			f, H = spread, spread.NumHosts()
		} else {
			f = randomTables(r, 2+r.IntN(8), H, 0.2*r.Float64(), trial%2 == 0)
		}
		for l := range f.Links {
			to := f.Links[l].To
			for src := range int32(H) {
				for dst := range int32(H) {
					if got, want := f.Forward(src, int32(l), dst), f.NextHop(src, to, dst); got != want {
						t.Fatalf("Forward(H%d, %s, H%d) = %d, NextHop at the far end = %d", src, f.LinkName(int32(l)), dst, got, want)
					}
				}
			}
		}
	}
}

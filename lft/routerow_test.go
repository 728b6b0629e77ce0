package lft_test

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"orcs/lft"
)

// rowFabric is H0 … H3 on switches A (H0, H1) and B (H2, H3), joined by
// one cable; the hosts send everything to their switch.
func rowFabric() (b *lft.Builder, a, bb int32, down map[string]int32, ab, ba int32) {
	b = lft.NewBuilder()
	var hosts [4]int32
	for i := range hosts {
		hosts[i] = b.Node("H"+string(rune('0'+i)), lft.Host)
	}
	a, bb = b.Node("A", lft.Switch), b.Node("B", lft.Switch)
	down = map[string]int32{}
	for i, h := range hosts {
		sw := a
		if i >= 2 {
			sw = bb
		}
		up, dn := cable(b, h, sw)
		b.Route(up, lft.AnyDest)
		down[b.NodeName(h)] = dn
	}
	ab, ba = cable(b, a, bb)
	return b, a, bb, down, ab, ba
}

// TestRouteRow checks rows against the same routing given entry by entry
// (same digest), that Route entries take precedence over a row, and the
// errors of rows that do not fit.
func TestRouteRow(t *testing.T) {
	// Entry by entry.
	b, a, bb, down, ab, ba := rowFabric()
	for _, d := range []string{"H0", "H1"} {
		b.Route(down[d], b.Dest(d))
		b.Route(ba, b.Dest(d))
	}
	for _, d := range []string{"H2", "H3"} {
		b.Route(down[d], b.Dest(d))
		b.Route(ab, b.Dest(d))
	}
	want := mustBuild(t, b).Digest()

	// The same as rows.
	b, a, bb, down, ab, ba = rowFabric()
	b.RouteRow(a, func(row []int32) {
		copy(row, []int32{down["H0"], down["H1"], ab, ab})
	})
	b.RouteRow(bb, func(row []int32) {
		copy(row, []int32{ba, ba, down["H2"], down["H3"]})
	})
	if got := mustBuild(t, b).Digest(); got != want {
		t.Errorf("rows: digest %s, entries: %s", got, want)
	}

	// A Route entry comes first; a row's -1 leaves the entry without a route.
	b, a, bb, down, ab, ba = rowFabric()
	b.Route(ab, b.Dest("H1")) // wins over the row's down link
	b.RouteRow(a, func(row []int32) {
		copy(row, []int32{down["H0"], down["H1"], ab, -1})
	})
	b.RouteRow(bb, func(row []int32) {
		copy(row, []int32{ba, ba, down["H2"], down["H3"]})
	})
	f := mustBuild(t, b)
	row, _ := f.Row(a)
	if row[1] != ab || row[3] != -1 || row[0] != down["H0"] {
		t.Errorf("A's row %v: want [%d %d %d -1]", row, down["H0"], ab, ab)
	}

	for _, c := range []struct {
		name string
		rows func(b *lft.Builder, a, bb int32, ab, ba int32)
		want string
	}{
		{"foreign link", func(b *lft.Builder, a, bb, ab, ba int32) {
			b.RouteRow(a, func(row []int32) { row[2] = ba })
		}, "RouteRow of A, entry towards H2: link 9 does not leave switch A"},
		{"host", func(b *lft.Builder, a, bb, ab, ba int32) {
			b.RouteRow(0, func(row []int32) {})
		}, "RouteRow: node 0 is not a switch or router"},
		{"twice", func(b *lft.Builder, a, bb, ab, ba int32) {
			b.RouteRow(bb, func(row []int32) {})
			b.RouteRow(bb, func(row []int32) {})
		}, "RouteRow: switch B routed by two rows"},
	} {
		b, a, bb, _, ab, ba := rowFabric()
		c.rows(b, a, bb, ab, ba)
		_, err := b.Build()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// TestRouteRowRandom builds random tables twice, entry by entry and as
// rows (with holes), and compares the fabrics' digests. Every other
// fabric has more than 128 hosts: a switch's links then have ids that
// share their low bits (rowPorts's table of links seen).
func TestRouteRowRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 27))
	for iter := range 50 {
		nh, ns := 2+r.IntN(20), 1+r.IntN(6)
		if iter%2 == 1 {
			nh = 130 + r.IntN(200)
		}
		// table[s][d]: an out-link index of switch s (into its links), or -1.
		build := func(rows bool, table [][]int) string {
			b := lft.NewBuilder()
			for h := range nh {
				b.Node("H"+strconv.Itoa(h), lft.Host)
			}
			sws := make([]int32, ns)
			for s := range ns {
				sws[s] = b.Node("S"+strconv.Itoa(s), lft.Switch)
			}
			outs := make([][]int32, ns)
			for h := range nh {
				up, dn := cable(b, int32(h), sws[h%ns])
				b.Route(up, lft.AnyDest)
				outs[h%ns] = append(outs[h%ns], dn)
			}
			for s := range ns {
				for s2 := s + 1; s2 < ns; s2++ {
					x, y := cable(b, sws[s], sws[s2])
					outs[s] = append(outs[s], x)
					outs[s2] = append(outs[s2], y)
				}
			}
			for s := range ns {
				if rows {
					b.RouteRow(sws[s], func(row []int32) {
						for d, k := range table[s] {
							if k >= 0 {
								row[d] = outs[s][k%len(outs[s])]
							}
						}
					})
					continue
				}
				for d, k := range table[s] {
					if k >= 0 {
						b.Route(outs[s][k%len(outs[s])], b.Dest("H"+strconv.Itoa(d)))
					}
				}
			}
			f, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
			return f.Digest()
		}
		table := make([][]int, ns)
		for s := range table {
			table[s] = make([]int, nh)
			for d := range table[s] {
				table[s][d] = r.IntN(8) - 1
				if nh > 128 {
					table[s][d] = r.IntN(1000) - 1 // any of the switch's links
				}
			}
		}
		if a, b := build(false, table), build(true, table); a != b {
			t.Fatalf("iteration %d: entries give digest %s, rows %s", iter, a, b)
		}
	}
}

// TestTableBlocks builds switches whose rows repeat blocks of 64
// destinations (cut from a few random templates, some with holes) and
// checks that every entry reads back, that the tables keep each distinct
// block once (counted here by content) and that routes walk the same with
// and without entry routes.
func TestTableBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 64))
	for iter := range 20 {
		nh, ns := 1+r.IntN(300), 1+r.IntN(5)
		b := lft.NewBuilder()
		for h := range nh {
			b.Node("H"+strconv.Itoa(h), lft.Host)
		}
		sws := make([]int32, ns)
		for s := range sws {
			sws[s] = b.Node("S"+strconv.Itoa(s), lft.Switch)
		}
		outs := make([][]int32, ns)
		for h := range nh {
			up, dn := cable(b, int32(h), sws[h%ns])
			b.Route(up, lft.AnyDest)
			outs[h%ns] = append(outs[h%ns], dn)
		}
		for s := range ns {
			for s2 := range ns {
				if s != s2 {
					x, _ := cable(b, sws[s], sws[s2])
					outs[s] = append(outs[s], x)
				}
			}
		}
		// templates[k][i]: an out-link number of the switch, or -1.
		templates := make([][64]int, 1+r.IntN(3))
		for k := range templates {
			for i := range templates[k] {
				templates[k][i] = r.IntN(6) - 1
			}
		}
		want := make([][]int32, ns) // want[s][d]: the link, or -1
		distinct := map[string]bool{}
		for s := range ns {
			want[s] = make([]int32, nh)
			for blk := 0; blk*64 < nh; blk++ {
				tm := templates[r.IntN(len(templates))]
				key := ""
				for i := range 64 {
					d, l := blk*64+i, int32(-1)
					if d < nh && tm[i] >= 0 {
						l = outs[s][tm[i]%len(outs[s])]
					}
					if d < nh {
						want[s][d] = l
					}
					// the block's content: the switch's port (its out-links in
					// order of addition, hosts' down-links first), -1 past the hosts
					key += strconv.Itoa(portIndex(outs[s], l)) + ","
				}
				distinct[key] = true
			}
			row := want[s]
			b.RouteRow(sws[s], func(dst []int32) { copy(dst, row) })
		}
		f := mustBuild(t, b)
		for s := range ns {
			got, _ := f.Row(sws[s])
			if !slices.Equal(got, want[s]) {
				t.Fatalf("iteration %d: switch %d: row %v, want %v", iter, s, got, want[s])
			}
		}
		if got, _ := lft.TableBlocks(f); got != len(distinct) {
			t.Errorf("iteration %d: %d distinct blocks kept, want %d", iter, got, len(distinct))
		}
		var src, dst []int32
		for i := range 4 * nh {
			src, dst = append(src, int32(r.IntN(nh))), append(dst, int32((i*7+1)%nh))
		}
		var rb lft.RouteBatch
		checkBatch(t, f, &rb, src, dst)
	}
}

// portIndex returns the position of link l in outs, or -1.
func portIndex(outs []int32, l int32) int { return slices.Index(outs, l) }

// blockFabric is S switches in a ring with H hosts, host h on switch
// h mod S; each switch's row sends its own hosts down and every other
// host to the next switch, except that switch 1 sends host odd (not its
// own) down its first host link: one entry apart from switch 0's row
// pattern in a block that would otherwise be shared. It returns the rows
// as given.
func blockFabric(S, H, odd int) (*lft.Builder, []int32, [][]int32) {
	b := lft.NewBuilder()
	for h := range H {
		b.Node("H"+strconv.Itoa(h), lft.Host)
	}
	sws := make([]int32, S)
	for s := range sws {
		sws[s] = b.Node("S"+strconv.Itoa(s), lft.Switch)
	}
	down := make([]int32, H)
	for h := range H {
		up, dn := cable(b, int32(h), sws[h%S])
		b.Route(up, lft.AnyDest)
		down[h] = dn
	}
	next := make([]int32, S)
	for s := range S {
		next[s] = b.Link(sws[s], sws[(s+1)%S], 100, 101)
		b.Link(sws[(s+1)%S], sws[s], 101, 100)
	}
	rows := make([][]int32, S)
	for s := range S {
		rows[s] = make([]int32, H)
		for d := range H {
			rows[s][d] = next[s]
			if d%S == s {
				rows[s][d] = down[d]
			}
		}
		if s == 1 && odd%S != 1 {
			rows[s][odd] = down[1]
		}
		row := rows[s]
		b.RouteRow(sws[s], func(dst []int32) { copy(dst, row) })
	}
	return b, sws, rows
}

// TestRouteRowBlocksApart builds switches whose rows differ in one entry
// from blocks that other switches' rows share, at every position of a
// block, and checks that every row reads back entry by entry: a block
// shared wrongly gives one of them the other's entry.
func TestRouteRowBlocksApart(t *testing.T) {
	for _, odd := range []int{0, 2, 63, 64, 65, 127, 128, 130} {
		b, sws, rows := blockFabric(4, 131, odd)
		f := mustBuild(t, b)
		for s, v := range sws {
			got, _ := f.Row(v)
			if !slices.Equal(got, rows[s]) {
				t.Fatalf("odd entry %d: switch %d: row %v, want %v", odd, s, got, rows[s])
			}
		}
		// Rows of 4 switches × 3 blocks: switch 0's blocks and those of
		// switch 2 have their own hosts at other positions, so every row
		// block is distinct by its down links but the odd one must not be
		// merged with switch 1's others.
		distinct, _ := lft.TableBlocks(f)
		if distinct > 4*3 {
			t.Errorf("odd entry %d: %d distinct blocks, at most %d", odd, distinct, 4*3)
		}
	}
}

// TestRouteRowNoFlatTable checks that rows go straight into distinct
// blocks: building 512 switches × 4 096 hosts (a flat one-byte table
// of 2 MiB) allocates far less than that table.
func TestRouteRowNoFlatTable(t *testing.T) {
	const S, H = 512, 4096
	b, _, _ := blockFabric(S, H, 0)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f := mustBuild(t, b)
	runtime.ReadMemStats(&after)
	flat := uint64(S * H)
	if got := after.TotalAlloc - before.TotalAlloc; got > flat/2 {
		t.Errorf("Build allocated %d bytes for rows of %d switches × %d hosts: a flat table (%d bytes) was written", got, S, H, flat)
	}
	if distinct, rowBlocks := lft.TableBlocks(f); rowBlocks != S*H/64 || distinct > 2*S {
		t.Errorf("%d distinct blocks for %d row blocks", distinct, rowBlocks)
	}
}

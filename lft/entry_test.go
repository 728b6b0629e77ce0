package lft_test

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"orcs/gen"
	"orcs/lft"
)

// allPairs returns every ordered pair of n hosts, a host with itself
// included.
func allPairs(n int) (src, dst []int32) {
	for s := range int32(n) {
		for d := range int32(n) {
			src, dst = append(src, s), append(dst, d)
		}
	}
	return src, dst
}

// TestRouteBatchLMCSpread: with LMC spread, the route of a pair depends on
// the source's LID offset; every way of walking takes the offset's table.
func TestRouteBatchLMCSpread(t *testing.T) {
	f, _, err := twoSwitch(t, func([]int32, map[string]int32) {})
	if err != nil {
		t.Fatal(err)
	}
	src, dst := allPairs(f.NumHosts())
	var b lft.RouteBatch
	checkBatch(t, f, &b, src, dst)
}

// TestPrepareWalks: a fabric compiles its entry routes when the routes to
// walk are at least a quarter of their entries (here 2 entry switches × 4
// hosts = 8 entries), and only within the memory budget; walks are the
// same either way.
func TestPrepareWalks(t *testing.T) {
	build := func() *lft.Fabric {
		f, _, err := twoSwitch(t, nil)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	f := build()
	if f.PrepareWalks(0) || f.PrepareWalks(1) {
		t.Fatal("entry routes for fewer routes than a quarter of their 8 entries")
	}
	if !f.PrepareWalks(2) {
		t.Fatal("no entry routes for a quarter of their entries")
	}
	if !f.PrepareWalks(0) {
		t.Error("compiled entry routes are not reported")
	}
	restore := lft.SetEntryRoutesUpTo(8*8 - 1) // one byte short of the 8 inner words
	defer restore()
	if g := build(); g.PrepareWalks(1 << 40) {
		t.Error("entry routes beyond the memory budget")
	}
}

// TestCongestion: each route's congestion is the largest load over its
// links, for routes of every length around the 8 links of the masked loads
// (chains of 1 … 12 switches), routes to the host itself (0) and failed
// routes (0).
func TestCongestion(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	for n := 1; n <= 12; n++ {
		f := chain(t, n)
		var b lft.RouteBatch
		src, dst := []int32{0, 1, 0, 1, 0}, []int32{1, 0, 0, 1, 1}
		b.Walk(f, src, dst, nil)
		// One link at a time carries the most: each route's congestion is
		// that load if the route takes the link, else the largest other.
		for hot := range f.Links {
			load := make([]int32, len(f.Links))
			for i := range load {
				load[i] = 1 + r.Int32N(50)
			}
			load[hot] = 100
			got := b.Congestion(load, nil)
			for i := range src {
				var want int32
				for _, l := range b.Route(i) {
					want = max(want, load[l])
				}
				if got[i] != want {
					t.Errorf("%d switches, link %d the hottest, pair %d: congestion %d, want %d", n, hot, i, got[i], want)
				}
			}
		}
	}
	for trial := range 20 {
		f := randomTables(r, 2+r.IntN(10), 2+r.IntN(20), 0.3, trial%2 == 0)
		src, dst := allPairs(f.NumHosts())
		var b lft.RouteBatch
		load := make([]int32, len(f.Links))
		b.Walk(f, src, dst, load)
		got := b.Congestion(load, make([]int32, 3))
		want := make([]int32, len(src))
		for i := range src {
			route, st := f.AppendRoute(nil, src[i], dst[i])
			if st != lft.RouteOK {
				continue
			}
			for _, l := range route {
				want[i] = max(want[i], load[l])
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: congestion %v, want %v", trial, got, want)
		}
	}
}

// TestEntryRoutesLargeFabrics: fabrics of more hosts than a compile job's
// block of destinations (random tables with holes and loops, with and
// without hosts that route by destination; generated fat trees) walk as
// AppendRoute in every way.
func TestEntryRoutesLargeFabrics(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 13))
	for trial := range 6 {
		f := randomTables(r, 5+r.IntN(20), 65+r.IntN(150), 0.05, trial%2 == 1)
		n := 4 * f.NumHosts()
		src, dst := make([]int32, n), make([]int32, n)
		for i := range src {
			src[i], dst[i] = r.Int32N(int32(f.NumHosts())), r.Int32N(int32(f.NumHosts()))
		}
		var b lft.RouteBatch
		checkBatch(t, f, &b, src, dst)
	}
	for _, spec := range []string{"kary:k=6,n=3", "fattree3:pods=2,leaves=4,hosts=20,up=2"} {
		f, err := gen.Generate(spec)
		if err != nil {
			t.Fatal(err)
		}
		src, dst := allPairs(f.NumHosts())
		var b lft.RouteBatch
		checkBatch(t, f, &b, src, dst)
		// Every route of a fat tree fits a word: none is left to the tables.
		for _, kind := range []string{"links", "inner", "words"} {
			if !lft.UseWalk(f, kind) {
				t.Fatalf("%s: no entry routes of %s", spec, kind)
			}
			if n := lft.EntryRoutesLeftToTables(f); n != 0 {
				t.Errorf("%s, %s: %d entries left to the tables", spec, kind, n)
			}
		}
	}
}

// TestInnerWordsWhereRoutesFit: a three-level fat tree's entry routes
// are inner words (a route crosses at most four links between switches),
// a four-level tree's (up to six) link words; the routes are the same
// either way.
func TestInnerWordsWhereRoutesFit(t *testing.T) {
	for _, c := range []struct {
		spec  string
		inner bool
	}{{"kary:k=4,n=3", true}, {"fattree3:pods=2,leaves=4,hosts=20,up=2", true}, {"kary:k=4,n=2", true}, {"kary:k=3,n=4", false}} {
		f, err := gen.Generate(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		if !f.PrepareWalks(1 << 40) {
			t.Fatalf("%s: no entry routes", c.spec)
		}
		e, ok := f.LinkEntries()
		if !ok || (e.Inner != nil) != c.inner || (e.Words != nil) == c.inner {
			t.Fatalf("%s: inner words %v, link words %v, want inner %v", c.spec, e.Inner != nil, e.Words != nil, c.inner)
		}
		src, dst := allPairs(f.NumHosts())
		var b lft.RouteBatch
		checkBatch(t, f, &b, src, dst)
	}
}

// TestInnerWordsWithinTheLimit: inner words take half the memory of link
// words, so a limit between the two still gives a three-level tree entry
// routes (inner words), and a four-level tree, whose routes do not fit
// them, none; above both, the four-level tree has link words.
func TestInnerWordsWithinTheLimit(t *testing.T) {
	for _, c := range []struct {
		spec         string
		limit        int // bytes
		entry, inner bool
	}{
		{"kary:k=4,n=3", 12 << 10, true, true},   // 16 leaves × 64 hosts: 8 KiB inner, 16 KiB link words
		{"kary:k=4,n=3", 6 << 10, false, false},  // neither fits
		{"kary:k=3,n=4", 20 << 10, false, false}, // 27 × 81: 17 KiB inner, 34 KiB link words
		{"kary:k=3,n=4", 40 << 10, true, false},
	} {
		restore := lft.SetEntryRoutesUpTo(c.limit)
		f, err := gen.Generate(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.PrepareWalks(1 << 40); got != c.entry {
			t.Errorf("%s, limit %d: entry routes %v, want %v", c.spec, c.limit, got, c.entry)
		}
		e, ok := f.LinkEntries()
		if ok != c.entry || (e.Inner != nil) != c.inner {
			t.Errorf("%s, limit %d: words %v, inner %v; want %v, %v", c.spec, c.limit, ok, e.Inner != nil, c.entry, c.inner)
		}
		restore()
	}
}

// TestEntryRoutesOnHugePages: the entry routes of a large fabric (16 MiB
// of link words for 4096 hosts) are mapped apart from the heap on huge
// pages, and walks over them are right.
func TestEntryRoutesOnHugePages(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("huge pages are asked for on Linux only")
	}
	f, err := gen.Generate("kary:k=16,n=3")
	if err != nil {
		t.Fatal(err)
	}
	if !f.PrepareWalks(1 << 40) {
		t.Fatal("no entry routes")
	}
	if a := lft.EntryWordsAddr(f); a%(2<<20) != 0 {
		t.Errorf("entry routes at %#x, not on a huge page", a)
	}
	r := rand.New(rand.NewPCG(3, 5))
	src, dst := make([]int32, 5000), make([]int32, 5000)
	for i := range src {
		src[i], dst[i] = r.Int32N(int32(f.NumHosts())), r.Int32N(int32(f.NumHosts()))
	}
	var b lft.RouteBatch
	checkBatch(t, f, &b, src, dst)
}

// TestEntryWordsShared: position words are kept in distinct blocks, so a
// fat tree whose words would take 256 KiB as a flat array (64 leaves ×
// 512 hosts × 8 bytes) compiles them under a limit of 64 KiB, and walks
// over them are right; tables without such repetition outgrow the limit
// and are walked by the tables.
func TestEntryWordsShared(t *testing.T) {
	defer lft.SetEntryRoutesUpTo(64 << 10)()
	defer lft.SetLinkWordsBelow(0)() // position words
	f, err := gen.Generate("kary:k=8,n=3")
	if err != nil {
		t.Fatal(err)
	}
	if !f.PrepareWalks(1 << 40) {
		t.Fatal("no entry routes under 64 KiB")
	}
	if n := lft.EntryRoutesLeftToTables(f); n != 0 {
		t.Errorf("%d entries left to the tables", n)
	}
	walksAsAppendRoute(t, f)

	lft.SetEntryRoutesUpTo(4 << 10)
	r := rand.New(rand.NewPCG(9, 27))
	g := randomTables(r, 20, 200, 0.05, false)
	if g.PrepareWalks(1 << 40) {
		t.Error("random tables: entry routes under 4 KiB")
	}
	walksAsAppendRoute(t, g)
}

// walksAsAppendRoute checks a RouteBatch walk of every pair against
// AppendRoute.
func walksAsAppendRoute(t *testing.T, f *lft.Fabric) {
	t.Helper()
	src, dst := allPairs(f.NumHosts())
	var b lft.RouteBatch
	failed := b.Walk(f, src, dst, nil)
	want := 0
	for i := range src {
		route, st := f.AppendRoute(nil, src[i], dst[i])
		if st != lft.RouteOK {
			want++
			route = nil
		}
		if got := b.Route(i); !slices.Equal(got, route) {
			t.Fatalf("H%d→H%d: %v, want %v", src[i], dst[i], got, route)
		}
	}
	if failed != want {
		t.Errorf("%d failed routes, want %d", failed, want)
	}
}

// TestEntryWalkAroundPrefetchBlocks: the entries are read in blocks, the
// lines of the next block asked for ahead, and link words are written
// into a path with room for eight links a route; batches of every size
// around those blocks (0 … 3 blocks and a bit), with pairs to the host
// itself, failing routes and routes through the tables among them, walk
// as AppendRoute, one batch reused from the largest size to the smallest
// and back.
func TestEntryWalkAroundPrefetchBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 19))
	f := randomTables(r, 9, 90, 0.1, true)
	var b lft.RouteBatch
	sizes := []int{100, 0, 1, 31, 32, 33, 63, 64, 65, 97, 3, 100}
	for _, n := range sizes {
		src, dst := make([]int32, n), make([]int32, n)
		for i := range src {
			src[i], dst[i] = r.Int32N(90), r.Int32N(90)
			if i%7 == 3 {
				dst[i] = src[i]
			}
		}
		checkBatch(t, f, &b, src, dst)
	}
}

package fabricarg

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"orcs/gen"
	"orcs/ib"
	"orcs/lft"
)

const fixtures = "../testdata/ib/ft16/minhop"

func TestLoad(t *testing.T) {
	topo, lfts := filepath.Join(fixtures, "ibnetdiscover.txt"), filepath.Join(fixtures, "opensm-lfts.dump")
	cases := []struct {
		name     string
		args     Args
		err      string // substring of the error, or "" for success
		hosts    int
		routed   bool
		real     bool
		network  bool
		wantName string
	}{
		{"dot", Args{Input: "../testdata/ft16.dot"}, "", 16, true, false, false, "../testdata/ft16.dot"},
		{"hand-written dot", Args{Input: "../testdata/manual4.dot"}, "", 4, true, false, false, "../testdata/manual4.dot"},
		{"dot topology", Args{Input: "../testdata/ft16.dot", Need: Topology}, "", 16, false, false, true, "../testdata/ft16.dot"},
		{"gen", Args{Input: "gen:kary k=2 n=2"}, "", 4, true, true, true, "gen:kary:k=2,n=2"},
		{"ib", Args{Topo: topo, LFTs: lfts}, "", 16, true, true, false, topo + "+" + lfts},
		{"ib topology", Args{Topo: topo, Need: Topology}, "", 16, false, true, false, topo},
		{"ib topology, tables ignored", Args{Topo: topo, LFTs: lfts, Need: Topology}, "", 16, false, true, false, topo},
		{"no fabric", Args{}, "no fabric given", 0, false, false, false, ""},
		{"topo without tables", Args{Topo: topo}, "needs --lfts", 0, false, false, false, ""},
		{"lfts without topo", Args{LFTs: lfts}, "needs --topo", 0, false, false, false, ""},
		{"both", Args{Input: "../testdata/ft16.dot", Topo: topo, LFTs: lfts}, "not both", 0, false, false, false, ""},
		{"names on dot", Args{Input: "../testdata/ft16.dot", Names: "desc"}, "apply to --topo", 0, false, false, false, ""},
		{"bad names", Args{Topo: topo, LFTs: lfts, Names: "lid"}, "--names", 0, false, false, false, ""},
		{"bad spec", Args{Input: "gen:kary:k=2"}, "n", 0, false, false, false, ""},
		{"missing file", Args{Input: "nonexistent.dot"}, "nonexistent.dot", 0, false, false, false, ""},
	}
	for _, c := range cases {
		f, err := Load(c.args)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if f.NumHosts() != c.hosts || f.Routed != c.routed || f.RealPorts != c.real || (f.Network != nil) != c.network || f.Name != c.wantName {
			t.Errorf("%s: %d hosts, routed %v, real ports %v, network %v, name %q", c.name, f.NumHosts(), f.Routed, f.RealPorts, f.Network != nil, f.Name)
		}
		if c.routed {
			if chk := f.CheckRoutes(nil, 1, 1); !chk.OK() {
				t.Errorf("%s: %s", c.name, chk.Summary())
			}
		}
	}
	if _, err := Load(Args{}); !errors.Is(err, ErrNoFabric) {
		t.Errorf("no fabric: %v is not ErrNoFabric", err)
	}
}

// TestLoadLMCSpreadWarning checks the warning when --lmc-spread finds no
// LMC range.
func TestLoadLMCSpreadWarning(t *testing.T) {
	var warned []string
	_, err := Load(Args{Topo: filepath.Join(fixtures, "ibnetdiscover.txt"), LFTs: filepath.Join(fixtures, "opensm-lfts.dump"),
		LMCSpread: true, Warn: func(m string) { warned = append(warned, m) }})
	if err != nil || len(warned) != 1 || !strings.Contains(warned[0], "no CA port") {
		t.Errorf("err %v, warnings %q", err, warned)
	}
	f, err := Load(Args{Topo: "../testdata/ib/ft16/minhop-lmc1/ibnetdiscover.txt", LFTs: "../testdata/ib/ft16/minhop-lmc1/opensm-lfts.dump", LMCSpread: true})
	if err != nil || !f.LMCSpread() {
		t.Errorf("LMC 1 fixture: spread %v, %v", err == nil && f.LMCSpread(), err)
	}
}

// TestLoadRealFiles loads the outputs administrators bring: host names
// from the descriptions by default, GUID names on request, SHARP
// aggregation nodes left out with a warning unless kept, and a missing
// routing file explained.
func TestLoadRealFiles(t *testing.T) {
	dir := "../testdata/ib/cluster/minhop"
	topo, lfts := filepath.Join(dir, "iblinkinfo.txt"), filepath.Join(dir, "dump_fts-a.txt")
	var warned []string
	warn := func(m string) { warned = append(warned, m) }
	f, err := Load(Args{Topo: topo, LFTs: lfts, Warn: warn})
	if err != nil || f.NumHosts() != 8 || f.HostName(0) != "H-node001" || len(warned) != 1 || !strings.Contains(warned[0], "left out 2 SHARP aggregation nodes") {
		t.Fatalf("default: %v, warnings %q", err, warned)
	}
	f, err = Load(Args{Topo: topo, LFTs: lfts, Names: "guid", IncludeAggregationNodes: true})
	if err != nil || f.NumHosts() != 10 || f.HostName(0) != "H0000000000100000" {
		t.Fatalf("guid names, aggregation nodes: %v", err)
	}
	if _, err := Load(Args{Input: "../testdata/ft16.dot", IncludeAggregationNodes: true}); err == nil || !strings.Contains(err.Error(), "apply to --topo") {
		t.Errorf("-i with --include-aggregation-nodes: %v", err)
	}
	_, err = Load(Args{Topo: topo, LFTs: filepath.Join(dir, "nothere", "opensm-lfts.dump")})
	if err == nil || !strings.Contains(err.Error(), "only when its log flags include 0x40") {
		t.Errorf("missing tables: %v", err)
	}
}

// TestLoadFromDumpsCollects: a load from dumps ends with a collection of
// what only the load needed (the topology and the tables read, a few MB
// for the 512 hosts here), so the heap right after it is about the live
// heap, and the caller's collection target is as before. Without it the
// heap held that garbage until the next collection, at twice the load's
// live heap.
func TestLoadFromDumpsCollects(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set: the load leaves the collector alone")
	}
	f, err := gen.Generate("kary:k=8,n=3")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	topo, lfts := filepath.Join(dir, "ibnetdiscover.txt"), filepath.Join(dir, "opensm-lfts.dump")
	for _, w := range []struct {
		path  string
		write func(io.Writer, *lft.Fabric) error
	}{{topo, ib.WriteNetDiscover}, {lfts, ib.WriteLFTDump}} {
		var b bytes.Buffer
		if err := w.write(&b, f); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(w.path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	loaded, err := Load(Args{Topo: topo, LFTs: lfts})
	if err != nil {
		t.Fatal(err)
	}
	var after, live runtime.MemStats
	runtime.ReadMemStats(&after)
	runtime.GC()
	runtime.ReadMemStats(&live)
	runtime.KeepAlive(loaded)
	if garbage := int64(after.HeapAlloc) - int64(live.HeapAlloc); garbage > 1<<20 {
		t.Errorf("%d bytes of garbage on the heap right after the load (live %d), want under 1 MiB", garbage, live.HeapAlloc)
	}
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("collection target after the load %d%%, want the caller's 100%%", p)
	}
}

// TestTightGCCollectsFirst: the build's tight collection target starts
// with a collection (the readers' garbage goes before the build
// allocates), holds 50 % until restored, and gives the caller's target
// back.
func TestTightGCCollectsFirst(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set: the load leaves the collector alone")
	}
	var before, during runtime.MemStats
	runtime.ReadMemStats(&before)
	restore := tightGC()
	runtime.ReadMemStats(&during)
	p := debug.SetGCPercent(50)
	restore()
	if during.NumGC == before.NumGC {
		t.Error("no collection before the build")
	}
	if p != 50 {
		t.Errorf("collection target %d%% during the build, want 50%%", p)
	}
	if q := debug.SetGCPercent(100); q != 100 {
		t.Errorf("collection target %d%% after, want the caller's 100%%", q)
	}
}

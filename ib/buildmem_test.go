package ib_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"orcs/gen"
	"orcs/ib"
)

// TestBuildMemory checks that building a fabric from its dumps allocates
// what generating it does (2.7 bytes an entry here: the compiled tables,
// the nodes and links) and less than 1.6 bytes an entry more (the LID
// maps, 320 KB, GUID maps and names), not 8 bytes more per entry: Build
// hands each switch's packed LID → port table to the lft.Builder as a row,
// where it added a route per switch and host (14.2 bytes an entry in all
// here, then 6.0), and reserves its nodes, links and maps from the
// topology's sizes (5.2 bytes an entry when they grew by appends, 4.0 now).
func TestBuildMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 1 728-host fabric from 60 MB of dumps")
	}
	const spec = "kary:k=12,n=3" // 1 728 hosts, 432 switches: 746 k entries
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	orig, err := gen.Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	genAlloc := after.TotalAlloc - before.TotalAlloc
	topo, lfts := ibDumps(orig)
	dir := t.TempDir()
	topoFile, lftsFile := filepath.Join(dir, "ibnetdiscover.txt"), filepath.Join(dir, "opensm-lfts.dump")
	if os.WriteFile(topoFile, topo, 0o644) != nil || os.WriteFile(lftsFile, lfts, 0o644) != nil {
		t.Fatal("cannot write the dumps")
	}
	topo, lfts = nil, nil
	tp, rt, err := ib.ReadPair(topoFile, lftsFile)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&before)
	f, err := ib.Build(tp, rt, ib.Options{})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	entries := uint64(f.NumSwitches() * f.NumHosts())
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d bytes allocated for %d table entries (%.2f an entry); gen %d (%.2f)", alloc, entries, float64(alloc)/float64(entries), genAlloc, float64(genAlloc)/float64(entries))
	if alloc > genAlloc+entries*16/10 {
		t.Errorf("%d bytes allocated for %d table entries (%.1f an entry), want at most the generator's %d and 1.6 an entry",
			alloc, entries, float64(alloc)/float64(entries), genAlloc)
	}
}

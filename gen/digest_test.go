package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// digestSpecs are the fabrics whose digests (nodes, links and every table
// entry, lft.Fabric.Digest) are pinned in testdata/digests.txt: however the
// generators hand their routes to the builder, they build the same fabric.
// Beside the generic specs, a few larger ones of every topology.
func digestSpecs() []string {
	out := append([]string{}, specs...)
	out = append(out, dragonflySpecs...)
	return append(out,
		"kary:k=8,n=3",
		"kary:k=6,n=4",
		"fattree2:leaves=24,hosts=16,up=8,spines=6",
		"fattree3:pods=4,leaves=8,hosts=8,up=8,mup=8",
		"fattree3:pods=6,leaves=4,hosts=8,up=6,mup=4,rep=3,lmul=2",
		"torus:dims=6x6x6,hosts=2",
		"mesh:dims=8x8,hosts=3",
		"dragonfly:a=6,h=3,p=3",
		"rail:units=4,nodes=8,rails=4,up=8,spines=4,cores=8",
		"superpod-h100:su=2",
	)
}

// TestDigests compares the digest of every digestSpecs fabric with the
// one recorded in testdata/digests.txt (go test ./gen -run Digests
// -update rewrites it).
func TestDigests(t *testing.T) {
	var b strings.Builder
	for _, spec := range digestSpecs() {
		f, err := Generate(spec)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s\n", spec, f.Digest())
	}
	path := filepath.Join("testdata", "digests.txt")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./gen -run Digests -update writes it)", err)
	}
	got := strings.Split(b.String(), "\n")
	for i, line := range strings.Split(string(want), "\n") {
		if i >= len(got) || got[i] != line {
			t.Errorf("line %d: got %q, want %q", i+1, got[min(i, len(got)-1)], line)
		}
	}
	if len(got) != len(strings.Split(string(want), "\n")) {
		t.Errorf("%d digests, want %d", len(got)-1, len(strings.Split(string(want), "\n"))-1)
	}
}

// TestGenerateMemory checks that generating a fabric allocates about its
// tables (one byte per switch × host entry) and its nodes and links (5 MB
// here, half the rest): the generators hand rules to the builder, not
// entries (which took 8 bytes each, 25 MB more here, 10.6 bytes an entry
// in all).
func TestGenerateMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 4096-host fabric")
	}
	const spec = "kary:k=16,n=3" // 4096 hosts, 768 switches: 3.1 M entries
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f, err := Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	entries := uint64(f.NumSwitches() * f.NumHosts())
	alloc := after.TotalAlloc - before.TotalAlloc
	if alloc > 3*entries {
		t.Errorf("%s: %d bytes allocated for %d table entries (%.1f a entry), want at most 3 a entry",
			spec, alloc, entries, float64(alloc)/float64(entries))
	}
	runtime.KeepAlive(f)
}

// TestTablesShared checks that the tables of regular routings keep what
// their rows share once: a d-mod-k tree's leaf sends the hosts of every
// other leaf up by d mod k, so its row blocks of 64 destinations are all
// alike but the one of its own hosts, and likewise at every level.
func TestTablesShared(t *testing.T) {
	for _, spec := range []string{"kary:k=16,n=3", "fattree3:pods=8,leaves=8,hosts=16,up=16,mup=8"} {
		f, err := Generate(spec)
		if err != nil {
			t.Fatal(err)
		}
		entries := f.NumSwitches() * f.NumHosts()
		// Block numbers take 4/64 of a byte an entry; the blocks little.
		if got := f.TableBytes(); got > entries/10 {
			t.Errorf("%s: tables of %d bytes for %d entries, want at most %d", spec, got, entries, entries/10)
		}
	}
}

package ib

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var updateDigests = flag.Bool("update", false, "rewrite testdata/build-digests.txt")

// TestBuildDigests builds every run of testdata/ib (its ibnetdiscover
// output and subnet list, each with every table file of the run), with and
// without LMC spread, from the packed tables of ReadPair and from the
// unpacked ones of ReadTopology/ReadRouting, and compares the fabric
// digests, the errors and the warnings with testdata/build-digests.txt.
// The file was written by the Build that added a route per switch and
// host to the lft.Builder; Build now hands each switch's table to the
// builder as a row, and must give the same fabrics, errors and warnings.
func TestBuildDigests(t *testing.T) {
	var runs []string
	err := filepath.WalkDir(ibRoot, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (d.Name() == "opensm-lfts.dump" || d.Name() == "opensm.fdbs" || d.Name() == "dump_fts.txt") {
			runs = append(runs, filepath.Dir(path))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(runs)
	runs = dedup(runs)
	var out strings.Builder
	for _, dir := range runs {
		rel, _ := filepath.Rel(ibRoot, dir)
		for _, topo := range []string{"ibnetdiscover.txt", "opensm-subnet.lst"} {
			for _, tables := range []string{"opensm-lfts.dump", "opensm.fdbs", "dump_fts.txt", "dump_fts-a.txt"} {
				tp, rp := filepath.Join(dir, topo), filepath.Join(dir, tables)
				if !exists(tp) || !exists(rp) {
					continue
				}
				for _, spread := range []bool{false, true} {
					packed := buildDigest(t, tp, rp, spread, true)
					plain := buildDigest(t, tp, rp, spread, false)
					if packed != plain {
						t.Errorf("%s/%s + %s spread=%v: packed tables give %s, unpacked %s", rel, topo, tables, spread, packed, plain)
					}
					fmt.Fprintf(&out, "%s %s %s spread=%v %s\n", rel, topo, tables, spread, packed)
				}
			}
		}
	}
	path := filepath.Join("testdata", "build-digests.txt")
	if *updateDigests {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./ib -run BuildDigests -update writes it)", err)
	}
	got, wantLines := strings.Split(out.String(), "\n"), strings.Split(string(want), "\n")
	for i, line := range wantLines {
		if i >= len(got) || got[i] != line {
			t.Errorf("line %d: got %q, want %q", i+1, got[min(i, len(got)-1)], line)
		}
	}
	if len(got) != len(wantLines) {
		t.Errorf("%d lines, want %d", len(got), len(wantLines))
	}
}

// buildDigest reads and builds one pair of files and returns the fabric
// digest and a hash of the warnings, or the error.
func buildDigest(t *testing.T, topoPath, routingPath string, spread, packed bool) string {
	t.Helper()
	var topo *Topology
	var rt *Routing
	var err error
	if packed {
		topo, rt, err = ReadPair(topoPath, routingPath)
	} else {
		var td, rd []byte
		if td, err = os.ReadFile(topoPath); err == nil {
			if rd, err = os.ReadFile(routingPath); err == nil {
				if topo, err = ReadTopology(td, topoPath); err == nil {
					rt, err = ReadRouting(rd, routingPath)
				}
			}
		}
	}
	if err != nil {
		t.Fatalf("%s + %s: %v", topoPath, routingPath, err)
	}
	var warns []string
	f, err := Build(topo, rt, Options{LMCSpread: spread, Warn: func(m string) { warns = append(warns, m) }})
	if err != nil {
		sum := sha256.Sum256([]byte(err.Error()))
		return fmt.Sprintf("error %x", sum[:8])
	}
	sum := sha256.Sum256([]byte(strings.Join(warns, "\n")))
	return fmt.Sprintf("%s warnings=%d/%x", f.Digest(), len(warns), sum[:8])
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func dedup(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

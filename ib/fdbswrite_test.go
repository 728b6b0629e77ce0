package ib

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"orcs/gen"
)

// TestWriteFDBsAsOpenSM: for every real OpenSM run of the fixtures whose
// ports have one LID each, the fabric read from ibnetdiscover and
// opensm.fdbs is written back as opensm.fdbs, and the result is OpenSM's
// file line for line: other switches' LIDs UNREACHABLE (a fabric's tables
// do not route them), and, where OpenSM's engine is not min-hop (its hop
// counts are the shortest, not the route's), the LIDs and out ports.
func TestWriteFDBsAsOpenSM(t *testing.T) {
	compared := 0
	for _, run := range ibRuns(t) {
		real, err := os.ReadFile(run.path("opensm.fdbs"))
		if err != nil {
			t.Fatal(err)
		}
		f, err := ReadFiles(run.path("ibnetdiscover.txt"), run.path("opensm.fdbs"), Options{IncludeAggregationNodes: true})
		if err != nil {
			t.Fatalf("%s: %v", run, err)
		}
		ids, err := fabricIDs(f)
		if err != nil {
			t.Logf("%s: not written: %v", run, err)
			continue
		}
		var got bytes.Buffer
		if err := WriteFDBs(&got, f); err != nil {
			t.Fatalf("%s: %v", run, err)
		}
		minHop := run.run == "minhop"
		gl, wl := strings.SplitAfter(got.String(), "\n"), strings.SplitAfter(string(real), "\n")
		if len(gl) != len(wl) {
			t.Fatalf("%s: %d lines, OpenSM wrote %d", run, len(gl), len(wl))
		}
		self := -1 // the LID of the table's switch
		for i := range gl {
			w := wl[i]
			if strings.HasPrefix(w, "dump_ucast_routes") {
				self = -1
				for lid, v := range ids.byLID {
					if v >= 0 && ids.guid[v] == hexField(t, w) {
						self = lid
					}
				}
			} else if strings.HasPrefix(w, "0x") {
				lid := int(hexField(t, w[:6]))
				if v := ids.byLID[lid]; v >= 0 && f.SwitchIndex(v) >= 0 && lid != self {
					w = w[:6] + " : UNREACHABLE\n"
				} else if !minHop && !strings.Contains(w, "UNREACHABLE") {
					w, gl[i] = w[:16], gl[i][:16]
				}
			}
			if gl[i] != w {
				t.Fatalf("%s: line %d: got %q, OpenSM wrote %q", run, i+1, gl[i], w)
			}
		}
		compared++
	}
	if compared < 10 {
		t.Fatalf("only %d runs compared", compared)
	}
	t.Logf("%d runs compared", compared)
}

// hexField returns the number after the last "0x" of s.
func hexField(t *testing.T, s string) uint64 {
	c := cursor{b: []byte(strings.TrimSpace(s[strings.LastIndex(s, "0x"):]))}
	v, ok := c.hex0x()
	if !ok {
		t.Fatalf("no hexadecimal number in %q", s)
	}
	return v
}

// TestWriteFDBsReadBack: a generated fabric written as ibnetdiscover output
// and opensm.fdbs reads back with the generator's routes, on all cores
// (pieces of a few tables).
func TestWriteFDBsReadBack(t *testing.T) {
	f, err := gen.Generate("kary:k=4,n=3")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	topo, fdbs := dir+"/ibnetdiscover.txt", dir+"/opensm.fdbs"
	writeFile(t, topo, func(w *bytes.Buffer) error { return WriteNetDiscover(w, f) })
	writeFile(t, fdbs, func(w *bytes.Buffer) error { return WriteFDBs(w, f) })
	old, oldMin := parallelWindow, parallelMin
	parallelWindow, parallelMin = 2048, 0
	defer func() { parallelWindow, parallelMin = old, oldMin }()
	g, err := ReadFiles(topo, fdbs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for s := int32(0); s < int32(f.NumHosts()); s++ {
		for d := int32(0); d < int32(f.NumHosts()); d++ {
			a, _ := f.AppendRoute(nil, s, d)
			b, _ := g.AppendRoute(nil, s, d)
			if len(a) != len(b) {
				t.Fatalf("route %d to %d: %d hops, want %d", s, d, len(b), len(a))
			}
			for i := range a {
				if f.Links[a[i]].FromPort != g.Links[b[i]].FromPort {
					t.Fatalf("route %d to %d differs at hop %d", s, d, i)
				}
			}
		}
	}
}

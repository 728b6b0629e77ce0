package ib

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orcs/gen"
	"orcs/lft"
)

// TestWriteLFTDumpAsOpenSM: for every real OpenSM run of the fixtures
// whose ports have one LID each, the fabric read from ibnetdiscover and
// opensm-lfts.dump is written back as opensm-lfts.dump, and the result is
// OpenSM's file byte for byte, less the lines of other switches' LIDs
// (which a fabric's tables do not hold).
func TestWriteLFTDumpAsOpenSM(t *testing.T) {
	compared := 0
	for _, run := range ibRuns(t) {
		real, err := os.ReadFile(run.path("opensm-lfts.dump"))
		if err != nil {
			t.Fatal(err)
		}
		f, err := ReadFiles(run.path("ibnetdiscover.txt"), run.path("opensm-lfts.dump"), Options{IncludeAggregationNodes: true})
		if err != nil {
			t.Fatalf("%s: %v", run, err)
		}
		if _, err := fabricIDs(f); err != nil {
			t.Logf("%s: not written: %v", run, err)
			continue
		}
		var got bytes.Buffer
		if err := WriteLFTDump(&got, f); err != nil {
			t.Fatalf("%s: %v", run, err)
		}
		var want []string
		for _, l := range strings.SplitAfter(string(real), "\n") {
			if strings.Contains(l, "# Switch portguid") && !strings.Contains(l, " 000 # Switch") {
				continue
			}
			want = append(want, l)
		}
		if got.String() != strings.Join(want, "") {
			gl, wl := strings.SplitAfter(got.String(), "\n"), want
			for i := range min(len(gl), len(wl)) {
				if gl[i] != wl[i] {
					t.Fatalf("%s: line %d: got %q, OpenSM wrote %q", run, i+1, gl[i], wl[i])
				}
			}
			t.Fatalf("%s: %d lines, OpenSM's file less other switches' LIDs has %d", run, len(gl), len(wl))
		}
		compared++
	}
	if compared < 10 {
		t.Fatalf("only %d runs compared", compared)
	}
}

// TestWriteDumpsRoundTrip: a generated fat tree written as ibnetdiscover
// output and opensm-lfts.dump reads back as the same fabric: hosts,
// switches, links with their ports, and every route hop by hop.
func TestWriteDumpsRoundTrip(t *testing.T) {
	for _, spec := range []string{"kary:k=4,n=3", "kary:k=8,n=2", "torus:dims=3x3,hosts=2"} {
		orig, err := gen.Generate(spec)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		topo, lfts := filepath.Join(dir, "ibnetdiscover.txt"), filepath.Join(dir, "opensm-lfts.dump")
		writeFile(t, topo, func(b *bytes.Buffer) error { return WriteNetDiscover(b, orig) })
		writeFile(t, lfts, func(b *bytes.Buffer) error { return WriteLFTDump(b, orig) })
		f, err := ReadFiles(topo, lfts, Options{Names: NamesDesc})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		sameRoutes(t, spec, orig, f)
	}
}

func writeFile(t testing.TB, path string, write func(*bytes.Buffer) error) {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sameRoutes checks that g is f read back: the same nodes by name, links
// with their ports, and routes.
func sameRoutes(t *testing.T, what string, f, g *lft.Fabric) {
	t.Helper()
	if f.NumHosts() != g.NumHosts() || f.NumSwitches() != g.NumSwitches() || len(f.Links) != len(g.Links) {
		t.Fatalf("%s: read back %d hosts %d switches %d links, want %d %d %d", what,
			g.NumHosts(), g.NumSwitches(), len(g.Links), f.NumHosts(), f.NumSwitches(), len(f.Links))
	}
	hop := func(x *lft.Fabric, l int32) string {
		k := x.Links[l]
		return fmt.Sprintf("%s[%d]->%s[%d]", x.Nodes[k.From].Name, k.FromPort, x.Nodes[k.To].Name, k.ToPort)
	}
	gh := map[string]int32{}
	for h := 0; h < g.NumHosts(); h++ {
		gh[g.Nodes[g.HostNode(h)].Name] = int32(h)
	}
	for s := 0; s < f.NumHosts(); s++ {
		gs, ok := gh[f.Nodes[f.HostNode(s)].Name]
		if !ok {
			t.Fatalf("%s: host %s not read back", what, f.Nodes[f.HostNode(s)].Name)
		}
		for d := 0; d < f.NumHosts(); d++ {
			gd := gh[f.Nodes[f.HostNode(d)].Name]
			a, sa := f.AppendRoute(nil, int32(s), int32(d))
			c, sc := g.AppendRoute(nil, gs, gd)
			if sa != sc || len(a) != len(c) {
				t.Fatalf("%s: route %d→%d: %d hops (%v), want %d (%v)", what, s, d, len(c), sc, len(a), sa)
			}
			for i := range a {
				if hop(f, a[i]) != hop(g, c[i]) {
					t.Fatalf("%s: route %d→%d hop %d: %s, want %s", what, s, d, i, hop(g, c[i]), hop(f, a[i]))
				}
			}
		}
	}
}

// TestWriteLFTDumpSwitchesByLID: OpenSM writes the switch tables in the
// order of the switches' LIDs, not of their GUIDs (a 4096-host ftree
// routing has LID 3 on the 257th switch by GUID); so does WriteLFTDump.
func TestWriteLFTDumpSwitchesByLID(t *testing.T) {
	dir := filepath.Join(ibRoot, "ft64", "minhop")
	f, err := ReadFiles(filepath.Join(dir, "ibnetdiscover.txt"), filepath.Join(dir, "opensm-lfts.dump"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := f.SwitchNode(0), f.SwitchNode(f.NumSwitches()-1)
	f.Nodes[a].LID, f.Nodes[b].LID = f.Nodes[b].LID, f.Nodes[a].LID
	var out bytes.Buffer
	if err := WriteLFTDump(&out, f); err != nil {
		t.Fatal(err)
	}
	prev := 0
	for _, l := range strings.Split(out.String(), "\n") {
		var lid int
		if _, err := fmt.Sscanf(l, "Unicast lids [0-112] of switch Lid %d", &lid); err == nil {
			if lid <= prev {
				t.Fatalf("switch LID %d after %d: tables not in LID order", lid, prev)
			}
			prev = lid
		}
	}
	if prev == 0 {
		t.Fatal("no table headers")
	}
}

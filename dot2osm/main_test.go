package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orcs/dot"
	"orcs/ib"
	"orcs/lft"
	"orcs/opensm"
)

func TestConvert(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "ft16.net")
	var stderr bytes.Buffer
	if code := run([]string{"../testdata/ft16.dot", out}, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	topo, err := ib.ReadSimNet(data, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(topo.Nodes) != 24 || !strings.Contains(string(data), "Switch 8 \"S0_0\"\n[1] \"H0\"[1] # lid 0 4xSDR\n") {
		t.Errorf("net file:\n%s", data)
	}
	// -o names the output too.
	out2 := filepath.Join(dir, "b.net")
	if code := run([]string{"-o", out2, "../testdata/ft16.dot"}, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if data2, _ := os.ReadFile(out2); !bytes.Equal(data, data2) {
		t.Error("-o gives another file")
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.dot")
	os.WriteFile(bad, []byte("digraph {\n  H0 -> S0;\n  S0 -> H0;\n  H1;\n}\n"), 0o644)
	out := filepath.Join(dir, "out.net")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{bad, out}, 1, `bad.dot:4: host "H1" has no link`},
		{[]string{filepath.Join(dir, "missing.dot")}, 1, "missing.dot: open: no such file"},
		{nil, 2, "usage: dot2osm"},
		{[]string{"a", "b", "c"}, 2, "usage: dot2osm"},
	} {
		var stderr bytes.Buffer
		if code := run(c.args, &stderr); code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("dot2osm %v: exit %d, %q; want %d, %q", c.args, code, stderr.String(), c.code, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed conversion left an output file")
	}
}

// cables lists a fabric's links as "from -> to" names, counted.
func cables(f *lft.Fabric) map[string]int {
	m := map[string]int{}
	for l := range f.Links {
		m[f.LinkName(int32(l))]++
	}
	return m
}

// TestRoundTrip: a dot written by orcs gen, through dot2osm, routed by
// real ibsim and OpenSM, and read back from the dumps (ibnetdiscover and
// opensm-lfts.dump, node names from the descriptions) is the same
// topology.
func TestRoundTrip(t *testing.T) {
	tools, err := opensm.FindTools()
	if err != nil {
		t.Skipf("InfiniBand tools missing (%v); install with: apt-get install %s", err, opensm.Packages)
	}
	for _, name := range []string{"ft64.dot", "torus4x4.dot"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join("..", "testdata", name)
			var stderr bytes.Buffer
			if code := run([]string{in, filepath.Join(dir, "fabric.net")}, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			f, err := dot.ReadFile(in, dot.Options{Topology: true})
			if err != nil {
				t.Fatal(err)
			}
			keep := filepath.Join(dir, "keep")
			if _, err := opensm.Route(context.Background(), f, opensm.Options{Engine: "minhop", IBNetDiscover: true,
				Keep: keep, Tools: tools, TempDir: dir}); err != nil {
				t.Fatal(err)
			}
			ours, _ := os.ReadFile(filepath.Join(dir, "fabric.net"))
			routed, _ := os.ReadFile(filepath.Join(keep, "fabric.net"))
			if !bytes.Equal(ours, routed) {
				t.Fatal("orcs route fed ibsim another net file than dot2osm writes")
			}
			back, err := ib.ReadFiles(filepath.Join(keep, "ibnetdiscover.txt"), filepath.Join(keep, "opensm-lfts.dump"),
				ib.Options{Names: ib.NamesDesc})
			if err != nil {
				t.Fatal(err)
			}
			want, got := cables(f), cables(back)
			if len(want) != len(got) || back.NumHosts() != f.NumHosts() || back.NumSwitches() != f.NumSwitches() {
				t.Fatalf("read back %d hosts, %d switches, %d distinct links; want %d, %d, %d",
					back.NumHosts(), back.NumSwitches(), len(got), f.NumHosts(), f.NumSwitches(), len(want))
			}
			for k, n := range want {
				if got[k] != n {
					t.Errorf("link %s: %d times read back, %d in the dot", k, got[k], n)
				}
			}
		})
	}
}

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"orcs/fabricarg"
	"orcs/nodes"
)

// railLayout loads a fabric and groups it into nodes.
func railLayout(t *testing.T, a fabricarg.Args) (*fabricarg.Fabric, *nodes.Layout) {
	t.Helper()
	src, err := fabricarg.Load(a)
	if err != nil {
		t.Fatal(err)
	}
	l, err := nodes.FromFabric(src.Fabric)
	if err != nil {
		t.Fatal(err)
	}
	return src, l
}

// checkRails checks that HCA r of every multi-HCA node sits on the leaf of
// rail r of its unit: the leaf whose rail-0 neighbour is the node's HCA 0
// leaf, by the leaf switch the generator names S0_<unit·rails + r>.
func checkRails(t *testing.T, what string, src *fabricarg.Fabric, l *nodes.Layout, rails int) {
	t.Helper()
	f := src.Fabric
	leafName := func(h int32) string {
		to := f.Links[f.OutLinks(f.HostNode(int(h)))[0]].To
		n := &f.Nodes[to]
		if n.Desc != "" {
			return n.Desc
		}
		return n.Name
	}
	for i, n := range l.Nodes {
		if len(n.HCAs) == 1 {
			continue
		}
		if len(n.HCAs) != rails {
			t.Fatalf("%s: node %s has %d rails, want %d", what, n.Name, len(n.HCAs), rails)
		}
		unit := i / 4 // 4 slots per unit in these fabrics, dgx001 first
		for r, h := range n.HCAs {
			if want := "S0_" + string(rune('0'+unit*rails+r)); leafName(h) != want {
				t.Errorf("%s: %s rail %d (%s) is on %s, want %s", what, n.Name, r, f.HostName(int(h)), leafName(h), want)
			}
		}
	}
	if w := l.CheckRails(f); w != nil {
		t.Errorf("%s: CheckRails: %v", what, w)
	}
}

// TestRailNodesGenAndOpenSM: the committed fixture testdata/ib/rail (the
// fabric of orcs gen rail:units=2,nodes=4,rails=4,service=2 with the
// hosts' descriptions as a DGX's driver writes them, "dgx001 mlx5_0",
// routed by OpenSM's ftree and minhop on ibsim) read through every
// topology and table file, and the generated fabric itself, report 7
// nodes × 4 HCAs (dgx001-dgx007, each HCA on its rail's leaf) and the
// service nodes svc01 and svc02 of one HCA.
func TestRailNodesGenAndOpenSM(t *testing.T) {
	const want = "7 nodes × 4 HCAs, 2 nodes × 1 HCA"
	src, l := railLayout(t, fabricarg.Args{Input: "gen:rail:units=2,nodes=4,rails=4,service=2"})
	if l.Summary() != want {
		t.Errorf("gen: %q, want %q", l.Summary(), want)
	}
	checkRails(t, "gen", src, l, 4)
	for _, engine := range []string{"ftree", "minhop"} {
		dir := filepath.Join(ibFixtures, "rail", engine)
		for _, files := range [][2]string{{"ibnetdiscover.txt", "opensm-lfts.dump"}, {"opensm-subnet.lst", "dump_fts.txt"}} {
			what := engine + "/" + files[0]
			src, l := railLayout(t, fabricarg.Args{Topo: filepath.Join(dir, files[0]), LFTs: filepath.Join(dir, files[1])})
			if l.Summary() != want {
				t.Errorf("%s: %q, want %q", what, l.Summary(), want)
			}
			var names []string
			for _, n := range l.Nodes {
				names = append(names, n.Name)
			}
			if got := strings.Join(names, ","); got != "dgx001,dgx002,dgx003,dgx004,dgx005,dgx006,dgx007,svc01,svc02" {
				t.Errorf("%s: nodes %s", what, got)
			}
			checkRails(t, what, src, l, 4)
		}
		// The analyzer says it in its header, text and JSON.
		fab := []string{"--topo", filepath.Join(dir, "ibnetdiscover.txt"), "--lfts", filepath.Join(dir, "opensm-lfts.dump"), "-n", "2", "--seed", "1"}
		if out := mustRun(t, fab...); !strings.HasPrefix(out, "nodes: "+want+"\n") {
			t.Errorf("%s text:\n%s", engine, out)
		}
		if out := mustRun(t, append(fab, "--format", "json")...); !strings.Contains(out, `"nodes": "`+want+`"`) {
			t.Errorf("%s json:\n%s", engine, out)
		}
	}
	// A fabric of single-HCA hosts says nothing of nodes.
	if out := mustRun(t, "-i", "../testdata/ft16.dot", "-n", "1", "--seed", "1"); strings.Contains(out, "nodes:") {
		t.Errorf("ft16:\n%s", out)
	}
}

// TestRailNodesLiveOpenSM routes a generated 4 nodes × 4 rails fabric with
// the real OpenSM (ftree) on ibsim now and reads its dumps back.
func TestRailNodesLiveOpenSM(t *testing.T) {
	needIBTools(t)
	keep := filepath.Join(t.TempDir(), "keep")
	if _, err := runCmd(t, "route", "-R", "ftree", "--keep", keep, "gen:rail:units=1,nodes=4,rails=4"); err != nil {
		t.Fatal(err)
	}
	src, l := railLayout(t, fabricarg.Args{Topo: filepath.Join(keep, "opensm-subnet.lst"), LFTs: filepath.Join(keep, "opensm-lfts.dump")})
	if l.Summary() != "4 nodes × 4 HCAs" {
		t.Errorf("OpenSM's dumps: %q", l.Summary())
	}
	checkRails(t, "live ftree", src, l, 4)
}

// TestHostsNodeNames: --hosts takes node names, each meaning all its HCAs
// in rail order, beside HCA names.
func TestHostsNodeNames(t *testing.T) {
	dir := filepath.Join(ibFixtures, "rail", "ftree")
	fab := []string{"--topo", filepath.Join(dir, "ibnetdiscover.txt"), "--lfts", filepath.Join(dir, "opensm-lfts.dump")}
	out := string(runBin(t, append(fab, "--hosts", "dgx00[2-3],svc01", "-d", "-p", "ring", "-n", "1", "--printnamelist", "-o", "/dev/null")...))
	want := "H-dgx002_mlx5_0\nH-dgx002_mlx5_1\nH-dgx002_mlx5_2\nH-dgx002_mlx5_3\n" +
		"H-dgx003_mlx5_0\nH-dgx003_mlx5_1\nH-dgx003_mlx5_2\nH-dgx003_mlx5_3\nH-svc01\n"
	if out != want {
		t.Errorf("hosts taking part:\n%s\nwant\n%s", out, want)
	}
	if _, err := run(t, append(fab, "--hosts", "dgx002,H-dgx002_mlx5_1", "-n", "1")...); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("a node and one of its HCAs: %v", err)
	}
}

// TestRailDeadlockFree: the rail generators' routing has no credit loop,
// two and three levels.
func TestRailDeadlockFree(t *testing.T) {
	for _, spec := range []string{"gen:rail:units=2,nodes=4,rails=4,service=2", "gen:rail:units=3,nodes=4,rails=2,up=4,spines=2,cores=4", "gen:superpod-h100:su=1"} {
		out, err := runCmd(t, "deadlock", "--sl", "none", spec)
		if err != nil || !strings.Contains(out, "no loop") || strings.Contains(out, "loop:") {
			t.Errorf("%s: %v\n%s", spec, err, out)
		}
	}
}

// TestRailWarning: the analyzer names an HCA cabled to another rail's leaf
// (dgx002's mlx5_0 and mlx5_1 swapped in a generated fabric's dot).
func TestRailWarning(t *testing.T) {
	dir := t.TempDir()
	dotFile := filepath.Join(dir, "rail.dot")
	if _, err := runCmd(t, "gen", "-o", dotFile, "rail:units=1,nodes=4,rails=2"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(dotFile)
	if err != nil {
		t.Fatal(err)
	}
	swapped := strings.NewReplacer("H-dgx002_mlx5_0", "H-dgx002_mlx5_1", "H-dgx002_mlx5_1", "H-dgx002_mlx5_0").Replace(string(b))
	bad := writeFile(t, dir, "swapped.dot", swapped)
	cmd := exec.Command(orcsBin, "-i", bad, "-n", "1", "--seed", "1", "-o", filepath.Join(dir, "out"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	for _, want := range []string{
		"orcs: warning: dgx002 HCA mlx5_1 (rail 1) is cabled to leaf S0_0, whose other HCAs are of rail 0\n",
		"orcs: warning: dgx002 HCA mlx5_0 (rail 0) is cabled to leaf S0_1, whose other HCAs are of rail 1\n",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	cmd = exec.Command(orcsBin, "-i", dotFile, "-n", "1", "--seed", "1", "-o", filepath.Join(dir, "out"))
	stderr.Reset()
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil || strings.Contains(stderr.String(), "cabled") {
		t.Errorf("the generated fabric: %v %s", err, stderr.String())
	}
}

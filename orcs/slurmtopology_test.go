package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// railSpec is a small rail fabric: 2 units of 2 slots × 2 rails, svc01 on
// rail 0 of the last slot. By hand: dgx001 and dgx002 have their HCAs on
// leaves S0_0 (rail 0) and S0_1 (rail 1) of unit 1, dgx003 on S0_2 and
// S0_3 of unit 2, svc01 on S0_2; both spines link to every leaf.
const railSpec = "gen:rail:units=2,nodes=2,rails=2,service=1"

func TestSlurmTopologyTree(t *testing.T) {
	out, err := runCmd(t, "slurm-topology", railSpec)
	if err != nil {
		t.Fatal(err)
	}
	want := "# Slurm topology from gen:rail:units=2,nodes=2,rails=2,up=2,spines=2,cores=0,sup=0,service=1,railonly=0: 3 nodes × 2 HCAs, 1 node × 1 HCA\n" +
		"# 2 units of 2 nodes, 4 nodes; 1 level of switches above\n" +
		"SwitchName=su1 Nodes=dgx[001-002]\n" +
		"SwitchName=su2 Nodes=dgx003,svc01\n" +
		"SwitchName=spine1 Switches=su[1-2]\n"
	if out != want {
		t.Errorf("topology.conf\n%s\nwant\n%s", out, want)
	}
	// --exclude leaves svc01 out; dgx003 stays in its unit.
	out, err = runCmd(t, "slurm-topology", "--exclude", "svc01", railSpec)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "SwitchName=su2 Nodes=dgx003\n") || !strings.Contains(out, "; 1 node excluded\n") {
		t.Errorf("--exclude svc01:\n%s", out)
	}
	// Excluding a whole unit drops it and its name from the spines.
	out, err = runCmd(t, "slurm-topology", "--exclude", "dgx003,svc01", railSpec)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "su2") || !strings.Contains(out, "SwitchName=spine1 Switches=su1\n") {
		t.Errorf("--exclude dgx003,svc01:\n%s", out)
	}
}

// TestSlurmTopologyThreeLevels: 3 units with 2 spines each under 2 cores:
// every unit's spines are one group, the cores one group above them.
func TestSlurmTopologyThreeLevels(t *testing.T) {
	out, err := runCmd(t, "slurm-topology", "gen:rail:units=3,nodes=2,rails=2,up=2,spines=2,cores=2")
	if err != nil {
		t.Fatal(err)
	}
	body := out[strings.Index(out, "SwitchName"):]
	want := "SwitchName=su1 Nodes=dgx[001-002]\nSwitchName=su2 Nodes=dgx[003-004]\nSwitchName=su3 Nodes=dgx[005-006]\n" +
		"SwitchName=spine1 Switches=su1\nSwitchName=spine2 Switches=su2\nSwitchName=spine3 Switches=su3\n" +
		"SwitchName=core1 Switches=spine[1-3]\n"
	if body != want {
		t.Errorf("topology.conf\n%s\nwant\n%s", body, want)
	}
}

// TestSlurmTopologySingleHCA: on a fat tree of single-HCA hosts every leaf
// is a unit under its own name, as topology.conf files are written by hand.
func TestSlurmTopologySingleHCA(t *testing.T) {
	out, err := runCmd(t, "slurm-topology", "-i", "../testdata/ft16.dot")
	if err != nil {
		t.Fatal(err)
	}
	want := "SwitchName=S0_0 Nodes=H[0-3]\nSwitchName=S0_1 Nodes=H[4-7]\nSwitchName=S0_2 Nodes=H[8-11]\nSwitchName=S0_3 Nodes=H[12-15]\n" +
		"SwitchName=spine1 Switches=S0_[0-3]\n"
	if !strings.HasSuffix(out, want) {
		t.Errorf("ft16:\n%s", out)
	}
}

func TestSlurmTopologyBlock(t *testing.T) {
	out, err := runCmd(t, "slurm-topology", "--plugin", "block", railSpec)
	if err != nil {
		t.Fatal(err)
	}
	body := out[strings.Index(out, "BlockName"):]
	// 2 blocks of 2 nodes: base 2, and 4 covers both.
	if body != "BlockName=su1 Nodes=dgx[001-002]\nBlockName=su2 Nodes=dgx003,svc01\nBlockSizes=2,4\n" {
		t.Errorf("block topology.conf:\n%s", out)
	}
}

func TestSlurmTopologyYAML(t *testing.T) {
	out, err := runCmd(t, "slurm-topology", "--format", "yaml", railSpec)
	if err != nil {
		t.Fatal(err)
	}
	body := out[strings.Index(out, "- topology"):]
	want := `- topology: tree
  cluster_default: true
  tree:
    switches:
      - switch: su1
        nodes: dgx[001-002]
      - switch: su2
        nodes: dgx003,svc01
      - switch: spine1
        children: su[1-2]
- topology: block
  cluster_default: false
  block:
    block_sizes:
      - 2
      - 4
    blocks:
      - block: su1
        nodes: dgx[001-002]
      - block: su2
        nodes: dgx003,svc01
- topology: flat
  cluster_default: false
  flat: true
`
	if body != want {
		t.Errorf("topology.yaml\n%s\nwant\n%s", body, want)
	}
}

// TestSlurmTopologyErrors: bad arguments fail with the reason and leave no
// output file.
func TestSlurmTopologyErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "topology.conf")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--exclude", "dgx009,login", railSpec}, "--exclude: 2 of the 2 names are no nodes of the fabric: dgx009, login"},
		{[]string{"--exclude", "dgx[001-003],svc01", railSpec}, "no nodes left (4 excluded)"},
		{[]string{"--exclude", "dgx[3-1]", railSpec}, "--exclude: "},
		{[]string{"--format", "xml", railSpec}, `unknown format "xml"`},
		{[]string{"--plugin", "dragonfly", railSpec}, `unknown plugin "dragonfly"`},
		{[]string{"--format", "yaml", "--plugin", "block", railSpec}, "--plugin is for --format conf"},
		{[]string{"-i", writeFile(t, dir, "bad.dot", "digraph { H1 -> }\n")}, "bad.dot:1"},
	} {
		_, err := runCmd(t, append([]string{"slurm-topology", "-o", out}, tt.args...)...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want %q", tt.args, err, tt.want)
		}
		if _, serr := os.Stat(out); serr == nil {
			t.Errorf("%v: output file written", tt.args)
		}
	}
}

// TestSlurmTopologyBlockSizes: Slurm's block plugin takes the first block's
// node count as the base block size unless BlockSizes= says otherwise, and
// a later block with fewer nodes stops slurmctld ("children count lower
// than bblock_node_cnt", Slurm 24.11). By hand: gen:rail:units=3,nodes=3,
// rails=2,service=2 holds dgx001-003 (su1), dgx004-006 (su2), dgx007-008,
// svc01, svc02 (su3, the two service nodes on rails 0 and 1 of its last
// slot); without svc02 and dgx005, su2 has 2 nodes, su1 and su3 3. So the
// base is 2 and, as Slurm's default, the aggregated sizes double up to the
// first that covers the 3 blocks: 2, 4, 8.
func TestSlurmTopologyBlockSizes(t *testing.T) {
	spec := "gen:rail:units=3,nodes=3,rails=2,service=2"
	out, err := runCmd(t, "slurm-topology", "--plugin", "block", "--exclude", "svc02,dgx005", spec)
	if err != nil {
		t.Fatal(err)
	}
	body := out[strings.Index(out, "BlockName"):]
	want := "BlockName=su1 Nodes=dgx[001-003]\nBlockName=su2 Nodes=dgx[004,006]\nBlockName=su3 Nodes=dgx[007-008],svc01\nBlockSizes=2,4,8\n"
	if body != want {
		t.Errorf("block topology.conf\n%s\nwant\n%s", body, want)
	}
	out, err = runCmd(t, "slurm-topology", "--format", "yaml", "--exclude", "svc02,dgx005", spec)
	if err != nil {
		t.Fatal(err)
	}
	want = "  block:\n    block_sizes:\n      - 2\n      - 4\n      - 8\n    blocks:\n      - block: su1\n"
	if !strings.Contains(out, want) {
		t.Errorf("topology.yaml\n%s\nwant it to contain\n%s", out, want)
	}
	// The verdict says which units are larger than the base block, for the
	// block plugin and topology.yaml, not for the tree.
	note := "Slurm's block plugin plans in blocks of 2 nodes (BlockSizes=2,4,8, from su2); 2 units have more nodes: su1, su3.\n"
	for _, tt := range []struct {
		args []string
		note bool
	}{
		{[]string{"--plugin", "block"}, true},
		{[]string{"--format", "yaml"}, true},
		{[]string{"--plugin", "tree"}, false},
	} {
		var stderr strings.Builder
		app := newApp()
		app.ErrWriter = &stderr
		args := append(append([]string{"orcs", "slurm-topology", "-o", filepath.Join(t.TempDir(), "topo")}, tt.args...), "--exclude", "svc02,dgx005", spec)
		if err := app.Run(args); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(stderr.String(), note) != tt.note {
			t.Errorf("%v: stderr %q, want the note %q: %v", tt.args, stderr.String(), note, tt.note)
		}
	}
	// Units of one size (railSpec: 2 and 2) need no note.
	var stderr strings.Builder
	app := newApp()
	app.ErrWriter = &stderr
	if err := app.Run([]string{"orcs", "slurm-topology", "--plugin", "block", "-o", filepath.Join(t.TempDir(), "topo"), railSpec}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stderr.String(), "block plugin plans") {
		t.Errorf("units of 2 nodes: %q", stderr.String())
	}
}

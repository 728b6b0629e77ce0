package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"orcs/analyze"
	"orcs/dot"
	"orcs/fabricarg"
	"orcs/ib"
	"orcs/lft"
	"orcs/metrics"
	"orcs/patterns"
)

// loadApp is an app with the flags of the classic simulation whose action
// only loads the fabric, for testing loadFabric.
func loadApp(stderr *bytes.Buffer, got func(f *lft.Fabric, name string)) *cli.App {
	return &cli.App{
		Name:           "orcs",
		Flags:          analyzeFlags(),
		ErrWriter:      stderr,
		ExitErrHandler: func(*cli.Context, error) {},
		Action: func(c *cli.Context) error {
			src, err := loadFabric(c, fabricarg.Tables, false, false)
			if err == nil {
				got(src.Fabric, src.Name)
			}
			return err
		},
	}
}

// TestLoadFabric checks the flag combinations of loadFabric.
func TestLoadFabric(t *testing.T) {
	dir := filepath.Join(ibFixtures, "ft16", "minhop")
	topo, lfts := filepath.Join(dir, "ibnetdiscover.txt"), filepath.Join(dir, "opensm-lfts.dump")
	cases := []struct {
		args  []string
		want  string // error, or "" for success
		hosts int
		name  string
		warn  string
	}{
		{[]string{"--topo", topo, "--lfts", lfts}, "", 16, topo + "+" + lfts, ""},
		{[]string{"--topo", topo, "--lfts", lfts, "--names", "desc"}, "", 16, topo + "+" + lfts, ""},
		{[]string{"-i", "../testdata/manual4.dot"}, "", 4, "../testdata/manual4.dot", ""},
		{[]string{"--topo", topo, "--lfts", lfts, "--lmc-spread"}, "", 16, topo + "+" + lfts,
			"orcs: warning: --lmc-spread: no CA port of " + topo + " has LMC > 0, every host has one LID\n"},
		{[]string{"--topo", topo}, "--topo " + topo + " needs --lfts", 0, "", ""},
		{[]string{"--lfts", lfts}, "--lfts " + lfts + " needs --topo", 0, "", ""},
		{[]string{"--topo", topo, "--lfts", lfts, "-i", "../testdata/manual4.dot"}, "either with -i or with --topo/--lfts, not both", 0, "", ""},
		{[]string{"-i", "../testdata/manual4.dot", "--names", "desc"}, "--lmc-spread, --names and --include-aggregation-nodes apply to --topo/--lfts input", 0, "", ""},
		{[]string{"--topo", topo, "--lfts", lfts, "--names", "lid"}, `--names: unknown name style "lid"`, 0, "", ""},
		{[]string{"--topo", lfts, "--lfts", topo}, "not a topology", 0, "", ""},
	}
	for _, c := range cases {
		var stderr bytes.Buffer
		var f *lft.Fabric
		var name string
		err := loadApp(&stderr, func(g *lft.Fabric, n string) { f, name = g, n }).Run(append([]string{"orcs"}, c.args...))
		if c.want != "" {
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%q: %v, want %q", c.args, err, c.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if f.NumHosts() != c.hosts || name != c.name || stderr.String() != c.warn {
			t.Errorf("%q: %d hosts, name %q, stderr %q", c.args, f.NumHosts(), name, stderr.String())
		}
	}
}

// simulateForTopo runs the classic simulation on f as `orcs -d --seed 7 -n 4`
// would and returns the printed result.
func simulateForTopo(t *testing.T, f *lft.Fabric, metric, ptrn string) string {
	t.Helper()
	m, err := metrics.Lookup(metric)
	if err != nil {
		t.Fatal(err)
	}
	s, err := analyze.New(f, analyze.Config{Input: "x", Pattern: patterns.Spec{Name: ptrn}, Metric: metric,
		Subset: analyze.SubsetLinearBFS, NoShuffle: true, Level: -1, Runs: 4, Seed: 7, Threads: runtime.NumCPU()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := metrics.Render(&buf, "text", m, res, f); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestTopoSameAsLft2dot checks that simulating the dumps directly gives
// the results of simulating the dot that lft2dot writes from them, on
// every fixture run: through the simulator and through the command line.
func TestTopoSameAsLft2dot(t *testing.T) {
	runs, _ := filepath.Glob(filepath.Join(ibFixtures, "*", "*", "engine.txt"))
	if len(runs) < 20 {
		t.Fatalf("%d fixture runs", len(runs))
	}
	for _, e := range runs {
		dir := filepath.Dir(e)
		topo, lfts := filepath.Join(dir, "ibnetdiscover-s.txt"), filepath.Join(dir, "opensm-lfts.dump")
		if _, err := os.Stat(topo); err != nil {
			continue // sharp576 keeps only what compare --topo/--lfts reads
		}
		dotText, err := runLft2dot(t, topo, lfts)
		if err != nil {
			t.Fatal(err)
		}
		dotFile := writeFile(t, t.TempDir(), "fabric.dot", dotText)
		direct, err := ib.ReadFiles(topo, lfts, ib.Options{})
		if err != nil {
			t.Fatal(err)
		}
		viaDot, err := dot.ReadFile(dotFile, dot.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, metric := range []string{"hist_max_cong", "sum_max_cong"} {
			for _, ptrn := range []string{"bisect_fb_sym", "bruck"} {
				a, b := simulateForTopo(t, direct, metric, ptrn), simulateForTopo(t, viaDot, metric, ptrn)
				if a != b {
					t.Errorf("%s %s %s: dumps give\n%s\nthe dot gives\n%s", dir, metric, ptrn, a, b)
				}
			}
		}
		for _, metric := range []string{"hist_max_cong", "sum_max_cong"} {
			args := []string{"-d", "--seed", "7", "-n", "4", "-p", "bisect_fb_sym", "--metric", metric}
			a := mustRun(t, append(args, "--topo", topo, "--lfts", lfts)...)
			b := mustRun(t, append(args, "-i", dotFile)...)
			if a != b || a == "" {
				t.Errorf("%s %s: --topo/--lfts give\n%s\n-i gives\n%s", dir, metric, a, b)
			}
		}
	}
}

// TestTopoLMCSpread checks --lmc-spread on the LMC 1 fixture: the routes
// change (minhop spreads the two LIDs of a port over different up-links),
// so the congestion of an all-to-all pattern differs from the base LIDs'.
func TestTopoLMCSpread(t *testing.T) {
	dir := filepath.Join(ibFixtures, "ft16", "minhop-lmc1")
	topo, lfts := filepath.Join(dir, "ibnetdiscover.txt"), filepath.Join(dir, "opensm-lfts.dump")
	var stderr bytes.Buffer
	var spread *lft.Fabric
	err := loadApp(&stderr, func(f *lft.Fabric, _ string) { spread = f }).Run([]string{"orcs", "--topo", topo, "--lfts", lfts, "--lmc-spread"})
	if err != nil {
		t.Fatal(err)
	}
	base, err := ib.ReadFiles(topo, lfts, ib.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !spread.LMCSpread() || base.LMCSpread() {
		t.Fatal("spread flag not applied")
	}
	differ := false
	for _, p := range []string{"bisect_fb_sym", "bruck", "recdbl", "tree"} {
		a, b := simulateForTopo(t, spread, "hist_max_cong", p), simulateForTopo(t, base, "hist_max_cong", p)
		differ = differ || a != b
	}
	if !differ {
		t.Error("LMC spread changed no result")
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr %q", stderr.String())
	}
}

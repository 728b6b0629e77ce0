package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"orcs/dot"
)

// TestEveryCommandTakesEveryFabric runs every command that takes a fabric
// with each form: a dot file, a generator spec and InfiniBand files.
func TestEveryCommandTakesEveryFabric(t *testing.T) {
	dir := filepath.Join(ibFixtures, "ft16", "minhop")
	topo, lfts := filepath.Join(dir, "ibnetdiscover.txt"), filepath.Join(dir, "opensm-lfts.dump")
	forms := map[string][]string{
		"dot": {"-i", "../testdata/ft16.dot"},
		"gen": {"-i", "gen:fattree2:leaves=4,hosts=4,up=4"},
		"ib":  {"--topo", topo, "--lfts", lfts},
	}
	commands := map[string][]string{
		"":            {"-p", "bisect_fb_sym", "-n", "3", "--seed", "1"},
		"lft2dot":     nil,
		"dot2osm":     nil,
		"samplingsim": {"-w", "pattern:name=bisect_fb_sym,size=4096"},
	}
	for cmd, extra := range commands {
		for form, args := range forms {
			full := append(append([]string{}, args...), extra...)
			var out string
			var err error
			if cmd == "" {
				out, err = run(t, full...)
			} else {
				out, err = runCmd(t, append([]string{cmd}, full...)...)
			}
			if err != nil {
				t.Errorf("orcs %s with %s: %v", cmd, form, err)
				continue
			}
			if !strings.Contains(out, "16") && !strings.Contains(out, "H") {
				t.Errorf("orcs %s with %s: output %q", cmd, form, out)
			}
		}
	}
}

// TestTablesNeeded checks the one-line error of a command that walks
// routes but gets a topology alone.
func TestTablesNeeded(t *testing.T) {
	topo := filepath.Join(ibFixtures, "ft16", "minhop", "ibnetdiscover.txt")
	for _, cmd := range [][]string{{"--topo", topo}, {"samplingsim", "--topo", topo}, {"lft2dot", "--topo", topo}} {
		var err error
		if cmd[0] == "--topo" {
			_, err = run(t, cmd...)
		} else {
			_, err = runCmd(t, cmd...)
		}
		if err == nil || !strings.Contains(err.Error(), "needs --lfts") || strings.Contains(err.Error(), "\n") {
			t.Errorf("orcs %s: %v", strings.Join(cmd, " "), err)
		}
	}
}

// TestRouteTopo routes a real ibnetdiscover file (the topology alone) with
// OpenSM and checks that the routed dot keeps the fabric: its hosts are the
// CA ports, and every pair routes.
func TestRouteTopo(t *testing.T) {
	needIBTools(t)
	topo := filepath.Join(ibFixtures, "ft16", "minhop", "ibnetdiscover.txt")
	out := filepath.Join(t.TempDir(), "routed.dot")
	if _, err := runCmd(t, "route", "--topo", topo, "-R", "ftree", "-o", out); err != nil {
		t.Fatal(err)
	}
	f, err := dot.ReadFile(out, dot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f.NumHosts() != 16 || f.NumSwitches() != 8 {
		t.Errorf("routed fabric: %d hosts, %d switches", f.NumHosts(), f.NumSwitches())
	}
	if c := f.CheckRoutes(nil, 1, 2); !c.OK() {
		t.Error(c.Summary())
	}
	if _, ok := f.NodeByName("H-0"); !ok {
		t.Error("host names are not those of the topology's node descriptions")
	}
	cmp, err := runCmd(t, "compare", "--topo", topo, "--engines", "minhop,ftree", "-n", "10")
	if err != nil || !strings.Contains(cmp, "fabric "+topo+": 16 hosts, 8 switches") || !strings.Contains(cmp, "ftree") {
		t.Errorf("compare --topo: %v\n%s", err, cmp)
	}
	// The positional FABRIC stays an alias of -i.
	if _, err := runCmd(t, "route", "-R", "minhop", "gen:kary:k=2,n=2"); err != nil {
		t.Errorf("positional FABRIC: %v", err)
	}
	if _, err := runCmd(t, "route", "-R", "minhop", "-i", "gen:kary:k=2,n=2", "../testdata/ft16.dot"); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("two fabrics: %v", err)
	}
}

// TestSamplingsimTopoLMCSpread runs samplingsim on InfiniBand dumps with
// LMC spread.
func TestSamplingsimTopoLMCSpread(t *testing.T) {
	dir := filepath.Join(ibFixtures, "ft16", "minhop-lmc1")
	topo, lfts := filepath.Join(dir, "ibnetdiscover.txt"), filepath.Join(dir, "opensm-lfts.dump")
	js := filepath.Join(t.TempDir(), "run.json")
	out, err := runCmd(t, "samplingsim", "--topo", topo, "--lfts", lfts, "--lmc-spread", "-w", "pattern:name=alltoall,size=4096", "--json", js)
	if err != nil {
		t.Fatal(err)
	}
	// The JSON names the fabric by the topology's base name (it has no
	// graph name): "fabric": "" made the report print ": 16 hosts".
	var doc struct {
		Fabric string `json:"fabric"`
		Hosts  int    `json:"hosts"`
	}
	if b, err := os.ReadFile(js); err != nil || json.Unmarshal(b, &doc) != nil || doc.Fabric != "ibnetdiscover.txt" || doc.Hosts != 16 {
		t.Errorf("JSON fabric %q, %d hosts (%v), want \"ibnetdiscover.txt\", 16", doc.Fabric, doc.Hosts, err)
	}
	if !strings.Contains(out, "fabric "+topo+"+"+lfts+": 16 hosts, 8 switches") || !strings.Contains(out, "job pattern: 16 hosts, 240 messages, finished after") {
		t.Errorf("output:\n%s", out)
	}
}

// TestRouteQual checks --routequal on the ORCS manual's Listing 1: the 4
// hosts of S1 send 12 routes; each host's up-link and down-link carries 3
// of them, so 8 links are used with load 3, and every route has
// congestion 3 (bandwidth 1/3).
func TestRouteQual(t *testing.T) {
	out := mustRun(t, "--routequal", "-i", "../testdata/manual4.dot")
	want := "Route quality of 12 routes between 4 hosts\n" +
		"links used: 8 of 16; max link load: 3; mean load of used links: 3.000000\n" +
		"weight 3: 12 of the 12 connections (100.00%)\n\nBW: 0.333333\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// TestCompareCurrent512 re-routes a real 512-host fabric given as the
// administrator has it: ibnetdiscover output and OpenSM's dump of its
// production tables (made here by minhop on ibsim). The row "current"
// simulates the production tables; re-routing with minhop on the emulation,
// which keeps the fabric's GUIDs and LIDs, gives the same tables, hence
// the very same values, while ftree differs.
func TestCompareCurrent512(t *testing.T) {
	needIBTools(t)
	keep := filepath.Join(t.TempDir(), "prod")
	if _, err := runCmd(t, "route", "-R", "minhop", "gen:kary:k=8,n=3", "--ibnetdiscover", "--keep", keep); err != nil {
		t.Fatal(err)
	}
	topo, lfts := filepath.Join(keep, "ibnetdiscover.txt"), filepath.Join(keep, "opensm-lfts.dump")
	out, err := runCmd(t, "compare", "--topo", topo, "--lfts", lfts, "--engines", "minhop,ftree", "-n", "20", "-p", "bisect_fb_sym", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var cmp struct {
		Hosts   int `json:"hosts"`
		Engines []struct {
			Requested string    `json:"requested"`
			Values    []float64 `json:"values"`
			Deadlock  string    `json:"deadlock"`
		} `json:"engines"`
	}
	if err := json.Unmarshal([]byte(out), &cmp); err != nil {
		t.Fatal(err)
	}
	if cmp.Hosts != 512 || len(cmp.Engines) != 3 || cmp.Engines[0].Requested != "current" {
		t.Fatalf("comparison: %d hosts, rows %+v", cmp.Hosts, cmp.Engines)
	}
	cur, minhop, ftree := cmp.Engines[0].Values, cmp.Engines[1].Values, cmp.Engines[2].Values
	if len(cur) != 20 || !slices.Equal(cur, minhop) || slices.Equal(cur, ftree) {
		t.Errorf("current %v\nminhop %v\nftree %v", cur, minhop, ftree)
	}
	for _, e := range cmp.Engines {
		if e.Deadlock != "free (1 VL)" {
			t.Errorf("%s: deadlock column %q, want free (1 VL) (fat trees route without credit loops)", e.Requested, e.Deadlock)
		}
	}
}

// TestDot2osmForms checks dot2osm's argument forms: IN OUT, -i IN OUT,
// --topo FILE OUT.
func TestDot2osmForms(t *testing.T) {
	dir := t.TempDir()
	for i, args := range [][]string{
		{"../testdata/ft16.dot"},
		{"-i", "../testdata/ft16.dot"},
		{"--topo", filepath.Join(ibFixtures, "ft16", "minhop", "ibnetdiscover.txt")},
	} {
		out := filepath.Join(dir, fmt.Sprintf("%d.net", i))
		runBin(t, append(append([]string{"dot2osm"}, args...), out)...)
		if data, err := os.ReadFile(out); err != nil || !strings.Contains(string(data), "Switch ") {
			t.Errorf("dot2osm %v: %v\n%s", args, err, data)
		}
	}
}

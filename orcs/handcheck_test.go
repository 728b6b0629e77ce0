package main

import (
	"strings"
	"testing"
)

// linkLoads runs get_cable_cong with CSV output and returns "from->to" →
// load for the loaded links.
func linkLoads(t *testing.T, args ...string) map[string]string {
	t.Helper()
	out := mustRun(t, append([]string{"--metric", "get_cable_cong", "--format", "csv"}, args...)...)
	loads := map[string]string{}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "link,from,to,from_port,to_port,load,scaled" {
		t.Fatalf("header %q", lines[0])
	}
	for _, line := range lines[1:] {
		f := strings.Split(line, ",")
		if f[5] != "0" {
			loads[f[1]+"->"+f[2]] = f[5] + "/" + f[6]
		}
	}
	return loads
}

func sameLoads(t *testing.T, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("loaded links %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s, want %s", k, got[k], v)
		}
	}
}

// TestManualExampleByHand checks the 4-host fabric of the ORCS manual
// (Listing 1) against congestion worked out by hand. linear_bfs from S1
// orders the hosts H1 H2 H3 H4; with -d rank i is the i-th of them.
func TestManualExampleByHand(t *testing.T) {
	in := []string{"-i", "../testdata/manual4.dot", "-d", "-n", "1"}
	// bisect: 1→0 and 3→2, i.e. H2→H1 and H4→H3: four links carry one route each.
	sameLoads(t, linkLoads(t, append(in, "-p", "bisect")...), map[string]string{
		"H2->S1": "1/1", "S1->H1": "1/1", "H4->S1": "1/1", "S1->H3": "1/1",
	})
	// gather: H2, H3, H4 → H1: the three up-links carry one route, S1→H1 three.
	sameLoads(t, linkLoads(t, append(in, "-p", "gather")...), map[string]string{
		"H2->S1": "1/0.3333333333333333", "H3->S1": "1/0.3333333333333333",
		"H4->S1": "1/0.3333333333333333", "S1->H1": "3/1",
	})
	// Every gather connection shares S1→H1 with the two others: w = 3.
	if got := mustRun(t, append(in, "-p", "gather", "--metric", "hist_max_cong")...); got != "weight 3: 3 of the 3 connections (100.00%)\n\nBW: 0.333333\n" {
		t.Errorf("gather hist_max_cong:\n%s", got)
	}
	// bisect connections share nothing: w = 1, full bandwidth.
	if got := mustRun(t, append(in, "-p", "bisect", "--metric", "hist_max_cong")...); got != "weight 1: 2 of the 2 connections (100.00%)\n\nBW: 1.000000\n" {
		t.Errorf("bisect hist_max_cong:\n%s", got)
	}
	// sum_max_cong of tree on 4 ranks: levels {0→1} w=1, {0→2, 1→3} w=1 each: sum 2.
	if got := mustRun(t, append(in, "-p", "tree", "--metric", "sum_max_cong")...); !strings.Contains(got, "Congestion sum of 2 occured 1 times.") {
		t.Errorf("tree sum_max_cong:\n%s", got)
	}
}

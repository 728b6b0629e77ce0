package main

import (
	"encoding/json"
	"strings"
	"testing"

	"orcs/opensm"
)

// TestCompareCollective: real OpenSM engines on 4 nodes × 2 rails, each
// rail a leaf with one cable to the one spine (testdata/rail/rail4x2.net).
// By hand: the ring and PXN stay on their rail leaf (1); all-to-all
// without PXN has 3 rail-local steps and 3 in which a rail's 4 HCAs send
// to the other rail over one cable (congestion 4): 6/(3+12) = 0.4, for
// every engine and every node placement.
func TestCompareCollective(t *testing.T) {
	needIBTools(t)
	for _, tc := range []struct {
		pattern string
		want    float64
	}{
		{"nccl_ring_allreduce", 1}, {"nccl_alltoall", 0.4}, {"nccl_alltoall_pxn", 1},
	} {
		out, err := runCmd(t, "compare", "--engines", "minhop,ftree,dfsssp", "--topo", "../testdata/rail/rail4x2.net",
			"-p", tc.pattern, "-n", "10", "--format", "json")
		if err != nil {
			t.Fatal(err)
		}
		var c opensm.Comparison
		if err := json.Unmarshal([]byte(out), &c); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if c.Metric != "hist_bus_band" || c.Commsize != 8 || len(c.Engines) != 3 {
			t.Fatalf("%s: metric %s, commsize %d, %d engines", tc.pattern, c.Metric, c.Commsize, len(c.Engines))
		}
		for _, e := range c.Engines {
			if e.Summary == nil || e.Summary.Min != tc.want || e.Summary.Max != tc.want {
				t.Errorf("%s, %s: %+v, want %v on every run", tc.pattern, e.Requested, e.Summary, tc.want)
			}
		}
	}
	// the table's mean column is the runs' mean fraction (0.4), not the
	// connections' mean of 1/w ((24·1 + 24·1/4)/48 = 0.625)
	out, err := runCmd(t, "compare", "--engines", "minhop", "--topo", "../testdata/rail/rail4x2.net", "-p", "nccl_alltoall", "-n", "10")
	if err != nil || !strings.Contains(out, "mean bus bw") {
		t.Fatalf("table: %v\n%s", err, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 3 && f[0] == "minhop" && f[3] != "0.4000" {
			t.Errorf("mean bus bw %s, want 0.4000:\n%s", f[3], out)
		}
	}
}

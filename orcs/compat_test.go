package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The three differences between ORCS 2.0 and the corrected semantics,
// worked out by hand from ORCS 2.0's rules (see the doc comments of
// metrics.BinEdges, analyze.Walker.PerRoute and metrics.DelayTracker) on the
// shipped fabrics, run deterministically (--subset linear_bfs -d -n 1; the
// rank order of every fabric is described in handderived_test.go).

// TestHistEdgesByHand: 2neighbor on ft16 gives w = 2 for all 30
// connections (TestHandDerivedMetrics), a bandwidth of exactly 15/30 = 0.5.
// GSL's edge 10 is 0.5·1.000000000000001 = 0.5 + 2.5·2⁻⁵², rounded to even
// 0.5 + 2·2⁻⁵² (doubles in [0.5, 1) are 2⁻⁵³ apart): 0.5 lies below it, in
// ORCS 2.0's bin [0.45, 0.50). The exact edges count it in [0.50, 0.55).
// bisect_fb_sym on ft16 gives 1.0, in the last bin either way.
func TestHistEdgesByHand(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-p", "2neighbor"}, oneRunHistogram("0.45000000")},
		{[]string{"-p", "2neighbor", "--hist-edges", "orcs2"}, oneRunHistogram("0.45000000")},
		{[]string{"-p", "2neighbor", "--compat", "orcs2"}, oneRunHistogram("0.45000000")},
		{[]string{"-p", "2neighbor", "--hist-edges", "exact"}, oneRunHistogram("0.50000000")},
		{[]string{"-p", "bisect_fb_sym"}, oneRunHistogram("0.95000000")},
		{[]string{"-p", "bisect_fb_sym", "--hist-edges", "exact"}, oneRunHistogram("0.95000000")},
	} {
		if got := handRun(t, "ft16", append(c.args, "--metric", "hist_acc_band")...); got != c.want {
			t.Errorf("%v: got\n%s\nwant\n%s", c.args, got, c.want)
		}
	}
	// JSON and CSV name the convention.
	for edges, lowOfTheRun := range map[string]float64{"orcs2": 0.45, "exact": 0.5} {
		var doc struct {
			BinEdges  string `json:"bin_edges"`
			Histogram []struct {
				Low   float64 `json:"low"`
				Count int64   `json:"count"`
			} `json:"histogram"`
		}
		args := []string{"-p", "2neighbor", "--metric", "hist_acc_band", "--hist-edges", edges}
		if err := json.Unmarshal([]byte(handRun(t, "ft16", append(args, "--format", "json")...)), &doc); err != nil {
			t.Fatal(err)
		}
		for _, b := range doc.Histogram {
			if (b.Count == 1) != (math.Abs(b.Low-lowOfTheRun) < 1e-9) {
				t.Errorf("%s: JSON bin %v counts %d", edges, b.Low, b.Count)
			}
		}
		if doc.BinEdges != edges {
			t.Errorf("JSON bin_edges %q, want %q", doc.BinEdges, edges)
		}
		if csv := handRun(t, "ft16", append(args, "--format", "csv")...); csv != "run,bandwidth\n0,0.5\n" {
			t.Errorf("CSV holds more than the run:\n%s", csv)
		}
	}
}

// TestHistEdgesMatchGSL bins 1000 random runs of bisect_fb_sym on ft16 in
// the test with GSL's ranges for 20 bins over [0, 1.000000000000001) —
// range[i] = ((20−i)/20)·0 + (i/20)·xmax, x in bin i when range[i] ≤ x <
// range[i+1] — and compares with the histogram orcs prints by default.
// Bandwidths of 16 connections of weight 1 or 2 are multiples of 1/32, so
// 0.5 and 0.75 occur: the sample must contain runs on which the two
// conventions disagree.
func TestHistEdgesMatchGSL(t *testing.T) {
	args := []string{"--ptrn", "bisect_fb_sym", "--metric", "hist_acc_band", "-n", "1000", "-i", "../testdata/ft16.dot", "--seed", "2009"}
	var doc struct {
		Values []float64 `json:"values"`
	}
	if err := json.Unmarshal(runBin(t, append(args, "--format", "json")...), &doc); err != nil {
		t.Fatal(err)
	}
	const n, xmin, xmax = 20, 0.0, 1.000000000000001
	var ranges [n + 1]float64
	for i := range ranges {
		f1, f2 := float64(n-i)/float64(n), float64(i)/float64(n)
		ranges[i] = float64(f1*xmin) + float64(f2*xmax)
	}
	var gsl [n]int
	onEdge := 0
	for _, x := range doc.Values {
		bin := -1
		for i := 0; i < n; i++ {
			if ranges[i] <= x && x < ranges[i+1] {
				bin = i
			}
		}
		if bin < 0 {
			t.Fatalf("value %v outside GSL's range", x)
		}
		gsl[bin]++
		if k := math.Round(x * n); math.Abs(x*n-k) < 1e-9 && k > 0 && k < n {
			onEdge++
		}
	}
	if onEdge == 0 {
		t.Fatal("no run lies on an inner bin edge: the sample does not tell the conventions apart")
	}
	lines := strings.Split(strings.TrimSuffix(string(runBin(t, args...)), "\n"), "\n")
	if len(lines) != 22 {
		t.Fatalf("%d lines", len(lines))
	}
	for i, l := range lines[2:] {
		f := strings.Fields(l)
		if c, err := strconv.Atoi(f[2]); err != nil || c != gsl[i] {
			t.Errorf("bin %d: orcs counts %s, GSL's ranges %d", i, f[2], gsl[i])
		}
	}
	t.Logf("%d of %d runs lie on an inner edge", onEdge, len(doc.Values))
}

// TestCableCongORCS2ByHand: ORCS 2.0 adds its running level map after every
// route, so route i of a level of m routes (i from 1, in pattern order)
// counts m−i+1 times on each of its links.
//
// gather on ft16: routes Hi → H0 for i = 1 … 15, m = 15, route i counts
// 16−i times. ORCS's Edge-IDs on ft16 (nodes H0 … H15, S0_0 … S0_3,
// S1_0 … S1_3, each with its out-edges in file order): Hh→leaf is h,
// S0_0→H0 is 16, S0_y→S1_0 is 20+8y, S1_0→S0_0 is 48.
//
//	Hi→leaf (ID i): 16−i (15 … 1); H0's up-link is idle, not listed.
//	S0_0→H0 (16): all routes, 15+14+…+1 = 120 (the true load is 15).
//	S1_0→S0_0 (48): routes 4 … 15, 12+11+…+1 = 78.
//	S0_1→S1_0 (28): routes 4 … 7, 12+11+10+9 = 42.
//	S0_2→S1_0 (36): routes 8 … 11, 8+7+6+5 = 26.
//	S0_3→S1_0 (44): routes 12 … 15, 4+3+2+1 = 10.
func TestCableCongORCS2ByHand(t *testing.T) {
	var want strings.Builder
	want.WriteString("\nCable Congestions:\n\n Edge-ID\tacc. cong\n")
	for i := 1; i <= 15; i++ {
		fmt.Fprintf(&want, "%d\t%d\n", i, 16-i)
	}
	want.WriteString("16\t120\n28\t42\n36\t26\n44\t10\n48\t78\n")
	if got := handRun(t, "ft16", "-p", "gather", "--metric", "get_cable_cong", "--compat", "orcs2"); got != want.String() {
		t.Errorf("ft16 gather, compat:\n%s\nwant\n%s", got, want.String())
	}
	in := []string{"-i", "../testdata/ft16.dot", "--subset", "linear_bfs", "-d", "-n", "1", "-p", "gather"}
	if got := linkLoads(t, in...)["S0_0->H0"]; got != "15/1" {
		t.Errorf("ft16 gather S0_0→H0: default load %s, want 15", got)
	}
	csv := mustRun(t, append(in, "--metric", "get_cable_cong", "--format", "csv", "--compat", "orcs2")...)
	if !strings.Contains(csv, "link,from,to,from_port,to_port,load,scaled,edge_id\n") ||
		!strings.Contains(csv, ",S0_0,H0,0,0,120,1,16\n") || !strings.Contains(csv, ",S1_0,S0_0,0,0,78,0.65,48\n") {
		t.Errorf("compat CSV:\n%s", csv)
	}

	// 2neighbor on manual4 (ranks H1 … H4; group {0,1,2}, rank 3 idle) in
	// ORCS 2.0's order 0→1, 0→2, 1→0, 1→2, 2→0, 2→1: m = 6, weights
	// 6, 5, 4, 3, 2, 1. Edge-IDs: S1→H1 … S1→H3 are 0 … 2, H1→S1 … H3→S1
	// 8 … 10 (TestORCSEdgeList).
	//	S1→H1 (0): 1→0, 2→0: 4+2 = 6.   H1→S1 (8):  0→1, 0→2: 6+5 = 11.
	//	S1→H2 (1): 0→1, 2→1: 6+1 = 7.   H2→S1 (9):  1→0, 1→2: 4+3 = 7.
	//	S1→H3 (2): 0→2, 1→2: 5+3 = 8.   H3→S1 (10): 2→0, 2→1: 2+1 = 3.
	// (In the corrected order 0→1, 1→0, 0→2, … H1→S1 would get 6+4 = 10.)
	want.Reset()
	want.WriteString("\nCable Congestions:\n\n Edge-ID\tacc. cong\n0\t6\n1\t7\n2\t8\n8\t11\n9\t7\n10\t3\n")
	if got := handRun(t, "manual4", "-p", "2neighbor", "--metric", "get_cable_cong", "--compat", "orcs2"); got != want.String() {
		t.Errorf("manual4 2neighbor, compat:\n%s\nwant\n%s", got, want.String())
	}
}

// TestDepMaxDelayORCS2ByHand: ORCS 2.0 chains a message only to the first
// message its sender received in the previous level, and only the sender's
// first message of a level. Pattern files on manual4 (ranks r0 … r3 = H1 …
// H4 on one switch): a message s→d has w = max(messages leaving s, messages
// entering d) in its level.
func TestDepMaxDelayORCS2ByHand(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, pattern string
		exact, orcs2  int
	}{
		// Level 0: 1→0, 2→0, 3→0 share S1→H1: w = 3, r0 has its data at 3.
		// Level 1: 2→3, w = 1. Level 2: 0→1, w = 1.
		// Exact: 0→1 leaves when r0 is ready: 3 + 1 = 4.
		// ORCS 2.0: r0 received nothing in level 1, so 0→1 starts at 0;
		// the longest chain is a level-0 message: 3.
		{"skip", "1 0\n2 0\n3 0\n\n2 3\n\n0 1\n", 4, 3},
		// Level 0: 0→1, 2→1, 2→3, 2→0: r2 sends 3, r1 receives 2:
		// w(0→1) = 2, the other three 3. Level 1: 1→3, 1→2: w = 2 each.
		// Level 2: 0→3, w = 1.
		// Exact: r1 ready at 3, level 1 arrivals 5; r0 ready 3, 0→3 at 4: 5.
		// ORCS 2.0: r1's first receipt is 0→1 at 2, so 1→3 arrives at 4;
		// 1→2 is r1's second send and starts at 0 (2); r0 got nothing in
		// level 1, so 0→3 arrives at 1. Longest chain: 4.
		{"first", "0 1\n2 1\n2 3\n2 0\n\n1 3\n1 2\n\n0 3\n", 5, 4},
		// Level 0: 0→1, w = 1. Level 1: 1→2, 1→3, 0→3, 2→3: r1 sends 2,
		// r3 receives 3: w(1→2) = 2, the other three 3.
		// Exact: r1 ready at 1, 1→3 arrives at 1 + 3 = 4 (the others at 3).
		// ORCS 2.0: 1→2 is r1's first send, chained: 1 + 2 = 3; 1→3 is its
		// second and starts at 0: 3; 0→3 and 2→3 have no receipt in level
		// 0 to follow: 3. Longest chain: 3.
		{"second", "0 1\n\n1 2\n1 3\n0 3\n2 3\n", 4, 3},
	} {
		file := writeFile(t, dir, c.name+".ptrn", c.pattern)
		args := []string{"-p", "file:" + file, "--metric", "dep_max_delay"}
		if got := handRun(t, "manual4", args...); got != oneRunStats("dep_max_delay", c.exact) {
			t.Errorf("%s: default\n%s\nwant delay %d", c.name, got, c.exact)
		}
		if got := handRun(t, "manual4", append(args, "--compat", "orcs2")...); got != oneRunStats("dep_max_delay", c.orcs2) {
			t.Errorf("%s: compat\n%s\nwant delay %d", c.name, got, c.orcs2)
		}
	}
}

// TestCompatSameSeedSameBytes: with --compat orcs2, -j 1 and -j 8 and
// merged shards print the same bytes; merge refuses to mix modes or bin
// conventions and prints with the shards' convention.
func TestCompatSameSeedSameBytes(t *testing.T) {
	dir := t.TempDir()
	for i, run := range [][]string{
		{"-p", "rand", "--metric", "hist_acc_band", "--subset", "rand", "-s", "40"},
		{"-p", "ptrnvsptrn", "-f", "tree", "-c", "rand", "-z", "20", "--metric", "dep_max_delay"},
		{"-p", "2neighbor", "--metric", "get_cable_cong"},
	} {
		base := append([]string{"-i", "../testdata/ft64.dot", "-n", "150", "--seed", "77", "--compat", "orcs2"}, run...)
		ref := runBin(t, append(base, "-j", "1")...)
		if got := runBin(t, append(base, "-j", "8")...); !bytes.Equal(got, ref) {
			t.Fatalf("%v: -j 8 differs from -j 1", run)
		}
		var shards []string
		for s := range 3 {
			p := filepath.Join(dir, fmt.Sprintf("c%d-%d.json", i, s))
			runBin(t, append(base, "--shard", fmt.Sprintf("%d/3", s), "-o", p)...)
			shards = append(shards, p)
		}
		merged := runBin(t, append([]string{"merge", "-i", "../testdata/ft64.dot"}, shards...)...)
		if !bytes.Equal(merged, ref) {
			t.Fatalf("%v: merged shards differ from the unsplit run", run)
		}
		corrected := append([]string{"-i", "../testdata/ft64.dot", "-n", "150", "--seed", "77"}, run...)
		if bytes.Equal(ref, runBin(t, corrected...)) {
			t.Fatalf("%v: --compat orcs2 gives the same output as the corrected semantics", run)
		}
	}
	// Shards of another mode or convention are refused.
	shard := func(name string, extra ...string) string {
		p := filepath.Join(dir, name)
		runBin(t, append([]string{"-i", "../testdata/ft16.dot", "-p", "rand", "--metric", "hist_acc_band", "-n", "10",
			"--seed", "5", "-o", p}, extra...)...)
		return p
	}
	orcs2 := shard("a", "--shard", "0/2")
	for _, c := range []struct {
		other, msg string
	}{
		{shard("b", "--shard", "1/2", "--hist-edges", "exact"), "binned with hist_acc_band edges exact, but"},
		{shard("c", "--shard", "1/2", "--compat", "orcs2"), `computed with compat "orcs2", but`},
	} {
		out, err := exec.Command(orcsBin, "merge", orcs2, c.other).CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.msg) {
			t.Errorf("merge of mixed shards: %v %s", err, out)
		}
	}
	// Shards of the exact convention merge into the exact histogram, and
	// a shard file written before the convention was recorded counts as
	// exact.
	exact := []string{shard("d", "--shard", "0/2", "--hist-edges", "exact"), shard("e", "--shard", "1/2", "--hist-edges", "exact")}
	want := runBin(t, "-i", "../testdata/ft16.dot", "-p", "rand", "--metric", "hist_acc_band", "-n", "10", "--seed", "5", "--hist-edges", "exact")
	if got := runBin(t, append([]string{"merge"}, exact...)...); !bytes.Equal(got, want) {
		t.Errorf("merged exact shards:\n%s\nwant\n%s", got, want)
	}
	for _, p := range exact {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, bytes.Replace(b, []byte(`,"bin_edges":"exact"`), nil, 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := runBin(t, append([]string{"merge"}, exact...)...); !bytes.Equal(got, want) {
		t.Errorf("merged shards without bin_edges:\n%s\nwant\n%s", got, want)
	}
}

// TestCompatFlagErrors: unknown values and contradicting flags.
func TestCompatFlagErrors(t *testing.T) {
	for args, msg := range map[string]string{
		"--hist-edges gsl":                  `unknown hist_acc_band bin edges "gsl" (known: orcs2, exact)`,
		"--compat orcs1":                    `unknown compat "orcs1" (known: orcs2)`,
		"--compat orcs2 --hist-edges exact": "compat orcs2 bins hist_acc_band as ORCS 2.0 does",
	} {
		_, err := run(t, append([]string{"-i", "../testdata/ft16.dot"}, strings.Fields(args)...)...)
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", args, err, msg)
		}
	}
}

// TestPvPLevelsORCS2ByHand: -f tree -z 6 -c tree on 9 ranks of ft16 (H0 …
// H8). The first tree has 3 levels, the second (H6, H7, H8) 2: 6→7, then
// 6→8. The second finishes its cycle after the first ends (the spec's
// decision, as ORCS 2.0 does; the default since issue 20), so a fourth
// level simulates 6→8 alone. Every route is alone on its links (H6→H8
// climbs S0_1→S1_0, 8 ≡ 0 mod 4, which no other route of its levels uses),
// so w = 1: 9 connections over 4 levels and sum_max_cong 4, with or without
// --compat orcs2 (the end at max(la, lb) gave 8 over 3 and 3).
func TestPvPLevelsORCS2ByHand(t *testing.T) {
	args := []string{"-p", "ptrnvsptrn", "-f", "tree", "-c", "tree", "-z", "6", "-s", "9"}
	for compat, want := range map[bool][2]string{
		false: {"weight 1: 9 of the 9 connections (100.00%)\n\nBW: 1.000000\n", oneRunStats("sum_max_cong", 4)},
		true:  {"weight 1: 9 of the 9 connections (100.00%)\n\nBW: 1.000000\n", oneRunStats("sum_max_cong", 4)},
	} {
		a := args
		if compat {
			a = append(a, "--compat", "orcs2")
		}
		for i, metric := range []string{"hist_max_cong", "sum_max_cong"} {
			if got := handRun(t, "ft16", append(a, "--metric", metric)...); got != want[i] {
				t.Errorf("compat %v %s:\n%s\nwant\n%s", compat, metric, got, want[i])
			}
		}
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runStatus runs the built orcs and returns stdout, stderr and the exit
// status.
func runStatus(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(orcsBin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return stdout.String(), stderr.String(), 0
	case errors.As(err, &ee):
		return stdout.String(), stderr.String(), ee.ExitCode()
	}
	t.Fatalf("orcs %s: %v", strings.Join(args, " "), err)
	return "", "", -1
}

// ibRun names the files of a fixture run as --topo/--lfts arguments.
func ibRun(run string) []string {
	dir := filepath.Join(ibFixtures, run)
	return []string{"--topo", filepath.Join(dir, "opensm-subnet.lst"), "--lfts", filepath.Join(dir, "opensm-lfts.dump"), "--names", "desc"}
}

// TestDeadlockExitStatus: 0 when deadlock-free, 2 on a credit loop (with
// the report and nothing on stderr), 1 on an error.
func TestDeadlockExitStatus(t *testing.T) {
	for _, c := range []struct {
		args   []string
		status int
		first  string // first line of stdout, or a part of stderr for errors
	}{
		{ibRun("mesh/dor"), 0, "deadlock-free (1 VL)"},
		{ibRun("torus/minhop"), 2, "credit loop on VL 0: 4 cables"},
		{ibRun("torus/lash-sl"), 0, "deadlock-free (2 VLs)"},
		{append(ibRun("torus/lash-sl"), "--sl", "none", "--sl2vl", "none"), 2, "credit loop on VL 0: 4 cables"},
		{[]string{"gen:mesh:dims=3x3"}, 0, "deadlock-free (1 VL)"},
		{[]string{"-i", "gen:torus:dims=4x4"}, 2, "credit loop on VL 0: 4 cables"},
		{[]string{"-i", "../testdata/ft16.dot"}, 0, "deadlock-free (1 VL)"},
		{[]string{"-i", "no-such-file.dot"}, 1, "no-such-file.dot"},
		{[]string{"gen:mesh:dims=3x3", "--format", "xml"}, 1, `unknown format "xml"`},
		{[]string{"gen:mesh:dims=3x3", "--sl", filepath.Join(ibFixtures, "torus/lash-sl/saquery-pr.txt")}, 1, "--topo"},
		{append(ibRun("torus/minhop"), "--sl", filepath.Join(ibFixtures, "mesh/dor/opensm-lfts.dump")), 1, "PathRecord"},
		{append(ibRun("ft16/minhop"), "--sl", filepath.Join(ibFixtures, "torus/lash-sl/saquery-pr.txt")), 1, "files of different fabrics"},
	} {
		args := append([]string{"deadlock"}, c.args...)
		out, errOut, status := runStatus(t, args...)
		if status != c.status {
			t.Errorf("orcs %s: exit status %d, want %d\n%s%s", strings.Join(args, " "), status, c.status, out, errOut)
			continue
		}
		if c.status == 1 {
			if !strings.Contains(errOut, c.first) || out != "" {
				t.Errorf("orcs %s: stderr %q, stdout %q", strings.Join(args, " "), errOut, out)
			}
			continue
		}
		if first, _, _ := strings.Cut(out, "\n"); first != c.first || errOut != "" {
			t.Errorf("orcs %s: first line %q, want %q; stderr %q", strings.Join(args, " "), first, c.first, errOut)
		}
	}
}

// TestDeadlockJSON checks the JSON report of a loop: the loop's cables
// with names, ports, VL and the flows that create each dependency.
func TestDeadlockJSON(t *testing.T) {
	out, _, status := runStatus(t, append([]string{"deadlock", "--format", "json"}, ibRun("torus/dor")...)...)
	if status != 2 {
		t.Fatalf("exit status %d\n%s", status, out)
	}
	var doc struct {
		DeadlockFree   bool `json:"deadlock_free"`
		LoopComponents int  `json:"loop_components"`
		Loop           []struct {
			From, To         string
			FromPort, ToPort int                         `json:"-"`
			Flows            []struct{ Src, Dst string } `json:"flows_to_next"`
		} `json:"loop"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.DeadlockFree || doc.LoopComponents != 8 || len(doc.Loop) != 4 || doc.Loop[0].From != "S-0-0" ||
		doc.Loop[0].To != "S-1-0" || len(doc.Loop[0].Flows) != 3 {
		t.Errorf("json:\n%s", out)
	}
}

// TestRouteKeepThenDeadlock is the workflow of doc/deadlock.md: orcs route
// --keep with an engine that assigns SLs keeps the path SLs and SL2VL
// tables beside the dumps, and orcs deadlock finds them there.
func TestRouteKeepThenDeadlock(t *testing.T) {
	needIBTools(t)
	keep := filepath.Join(t.TempDir(), "keep")
	if _, err := runCmd(t, "route", "-R", "lash", "gen:torus:dims=4x4", "--keep", keep); err != nil {
		t.Fatal(err)
	}
	args := []string{"deadlock", "--topo", filepath.Join(keep, "opensm-subnet.lst"), "--lfts", filepath.Join(keep, "opensm-lfts.dump")}
	out, errOut, status := runStatus(t, args...)
	if status != 0 || !strings.HasPrefix(out, "deadlock-free (2 VLs)\n") || !strings.Contains(out, "saquery-pr.txt (found beside the tables)") {
		t.Errorf("exit status %d:\n%s%s", status, out, errOut)
	}
	if _, _, status := runStatus(t, append(args, "--sl", "none")...); status != 2 {
		t.Errorf("lash on one lane: exit status %d, want 2", status)
	}
}

// cutFile writes the first part of a fixture file to dir: its first n
// PathRecords (records > 0) or its first n lines.
func cutFile(t *testing.T, src, dir string, n int, records bool) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	seen := 0
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if records && strings.HasPrefix(line, "PathRecord dump:") {
			seen++
		}
		if !records {
			seen++
		}
		if seen > n {
			break
		}
		b.WriteString(line)
	}
	out := filepath.Join(dir, filepath.Base(src))
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDeadlockIncompleteLanes: a saquery PR file cut to 24 of its 240
// records, or an SL2VL dump cut short, is refused (exit status 1, the
// file, the counts and the first missing pairs or ports on stderr, nothing
// on stdout) instead of turning "deadlock-free (2 VLs)" into a credit loop
// on VL 0 or into 4 VLs.
func TestDeadlockIncompleteLanes(t *testing.T) {
	dir, err := os.MkdirTemp("", "dl") // short: error messages shorten words over 64 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	pr := cutFile(t, filepath.Join(ibFixtures, "torus/lash-sl/saquery-pr.txt"), dir, 24, true)
	vl := cutFile(t, filepath.Join(ibFixtures, "torus/torus-2QoS-sl/opensm-sl2vl.dump"), dir, 300, false)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{append(ibRun("torus/lash-sl"), "--sl", pr), []string{pr + ": 216 of 240 host pairs that the tables route have no PathRecord",
			"first: H-1 -> H-10 (LID 5 -> 27)", "--sl none"}},
		{append(ibRun("torus/torus-2QoS-sl"), "--sl2vl", vl), []string{vl + ": ", " hops of the routes leave ",
			" ports whose SL2VL table is missing", "first: ", "--sl2vl none"}},
	} {
		args := append([]string{"deadlock"}, c.args...)
		out, errOut, status := runStatus(t, args...)
		if status != 1 || out != "" {
			t.Errorf("orcs %s: exit status %d, want 1; stdout:\n%s", strings.Join(args, " "), status, out)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("orcs %s: stderr %q lacks %q", strings.Join(args, " "), errOut, w)
			}
		}
	}
	// The whole files still give the verdicts of the fixtures.
	for _, c := range []struct{ run, first string }{
		{"torus/lash-sl", "deadlock-free (2 VLs)"}, {"torus/torus-2QoS-sl", "deadlock-free (2 VLs)"},
	} {
		out, errOut, status := runStatus(t, append([]string{"deadlock"}, ibRun(c.run)...)...)
		if first, _, _ := strings.Cut(out, "\n"); status != 0 || first != c.first || errOut != "" {
			t.Errorf("%s: exit %d, %q, stderr %q", c.run, status, first, errOut)
		}
	}
}

// TestDeadlockAggregationNodes: SHARP aggregation nodes are endpoints of
// real traffic, so orcs deadlock checks their paths by default (with or
// without --include-aggregation-nodes): on sharp-spines/minhop the compute hosts
// alone are deadlock-free, yet the tables hold a 4-cable credit loop that
// needs the aggregation nodes' paths (ibdmchk, which checks every CA pair,
// finds one too: deadlock.TestIbdmchkAgrees). The verdict says so.
func TestDeadlockAggregationNodes(t *testing.T) {
	want := "credit loop on VL 0: 4 cables; the loop needs paths to/from aggregation nodes (without the 4 aggregation nodes: deadlock-free (1 VL))"
	for _, extra := range [][]string{nil, {"--include-aggregation-nodes"}} {
		args := append(append([]string{"deadlock"}, ibRun("sharp-spines/minhop")...), extra...)
		out, errOut, status := runStatus(t, args...)
		first, _, _ := strings.Cut(out, "\n")
		if status != 2 || first != want || errOut != "" || !strings.Contains(out, "aggregation nodes: 4 of the hosts") {
			t.Errorf("orcs %s: exit %d, stderr %q:\n%s", strings.Join(args, " "), status, errOut, out)
		}
	}
	out, _, status := runStatus(t, append([]string{"deadlock", "--format", "json"}, ibRun("sharp-spines/minhop")...)...)
	var doc struct {
		Aggregation int    `json:"aggregation_nodes"`
		Needs       *bool  `json:"loop_needs_aggregation_nodes"`
		Without     string `json:"verdict_without_aggregation_nodes"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || status != 2 || doc.Aggregation != 4 || doc.Needs == nil || !*doc.Needs ||
		doc.Without != "deadlock-free (1 VL)" {
		t.Errorf("json (exit %d, %v):\n%s", status, err, out)
	}
}

// TestRouteKeepDFSSSPThenDeadlock: orcs route --keep with dfsssp keeps
// every path's SL beyond the 128 hosts that one saquery per pair allows
// (here 144): dfsssp's layers from OpenSM's log (dfsssp-sl.txt.gz), which
// orcs deadlock finds beside the tables and checks deadlock-free.
func TestRouteKeepDFSSSPThenDeadlock(t *testing.T) {
	needIBTools(t)
	keep := filepath.Join(t.TempDir(), "keep")
	if _, err := runCmd(t, "route", "-R", "dfsssp", "gen:torus:dims=4x4,hosts=9", "--keep", keep); err != nil {
		t.Fatal(err)
	}
	args := []string{"deadlock", "--topo", filepath.Join(keep, "opensm-subnet.lst"), "--lfts", filepath.Join(keep, "opensm-lfts.dump")}
	out, errOut, status := runStatus(t, args...)
	if status != 0 || !strings.HasPrefix(out, "deadlock-free (") || !strings.Contains(out, "routes: 20592 ordered pairs of 144 hosts") ||
		!strings.Contains(out, "dfsssp-sl.txt.gz (found beside the tables)") {
		t.Errorf("exit status %d:\n%s%s", status, out, errOut)
	}
	if _, _, status := runStatus(t, append(args, "--sl", "none")...); status != 2 {
		t.Errorf("dfsssp on one lane: exit status %d, want 2", status)
	}
}

// TestDeadlockNeedsSLs: tables of an engine that puts paths on SLs of its
// own (here lash beyond the 128 hosts of one saquery per pair, so route
// --keep kept no SLs) are not checked on one lane without a word: OpenSM's
// log beside them names the engine, and orcs deadlock asks for the SLs
// (exit 1); --sl none checks on one lane anyway.
func TestDeadlockNeedsSLs(t *testing.T) {
	needIBTools(t)
	keep := filepath.Join(t.TempDir(), "keep")
	if _, err := runCmd(t, "route", "-R", "lash", "gen:torus:dims=4x4,hosts=9", "--keep", keep); err != nil {
		t.Fatal(err)
	}
	args := []string{"deadlock", "--topo", filepath.Join(keep, "opensm-subnet.lst"), "--lfts", filepath.Join(keep, "opensm-lfts.dump")}
	out, errOut, status := runStatus(t, args...)
	if status != 1 || out != "" || !strings.Contains(errOut, "lash configured the tables") || !strings.Contains(errOut, "--sl none") {
		t.Errorf("exit status %d, stderr %q:\n%s", status, errOut, out)
	}
	if out, _, status := runStatus(t, append(args, "--sl", "none")...); status != 2 {
		t.Errorf("lash on one lane: exit status %d, want 2\n%s", status, out)
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"errors"
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

// TestRouteKeepThenDeadlock is the workflow of the README: orcs route
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

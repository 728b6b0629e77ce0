package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// orcs whatif --shard I/N on three machines and orcs merge print byte for
// byte what one machine prints, in every format; the text ends in the
// verdict.
func TestWhatifShardsMerge(t *testing.T) {
	needIBTools(t)
	dir := t.TempDir()
	args := []string{"whatif", "gen:kary:k=2,n=2", "--engine", "minhop", "--fail", "each-link", "--fail", "random:2",
		"--trials", "2", "-n", "10", "--jobs", "2"}
	whole := map[string]string{}
	for _, format := range []string{"text", "json", "csv"} {
		out, err := runCmd(t, append(args, "--format", format)...)
		if err != nil {
			t.Fatal(err)
		}
		whole[format] = out
	}
	if !strings.Contains(whole["text"], "Verdict: minhop: 5 of 10 failure sets critical") {
		t.Errorf("text verdict:\n%s", whole["text"])
	}
	var shards []string
	for i := range 3 {
		p := filepath.Join(dir, "shard"+string(rune('0'+i))+".json")
		if _, err := runCmd(t, append(args, "--shard", string(rune('0'+i))+"/3", "-o", p)...); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, p)
	}
	for format, want := range whole {
		got, err := runCmd(t, append([]string{"merge", "--format", format}, shards...)...)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("merge --format %s differs from one machine:\n%s\nwant\n%s", format, got, want)
		}
	}
	if _, err := runCmd(t, "merge", shards[0], shards[2]); err == nil || !strings.Contains(err.Error(), "a shard is missing") &&
		!strings.Contains(err.Error(), "missing or given twice") {
		t.Errorf("merge without shard 1: %v", err)
	}
}

// Bad input: a clear error naming the problem, no output file.
func TestWhatifBadInput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.txt")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"gen:kary:k=2,n=2"}, "no failures given"},
		{[]string{"gen:kary:k=2,n=2", "--fail", "link:S9/1"}, `link:S9/1: no node "S9"`},
		{[]string{"gen:kary:k=2,n=2", "--fail", "link:S0_0/9"}, "no cable at port 9"},
		{[]string{"gen:kary:k=2,n=2", "--fail", "each-link", "--engine", "nosuch"}, "nosuch"},
		{[]string{"gen:kary:k=2,n=2", "--fail", "each-link", "--shard", "3/2"}, "--shard"},
		{[]string{"gen:kary:k=2,n=2", "--fail", "random:3", "--trials", "0"}, "at least 1 trial"},
	} {
		_, err := runCmd(t, append(append([]string{"whatif"}, c.args...), "-o", out)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
		if _, serr := os.Stat(out); serr == nil {
			t.Errorf("%v: wrote %s", c.args, out)
		}
	}
}

// A routing over --timeout ends the command with the time limit named, a
// non-zero exit, no output file and no work directory left.
func TestWhatifTimeout(t *testing.T) {
	needIBTools(t)
	tmp := t.TempDir()
	out := filepath.Join(t.TempDir(), "out.json")
	cmd := exec.Command(orcsBin, "whatif", "gen:kary:k=4,n=2", "--engine", "minhop", "--fail", "link:S0_0/3",
		"--timeout", "50ms", "--format", "json", "-o", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	msg, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(msg), "time limit 50ms") {
		t.Errorf("exit %v, output:\n%s\nwant a failure naming the time limit 50ms", err, msg)
	}
	if _, serr := os.Stat(out); serr == nil {
		t.Errorf("wrote %s", out)
	}
	if m, _ := filepath.Glob(filepath.Join(tmp, "orcs-*")); len(m) > 0 {
		t.Errorf("left behind %v", m)
	}
}

// Ctrl-C while the failure sets are routed (on the jobs' running OpenSMs)
// stops every ibsim and OpenSM, leaves no work directory and no output
// file, and exits with 130.
func TestWhatifInterrupt(t *testing.T) {
	needIBTools(t)
	tmp := t.TempDir()
	out := filepath.Join(t.TempDir(), "out.txt")
	cmd := exec.Command(orcsBin, "whatif", "gen:kary:k=4,n=3", "--engine", "minhop", "--fail", "each-link", "--jobs", "2", "-o", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	started := false // seen once: the intact routing's tools come and go
	for !started && time.Now().Before(deadline) {
		started = len(toolsOf(cmd.Process.Pid)) >= 2
		time.Sleep(20 * time.Millisecond)
	}
	if !started {
		t.Fatal("ibsim and OpenSM did not start")
	}
	// Into the failure sets: the jobs' running OpenSMs (opensm.Session)
	// have their work directories.
	for time.Now().Before(deadline.Add(20 * time.Second)) {
		if m, _ := filepath.Glob(filepath.Join(tmp, "orcs-session-*")); len(m) > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if m, _ := filepath.Glob(filepath.Join(tmp, "orcs-session-*")); len(m) == 0 {
		t.Fatal("no session started")
	}
	time.Sleep(500 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 || !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("exit %v, stderr %q; want 130", err, stderr.String())
	}
	if left := toolsOf(cmd.Process.Pid); len(left) > 0 {
		t.Errorf("tools still running: %v", left)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("wrote %s", out)
	}
}

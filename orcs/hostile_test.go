package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileSizes runs the sizes and flags of issue 22 that used to hang,
// allocate without bound or be accepted: every one must now end at once
// with exit 1, one line naming the limit (and, where one exists, the
// largest value that fits), and no output file.
func TestHostileSizes(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.txt")
	ss := []string{"samplingsim", "--gen", "kary:k=4,n=2", "-o", out}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		// item 3: workload sizes
		{append(ss, "--workload", "random:msgs=999999999999"), "the largest msgs that fits is 262144"},
		{append(ss, "--workload", "ring:iters=1000000"), "the largest iters that fits is 262144"},
		{append(ss, "--workload", "naive-reduce:arrays=1000000000000"), "the largest arrays that fits is 279620"},
		{append(ss, "--workload", "ring:size=9223372036854775807"), "a message size of at most 549755813888 bytes fits"},
		{[]string{"map", "-i", "gen:kary:k=4,n=2", "-p", "bisect", "--verify-workload", "ring:iters=1000000", "-o", out}, "the largest iters that fits is 262144"},
		// item 6
		{append(ss, "--mtu", "9223372036854775807"), "MTU 9223372036854775807 bytes: must be between 1 and 1073741824"},
		// item 7
		{[]string{"regions", "--synthetic", "torus", "--delta", "9223372036854775807", "-o", out}, "δ 9223372036854775807: want 0 to 64 hops"},
		{[]string{"regions", "--synthetic", "torus", "--delta", "64", "-o", out}, "the largest δ that fits is 5"},
		{[]string{"regions", "--synthetic", "torus", "--smooth", "1000000000", "-o", out}, "smoothing rounds 1000000000: want 0 to 100"},
		{[]string{"regions", "--synthetic", "torus", "--samples", "9223372036854775807", "-o", out}, "want 1 to 1000"},
		{[]string{"map", "-i", "gen:kary:k=4,n=2", "-p", "bisect", "--budget", "9223372036854775807", "-o", out}, "--budget 9223372036854775807: at most 2000000 candidate swaps for 16 ranks (ten times the default, 200000)"},
		{[]string{"map", "-i", "gen:kary:k=4,n=2", "-p", "bisect", "--budget", "20002000", "-o", out}, "at most 2000000 candidate swaps"},
		// item 10
		{append(ss, "--gbps", "1e-300"), "must be between 0.001 and 1e+06 Gb/s"},
		{append(ss, "--slow-factor", "1e-300", "--slow-hosts", "H0"), "slow factor 1e-300: must be in [1e-06, 1]"},
		// item 12
		{append(ss, "--window", "0.5ps"), "finer than the simulator's resolution of 1 ps"},
		{append(ss, "--window", "NaN"), `--window "NaN": want a duration`},
		{append(ss, "--latency", "Inf"), `--latency "Inf": want a duration`},
		{append(ss, "--max-time", "1e300"), `--max-time "1e300"`},
		{append(ss, "--workload", "random:closed=true,gap=100000h"), "longer than the largest simulated time"},
		{append(ss, "--congested", "NaN"), "--congested NaN: want a congested fraction in (0, 1]"},
		{append(ss, "--hosts", ""), `--hosts "": an empty host list`},
		{[]string{"-i", "../testdata/ft16.dot", "--hosts", " ", "-o", out}, `--hosts " ": an empty host list`},
		{[]string{"map", "-i", "gen:kary:k=4,n=2", "-p", "bisect", "--hosts", "", "-o", out}, "an empty host list"},
		{[]string{"deadlock", "-i", "../testdata/ft16.dot", "-j", "-5", "-o", out}, "-j/--threads -5: want 0 (all cores) to 1024"},
		{[]string{"deadlock", "-i", "../testdata/ft16.dot", "-j", "22147483647", "-o", out}, "-j/--threads 22147483647: want 0 (all cores) to 1024"},
		{[]string{"-i", "../testdata/ft16.dot", "-p", "bisect", "-j", "2147483648", "-o", out}, "-j/--threads 2147483648: want 0 (all cores) to 1024"},
		{[]string{"compare", "--engines", "minhop", "-i", "gen:kary:k=2,n=2", "-j", "2147483648", "-o", out}, "-j/--threads 2147483648: want 0 (all cores) to 1024"},
		{[]string{"deadlock", "-i", "../testdata/ft16.dot", "--examples", "-1", "-o", out}, "--examples -1: want 0 or more"},
		{[]string{"regions", "--synthetic", "torus", "-j", "-5", "-o", out}, "-j/--threads -5: want 0 (all cores) to 1024"},
	} {
		_, errOut, status := runStatus(t, c.args...)
		if status != 1 || !strings.Contains(errOut, c.msg) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("orcs %s: status %d, stderr %q; want 1 and one line with %q", strings.Join(c.args, " "), status, errOut, c.msg)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("orcs %s: an output file was left", strings.Join(c.args, " "))
		}
	}
}

// TestWindowResolution checks that a window of 1.5 ns is 1500 ps (it used
// to become 1 ns) and that -j 0 is every core for regions.
func TestWindowResolution(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "run.json")
	runBin(t, "samplingsim", "--gen", "kary:k=4,n=2", "--workload", "ring:size=64", "--window", "1.5ns", "--json", js, "-o", filepath.Join(dir, "o"))
	b, err := os.ReadFile(js)
	if err != nil || !strings.Contains(string(b), `"window_us": 0.0015,`) {
		t.Errorf("--window 1.5ns: %v; want window_us 0.0015 in the JSON", err)
	}
	runBin(t, "regions", "--synthetic", "torus", "--samples", "1", "-j", "0")
}

// TestSamplingsimOutputsTogether writes one of samplingsim's outputs to
// /dev/full (a full disk): none of the others may be left (the summary,
// the CSV, the JSON and PREFIX-all.svg used to be committed one by one),
// and the old contents of the summary stay.
func TestSamplingsimOutputsTogether(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	dir := t.TempDir()
	sum := filepath.Join(dir, "sum.txt")
	os.WriteFile(sum, []byte("old\n"), 0o644)
	for _, full := range []string{"--messages", "--csv", "-o"} {
		args := []string{"samplingsim", "--gen", "kary:k=4,n=2", "--workload", "ring:size=4096", "--window", "1us",
			"-o", sum, "--csv", filepath.Join(dir, "l.csv"), "--json", filepath.Join(dir, "r.json"),
			"--messages", filepath.Join(dir, "m.csv"), "--svg", filepath.Join(dir, "p")}
		for i := range args {
			if args[i] == full {
				args[i+1] = "/dev/full"
			}
		}
		_, errOut, status := runStatus(t, args...)
		if status != 1 || !strings.Contains(errOut, "no space left on device") {
			t.Errorf("%s /dev/full: status %d, stderr %q; want 1 and ENOSPC", full, status, errOut)
		}
		left, _ := os.ReadDir(dir)
		if len(left) != 1 || left[0].Name() != "sum.txt" {
			t.Errorf("%s /dev/full: left %v; want only the old summary", full, left)
		}
		if b, _ := os.ReadFile(sum); string(b) != "old\n" {
			t.Errorf("%s /dev/full: summary now %q", full, b)
		}
	}
}

// TestProgressOnTerminal runs map, samplingsim and regions --synthetic on
// a terminal (script(1) gives them one) and checks that each shows its
// progress line, and that off a terminal they write nothing to standard
// error. ORCS_PROGRESS_EVERY redraws every 20 ms so that these short runs
// show it.
func TestProgressOnTerminal(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("no script(1) (util-linux) to give the command a terminal")
	}
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"map", "-i", "gen:kary:k=4,n=2", "-p", "bisect", "--compare", "--verify", "-o", filepath.Join(dir, "map.txt")}, "orcs map: placing with search (step 12 of 14), "},
		{[]string{"samplingsim", "--gen", "kary:k=4,n=3", "-w", "pattern:name=alltoall,size=262144", "-o", filepath.Join(dir, "sim.txt")}, "orcs samplingsim: simulated "},
		{[]string{"regions", "--synthetic", "fattree", "--samples", "3", "-o", filepath.Join(dir, "syn.txt")}, "orcs regions --synthetic: sample "},
	} {
		line := orcsBin + " " + strings.Join(c.args, " ")
		cmd := exec.Command(script, "-qec", line, "/dev/null")
		cmd.Env = append(os.Environ(), "ORCS_PROGRESS_EVERY=20ms")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
		if !strings.Contains(string(out), c.want) {
			t.Errorf("%s on a terminal: no %q in %q", c.args[0], c.want, out)
		}
		plain := exec.Command(orcsBin, c.args...)
		plain.Env = cmd.Env
		var stderr strings.Builder
		plain.Stderr = &stderr
		if err := plain.Run(); err != nil || stderr.Len() != 0 {
			t.Errorf("%s off a terminal: %v, stderr %q", c.args[0], err, stderr.String())
		}
	}
}

package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// orcsBin is the command built once for tests that check exit codes.
var orcsBin string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "orcs-test")
	if err != nil {
		panic(err)
	}
	orcsBin = filepath.Join(dir, "orcs")
	if out, err := exec.Command("go", "build", "-o", orcsBin, ".").CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run executes orcs in-process with the given arguments, writing to a temp
// output file, and returns the output and the error.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	full := append([]string{"orcs", "-o", out}, args...)
	err := newApp().Run(full)
	b, _ := os.ReadFile(out)
	return string(b), err
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, err := run(t, args...)
	if err != nil {
		t.Fatalf("orcs %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const loopDot = `digraph g {
H1 -> S1 [comment="*"];
H2 -> S1 [comment="*"];
S1 -> H1 [comment="H1"];
S1 -> S2 [comment="H2"];
S2 -> S1 [comment="*"];
S1 -> H2 [comment="H2"];
H2 -> S2 [comment=""];
}
`

const unroutableDot = `digraph g {
H1 -> S1 [comment="*"];
H2 -> S1 [comment="*"];
H3 -> S1 [comment="*"];
S1 -> H1 [comment="H1"];
S1 -> H2 [comment="H2"];
S1 -> H3 [comment=""];
}
`

// TestBadInput checks that every kind of bad input gives a clear one-line
// error, a non-zero exit and no output file.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	good := "../testdata/manual4.dot"
	malformed := writeFile(t, dir, "malformed.dot", "digraph g {\n H1 -> S1 [comment=\"*\"];\n S1 -> -> H1;\n}\n")
	noComment := writeFile(t, dir, "nocomment.dot", "digraph g {\n H1 -> S1 [comment=\"*\"];\n S1 -> H1;\n}\n")
	loop := writeFile(t, dir, "loop.dot", loopDot)
	unroutable := writeFile(t, dir, "unroutable.dot", unroutableDot)
	emptyPattern := writeFile(t, dir, "empty.ptrn", "# nothing\n")
	badPattern := writeFile(t, dir, "bad.ptrn", "0 1\n1 x\n")
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	data, _ := os.ReadFile(good)
	zw.Write(data)
	zw.Close()
	corrupt := writeFile(t, dir, "corrupt.dot.gz", string(zb.Bytes()[:zb.Len()/2]))
	unreadable := filepath.Join(dir, "nothere.dot")
	const clusterRun = "../testdata/ib/cluster/minhop/"
	deepMissing := filepath.Join(dir, strings.Repeat("a-long-directory-name-", 4), "nothere.dot")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"malformed dot", []string{"-i", malformed}, "malformed.dot:3: malformed dot"},
		{"missing comment", []string{"-i", noComment}, `nocomment.dot:3: edge "S1" -> "H1" has no comment attribute`},
		{"routing loop", []string{"-i", loop}, "routing loop from H1 to H2 at node S1: S1 -> S2 -> S1"},
		{"unroutable pair", []string{"-i", unroutable, "-s", "3", "-p", "gather"}, "no route from H1 to H3: node S1 has no table entry for H3"},
		{"unknown pattern", []string{"-i", good, "-p", "nosuch"}, `unknown pattern "nosuch"`},
		{"unknown metric", []string{"-i", good, "--metric", "nosuch"}, `unknown metric "nosuch"`},
		{"commsize too large", []string{"-i", good, "-s", "5"}, "commsize 5 is larger than the number of hosts (4)"},
		{"commsize too small", []string{"-i", good, "-s", "1"}, "commsize 1: at least 2 hosts must take part"},
		{"z too large", []string{"-i", good, "-p", "ptrnvsptrn", "-z", "4"}, "-z/--part_commsize 4 out of range"},
		{"empty pattern file", []string{"-i", good, "-p", "file:" + emptyPattern}, "empty.ptrn: no pairs"},
		{"bad pattern line", []string{"-i", good, "-p", "file:" + badPattern}, `bad.ptrn:2: bad rank "x"`},
		{"unreadable input", []string{"-i", unreadable}, "nothere.dot: open: no such file or directory"},
		{"ibnetdiscover -l as --topo", []string{"--topo", clusterRun + "ibnetdiscover-l.txt", "--lfts", clusterRun + "opensm-lfts.dump"},
			"ibnetdiscover-l.txt: this is the node list of ibnetdiscover -l, without the cables between the nodes: give the full ibnetdiscover output"},
		{"ibnetdiscover -l as -i", []string{"-i", clusterRun + "ibnetdiscover-l.txt"}, "ibnetdiscover-l.txt: this is the node list of ibnetdiscover -l, not a dot file: give the full ibnetdiscover output with --topo"},
		{"dot as --topo", []string{"--topo", good, "--lfts", clusterRun + "opensm-lfts.dump"}, "manual4.dot: this is a dot file (a fabric with its routes, as ORCS reads it), not an InfiniBand topology: give it with -i"},
		{"dot as --lfts", []string{"--topo", clusterRun + "ibnetdiscover.txt", "--lfts", good}, "manual4.dot: this is a dot file (a fabric with its routes, as ORCS reads it), not an InfiniBand routing dump: give it with -i"},
		{"lft dump as -i", []string{"-i", clusterRun + "opensm-lfts.dump"}, "opensm-lfts.dump: this is a routing dump (opensm-lfts.dump), not a dot file: give it with --lfts " + clusterRun + "opensm-lfts.dump and the topology of the same fabric with --topo"},
		{"topology as -i", []string{"-i", clusterRun + "ibnetdiscover.txt"}, "ibnetdiscover.txt: this is an InfiniBand topology (ibnetdiscover), not a dot file: give it with --topo " + clusterRun + "ibnetdiscover.txt and its forwarding tables with --lfts"},
		{"dump without topology", []string{"--lfts", clusterRun + "opensm-lfts.dump"}, "opensm-lfts.dump needs --topo: the topology of the same fabric"},
		{"long path kept whole", []string{"-i", deepMissing}, deepMissing + ": open: no such file or directory"},
		{"corrupt gzip", []string{"-i", corrupt}, "corrupt.dot.gz: gzip: corrupt or truncated data"},
		{"bad level", []string{"-i", good, "-p", "tree", "-l", "7"}, "level 7 does not exist: pattern tree has 2 levels"},
		{"bad shard", []string{"-i", good, "--shard", "3/3"}, `--shard "3/3": want I/N`},
		{"bad format", []string{"-i", good, "--format", "xml"}, `unknown format "xml"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "result.txt")
			cmd := exec.Command(orcsBin, append(c.args, "-o", out)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			if err == nil {
				t.Fatalf("exit 0, want failure")
			}
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
				t.Fatalf("exit %v, want status 1", err)
			}
			msg := stderr.String()
			if !strings.Contains(msg, c.want) {
				t.Errorf("stderr %q, want it to contain %q", msg, c.want)
			}
			if strings.Count(strings.TrimSpace(msg), "\n") != 0 || !strings.HasPrefix(msg, "orcs: ") {
				t.Errorf("want one line starting with \"orcs: \", got %q", msg)
			}
			if strings.Contains(msg, "panic") || strings.Contains(msg, "goroutine") {
				t.Errorf("panicked: %s", msg)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("output file left behind")
			}
			entries, _ := os.ReadDir(filepath.Dir(out))
			if len(entries) != 0 {
				t.Errorf("temporary files left behind: %v", entries)
			}
		})
	}
}

func TestCheckInputFile(t *testing.T) {
	out, err := run(t, "-i", "../testdata/manual4.dot", "--checkinputfile")
	if err != nil || !strings.Contains(out, "checked 12 ordered pairs of 4 hosts") || !strings.Contains(out, "all pairs route without loops") {
		t.Fatalf("check: %v\n%s", err, out)
	}
	dir := t.TempDir()
	loop := writeFile(t, dir, "loop.dot", loopDot)
	cmd := exec.Command(orcsBin, "-i", loop, "--checkinputfile")
	stdout, err := cmd.Output()
	if err == nil {
		t.Fatal("want failure")
	}
	if !strings.Contains(string(stdout), "routing loop from H1 to H2 at node S1: S1 -> S2 -> S1") ||
		!strings.Contains(string(stdout), "0 unroutable pairs, 1 routing loops") {
		t.Errorf("report:\n%s", stdout)
	}
}

// TestIgnoreRouteErrors counts and skips the failing pair instead of refusing.
func TestIgnoreRouteErrors(t *testing.T) {
	dir := t.TempDir()
	unroutable := writeFile(t, dir, "u.dot", unroutableDot)
	out := mustRun(t, "-i", unroutable, "-s", "3", "-p", "gather", "-d", "--ignore-route-errors", "--metric", "hist_max_cong")
	// gather to rank 0 = H1: H2 and H3 send to H1 over S1; both routes fine.
	if !strings.Contains(out, "weight 2: 2 of the 2 connections") {
		t.Errorf("out:\n%s", out)
	}
	out = mustRun(t, "-i", unroutable, "-s", "3", "-p", "scatter", "-d", "--ignore-route-errors")
	// scatter from H1: H1->H3 has no route and is skipped.
	if !strings.Contains(out, "weight 1: 1 of the 1 connections") {
		t.Errorf("out:\n%s", out)
	}
}

func TestGenCommandFlagsAfterSpec(t *testing.T) {
	out := filepath.Join(t.TempDir(), "ft16.dot")
	cmd := exec.Command(orcsBin, "gen", "kary:k=4,n=2", "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	got, _ := os.ReadFile(out)
	want, _ := os.ReadFile("../testdata/ft16.dot")
	if !bytes.Equal(got, want) {
		t.Fatal("orcs gen kary:k=4,n=2 differs from testdata/ft16.dot")
	}
	b, err := exec.Command(orcsBin, "gen", "--describe", "kary", "k=16", "n=3").Output()
	if err != nil || string(b) != "4096 hosts, 768 switches, 24576 links (12288 cables), radix 32\n" {
		t.Fatalf("describe: %v %q", err, b)
	}
	b, err = exec.Command(orcsBin, "gen", "kary:k=4").CombinedOutput()
	if err == nil || !strings.Contains(string(b), "missing parameter n") {
		t.Fatalf("bad spec: %v %q", err, b)
	}
	// The spec as -i takes it, gen: and all.
	b, err = exec.Command(orcsBin, "gen", "gen:kary:k=4,n=2").Output()
	if err != nil || !bytes.Equal(b, want) {
		t.Fatalf("orcs gen gen:kary:k=4,n=2: %v, %d bytes, want testdata/ft16.dot", err, len(b))
	}
}

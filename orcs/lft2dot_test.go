package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"orcs/internal/cliargs"
)

// ibFixtures is the directory of the InfiniBand tool fixtures.
const ibFixtures = "../testdata/ib"

// runLft2dot runs the command in-process, flags after the arguments as users
// type them, and returns the dot written.
func runLft2dot(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.dot")
	app := newApp()
	full := append(append([]string{"orcs", "lft2dot"}, args...), "-o", out)
	err := app.Run(cliargs.Interspersed(app, full))
	b, _ := os.ReadFile(out)
	return string(b), err
}

// TestLft2dotGolden pins the routed dot of four fixture runs (multi-port
// CAs, LMC 1, a torus) and checks that every topology format of a run
// (ibnetdiscover, ibnetdiscover -s, subnet list, ibsim net) and every dump
// (opensm-lfts.dump, dump_fts, opensm.fdbs) gives the same dot. Regenerate
// with go test ./orcs -run TestLft2dotGolden -update.
func TestLft2dotGolden(t *testing.T) {
	for _, run := range []string{"ft16/minhop", "dualport/minhop", "ft16/minhop-lmc1", "torus/dor"} {
		dir := filepath.Join(ibFixtures, run)
		fabric := filepath.Dir(run)
		golden := filepath.Join("testdata", "lft2dot", strings.ReplaceAll(run, "/", "-")+".dot")
		want := ""
		for _, topo := range []string{"ibnetdiscover.txt", "ibnetdiscover-s.txt", "opensm-subnet.lst", "../" + fabric + ".net"} {
			for _, lfts := range []string{"opensm-lfts.dump", "dump_fts.txt", "opensm.fdbs"} {
				if strings.HasSuffix(topo, ".net") && lfts == "opensm.fdbs" {
					continue // neither gives LIDs
				}
				got, err := runLft2dot(t, filepath.Join(dir, topo), filepath.Join(dir, lfts))
				if err != nil {
					t.Fatalf("%s: %s + %s: %v", run, topo, lfts, err)
				}
				if want == "" {
					checkGolden(t, golden, got)
					want = got
				} else if got != want {
					t.Errorf("%s: %s + %s: another dot than ibnetdiscover.txt + opensm-lfts.dump", run, topo, lfts)
				}
			}
		}
	}
}

// TestLft2dotNames checks --names desc: node descriptions, host names
// starting with H, a port suffix for the hosts of 2-port CAs.
func TestLft2dotNames(t *testing.T) {
	dir := filepath.Join(ibFixtures, "dualport", "minhop")
	got, err := runLft2dot(t, "--names", "desc", filepath.Join(dir, "opensm-subnet.lst"), filepath.Join(dir, "opensm.fdbs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"H-4:1" -> "S-0" [comment="*"];`,
		`"S-0" -> "S-1" [comment="H-2,H-4:2"];`,
		`"S-1" -> "H-5:1" [comment="H-5:1"];`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in\n%s", want, got)
		}
	}
	if _, err := runLft2dot(t, "--names", "lid", filepath.Join(dir, "opensm-subnet.lst"), filepath.Join(dir, "opensm.fdbs")); err == nil ||
		!strings.Contains(err.Error(), `unknown name style "lid"`) {
		t.Errorf("bad --names: %v", err)
	}
}

// TestLft2dotErrors checks the command's failures: one line on stderr,
// exit status 1, no output file.
func TestLft2dotErrors(t *testing.T) {
	dp := filepath.Join(ibFixtures, "dualport", "minhop")
	ft := filepath.Join(ibFixtures, "ft16", "minhop")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"one argument", []string{filepath.Join(dp, "ibnetdiscover.txt")}, "lft2dot: want TOPO LFTS"},
		{"mismatched pair", []string{filepath.Join(dp, "ibnetdiscover.txt"), filepath.Join(ft, "opensm-lfts.dump")},
			`opensm-lfts.dump:53: switch 0x0000000000200002 ("S-leaf2") is not in ` + filepath.Join(dp, "ibnetdiscover.txt") + ": the files do not describe the same fabric"},
		{"swapped files", []string{filepath.Join(dp, "opensm-lfts.dump"), filepath.Join(dp, "ibnetdiscover.txt")},
			"this is a routing dump (opensm-lfts.dump), not a topology"},
		{"quirk", []string{filepath.Join(ibFixtures, "lid64", "minhop", "ibnetdiscover.txt"), filepath.Join(ibFixtures, "lid64", "minhop", "dump_fts.txt")},
			"drop the last LID when the top is a multiple of 64; use opensm-lfts.dump"},
		{"missing file", []string{filepath.Join(dp, "nothere.txt"), filepath.Join(dp, "opensm.fdbs")}, "nothere.txt: open: no such file or directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.dot")
			cmd := exec.Command(orcsBin, append(append([]string{"lft2dot"}, c.args...), "-o", out)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
				t.Fatalf("exit %v, want status 1", err)
			}
			msg := stderr.String()
			if !strings.Contains(msg, c.want) || !strings.HasPrefix(msg, "orcs: ") || strings.Count(strings.TrimSpace(msg), "\n") != 0 {
				t.Errorf("stderr %q, want one line with %q", msg, c.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Error("output file written")
			}
		})
	}
}

// TestLft2dotRealFiles converts files pasted from a terminal: the skipped
// lines and the aggregation nodes left out are warnings on stderr, the
// hosts are named after their host names.
func TestLft2dotRealFiles(t *testing.T) {
	dir := filepath.Join(ibFixtures, "cluster", "noisy")
	out := filepath.Join(t.TempDir(), "out.dot")
	cmd := exec.Command(orcsBin, "lft2dot", filepath.Join(dir, "iblinkinfo.txt"), filepath.Join(dir, "dump_fts.txt"), "-o", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	msg := stderr.String()
	for _, want := range []string{
		"orcs: warning: " + filepath.Join(dir, "iblinkinfo.txt") + `:1: skipped a shell prompt line "admin@mgmt01:~$ iblinkinfo"`,
		"orcs: warning: " + filepath.Join(dir, "dump_fts.txt") + ":2: skipped an error message of libibnetdisc",
		"left out 2 SHARP aggregation nodes",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr lacks %q:\n%s", want, msg)
		}
	}
	dot, _ := os.ReadFile(out)
	for _, want := range []string{`"H-node001" -> "S0000000000200004"`, `"H-login01:2" -> "S0000000000200005"`, `"Hydra";`, `"H0000000000100008";`} {
		if !strings.Contains(string(dot), want) {
			t.Errorf("dot lacks %s", want)
		}
	}
}

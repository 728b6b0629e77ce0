package main

import (
	"bytes"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestUntilCISameBytesAsN: --until-ci prints on stdout exactly what -n of
// its stopping count prints (in every format, on 1 and 2 threads), and says
// on stderr where it stopped.
func TestUntilCISameBytesAsN(t *testing.T) {
	base := []string{"-i", "../testdata/ft64.dot", "-p", "rand", "--metric", "get_cable_cong", "--seed", "3", "--subset", "rand", "-s", "48"}
	for _, format := range []string{"text", "json", "csv"} {
		for _, j := range []string{"1", "2"} {
			cmd := exec.Command(orcsBin, append(base, "--format", format, "-j", j, "-n", "100000", "--until-ci", "1%")...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			got, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v: %s", err, stderr.String())
			}
			m := regexp.MustCompile(`--until-ci 1%: stopped after (\d+) runs, mean \S+ ± \S+ \(95 %\): the interval is narrow enough`).FindStringSubmatch(stderr.String())
			if m == nil {
				t.Fatalf("stderr: %q", stderr.String())
			}
			if want := runBin(t, append(base, "--format", format, "-j", j, "-n", m[1])...); !bytes.Equal(got, want) {
				t.Fatalf("%s -j %s: --until-ci output differs from -n %s", format, j, m[1])
			}
		}
	}
}

// TestUntilCIRefused: with --shard, and with a bad ε, --until-ci is an
// error that says why.
func TestUntilCIRefused(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"--until-ci 1% --shard 0/2", "cannot run in shards: where to stop depends on the values of all runs"},
		{"--until-ci 0", "want a half-width > 0"},
		{"--until-ci abc%", "want a half-width > 0"},
	} {
		_, err := run(t, append([]string{"-i", "../testdata/ft16.dot", "-p", "rand", "-n", "10", "--seed", "1"}, strings.Fields(tc.args)...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.args, err, tc.want)
		}
	}
}

package main

import (
	"strings"
	"testing"
)

// TestSamplingsimCompareRouting: --compare-routing prints one row per
// routing (then notes on the iterations that ran after the background),
// and the Dragonfly's groups reach adaptive routing (a Valiant path needs
// them: the non-minimal share is above 0 for Adaptive).
func TestSamplingsimCompareRouting(t *testing.T) {
	out, err := runSampling(t, "--gen", "dragonfly:a=4,h=2,p=2", "--workload", "barrier:iters=5",
		"--background", "ring:shift=4,size=65536,iters=3", "--alloc", "interleaved", "--scheme", "none",
		"--background-routing", "adaptive", "--global-latency", "300ns",
		"--compare-routing", "static;adaptive;adaptive:mode=high;adaptive:mode=app")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 6 || !strings.Contains(lines[1], "median µs") || !strings.Contains(lines[1], "detour %") {
		t.Fatalf("want a title, a header and 4 rows:\n%s", out)
	}
	for _, l := range lines[6:] { // the ring is over before the last barriers
		if !strings.Contains(l, " iterations started after the background's last delivery") {
			t.Errorf("after the rows: %q, want only notes on iterations without noise", l)
		}
	}
	for i, name := range []string{"static", "adaptive", "mode=high", "mode=app"} {
		if f := strings.Fields(lines[2+i]); f[0] != name || f[1] != "5" {
			t.Errorf("row %d: %q, want %s with 5 iterations", i, lines[2+i], name)
		}
	}
	if f := strings.Fields(lines[3]); f[10] == "0.0" {
		t.Errorf("adaptive took no non-minimal path: %s", lines[3])
	}
}

func TestSamplingsimRoutingErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--routing", "adaptive:mode=fast"}, `mode="fast"`},
		{[]string{"--routing", "oblivious"}, `unknown routing "oblivious"`},
		{[]string{"--global-latency", "300ns"}, "only a Dragonfly"},
		{[]string{"--global-latency", "soon"}, "--global-latency"},
	} {
		_, err := runSampling(t, append([]string{"--gen", "kary:k=2,n=2", "--workload", "pingpong:iters=1"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
}

// TestCompareRoutingRefusesOneRunOutputs: --json, --csv, --messages and
// --svg write one run; with --compare-routing they are refused, not
// dropped in silence.
func TestCompareRoutingRefusesOneRunOutputs(t *testing.T) {
	dir := t.TempDir()
	for _, flag := range []string{"--json", "--csv", "--messages", "--svg"} {
		_, err := runCmd(t, "samplingsim", "--gen", "kary:k=2,n=2", "-w", "ring", flag, dir+"/out",
			"--compare-routing", "static;adaptive")
		if err == nil || !strings.Contains(err.Error(), "without --compare-routing") {
			t.Errorf("%s with --compare-routing: %v", flag, err)
		}
	}
}

// TestBadFlagValuesRefusedFirst: flag values that cannot work are refused
// before any simulation or search, with the flag named.
func TestBadFlagValuesRefusedFirst(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"samplingsim", "--gen", "kary:k=4,n=3", "--saturated", "5"}, "--saturated 5"},
		{[]string{"samplingsim", "--gen", "kary:k=4,n=3", "--background-routing", "adaptive"}, "give --background too"},
		{[]string{"map", "-i", "../testdata/ft16.dot", "-p", "bisect", "--budget", "-5"}, "--budget -5"},
		{[]string{"report", "../report/testdata/analysis-ft64.json", "--max-lines", "-1", "-o", t.TempDir() + "/r.html"}, "--max-lines -1"},
	} {
		if _, err := runCmd(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error naming %q", tc.args, err, tc.want)
		}
	}
}

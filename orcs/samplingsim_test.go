package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runSampling runs "orcs samplingsim" in-process with the summary written
// to a file and returns the summary and the error.
func runSampling(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "summary")
	full := append([]string{"orcs", "samplingsim", "-o", out}, args...)
	err := newApp().Run(full)
	b, _ := os.ReadFile(out)
	return string(b), err
}

func TestSamplingsimNaiveReduce(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	out, err := runSampling(t, "--gen", "kary:k=4,n=3", "--workload", "naive-reduce:arrays=20", "--window", "100us",
		"--csv", p("links.csv"), "--json", p("run.json"), "--messages", p("msgs.csv"), "--svg", p("plot"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"job naive-reduce: 64 hosts, 1260 messages", "diagnosis (all view): endpoint congestion",
		`root "S0_0" -> "H0"`, "Theorem 4.1"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	f, err := os.Open(p("links.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(recs) < 10 || recs[0][0] != "window" {
		t.Errorf("links CSV: %d records, %v", len(recs), err)
	}
	var doc map[string]any
	b, _ := os.ReadFile(p("run.json"))
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("JSON: %v", err)
	}
	if doc["diagnosis"].(map[string]any)["cause"] != "endpoint congestion" {
		t.Errorf("JSON diagnosis %v", doc["diagnosis"])
	}
	plots, _ := filepath.Glob(p("plot-*.svg"))
	if len(plots) < 4 {
		t.Errorf("plots %v, want plot-all.svg and one per window", plots)
	}
	if b, _ := os.ReadFile(p("msgs.csv")); strings.Count(string(b), "\n") != 1261 {
		t.Errorf("messages CSV has %d lines", strings.Count(string(b), "\n"))
	}
}

func TestSamplingsimBackgroundView(t *testing.T) {
	out, err := runSampling(t, "--gen", "kary:k=4,n=3", "--workload", "ring:iters=4", "--background", "random:msgs=12",
		"--alloc", "parity", "--view", "ring", "--scheme", "onereservoir", "--hop-bits", "3")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"job ring: 22 hosts", "job random: 42 hosts", "diagnosis (ring view)"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

func TestSamplingsimMapping(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.map")
	os.WriteFile(good, []byte("# reversed\nH3\nH2\nH1\nH0\n"), 0o644)
	out, err := runSampling(t, "--gen", "kary:k=2,n=2", "--workload", "naive-reduce:arrays=50", "--mapping", good)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `root "S0_1" -> "H3"`) { // rank 0 is H3
		t.Errorf("mapped root not at H3:\n%s", out)
	}
	bad := filepath.Join(dir, "bad.map")
	os.WriteFile(bad, []byte("H0\nH7\n"), 0o644)
	if _, err := runSampling(t, "--gen", "kary:k=2,n=2", "--mapping", bad); err == nil || !strings.Contains(err.Error(), `bad.map:2: unknown host "H7"`) {
		t.Errorf("bad mapping: %v", err)
	}
}

func TestSamplingsimErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--gen", "kary:k=2,n=2", "--buffer", "0"}, "input buffer 0"},
		{[]string{"--gen", "kary:k=2,n=2", "--gbps", "0"}, "bandwidth 0"},
		{[]string{"--gen", "kary:k=2,n=2", "--hop-bits", "0"}, "hop bits b=0"},
		{[]string{"--gen", "kary:k=2,n=2", "--tag", "1.5"}, "tagging fraction 1.5"},
		{[]string{"--gen", "kary:k=2,n=2", "--workload", "nope"}, `unknown workload "nope"`},
		{[]string{"--gen", "kary:k=2,n=2", "--mark-at", "exit"}, `unknown mark point "exit"`},
		{[]string{"--gen", "kary:k=2,n=2", "--window", "soon"}, `--window "soon"`},
		{[]string{"--gen", "kary:k=2,n=2", "--slow-hosts", "H9"}, `unknown host "H9"`},
		{[]string{"--gen", "kary:k=2,n=2", "--hosts", "-3"}, "want a number of hosts ≥ 1, or a host list"},
		{[]string{"--gen", "kary:k=2,n=2", "--hosts", "H[0-1],H9"}, "H9"},
		{[]string{"--gen", "kary:k=2,n=2", "--view", "other"}, `unknown view "other"`},
		{[]string{"--gen", "kary:k=2,n=2", "-i", "x.dot"}, "not both"},
		{[]string{}, "no fabric"},
		{[]string{"--gen", "kary:k=2,n=2", "--buffers", "lifo"}, `unknown buffer policy "lifo"`},
		{[]string{"--gen", "kary:k=2,n=2", "--buffers", "hashed:j=9"}, "j=9 must not exceed the 4 buffers per port"},
		{[]string{"--gen", "kary:k=2,n=2", "--buffers", "counting:alpha=1"}, "alpha=1 must be in (0, 1)"},
		{[]string{"--gen", "kary:k=2,n=2", "--ids", "random"}, `unknown packet id kind "random"`},
		{[]string{"--gen", "kary:k=2,n=2", "--saturated", "1.5"}, "--saturated 1.5"},
	} {
		_, err := runSampling(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
}

// TestSamplingsimHotSpotBuffers runs one hot spot through the command:
// the FIFO switches let the other traffic collapse, the hashed dampener
// with 16 buffers of 8 per destination keeps it at the offered load.
func TestSamplingsimHotSpotBuffers(t *testing.T) {
	ratio := map[string]float64{}
	for _, pol := range []string{"fifo", "hashed:j=8"} {
		out, err := runSampling(t, "--gen", "kary:k=4,n=3", "--scheme", "none", "--max-time", "100us", "--buffer", "16",
			"--workload", "saturation:hot=1,msgs=200,gbps=40,frac=0.05", "--buffers", pol)
		if err != nil {
			t.Fatalf("%s: %v", pol, err)
		}
		i := strings.Index(out, "buffers "+pol+", B = 16 per port, 1 hosts stopped receiving")
		if i < 0 {
			t.Fatalf("%s: no buffers line:\n%s", pol, out)
		}
		line := out[i:]
		line = line[strings.Index(line, "delivered ")+len("delivered "):]
		v, err := strconv.ParseFloat(line[strings.Index(line, "(")+1:strings.Index(line, ")")], 64)
		if err != nil {
			t.Fatalf("%s: %v in %q", pol, err, line)
		}
		ratio[pol] = v
	}
	if ratio["fifo"] > 0.1 || ratio["hashed:j=8"] < 0.97 {
		t.Errorf("delivered/offered: fifo %.3f (want < 0.1), hashed %.3f (want ≥ 0.97)", ratio["fifo"], ratio["hashed:j=8"])
	}
}

// TestSamplingsimSigterm stops a running packet simulation with SIGTERM
// and with SIGHUP (a closed ssh session: it used to leave the output's
// temporary file): exit 143 or 129 within a second, the previous output
// kept, no temporary file.
func TestSamplingsimSigterm(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, 143}, {syscall.SIGHUP, 129}} {
		dir := t.TempDir()
		out := filepath.Join(dir, "summary.txt")
		if err := os.WriteFile(out, []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(orcsBin, "samplingsim", "--gen", "kary:k=8,n=3", "-w", "random:msgs=2000", "-o", out, "--csv", filepath.Join(dir, "links.csv"))
		startReady(t, cmd)
		start := time.Now()
		cmd.Process.Signal(c.sig)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != c.code || time.Since(start) > time.Second {
			t.Errorf("%v: exit %v after %s, want %d within 1 s", c.sig, err, time.Since(start), c.code)
		}
		if got, _ := os.ReadFile(out); string(got) != "old\n" {
			t.Errorf("%v: summary now %q", c.sig, got)
		}
		if files, _ := os.ReadDir(dir); len(files) != 1 {
			t.Errorf("%v: files left: %v", c.sig, files)
		}
	}
}

// TestSamplingsimSaturationSeeds (issue 21, items 1 and 2): a network that
// saturates behind a host that stops receiving is diagnosed as tree
// saturation towards that host from the delivery counts, the summary says
// how much of an unfinished job was delivered (it printed "finished after
// unfinished"), and --seeds prints the verdict with its support and writes
// it to the JSON; a bad seed list is refused before any run.
func TestSamplingsimSaturationSeeds(t *testing.T) {
	js := filepath.Join(t.TempDir(), "run.json")
	out, err := runSampling(t, "--gen", "kary:k=4,n=3", "--max-time", "100us", "--buffer", "16",
		"--workload", "saturation:hot=1,msgs=100,gbps=40,frac=0.05", "--seeds", "1-3", "--json", js)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"job saturation: 64 hosts, 6392 messages, unfinished: ", "diagnosis (all view): tree saturation",
		"endpoint congestion towards H", "delivered (counted, not sampled): ", "verdict over 3 seeds (all view): tree saturation, 3 of 3 seeds",
		"  seed 2: "} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "finished after unfinished") {
		t.Errorf("summary says %q", "finished after unfinished")
	}
	var doc struct {
		Diagnosis struct {
			Cause string `json:"cause"`
			Seeds struct {
				Agree, Runs int
				Holds       bool
			} `json:"seeds"`
		} `json:"diagnosis"`
	}
	b, _ := os.ReadFile(js)
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if d := doc.Diagnosis; d.Cause != "tree saturation" || d.Seeds.Agree != 3 || d.Seeds.Runs != 3 || !d.Seeds.Holds {
		t.Errorf("JSON diagnosis %+v", d)
	}
	if _, err := runSampling(t, "--gen", "kary:k=4,n=3", "--seeds", "5-3"); err == nil || !strings.Contains(err.Error(), "--seeds") {
		t.Errorf("--seeds 5-3: %v, want an error naming --seeds", err)
	}
}

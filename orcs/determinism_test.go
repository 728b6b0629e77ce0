package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func runBin(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(orcsBin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("orcs %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// TestHeadlineCommand is the example: the ORCS histogram of
// bisect_fb_sym on the 16-host fat tree, in text and JSON.
func TestHeadlineCommand(t *testing.T) {
	args := []string{"--ptrn", "bisect_fb_sym", "--metric", "hist_acc_band", "-n", "1000", "-i", "../testdata/ft16.dot"}
	text := string(runBin(t, args...))
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) != 22 || lines[0] != "Histogramm bin width: 0.050000" {
		t.Fatalf("output:\n%s", text)
	}
	total := 0
	for i, l := range lines[2:] {
		f := strings.Fields(l)
		lo, _ := strconv.ParseFloat(f[0], 64)
		c, _ := strconv.Atoi(f[2])
		if len(f) != 3 || math.Abs(lo-float64(i)*0.05) > 1e-9 {
			t.Fatalf("bin line %q", l)
		}
		total += c
	}
	if total != 1000 {
		t.Fatalf("histogram counts %d runs, want 1000", total)
	}
	var doc struct {
		Runs    int       `json:"runs"`
		Values  []float64 `json:"values"`
		Summary struct {
			Mean, Min, Max float64
		} `json:"summary"`
	}
	if err := json.Unmarshal(runBin(t, append(args, "--format", "json")...), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Runs != 1000 || len(doc.Values) != 1000 || doc.Summary.Min <= 0 || doc.Summary.Max > 1 {
		t.Fatalf("json: runs %d, %d values, summary %+v", doc.Runs, len(doc.Values), doc.Summary)
	}
}

// TestSameSeedSameBytes: -j 1, 2 and 8 and three merged shards print the
// same bytes, for every format.
func TestSameSeedSameBytes(t *testing.T) {
	dir := t.TempDir()
	base := []string{"-i", "../testdata/ft64.dot", "-p", "rand", "--metric", "hist_acc_band", "-n", "200",
		"--seed", "12345", "--subset", "rand", "-s", "40"}
	for _, format := range []string{"text", "json", "csv"} {
		ref := runBin(t, append(base, "--format", format, "-j", "1")...)
		for _, j := range []string{"2", "8"} {
			if got := runBin(t, append(base, "--format", format, "-j", j)...); !bytes.Equal(got, ref) {
				t.Fatalf("%s: -j %s differs from -j 1", format, j)
			}
		}
		var shards []string
		for i := 0; i < 3; i++ {
			p := filepath.Join(dir, "shard"+strconv.Itoa(i)+".json")
			runBin(t, append(base, "--shard", strconv.Itoa(i)+"/3", "-o", p)...)
			shards = append(shards, p)
		}
		merged := runBin(t, append([]string{"merge", "--format", format}, shards...)...)
		if !bytes.Equal(merged, ref) {
			t.Fatalf("%s: merged shards differ from the unsplit run", format)
		}
	}
	// A different seed gives a different result.
	other := runBin(t, "-i", "../testdata/ft64.dot", "-p", "rand", "--metric", "hist_acc_band", "-n", "200",
		"--seed", "54321", "--subset", "rand", "-s", "40", "--format", "json")
	if bytes.Equal(other, runBin(t, append(base, "--format", "json")...)) {
		t.Fatal("seeds 12345 and 54321 give identical results")
	}
}

// TestGetCableCongMerge: the coloured dot of merged shards equals the
// unsplit one, and merge refuses another fabric.
func TestGetCableCongMerge(t *testing.T) {
	dir := t.TempDir()
	base := []string{"-i", "../testdata/ft16.dot", "-p", "gather", "--metric", "get_cable_cong", "-n", "30", "--seed", "9"}
	ref := runBin(t, base...)
	var shards []string
	for i := 0; i < 2; i++ {
		p := filepath.Join(dir, "s"+strconv.Itoa(i))
		runBin(t, append(base, "--shard", strconv.Itoa(i)+"/2", "-o", p)...)
		shards = append(shards, p)
	}
	if got := runBin(t, append([]string{"merge", "-i", "../testdata/ft16.dot"}, shards...)...); !bytes.Equal(got, ref) {
		t.Fatal("merged get_cable_cong differs")
	}
	cmd := exec.Command(orcsBin, append([]string{"merge", "-i", "../testdata/ft64.dot"}, shards...)...)
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "is not the fabric the shards were computed on") {
		t.Fatalf("merge with another fabric: %v %s", err, out)
	}
	if out, err := exec.Command(orcsBin, "-i", "../testdata/ft16.dot", "--shard", "0/2").CombinedOutput(); err == nil ||
		!strings.Contains(string(out), "--shard needs --seed") {
		t.Fatalf("shard without seed: %v %s", err, out)
	}
}

// TestOneShardAndGetoptValues: --shard 0/1 writes a shard file that merges
// into the unsplit result; ORCS-style attached values (-n100) are taken.
func TestOneShardAndGetoptValues(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.json")
	args := []string{"-i", "../testdata/ft16.dot", "-n", "20", "--seed", "3", "-p", "rand"}
	runBin(t, append(args, "--shard", "0/1", "-o", out)...)
	if got, want := runBin(t, "merge", out), runBin(t, args...); !bytes.Equal(got, want) {
		t.Fatal("a one-shard split differs from the unsplit run")
	}
	if got, want := runBin(t, "-n20", "-i../testdata/ft16.dot", "--seed", "3", "-prand"), runBin(t, args...); !bytes.Equal(got, want) {
		t.Fatal("-n20 -iFILE -prand differs from -n 20 -i FILE -p rand")
	}
	if b, err := exec.Command(orcsBin, "-i", "../testdata/ft16.dot", "--bogus").CombinedOutput(); err == nil ||
		string(b) != "orcs: flag provided but not defined: -bogus (see orcs --help)\n" {
		t.Fatalf("unknown flag: %v %q", err, b)
	}
}

package samplingsim

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"orcs/gen"
)

// TestSummarySpeed checks that a run too short to time prints no speed
// (a CPU time that rounds to 0 gave absurd millions of hops per second).
func TestSummarySpeed(t *testing.T) {
	f, err := gen.Generate("kary:k=2,n=2")
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	plan, err := BuildPlan(f, []JobSpec{{Name: "reduce", Workload: "naive-reduce", Hosts: []int32{0, 1, 2, 3}}}, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(f, cfg, plan)
	if err != nil {
		t.Fatal(err)
	}
	r.PacketHops, r.CPU = 4992, time.Microsecond
	var b bytes.Buffer
	r.WriteSummary(&b, "x")
	if !strings.Contains(b.String(), "(too short to measure its speed)") {
		t.Errorf("short run: %s", b.String())
	}
	r.CPU = 2 * time.Second
	b.Reset()
	r.WriteSummary(&b, "x")
	if !strings.Contains(b.String(), "(0.00 M packet-hops per CPU second)") {
		t.Errorf("timed run: %s", b.String())
	}
}

// TestRunBounds checks that runs that would not end in reasonable time or
// memory stop with a clear error: a flow of 10^14 bytes, and 1 ns windows.
func TestRunBounds(t *testing.T) {
	f, err := gen.Generate("kary:k=2,n=2")
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	plan, err := BuildPlan(f, []JobSpec{{Name: "flow", Workload: "flow:size=99999999999999", Hosts: []int32{0, 1}}}, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(f, cfg, plan); err == nil || !strings.Contains(err.Error(), "more than 2147483648 packets") {
		t.Errorf("huge flow: %v", err)
	}
	g, err := gen.Generate("kary:k=4,n=3")
	if err != nil {
		t.Fatal(err)
	}
	plan, err = BuildPlan(g, []JobSpec{{Name: "reduce", Workload: "naive-reduce", Hosts: hostRange(64)}}, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Window = Nanosecond
	if _, err := Run(g, cfg, plan); err == nil || !strings.Contains(err.Error(), "give a longer --window") {
		t.Errorf("1 ns windows: %v", err)
	}
}

func hostRange(n int) []int32 {
	h := make([]int32, n)
	for i := range h {
		h[i] = int32(i)
	}
	return h
}

// TestWriteFilesTogether checks that the outputs of one run are written
// together or not at all: a plot prefix in a missing directory used to
// leave the CSV and JSON written before it (and a failing window plot the
// PREFIX-all.svg).
func TestWriteFilesTogether(t *testing.T) {
	f := fabric(t, "kary:k=4,n=2")
	jobs, _ := Jobs(f, JobsOptions{Workload: "ring:size=4096", Alloc: "contiguous"})
	p, err := BuildPlan(f, jobs, 1)
	if err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, f, DefaultConfig(), p)
	dir := t.TempDir()
	view, _ := res.FindView("all")
	files := Files{LinksCSV: filepath.Join(dir, "l.csv"), JSON: filepath.Join(dir, "r.json"),
		SVG: filepath.Join(dir, "missing", "p")}
	if err := res.WriteFiles(files, view, Diagnose(res, DiagnoseOptions{View: view, Window: -1, Threshold: 0.5})); err == nil {
		t.Fatal("a plot in a missing directory was written")
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

package samplingsim

import (
	"bytes"
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

package opensm

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orcs/deadlock"
	"orcs/gen"
)

// TestComparisonDeadlockColumn: the table's deadlock column, "?" with a
// note where the verdict is unknown, and the JSON field.
func TestComparisonDeadlockColumn(t *testing.T) {
	c := sampleComparison()
	c.Engines[0].Deadlock = "free (1 VL)"
	c.Engines[1].Deadlock = ""
	var b bytes.Buffer
	if err := c.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"unroutable     deadlock", "2           0  free (1 VL)", "0           0            ?",
		"? torus-2QoS: deadlock unknown: a credit loop on one VL, but minhop separates paths by SL"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	if err := c.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back Comparison
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Engines[0].Deadlock != "free (1 VL)" || back.Engines[1].Deadlock != "" {
		t.Errorf("json: %+v", back.Engines)
	}
}

// TestRoutePathSLs routes a 4x4 torus with lash and asks the SA for every
// path's SL: lash is deadlock-free on its two lanes, not on one; the SLs
// and SL2VL tables are kept beside the dumps, where orcs deadlock finds
// them. Compare's deadlock column gives the same verdicts.
func TestRoutePathSLs(t *testing.T) {
	tools := needTools(t)
	tmp, keep := t.TempDir(), t.TempDir()
	net, err := gen.Build("torus:dims=4x4")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Route(context.Background(), net.Fabric, Options{Engine: "lash", Torus: TorusOf(net),
		KeepPorts: true, Tools: tools, TempDir: tmp, Keep: keep, PathSLs: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Command, "-o ") || !strings.Contains(res.Command, "-Q") || res.Lanes == nil {
		t.Fatalf("command %q, lanes %v", res.Command, res.Lanes)
	}
	r, err := deadlock.Check(res.Fabric, res.Lanes, deadlock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict() != "deadlock-free (2 VLs)" {
		t.Errorf("lash with its lanes: %s", r.Verdict())
	}
	if got := deadlockVerdict(res, 2); got != "free (2 VLs)" {
		t.Errorf("compare column %q", got)
	}
	one := *res
	one.Lanes = nil
	if got := deadlockVerdict(&one, 2); got != "" {
		t.Errorf("compare column without lanes %q, want unknown", got)
	}
	for _, name := range []string{PathSLFile, "opensm-sl2vl.dump", "opensm-subnet.lst", "opensm-lfts.dump"} {
		if _, err := os.Stat(filepath.Join(keep, name)); err != nil {
			t.Errorf("not kept: %v", err)
		}
	}
	checkClean(t, tmp)

	// minhop with the same option: every path on SL 0, a loop.
	res, err = Route(context.Background(), net.Fabric, Options{Engine: "minhop", KeepPorts: true, Tools: tools,
		TempDir: tmp, PathSLs: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Command, "-Q") {
		t.Errorf("minhop with QoS: %q", res.Command)
	}
	if got := deadlockVerdict(res, 2); got != "loop" {
		t.Errorf("minhop: %q", got)
	}
	// The same tables given as production tables of an unknown engine:
	// it may separate paths by SL, so the loop is no verdict.
	if got := deadlockVerdict(&Result{Fabric: res.Fabric}, 2); got != "" {
		t.Errorf("tables of an unknown engine: %q, want unknown", got)
	}
	checkClean(t, tmp)
}

// TestRouteLoggedPathSLs routes a 4x4 torus with 9 hosts per switch (144
// hosts: beyond the 128 that one saquery per pair allows) with dfsssp:
// OpenSM runs once (-o) with dfsssp's source file at debug level, its log
// goes through a FIFO, and the path layers it logs give every path's SL.
// dfsssp is deadlock-free on them and loops on one lane; opensm.log keeps
// OpenSM's other lines without the engine's debug output.
func TestRouteLoggedPathSLs(t *testing.T) {
	tools := needTools(t)
	if !WantPathSLs("dfsssp", 144, MaxPathSLHosts) || WantPathSLs("lash", 144, MaxPathSLHosts) ||
		!WantPathSLs("lash", 16, MaxPathSLHosts) || WantPathSLs("minhop", 16, MaxPathSLHosts) ||
		!WantPathSLs("dfsssp", 10000, MaxPathSLHosts) || !comparePathSLs("dfsssp", 256) || comparePathSLs("dfsssp", 257) ||
		!comparePathSLs("lash", 32) || comparePathSLs("lash", 33) || comparePathSLs("minhop", 16) {
		t.Fatal("WantPathSLs")
	}
	tmp, keep := t.TempDir(), t.TempDir()
	net, err := gen.Build("torus:dims=4x4,hosts=9")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Route(context.Background(), net.Fabric, Options{Engine: "dfsssp", KeepPorts: true, Tools: tools,
		TempDir: tmp, Keep: keep, PathSLs: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Command, "-o ") || !strings.Contains(res.Command, "-Q") || !strings.Contains(res.Command, "-F WORK/opensm.conf") ||
		res.Lanes == nil || !strings.Contains(res.Lanes.SLSource, PathSLLogFile) {
		t.Fatalf("command %q, lanes %+v", res.Command, res.Lanes)
	}
	r, err := deadlock.Check(res.Fabric, res.Lanes, deadlock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Free() || len(r.VLs) < 2 || r.Routes != 144*143 {
		t.Errorf("dfsssp with its layers: %s, %d routes", r.Verdict(), r.Routes)
	}
	if one, err := deadlock.Check(res.Fabric, nil, deadlock.Options{}); err != nil || one.Free() {
		t.Errorf("dfsssp on one lane: %v %v", one, err)
	}
	if got := deadlockVerdict(res, 2); got != r.Short() {
		t.Errorf("compare column %q", got)
	}
	logData, err := os.ReadFile(filepath.Join(keep, "opensm.log"))
	if err != nil {
		t.Fatal(err)
	}
	if s := string(logData); !strings.Contains(s, "SUBNET UP") || strings.Contains(s, "route from src_lid=") || strings.Contains(s, "] 0x08 -> ") {
		t.Errorf("opensm.log:\n%s", s)
	}
	// The kept layers read back as the routing's lanes.
	l, err := deadlock.Load(res.Fabric, deadlock.Files{SL: filepath.Join(keep, PathSLLogFile)})
	if err != nil {
		t.Fatal(err)
	}
	for s := int32(0); s < 144; s += 7 {
		for d := int32(0); d < 144; d += 5 {
			if s != d && l.SL(s, d) != res.Lanes.SL(s, d) {
				t.Fatalf("kept SL of %d -> %d: %d, routed %d", s, d, l.SL(s, d), res.Lanes.SL(s, d))
			}
		}
	}
	checkClean(t, tmp)
}

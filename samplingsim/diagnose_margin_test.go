package samplingsim

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestTheorem42Cutoff: the cutoff decides between background traffic and
// internal congestion for roots inside the network, and the margin is the
// sampled bandwidth minus the cutoff. Moving the cutoff just below a
// background root's bandwidth flips that root to internal congestion with
// the margin of the difference; endpoint roots carry no margin.
func TestTheorem42Cutoff(t *testing.T) {
	f := fabric(t, "fattree2:leaves=8,hosts=16,up=8")
	parts, err := Allocate("parity", allHosts(f.NumHosts()), 2)
	if err != nil {
		t.Fatal(err)
	}
	r := runJobs(t, f, DefaultConfig(),
		JobSpec{Name: "ring", Workload: "ring:iters=4", Hosts: parts[0]},
		JobSpec{Name: "background", Workload: "random:msgs=12", Hosts: parts[1]})
	d := Diagnose(r, DiagnoseOptions{View: 0, Window: -1})
	if d.Cause != Background || len(d.Roots) == 0 {
		t.Fatalf("ring view: %s, want background traffic", d.Cause)
	}
	root := d.Roots[0]
	if want := root.Gbps - 0.5*root.LineGbps; math.Abs(root.MarginGbps-want) > 1e-9 || root.MarginGbps >= 0 {
		t.Errorf("margin %.3f Gb/s, want %.3f (sampled %.3f − cutoff 50)", root.MarginGbps, want, root.Gbps)
	}
	var out bytes.Buffer
	if err := d.Write(&out); err != nil {
		t.Fatal(err)
	}
	head := fmt.Sprintf("diagnosis (ring view): background traffic (Theorem 4.2 margin %+.1f Gb/s)\n", root.MarginGbps)
	if !strings.HasPrefix(out.String(), head) || !strings.Contains(out.String(), fmt.Sprintf("margin %.1f Gb/s below the cutoff 50.0 Gb/s", -root.MarginGbps)) {
		t.Errorf("printed diagnosis:\n%s\nwant it to start with %q and give the margin", out.String(), head)
	}
	// A cutoff 1 Gb/s below the root's bandwidth: internal, margin +1.
	cut := (root.Gbps - 1) / root.LineGbps
	d2 := Diagnose(r, DiagnoseOptions{View: 0, Window: -1, Saturated: cut})
	found := false
	for _, rt := range d2.Roots {
		if rt.Link == root.Link {
			found = true
			if rt.Cause != Internal || math.Abs(rt.MarginGbps-1) > 1e-9 {
				t.Errorf("cutoff %.4f: root %s is %s with margin %.3f, want internal congestion with margin +1", cut, rt.Name, rt.Cause, rt.MarginGbps)
			}
		}
	}
	if !found {
		t.Errorf("root %s missing with cutoff %.4f", root.Name, cut)
	}
	// Endpoint roots have no margin.
	all := Diagnose(r, DiagnoseOptions{View: AllJobs, Window: -1})
	for _, rt := range all.Roots {
		if rt.Cause == Endpoint && rt.MarginGbps != 0 {
			t.Errorf("endpoint root %s has margin %.3f", rt.Name, rt.MarginGbps)
		}
	}
}

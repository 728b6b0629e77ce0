package whatif

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"orcs/analyze"
	"orcs/gen"
	"orcs/lft"
	"orcs/opensm"
	"orcs/patterns"
)

// routedPart is the fabric a set is routed on: the failed fabric, or its
// part with the SM when it fell apart.
func routedPart(t *testing.T, plan *Plan, s Set) *lft.Fabric {
	t.Helper()
	g, _, err := plan.Apply(s)
	if err != nil {
		t.Fatal(err)
	}
	if part := mainPart(g, components(g)); part != nil {
		if g, err = subFabric(g, part); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// sameTables compares two routings of one fabric entry by entry: every
// switch's out-port (by node and port) towards every host, and every
// host's out-port. It returns the first difference, "" when none.
func sameTables(a, b *lft.Fabric) string {
	if len(a.Nodes) != len(b.Nodes) || a.NumHosts() != b.NumHosts() {
		return fmt.Sprintf("%d nodes, %d hosts against %d, %d", len(a.Nodes), a.NumHosts(), len(b.Nodes), b.NumHosts())
	}
	var ra, rb []int32
	for v := range a.Nodes {
		var ua, ub int32
		ra, ua = a.RowInto(ra, int32(v))
		rb, ub = b.RowInto(rb, int32(v))
		if ra == nil || rb == nil {
			if (ra == nil) != (rb == nil) || linkKey(a, ua) != linkKey(b, ub) {
				return fmt.Sprintf("%s: uniform route differs", a.Nodes[v].Name)
			}
			continue
		}
		for d := range ra {
			if linkKey(a, ra[d]) != linkKey(b, rb[d]) {
				return fmt.Sprintf("%s towards %s: %s against %s", a.Nodes[v].Name, a.HostName(d), cable(a, ra[d]), cable(b, rb[d]))
			}
		}
	}
	return ""
}

func cable(f *lft.Fabric, l int32) string {
	if l < 0 {
		return "no entry"
	}
	return f.Cable(l)
}

// One OpenSM kept running on one emulation routes failure sets as a fresh
// OpenSM on a fresh emulation of the failed fabric does, entry by entry:
// on a 64-host 3-level fat tree (kary k=4 n=3), for every engine of
// opensm.WarmEngines, a leaf up-link, a host's cable (its host cut off:
// the rest is routed), a spine switch, two cables at once, and the intact
// fabric again, in that order without a restart between them (history
// would show). ftree falls back to minhop on the irregular trees, warm as
// cold.
func TestSessionEqualsCold(t *testing.T) {
	if testing.Short() {
		t.Skip("routes 6 sets warm and cold per engine")
	}
	tl := tools(t)
	n, err := gen.Build("kary:k=4,n=3")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan(n.Fabric, true)
	if err != nil {
		t.Fatal(err)
	}
	specs := []string{"link:S0_0/6", "link:H5/1", "switch:S2_1", "link:S0_1/7+link:S1_2/6", "link:S0_0/6"}
	var sets []Set
	for _, sp := range specs {
		var fails []string
		for _, x := range splitPlus(sp) {
			fails = append(fails, x)
		}
		ss, err := plan.Sets(fails, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(fails) > 1 {
			// explicit failures given together form one set
			if len(ss) != 1 {
				t.Fatalf("%s: %d sets", sp, len(ss))
			}
		}
		sets = append(sets, ss...)
	}
	sets = append(sets, Set{Name: "intact"})
	ctx := context.Background()
	for _, engine := range opensm.WarmEngines {
		t.Run(engine, func(t *testing.T) {
			opt := opensm.Options{Engine: engine, KeepPorts: true, AllowFallback: true, Tools: tl, Timeout: time.Minute}
			s, res, err := opensm.StartSession(ctx, plan.Fabric, opt)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			cold, err := opensm.Route(ctx, plan.Fabric, opt)
			if err != nil {
				t.Fatal(err)
			}
			if d := sameTables(cold.Fabric, res.Fabric); d != "" || cold.Used != res.Used {
				t.Fatalf("intact: warm (%s) differs from cold (%s): %s", res.Used, cold.Used, d)
			}
			for _, set := range sets {
				g := routedPart(t, plan, set)
				warm, err := s.Route(ctx, g)
				if err != nil {
					t.Fatalf("%s warm: %v", set.Name, err)
				}
				cold, err := opensm.Route(ctx, g, opt)
				if err != nil {
					t.Fatalf("%s cold: %v", set.Name, err)
				}
				if warm.Used != cold.Used || warm.Fallback != cold.Fallback {
					t.Errorf("%s: warm routed with %s, cold with %s", set.Name, warm.Used, cold.Used)
				}
				if d := sameTables(cold.Fabric, warm.Fabric); d != "" {
					t.Errorf("%s: warm differs from cold: %s", set.Name, d)
				}
			}
			if s.Sweeps != len(sets)+1 {
				t.Errorf("%d sweeps, want %d", s.Sweeps, len(sets)+1)
			}
		})
	}
}

// splitPlus splits "a+b" into its parts.
func splitPlus(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '+' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

// Run routes on a running OpenSM per job where it can and gives the file
// of a cold run, byte for byte: minhop and ftree on the 64-host fat tree
// (no path SLs read at 64 hosts), sets including one that cuts off the
// node OpenSM runs on (H0: routed cold) and ftree's fallbacks.
func TestRunWarmEqualsCold(t *testing.T) {
	if testing.Short() {
		t.Skip("routes 7 sets with 2 engines twice")
	}
	tl := tools(t)
	n, err := gen.Build("kary:k=4,n=3")
	if err != nil {
		t.Fatal(err)
	}
	in := &opensm.Input{Fabric: n.Fabric, Name: "gen:kary:k=4,n=3", Network: n, RealPorts: true}
	plan, err := NewPlan(in.Fabric, true)
	if err != nil {
		t.Fatal(err)
	}
	var sets []Set
	for _, sp := range []string{"link:S0_0/6", "link:H0/1", "link:H9/1", "switch:S2_1", "switch:S1_3", "link:S1_2/6", "link:S0_3/5"} {
		ss, err := plan.Sets([]string{sp}, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, ss...)
	}
	sim := analyze.Config{Input: in.Name, Pattern: patterns.Spec{Name: "bisect_fb_sym"}, Metric: "hist_acc_band",
		Runs: 2, Seed: 1, Level: -1, Threads: 1, Subset: analyze.SubsetLinearBFS}
	run := func(cold bool) ([]byte, *Counts) {
		var c Counts
		out, err := Run(context.Background(), in, plan, sets, Options{Engines: []string{"minhop", "ftree"}, Sim: sim,
			Jobs: 2, Tools: tl, Cold: cold, Counts: &c, Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := out.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes(), &c
	}
	warm, wc := run(false)
	cold, cc := run(true)
	if wc.Warm.Load() < 10 || wc.Cold.Load() < 2 || cc.Warm.Load() != 0 || cc.Cold.Load() != 14 {
		t.Errorf("routings warm %d + cold %d, with Cold: %d + %d; want ≥ 10 + ≥ 2 (H0 cuts off the SM), 0 + 14",
			wc.Warm.Load(), wc.Cold.Load(), cc.Warm.Load(), cc.Cold.Load())
	}
	if !bytes.Equal(warm, cold) {
		t.Errorf("warm and cold files differ:\n%s\n---\n%s", warm, cold)
	}
}

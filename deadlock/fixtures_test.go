package deadlock

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"orcs/fabricarg"
	"orcs/lft"
)

// ibFixtures holds the fabrics routed by real OpenSM engines on ibsim
// (see its README and regen.sh, regen-deadlock.sh).
const ibFixtures = "../testdata/ib"

// loadRun reads the fabric of a fixture run (node descriptions as names,
// SHARP aggregation nodes kept as orcs deadlock keeps them) and the lanes
// found beside its tables, or none with lanes "none".
func loadRun(t *testing.T, run, lanes string) (*lft.Fabric, *Lanes) {
	t.Helper()
	dir := filepath.Join(ibFixtures, run)
	lfts := filepath.Join(dir, "opensm-lfts.dump")
	src, err := fabricarg.Load(fabricarg.Args{Topo: filepath.Join(dir, "opensm-subnet.lst"), LFTs: lfts, Names: "desc", IncludeAggregationNodes: true})
	if err != nil {
		t.Fatal(err)
	}
	l, err := Load(src.Fabric, Files{LFTs: lfts, SL: lanes, SL2VL: lanes})
	if err != nil {
		t.Fatal(err)
	}
	return src.Fabric, l
}

// TestFixtureVerdicts checks the verdict on every OpenSM routing of the
// fixtures. Lanes are those kept beside the tables (saquery PR output and
// opensm-sl2vl.dump), else one lane.
func TestFixtureVerdicts(t *testing.T) {
	for _, c := range []struct {
		run, lanes, verdict string
	}{
		// 4x4 torus: minhop loops; updn finds no root there and falls
		// back to minhop; dor (no VLs) loops around the rings.
		{"torus/minhop", "", "credit loop on VL 0: 4 cables"},
		{"torus/updn", "", "credit loop on VL 0: 4 cables"},
		{"torus/dor", "", "credit loop on VL 0: 4 cables"},
		// updn with a root given routes up/down: free on one VL.
		{"torus/updn-roots", "", "deadlock-free (1 VL)"},
		{"mesh/dor", "", "deadlock-free (1 VL)"},
		{"ft16/updn", "", "deadlock-free (1 VL)"},
		{"ft16/ftree", "", "deadlock-free (1 VL)"},
		{"ft16/minhop", "", "deadlock-free (1 VL)"},
		{"ft16/minhop-lmc1", "", "deadlock-free (1 VL)"},
		{"ft64/updn", "", "deadlock-free (1 VL)"},
		{"ft64/ftree", "", "deadlock-free (1 VL)"},
		{"ft64/minhop", "", "deadlock-free (1 VL)"},
		{"dualport/minhop", "", "deadlock-free (1 VL)"},
		// The SL engines on the torus, with the SLs the SA answered and
		// the SL2VL tables OpenSM set: free on several VLs ...
		{"torus/lash-sl", "", "deadlock-free (2 VLs)"},
		{"torus/dfsssp-sl", "", "deadlock-free (8 VLs)"},
		{"torus/nue-sl", "", "deadlock-free (2 VLs)"},
		{"torus/torus-2QoS-sl", "", "deadlock-free (2 VLs)"},
		// ... and with every path on one lane, lash, dfsssp and nue loop.
		{"torus/lash-sl", "none", "credit loop on VL 0: 4 cables"},
		{"torus/dfsssp-sl", "none", "credit loop on VL 0: 4 cables"},
		{"torus/nue-sl", "none", "credit loop on VL 0: 4 cables"},
		// torus-2QoS's routes alone happen to close no loop on a 4x4 torus
		// (ibdmchk agrees); its SLs and SL2VL tables are still read.
		{"torus/torus-2QoS-sl", "none", "deadlock-free (1 VL)"},
	} {
		f, lanes := loadRun(t, c.run, c.lanes)
		r := check(t, f, lanes)
		if got := r.Verdict(); got != c.verdict {
			t.Errorf("%s (lanes %q): %s, want %s", c.run, c.lanes, got, c.verdict)
		}
		if len(lanes.Notes) > 0 || r.MissingVL > 0 {
			t.Errorf("%s: notes %v, %d hops without SL2VL entry", c.run, lanes.Notes, r.MissingVL)
		}
		if !r.Free() {
			// The loop is a cycle of the graph, and every dependency has a
			// flow that creates it.
			for i, a := range r.Loop {
				b := r.Loop[(i+1)%len(r.Loop)]
				if !r.dependsOn(a, b) {
					t.Errorf("%s: loop step %d is no dependency", c.run, i)
				}
				if len(r.Examples[i]) == 0 {
					t.Errorf("%s: no flow creates loop step %d", c.run, i)
				}
			}
		}
	}
}

// TestFixtureLanes checks what the SL files of the fixtures hold, and that
// both SL2VL sources (OpenSM's dump and the tables read back with
// smpquery) give the same graph.
func TestFixtureLanes(t *testing.T) {
	for _, c := range []struct {
		run string
		sls string // the SLs the SA gave, as "0 1"
	}{
		{"torus/lash-sl", "0 1"},
		{"torus/dfsssp-sl", "0 1 2 3 4 5 6 7"},
		{"torus/nue-sl", "0 1"},
		{"torus/torus-2QoS-sl", "0 1 2 3"},
		{"torus/updn-roots", "0"},
		{"mesh/dor", "0"},
	} {
		f, fromDump := loadRun(t, c.run, "")
		var seen [NumSLs]bool
		var list []string
		for s := int32(0); s < int32(f.NumHosts()); s++ {
			for d := int32(0); d < int32(f.NumHosts()); d++ {
				if sl := fromDump.SL(s, d); s != d && !seen[sl] {
					seen[sl] = true
				}
			}
		}
		for sl, ok := range seen {
			if ok {
				list = append(list, string(rune('0'+sl)))
			}
		}
		if got := strings.Join(list, " "); got != c.sls {
			t.Errorf("%s: SLs %q, want %q", c.run, got, c.sls)
		}
		if !strings.HasSuffix(fromDump.SLSource, "saquery-pr.txt (found beside the tables)") {
			t.Errorf("%s: SL source %q", c.run, fromDump.SLSource)
		}
		dir := filepath.Join(ibFixtures, c.run)
		src, err := fabricarg.Load(fabricarg.Args{Topo: filepath.Join(dir, "opensm-subnet.lst"), LFTs: filepath.Join(dir, "opensm-lfts.dump")})
		if err != nil {
			t.Fatal(err)
		}
		fromSMP, err := Load(src.Fabric, Files{SL: filepath.Join(dir, "saquery-pr.txt"), SL2VL: filepath.Join(dir, "smpquery-sl2vl.txt")})
		if err != nil {
			t.Fatal(err)
		}
		a, b := check(t, f, fromDump), check(t, src.Fabric, fromSMP)
		if a.Verdict() != b.Verdict() || a.Channels != b.Channels || a.Dependencies != b.Dependencies || a.CrossVL != b.CrossVL {
			t.Errorf("%s: opensm-sl2vl.dump gives %s (%d channels, %d dependencies), smpquery %s (%d, %d)",
				c.run, a.Verdict(), a.Channels, a.Dependencies, b.Verdict(), b.Channels, b.Dependencies)
		}
	}
}

// dependsOn reports whether the graph has the dependency a → b.
func (r *Result) dependsOn(a, b Channel) bool {
	g := r.g
	u := a.Link*int32(g.K) + g.slot[a.VL]
	w := b.Link*int32(g.K) + g.slot[b.VL]
	for _, x := range g.adj[g.adjStart[u]:g.adjStart[u+1]] {
		if x == w {
			return true
		}
	}
	return false
}

// TestAggregationNodes: on ft16 with an aggregation node in every spine
// (sharp-spines/minhop, OpenSM minhop on ibsim), the compute hosts' routes go up
// and down only, but the paths between aggregation nodes turn from down to
// up at a leaf and close a 4-cable credit loop with the hosts' paths.
// ibdmchk, which checks every CA-to-CA path, finds a loop too
// (TestIbdmchkAgrees); the verdict says the loop needs those paths.
func TestAggregationNodes(t *testing.T) {
	f, lanes := loadRun(t, "sharp-spines/minhop", "")
	r := check(t, f, lanes)
	want := "credit loop on VL 0: 4 cables; the loop needs paths to/from aggregation nodes (without the 4 aggregation nodes: deadlock-free (1 VL))"
	if r.Verdict() != want || r.Aggregation != 4 || r.Routes != 20*19 || !r.NeedsAggregation {
		t.Fatalf("verdict %q, %d aggregation nodes, %d routes", r.Verdict(), r.Aggregation, r.Routes)
	}
	if w := r.Without; w == nil || w.Routes != 16*15 || w.Aggregation != 0 || !w.Free() {
		t.Fatalf("without the aggregation nodes: %+v", w)
	}
	// Every dependency of the loop has a flow, and those of the down-up
	// turns are flows between two aggregation nodes.
	agg := 0
	for i, fl := range r.Examples {
		if len(fl) == 0 {
			t.Fatalf("dependency %d of the loop has no flow", i)
		}
		if IsAggregationNode(f, int(fl[0].Src)) && IsAggregationNode(f, int(fl[0].Dst)) {
			agg++
		}
	}
	if agg == 0 {
		t.Errorf("no dependency of the loop comes from a flow between aggregation nodes: %v", r.Examples)
	}
	// Leaving the aggregation nodes out by hand gives the same as Without.
	leave := make([]bool, f.NumHosts())
	for h := range leave {
		leave[h] = IsAggregationNode(f, h)
	}
	w, err := Check(f, lanes, Options{Threads: 2, Leave: leave})
	if err != nil || !w.Free() || w.Routes != 240 || w.Channels != r.Without.Channels {
		t.Errorf("Leave: %v, %+v", err, w)
	}
	// ... and the same graph as the fabric read without them (the
	// aggregation nodes and their cables left out by the reader).
	src, err := fabricarg.Load(fabricarg.Args{Topo: filepath.Join(ibFixtures, "sharp-spines/minhop/opensm-subnet.lst"),
		LFTs: filepath.Join(ibFixtures, "sharp-spines/minhop/opensm-lfts.dump")})
	if err != nil {
		t.Fatal(err)
	}
	plain := check(t, src.Fabric, nil)
	if plain.Verdict() != "deadlock-free (1 VL)" || plain.Channels != w.Channels || plain.Dependencies != w.Dependencies || plain.Routes != w.Routes {
		t.Errorf("without aggregation nodes: %s, %d channels, %d dependencies; left out: %d, %d",
			plain.Verdict(), plain.Channels, plain.Dependencies, w.Channels, w.Dependencies)
	}
	// A loop that needs no aggregation node says so: the 4x4 torus with
	// minhop loops among its hosts (no aggregation node: no remark).
	f2, l2 := loadRun(t, "torus/minhop", "")
	if v := check(t, f2, l2).Verdict(); v != "credit loop on VL 0: 4 cables" {
		t.Errorf("torus/minhop: %q", v)
	}
}

// TestDFSSSPLogLayers reads the SLs of torus/dfsssp-sl from OpenSM's log
// (dfsssp's "route from src_lid=S to dest_lid=D on vl=V" lines, one pass
// for every path) and from the SA (one saquery per pair) of the same
// routing. The log gives each pair its layer's first SL (0, 6, 7); the SA
// spreads a layer over the spare SLs at random (layer 0 over 0-5), so
// every SA answer lies in the layer the log names, and both are
// deadlock-free; ibdmchk agrees on the log's SLs.
func TestDFSSSPLogLayers(t *testing.T) {
	logPath := filepath.Join(ibFixtures, "torus/dfsssp-sl/dfsssp-sl.txt")
	f, fromSA := loadRun(t, "torus/dfsssp-sl", "")
	fromLog, err := Load(f, Files{LFTs: filepath.Join(ibFixtures, "torus/dfsssp-sl/opensm-lfts.dump"), SL: logPath})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fromSA.SLSource, "saquery-pr.txt") || fromLog.SLSource != logPath {
		t.Fatalf("sources %q, %q", fromSA.SLSource, fromLog.SLSource)
	}
	bases := []uint8{0, 6, 7} // first SL of each layer after dfsssp's balancing
	layer := func(sl uint8) uint8 {
		b := bases[0]
		for _, x := range bases {
			if x <= sl {
				b = x
			}
		}
		return b
	}
	seen := map[uint8]int{}
	for s := int32(0); s < int32(f.NumHosts()); s++ {
		for d := int32(0); d < int32(f.NumHosts()); d++ {
			if s == d {
				continue
			}
			v, sa := fromLog.SL(s, d), fromSA.SL(s, d)
			seen[v]++
			if layer(sa) != v {
				t.Errorf("%s -> %s: the log says layer %d, the SA answered SL %d", f.HostName(int(s)), f.HostName(int(d)), v, sa)
			}
		}
	}
	if len(seen) != 3 || seen[0]+seen[6]+seen[7] != 240 {
		t.Errorf("layers of the host pairs: %v", seen)
	}
	for _, c := range []struct {
		lanes   *Lanes
		verdict string
	}{{fromLog, "deadlock-free (3 VLs)"}, {fromSA, "deadlock-free (8 VLs)"}} {
		if v := check(t, f, c.lanes).Verdict(); v != c.verdict {
			t.Errorf("%s: %s, want %s", c.lanes.SLSource, v, c.verdict)
		}
	}
	if bin, err := exec.LookPath("ibdmchk"); err == nil {
		if loop, _, out := ibdmchkVerdict(t, bin, "torus/dfsssp-sl", f, fromLog); loop {
			t.Errorf("ibdmchk finds a loop on the log's SLs:\n%s", out)
		}
	}
}

// TestIncompleteSL2VL: SL2VL tables without the table of a switch that
// routes cross, or of one CA port while the others have theirs, are
// refused (ErrIncomplete) with the ports the routes leave without an
// entry, instead of taking VL = SL there.
func TestIncompleteSL2VL(t *testing.T) {
	dir := filepath.Join(ibFixtures, "torus/torus-2QoS-sl")
	data, err := os.ReadFile(filepath.Join(dir, "opensm-sl2vl.dump"))
	if err != nil {
		t.Fatal(err)
	}
	f, _ := loadRun(t, "torus/torus-2QoS-sl", "none")
	for _, c := range []struct{ drop, node string }{
		{`Switch 0x0000000000200005, base LID 9, "S-1-1"`, "S-1-1"},
		{`Channel Adapter 0x0000000000100005, base LID 8, "H-2"`, "H-2"},
	} {
		// The dump without the block of one node.
		var kept []string
		skip := false
		for _, block := range strings.SplitAfter(string(data), "\n\n") {
			if strings.HasPrefix(block, c.drop) {
				skip = true
				continue
			}
			kept = append(kept, block)
		}
		if !skip {
			t.Fatalf("no block %q", c.drop)
		}
		cut := filepath.Join(t.TempDir(), "opensm-sl2vl.dump")
		if err := os.WriteFile(cut, []byte(strings.Join(kept, "")), 0o644); err != nil {
			t.Fatal(err)
		}
		lanes, err := Load(f, Files{LFTs: filepath.Join(dir, "opensm-lfts.dump"), SL2VL: cut})
		if err != nil {
			t.Fatal(err)
		}
		r, err := Check(f, lanes, Options{Threads: 2})
		if !errors.Is(err, ErrIncomplete) || r == nil || r.MissingVL == 0 || len(r.MissingPorts) == 0 {
			t.Fatalf("without %s: %v", c.node, err)
		}
		for _, l := range r.MissingPorts {
			if from := f.Nodes[f.Links[l].From].Name; from != c.node {
				t.Errorf("without %s: port of %s reported", c.node, from)
			}
		}
		if !strings.Contains(err.Error(), cut+": ") || !strings.Contains(err.Error(), "--sl2vl none") {
			t.Errorf("error %q", err)
		}
	}
}

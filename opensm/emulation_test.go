package opensm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"orcs/ib"
	"orcs/lft"
)

// ibFixture reads a run of testdata/ib as compare --topo/--lfts does: the
// topology, the fabric to route (topology only) and the fabric with the
// run's own tables. Files may be gzipped (NAME.gz).
func ibFixture(t *testing.T, run string) (*ib.Topology, *lft.Fabric, *lft.Fabric) {
	t.Helper()
	file := func(name string) string { return ibFile(run, name) }
	topo, err := ib.ReadTopologyFile(file("ibnetdiscover.txt"))
	if err != nil {
		t.Fatal(err)
	}
	opt := ib.Options{Names: ib.NamesHost}
	f, err := ib.BuildTopology(topo, opt)
	if err != nil {
		t.Fatal(err)
	}
	cur, err := ib.ReadFiles(file("ibnetdiscover.txt"), file("opensm-lfts.dump"), opt)
	if err != nil {
		t.Fatal(err)
	}
	return topo, f, cur
}

// ibFile is the path of a file of a run of testdata/ib, NAME or NAME.gz.
func ibFile(run, name string) string {
	p := filepath.Join("../testdata/ib", run, name)
	if _, err := os.Stat(p); err != nil {
		return p + ".gz"
	}
	return p
}

// sameTables fails unless got and want have the same nodes (names, GUIDs,
// LIDs, LMCs) and links, and every switch sends every host's traffic over
// the same link.
func sameTables(t *testing.T, got, want *lft.Fabric) {
	t.Helper()
	if len(got.Nodes) != len(want.Nodes) || len(got.Links) != len(want.Links) || got.NumHosts() != want.NumHosts() {
		t.Fatalf("%d nodes, %d links, %d hosts; want %d, %d, %d", len(got.Nodes), len(got.Links), got.NumHosts(),
			len(want.Nodes), len(want.Links), want.NumHosts())
	}
	for l := range got.Links {
		if g, w := got.Links[l], want.Links[l]; g.From != w.From || g.To != w.To || g.FromPort != w.FromPort {
			t.Fatalf("link %d is %s, want %s", l, got.LinkName(int32(l)), want.LinkName(int32(l)))
		}
	}
	diff := 0
	for v, n := range got.Nodes {
		if w := want.Nodes[v]; n.Name != w.Name || n.GUID != w.GUID || n.LID != w.LID || n.LMC != w.LMC {
			t.Fatalf("node %d is %q 0x%x LID %d LMC %d, want %q 0x%x LID %d LMC %d", v, n.Name, n.GUID, n.LID, n.LMC, w.Name, w.GUID, w.LID, w.LMC)
		}
		if n.Kind == lft.Host {
			continue
		}
		for d := range int32(got.NumHosts()) {
			if g, w := got.NextHop(0, int32(v), d), want.NextHop(0, int32(v), d); g != w {
				if diff++; diff <= 3 {
					t.Errorf("%s towards %s: link %d, the fabric's own tables take %d", n.Name, got.HostName(int(d)), g, w)
				}
			}
		}
	}
	if diff > 3 {
		t.Errorf("%d more switch entries differ", diff-3)
	}
}

// TestRouteEmulatesTopology routes fabrics read from the real tools' files
// with the engine that made their tables, and wants those tables exactly:
// the emulation must be the production fabric, SHARP aggregation nodes
// (which hold LIDs but are no hosts), multi-port CAs, loopback cables and a
// CA cabled on port 2 only included. (Dropping the aggregation nodes made
// OpenSM balance another fabric; a 2-port CA was split into two CAs; a
// loopback was refused; the SM bound to the port-2 CA's dead port 1.)
func TestRouteEmulatesTopology(t *testing.T) {
	tools := needTools(t)
	for _, run := range []string{"sharp/minhop", "sharp/updn", "sharp/dfsssp", "cluster/minhop", "cluster/updn",
		"loopback/minhop", "port2/minhop", "sharp576/minhop", "ft16/minhop-lmc1", "sharp/minhop-lmc1"} {
		t.Run(run, func(t *testing.T) {
			topo, f, cur := ibFixture(t, run)
			engine, _, _ := strings.Cut(filepath.Base(run), "-") // minhop-lmc1: minhop with -l 1
			res, err := Route(context.Background(), f, Options{Engine: engine, Topology: topo, Tools: tools, Timeout: 2 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			if res.Used != engine {
				t.Fatalf("OpenSM used %s", res.Used)
			}
			sameTables(t, res.Fabric, cur)
			// Every LID's entry in every switch, not only the hosts' base LIDs.
			dump, err := ib.ReadRoutingFile(ibFile(run, "opensm-lfts.dump"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := CompareRoutings(dump, res.LFTs); err != nil {
				t.Errorf("OpenSM's dump differs from production's: %v", err)
			}
		})
	}
}

// TestRouteSMCannotStart gives OpenSM a port GUID that the emulation does
// not have: the routing stops as soon as OpenSM's log says so, with that
// line, instead of waiting out the time limit.
func TestRouteSMCannotStart(t *testing.T) {
	tools := needTools(t)
	topo, f, _ := ibFixture(t, "port2/minhop")
	_, err := Route(context.Background(), f, Options{Engine: "minhop", Topology: topo, Tools: tools,
		Timeout: time.Minute, ExtraArgs: []string{"-g", "0x0000000000abcdef"}})
	if err == nil || errors.Is(err, errTimeout) || !strings.Contains(err.Error(), "OpenSM cannot start") ||
		!strings.Contains(err.Error(), "Unable to find requested CA guid 0xabcdef") {
		t.Fatalf("got %v, want OpenSM's own line on the unknown port GUID", err)
	}
}

// TestParseLogSMDown reads the log of a real OpenSM attached (by ibsim) to
// port 1 of a CA cabled on port 2 only: "SM port is down", after which it
// waits for ever.
func TestParseLogSMDown(t *testing.T) {
	data, err := os.ReadFile("../testdata/ib/port2/sm-port-down/opensm.log")
	if err != nil {
		t.Fatal(err)
	}
	if s := ParseLog(data); s.SMDown != "0x80 -> SM port is down" || s.SubnetUp {
		t.Errorf("SMDown %q, subnet up %v", s.SMDown, s.SubnetUp)
	}
	for _, run := range []string{"sharp/minhop", "port2/minhop", "cluster/minhop"} {
		data, err := os.ReadFile(filepath.Join("../testdata/ib", run, "engine.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if s := ParseLog(data); s.SMDown != "" {
			t.Errorf("%s: SMDown %q in a good run", run, s.SMDown)
		}
	}
}

// TestDefaultTimeout: two minutes and a tenth of a second per node.
func TestDefaultTimeout(t *testing.T) {
	for _, c := range []struct {
		nodes int
		want  time.Duration
	}{{0, 2 * time.Minute}, {16, 2*time.Minute + 1600*time.Millisecond}, {1800, 5 * time.Minute}, {4800, 10 * time.Minute}} {
		if got := DefaultTimeout(c.nodes); got != c.want {
			t.Errorf("%d nodes: %s, want %s", c.nodes, got, c.want)
		}
	}
}

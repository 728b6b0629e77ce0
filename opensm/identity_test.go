package opensm

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"orcs/ib"
)

// TestRouteKeepsIdentity routes a real fabric's topology with its own node
// GUIDs and LIDs, which are not those ibsim and OpenSM would choose, and
// checks that the routed fabric has them.
func TestRouteKeepsIdentity(t *testing.T) {
	tools := needTools(t)
	topo, err := ib.ReadTopologyFile("../testdata/ib/ft16/minhop/ibnetdiscover.txt")
	if err != nil {
		t.Fatal(err)
	}
	f, err := ib.BuildTopology(topo, ib.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for v := range f.Nodes {
		n := &f.Nodes[v]
		n.GUID += 0x0002c90300000000
		n.LID = uint16(200 + 3*v) // every third LID, from 200
	}
	res, err := Route(context.Background(), f, Options{Engine: "minhop", KeepPorts: true, KeepIdentity: true, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	for v, n := range f.Nodes {
		got := res.Fabric.Nodes[v]
		if got.GUID != n.GUID || got.LID != n.LID {
			t.Errorf("%s: GUID 0x%x LID %d, want 0x%x LID %d", n.Name, got.GUID, got.LID, n.GUID, n.LID)
		}
	}
	if c := res.Fabric.CheckRoutes(nil, 1, 1); !c.OK() {
		t.Error(c.Summary())
	}
}

// TestRouteOpenSMOptions passes OpenSM options through: LMC 1 gives every
// port two LIDs, the root GUID file makes updn use those spines, and an
// opensm.conf applies (its lmc is overridden by the option).
func TestRouteOpenSMOptions(t *testing.T) {
	tools := needTools(t)
	topo, err := ib.ReadTopologyFile("../testdata/ib/ft16/minhop/ibnetdiscover.txt")
	if err != nil {
		t.Fatal(err)
	}
	f, err := ib.BuildTopology(topo, ib.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	roots := filepath.Join(dir, "roots")
	conf := filepath.Join(dir, "opensm.conf")
	if err := os.WriteFile(roots, []byte("0x0000000000200004\n0x0000000000200005\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(conf, []byte("lmc 2\nsweep_interval 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(dir, "keep")
	res, err := Route(context.Background(), f, Options{Engine: "updn", KeepPorts: true, KeepIdentity: true, Tools: tools,
		LMC: 1, RootGUIDFile: roots, ConfFile: conf, Keep: keep})
	if err != nil {
		t.Fatal(err)
	}
	if res.Used != "updn" {
		t.Errorf("engine %s", res.Used)
	}
	for h := range res.Fabric.NumHosts() {
		if n := res.Fabric.Nodes[res.Fabric.HostNode(h)]; n.LMC != 1 || n.LID%2 != 0 {
			t.Fatalf("%s: LID %d LMC %d, want an even LID with LMC 1", n.Name, n.LID, n.LMC)
		}
	}
	got, err := os.ReadFile(filepath.Join(keep, "opensm-updn-roots.dump"))
	if err != nil || string(got) != "0x200004\n0x200005\n" {
		t.Errorf("updn roots %q, %v", got, err)
	}
	if _, err := Route(context.Background(), f, Options{Engine: "updn", Tools: tools, LMC: 9}); err == nil {
		t.Error("LMC 9 accepted")
	}
}

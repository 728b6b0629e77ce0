package opensm

import (
	"context"
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

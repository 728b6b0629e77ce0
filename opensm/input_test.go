package opensm

import (
	"strings"
	"testing"

	"orcs/fabricarg"
)

// load reads a fabric to route as the commands do.
func load(arg string) (*Input, error) {
	src, err := fabricarg.Load(fabricarg.Args{Input: arg, Need: fabricarg.Topology})
	if err != nil {
		return nil, err
	}
	return &Input{Fabric: src.Fabric, Name: src.Name, Network: src.Network, RealPorts: src.RealPorts}, nil
}

func TestInput(t *testing.T) {
	in, err := load("gen:torus dims=4x4")
	if err != nil {
		t.Fatal(err)
	}
	if in.Name != "gen:torus:dims=4x4,hosts=1" || !in.RealPorts || in.Options("torus-2QoS").Torus == nil {
		t.Errorf("gen spec: %+v", in)
	}
	// A dot written by orcs gen gets the generator's coordinates back.
	in, err = load("../testdata/torus4x4.dot")
	if err != nil {
		t.Fatal(err)
	}
	tr := in.Options("torus-2QoS").Torus
	if in.RealPorts || tr == nil || tr.Seed != "S0_0" || tr.Plus[0] != "S1_0" || tr.Minus[1] != "S0_3" {
		t.Errorf("torus dot: %+v, torus %+v", in, tr)
	}
	in, err = load("../testdata/ft64.dot")
	if err != nil {
		t.Fatal(err)
	}
	roots, err := in.Roots("tree")
	if err != nil || len(roots) != 16 || roots[0] != "S2_0" {
		t.Errorf("roots tree: %v, %v", roots, err)
	}
	if _, err := in.Roots("S2_0,S9"); err == nil || !strings.Contains(err.Error(), `no node "S9"`) {
		t.Errorf("bad root: %v", err)
	}
	if _, err := in.Roots("H3"); err == nil || !strings.Contains(err.Error(), "is a host") {
		t.Errorf("host root: %v", err)
	}
	// A hand-written dot is not a generated one.
	in, err = load("../testdata/manual4.dot")
	if err != nil {
		t.Fatal(err)
	}
	if in.Network != nil {
		t.Error("manual4.dot taken for a generated fabric")
	}
	if _, err := in.Roots("tree"); err == nil {
		t.Error("--roots tree accepted on a hand-written dot")
	}
	if _, err := load("gen:kary:k=4"); err == nil || !strings.Contains(err.Error(), "missing parameter n") {
		t.Errorf("bad spec: %v", err)
	}
}

package opensm

import "orcs/registry"

// engines holds the routing engines of OpenSM 3.3.23 that compute tables
// (the "file" engine only loads them), registered in the order of Engines.
var engines = registry.New[struct{}]("OpenSM routing engine")

func init() {
	for _, e := range []struct{ name, doc string }{
		{"minhop", "Min Hop: shortest paths, balancing the routes over the ports of a switch"},
		{"updn", "Up/Down: shortest paths that never turn from down to up, below chosen roots; deadlock free"},
		{"dnup", "Down/Up: Up/Down with the directions reversed"},
		{"ftree", "Fat Tree: balanced routes for fat trees, found from the leaf switches"},
		{"lash", "Layered shortest path: shortest paths made deadlock free by virtual lanes"},
		{"dor", "Dimension order: Min Hop that takes the ports in dimension order, for meshes and tori"},
		{"nue", "Nue: deadlock-free routing of any topology within a given number of virtual lanes"},
		{"dfsssp", "Deadlock-free SSSP: SSSP made deadlock free by virtual lanes"},
		{"sssp", "Single-source shortest paths: shortest paths balanced over the whole fabric"},
		{"torus-2QoS", "Torus-2QoS: dimension order routing of 2-D and 3-D tori with two QoS levels; needs QoS and a seed"},
	} {
		engines.Register(e.name, e.doc, struct{}{})
	}
}

// Engines returns the names of the routing engines of OpenSM 3.3.23 that
// compute tables (the "file" engine only loads them), in a fixed order:
// minhop, updn, dnup, ftree, lash, dor, nue, dfsssp, sssp, torus-2QoS.
func Engines() []string { return engines.InOrder() }

// EngineDoc returns the one-line description of the routing engine name.
// The error for an unknown name lists the known engines.
func EngineDoc(name string) (string, error) {
	if _, err := engines.Lookup(name); err != nil {
		return "", err
	}
	doc, _ := engines.Doc(name)
	return doc, nil
}

package opensm

import (
	"strings"

	"orcs/registry"
)

// engine is what orcs knows of a routing engine beyond its name.
type engine struct {
	// cost ranks the engines by their routing time on large fat trees and
	// tori, 0 the slowest (measured with OpenSM 3.3.23 on 4096 hosts: lash
	// takes most of a comparison, then dfsssp, sssp and nue).
	cost int
	// sls says that the engine gives paths service levels of their own and
	// relies on them (and on SL-to-VL tables) to avoid credit loops; the
	// others route every path on SL 0.
	sls bool
	// logsSLs says that the engine writes the SL of every path into
	// OpenSM's log at the debug level of its own source file (logModule):
	// one routing gives them all, without a PathRecord query per pair.
	logsSLs   bool
	logModule string
}

// engines holds the routing engines of OpenSM 3.3.23 that compute tables
// (the "file" engine only loads them), registered in the order of Engines.
var engines = registry.New[engine]("OpenSM routing engine")

func init() {
	for _, e := range []struct {
		name, doc string
		engine
	}{
		{"minhop", "Min Hop: shortest paths, balancing the routes over the ports of a switch", engine{9, false, false, ""}},
		{"updn", "Up/Down: shortest paths that never turn from down to up, below chosen roots; deadlock free", engine{6, false, false, ""}},
		{"dnup", "Down/Up: Up/Down with the directions reversed", engine{7, false, false, ""}},
		{"ftree", "Fat Tree: balanced routes for fat trees, found from the leaf switches", engine{8, false, false, ""}},
		{"lash", "Layered shortest path: shortest paths made deadlock free by virtual lanes", engine{0, true, false, ""}},
		{"dor", "Dimension order: Min Hop that takes the ports in dimension order, for meshes and tori", engine{5, false, false, ""}},
		{"nue", "Nue: deadlock-free routing of any topology within a given number of virtual lanes", engine{3, true, false, ""}},
		{"dfsssp", "Deadlock-free SSSP: SSSP made deadlock free by virtual lanes", engine{1, true, true, "osm_ucast_dfsssp.c"}},
		{"sssp", "Single-source shortest paths: shortest paths balanced over the whole fabric", engine{2, false, false, ""}},
		{"torus-2QoS", "Torus-2QoS: dimension order routing of 2-D and 3-D tori with two QoS levels; needs QoS and a seed", engine{4, true, false, ""}},
	} {
		engines.Register(e.name, e.doc, e.engine)
	}
}

// Engines returns the names of the routing engines of OpenSM 3.3.23 that
// compute tables (the "file" engine only loads them), in a fixed order:
// minhop, updn, dnup, ftree, lash, dor, nue, dfsssp, sssp, torus-2QoS.
func Engines() []string { return engines.InOrder() }

// CheckEngine returns an error, listing the known engines and the closest
// name, unless name is one of Engines (OpenSM ignores the case of the
// names). Route calls it before it starts any tool: OpenSM itself falls
// back to minhop on a name it does not know.
func CheckEngine(name string) error {
	for _, e := range Engines() {
		if strings.EqualFold(e, name) {
			return nil
		}
	}
	_, err := engines.Lookup(name)
	return err
}

// EngineDoc returns the one-line description of the routing engine name.
// The error for an unknown name lists the known engines.
func EngineDoc(name string) (string, error) {
	if _, err := engines.Lookup(name); err != nil {
		return "", err
	}
	doc, _ := engines.Doc(name)
	return doc, nil
}

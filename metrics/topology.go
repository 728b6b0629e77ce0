package metrics

import "orcs/lft"

// Topology describes a fabric and the load of every cable, so that a saved
// result can be drawn (orcs report): the analyzer adds it to its JSON
// output with --cables.
type Topology struct {
	Hosts    int `json:"hosts"`
	Switches int `json:"switches"`
	// Levels is the number of switch levels: the largest distance of a
	// switch from the nearest host (1 for a torus whose every switch has
	// hosts; 3 for a 3-level fat tree).
	Levels int `json:"levels"`
	// Routing names the routing when it is known (a generated fabric's).
	Routing string `json:"routing,omitempty"`
	// Grid is set for a generated torus or mesh: its size per dimension.
	Grid *TopologyGrid `json:"grid,omitempty"`
	// Nodes are the fabric's nodes in its order.
	Nodes []TopologyNode `json:"nodes"`
	// Cables are the directed cables (links) in the fabric's order, with
	// their loads over the runs.
	Cables []CableLoad `json:"cables"`
}

// TopologyGrid is the shape of a torus or mesh.
type TopologyGrid struct {
	Dims  []int `json:"dims"`
	Torus bool  `json:"torus"`
}

// TopologyNode is one node: its level is its distance from the nearest
// host (hosts 0, leaf switches 1, …; −1 when no host reaches it); Coord
// is a grid switch's position (a host's: its switch's).
type TopologyNode struct {
	Name string `json:"name"`
	// Desc is a switch's description when the fabric file gives one
	// (ibnetdiscover's node description, a dot file's node label), else "".
	Desc   string `json:"desc,omitempty"`
	Switch bool   `json:"switch"`
	Level  int    `json:"level"`
	Coord  []int  `json:"coord,omitempty"`
}

// CableLoad is a directed cable with its load: the mean over runs of its
// largest load in a level (the routes that share it at once) and its
// largest load in any level of any run.
type CableLoad struct {
	From     string  `json:"from"`
	FromPort int32   `json:"from_port"`
	To       string  `json:"to"`
	ToPort   int32   `json:"to_port"`
	MeanPeak float64 `json:"mean_peak_load"`
	MaxLoad  int32   `json:"max_load"`
}

// NewTopology describes f with the loads of its links (indexed by link,
// as analyze.Analysis.CableLoads gives them). coord, when not nil, gives a node's
// grid coordinates.
func NewTopology(f *lft.Fabric, meanPeak []float64, maxLoad []int32, coord func(node int32) []int) *Topology {
	t := &Topology{Hosts: f.NumHosts(), Switches: f.NumSwitches()}
	level := f.Levels()
	t.Nodes = make([]TopologyNode, len(f.Nodes))
	for v, n := range f.Nodes {
		t.Nodes[v] = TopologyNode{Name: n.Name, Switch: n.Kind == lft.Switch, Level: int(level[v])}
		if t.Nodes[v].Switch {
			t.Levels = max(t.Levels, int(level[v]))
			t.Nodes[v].Desc = n.Desc
		}
		if coord != nil {
			t.Nodes[v].Coord = coord(int32(v))
		}
	}
	t.Cables = make([]CableLoad, len(f.Links))
	for l, k := range f.Links {
		t.Cables[l] = CableLoad{From: f.Nodes[k.From].Name, FromPort: k.FromPort, To: f.Nodes[k.To].Name, ToPort: k.ToPort}
		if l < len(meanPeak) {
			t.Cables[l].MeanPeak, t.Cables[l].MaxLoad = meanPeak[l], maxLoad[l]
		}
	}
	return t
}

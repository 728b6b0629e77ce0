package mapping

import (
	"fmt"
	"io"
	"slices"
	"time"

	"orcs/analyze"
	"orcs/lft"
	"orcs/nodes"
	"orcs/patterns"
	"orcs/rng"
)

// NodeStrategies are the placements of an NCCL collective, which NCCL
// ranks node by node (a node's GPUs keep their rails): the node order of
// the allocation (linear), nodes sorted by the leaf switches of their
// HCAs (leaves), a random node order (random), and a search over swaps of
// two nodes that starts from the best of these (search).
var NodeStrategies = []string{"linear", "leaves", "random", "search"}

// nodeSearchStream is the stream index of the node order search.
const nodeSearchStream = 7

// NodeProblem places an NCCL collective (patterns.Collective) by node:
// its ranks are the GPUs of whole nodes, rank r on GPU r mod Rails of the
// r / Rails-th node of the order.
type NodeProblem struct {
	// Problem scores GPU placements; its Hosts are the nodes' HCAs in the
	// allocation's node order.
	*Problem
	// Layout groups the fabric's hosts into nodes.
	Layout *nodes.Layout
	// Nodes are the allocation's nodes (layout indices) with an HCA on
	// every rail, in the allocation's order.
	Nodes []int32
	// Pattern is the collective.
	Pattern string
}

// CollectiveProblem prepares the placement of collective pattern on the
// nodes of the allocation alloc (nil: every node of the fabric with an HCA
// on each rail), in the order of their first HCA in alloc. ranks (GPUs, 0
// = every node) takes the first ranks/rails nodes.
func CollectiveProblem(f *lft.Fabric, alloc []int32, pattern string, ranks int) (*NodeProblem, error) {
	cfg := analyze.Config{Pattern: patterns.Spec{Name: pattern}, Allocation: alloc, Commsize: ranks}
	hosts, err := analyze.NodePlacement(f, &cfg)
	if err != nil {
		return nil, err
	}
	l, err := nodes.FromFabric(f)
	if err != nil {
		return nil, err
	}
	c, err := PatternComm(cfg.Pattern, cfg.Commsize)
	if err != nil {
		return nil, err
	}
	p, err := NewProblem(f, c, hosts)
	if err != nil {
		return nil, err
	}
	np := &NodeProblem{Problem: p, Layout: l, Pattern: pattern}
	for i := 0; i < len(hosts); i += cfg.Pattern.Rails {
		np.Nodes = append(np.Nodes, l.NodeOf(hosts[i]))
	}
	return np, nil
}

// Placement returns the GPU placement of a node order (layout indices).
func (np *NodeProblem) Placement(order []int32) Placement {
	pl := make(Placement, 0, len(order)*np.Layout.Rails)
	for _, k := range order {
		pl = append(pl, np.Layout.Nodes[k].HCAs...)
	}
	return pl
}

// BusBandwidth returns the fraction of the bus bandwidth the collective
// gets with the GPU placement pl under the fabric's static routing, as
// the analyzer's hist_bus_band measures it.
func (np *NodeProblem) BusBandwidth(pl Placement) (float64, error) {
	s, err := analyze.New(np.Fabric, analyze.Config{Pattern: patterns.Spec{Name: np.Pattern}, Metric: "hist_bus_band",
		Allocation: pl, NoShuffle: true, Level: -1, Runs: 1, Threads: 1})
	if err != nil {
		return 0, err
	}
	r, err := s.Run()
	if err != nil {
		return 0, err
	}
	return r.Values[0], nil
}

// PlaceNodes returns the node order of strategy name (see NodeStrategies).
func (np *NodeProblem) PlaceNodes(name string) ([]int32, error) {
	order := slices.Clone(np.Nodes)
	switch name {
	case "linear":
	case "leaves":
		np.sortByLeaves(order)
	case "random":
		rng.New(np.Seed, randomStream).ShuffleInt32(order)
	case "search":
		return np.search()
	default:
		return nil, fmt.Errorf("strategy %s places single hosts; an NCCL collective is placed by node: %v", name, NodeStrategies)
	}
	return order, nil
}

// sortByLeaves orders nodes by the leaf switches of their HCAs, rail by
// rail in the order the fabric's linear_bfs reaches the leaves, keeping
// the allocation's order among nodes on the same leaves: nodes under one
// leaf (or one rail group) follow each other, so that a ring crosses
// between leaves as few times as the allocation allows.
func (np *NodeProblem) sortByLeaves(order []int32) {
	pos := map[int32]int{}
	for _, h := range analyze.LinearBFS(np.Fabric) {
		if leaf := np.leafOf(h); leaf >= 0 {
			if _, ok := pos[leaf]; !ok {
				pos[leaf] = len(pos)
			}
		}
	}
	key := make(map[int32][]int, len(order)) // each node's leaf positions, once
	for _, k := range order {
		for _, h := range np.Layout.Nodes[k].HCAs {
			key[k] = append(key[k], pos[np.leafOf(h)])
		}
	}
	slices.SortStableFunc(order, func(a, b int32) int { return slices.Compare(key[a], key[b]) })
}

// search improves the best of the other node orders by swaps of two
// nodes, keeping a swap that is not worse (so that it walks across
// plateaus), for Budget candidates (0: a default that keeps the walks
// near 20 million routes).
func (np *NodeProblem) search() ([]int32, error) {
	var best []int32
	var bestObj Objective
	for _, name := range []string{"linear", "leaves", "random"} {
		o, err := np.PlaceNodes(name)
		if err != nil {
			return nil, err
		}
		if obj := np.Score(np.Placement(o)); best == nil || np.Mode.Better(obj, bestObj) {
			best, bestObj = o, obj
		}
	}
	n := len(best)
	budget := np.Budget
	if budget == 0 {
		budget = min(max(100, 20_000_000/max(1, len(np.Comm.Msgs))), 50*n*n)
	}
	r := rng.New(np.Seed, nodeSearchStream)
	cur := slices.Clone(best)
	curObj := bestObj
	for range budget {
		i, j := r.IntN(n), r.IntN(n)
		if i == j {
			continue
		}
		cur[i], cur[j] = cur[j], cur[i]
		obj := np.Score(np.Placement(cur))
		if np.Mode.Better(curObj, obj) { // worse: undo
			cur[i], cur[j] = cur[j], cur[i]
			continue
		}
		curObj = obj
		if np.Mode.Better(obj, bestObj) {
			best, bestObj = slices.Clone(cur), obj
		}
	}
	return best, nil
}

// NodeRow is one node order of a NodeReport.
type NodeRow struct {
	Row
	// BusBandwidth is the collective's bus-bandwidth fraction.
	BusBandwidth float64
}

// NodeReport compares node orders of a collective.
type NodeReport struct {
	Pattern string
	Nodes   int
	Rails   int
	Rows    []NodeRow
	// Chosen is the index of the strategy asked for.
	Chosen int
	Times  bool
	Unit   string
}

// RunNodes places the collective with every node strategy (o.Compare) or
// with linear and o.Strategy, and returns the report and the chosen GPU
// placement.
func (np *NodeProblem) RunNodes(o Options) (*NodeReport, Placement, error) {
	if !slices.Contains(NodeStrategies, o.Strategy) {
		return nil, nil, fmt.Errorf("strategy %s places single hosts; an NCCL collective (%s) is placed by node: %v", o.Strategy, np.Pattern, NodeStrategies)
	}
	names := []string{"linear"}
	if o.Compare {
		names = NodeStrategies
	} else if o.Strategy != "linear" {
		names = append(names, o.Strategy)
	}
	rep := &NodeReport{Pattern: np.Pattern, Nodes: len(np.Nodes), Rails: np.Layout.Rails, Times: o.Times, Unit: np.Comm.Unit}
	var chosen Placement
	for _, name := range names {
		t := time.Now()
		order, err := np.PlaceNodes(name)
		if err != nil {
			return nil, nil, err
		}
		pl := np.Placement(order)
		row := NodeRow{Row: Row{Name: name, Seconds: time.Since(t).Seconds(), Obj: np.Score(pl)}}
		if row.BusBandwidth, err = np.BusBandwidth(pl); err != nil {
			return nil, nil, err
		}
		if name == o.Strategy {
			chosen, rep.Chosen = pl, len(rep.Rows)
		}
		rep.Rows = append(rep.Rows, row)
	}
	return rep, chosen, nil
}

// Write prints the node orders' objectives and bus-bandwidth fractions,
// then the verdict.
func (r *NodeReport) Write(w io.Writer) error {
	rows := &Report{Unit: r.Unit, Times: r.Times}
	for _, row := range r.Rows {
		rows.Rows = append(rows.Rows, row.Row)
	}
	if err := rows.Write(w); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%-10s %12s\n", "placement", "bus bw")
	for _, row := range r.Rows {
		fmt.Fprintf(w, "%-10s %12.4f\n", row.Name, row.BusBandwidth)
	}
	lin, ch := r.Rows[0], r.Rows[r.Chosen]
	verdict := fmt.Sprintf("the %s node order gives %s on %d nodes × %d GPUs %.1f%% of the bus bandwidth under this routing (the allocation's order: %.1f%%)",
		ch.Name, r.Pattern, r.Nodes, r.Rails, 100*ch.BusBandwidth, 100*lin.BusBandwidth)
	switch {
	case ch.BusBandwidth >= 1:
		verdict += "; no step shares a cable beyond the hosts' own links"
	case ch.BusBandwidth > lin.BusBandwidth:
		verdict += fmt.Sprintf("; %.2f× faster steps", ch.BusBandwidth/lin.BusBandwidth)
	}
	_, err := fmt.Fprintf(w, "\nverdict: %s (exact for the static routing: one placement, every route walked).\n", verdict)
	return err
}

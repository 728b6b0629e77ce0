package mapping

import (
	"fmt"
	"runtime"
	"slices"

	"orcs/analyze"
	"orcs/gen"
	"orcs/lft"
)

// Placement maps ranks to hosts: Placement[r] is the host index of rank r.
type Placement []int32

// Problem is a job to place: its communication, the fabric and the hosts
// of its allocation. Make one with NewProblem.
type Problem struct {
	Fabric *lft.Fabric
	Comm   *Comm
	// Hosts is the allocation in the order given: the linear placement
	// puts rank i on Hosts[i].
	Hosts []int32
	// Grid, when not nil, gives the ranks' logical grid (2 or 3
	// dimensions, the fastest-varying first: rank = x + X·y + X·Y·z), for
	// tile.
	Grid []int
	// Seed drives random and search.
	Seed uint64
	// Budget is the number of candidate swaps search evaluates (0: a
	// default that grows with the job, see DefaultBudget).
	Budget int
	// Mode orders objectives.
	Mode Mode
	// Network is the generator's description of the fabric when the
	// caller has it (fabricarg.Fabric.Network); nil: a fabric that the
	// generator built is recognised by its graph name when bisect needs
	// its coordinates.
	Network *gen.Network

	order   []int32 // Hosts in the fabric's linear_bfs order (whole leaf switches together)
	groupOf []int32 // group (leaf switch run) of order[i]
	groups  []int32 // start of each group in order, and len(order) at the end
	leafSw  []bool  // per node: a switch with hosts
	graph   *Graph

	// leafDistances, computed once
	leaves, leafAt, leafDist []int32
	// gridGeometry, computed once (geoDone)
	geo     *geometry
	geoDone bool
}

// NewProblem checks that the allocation can take the job and that every
// pair of its hosts routes, and prepares the host structure.
func NewProblem(f *lft.Fabric, c *Comm, hosts []int32) (*Problem, error) {
	if hosts == nil {
		hosts = make([]int32, f.NumHosts())
		for i := range hosts {
			hosts[i] = int32(i)
		}
	}
	if c.Ranks > len(hosts) {
		if c.MaxRankAt != "" {
			return nil, fmt.Errorf("%s: rank %d: the job has %d ranks, the allocation %d hosts", c.MaxRankAt, c.Ranks-1, c.Ranks, len(hosts))
		}
		return nil, fmt.Errorf("the job has %d ranks, the allocation %d hosts", c.Ranks, len(hosts))
	}
	if c.Ranks < 2 {
		return nil, fmt.Errorf("the job has %d rank: nothing to place", c.Ranks)
	}
	if chk := f.CheckRoutes(hosts, 1, runtime.NumCPU()); !chk.OK() {
		return nil, fmt.Errorf("the allocation's hosts do not all route: %s", chk.Summary())
	}
	p := &Problem{Fabric: f, Comm: c, Hosts: hosts}
	pos := make([]int32, f.NumHosts())
	for i, h := range analyze.LinearBFS(f) {
		pos[h] = int32(i)
	}
	p.order = slices.Clone(hosts)
	slices.SortFunc(p.order, func(a, b int32) int { return int(pos[a] - pos[b]) })
	p.leafSw = make([]bool, len(f.Nodes))
	p.groupOf = make([]int32, len(p.order))
	prev := int32(-1)
	for i, h := range p.order {
		leaf := p.leafOf(h)
		p.leafSw[leaf] = true
		if leaf != prev {
			p.groups = append(p.groups, int32(i))
			prev = leaf
		}
		p.groupOf[i] = int32(len(p.groups) - 1)
	}
	p.groups = append(p.groups, int32(len(p.order)))
	return p, nil
}

// leafOf returns the node host h is cabled to (its leaf switch).
func (p *Problem) leafOf(h int32) int32 {
	out := p.Fabric.OutLinks(p.Fabric.HostNode(int(h)))
	if len(out) == 0 {
		return -1
	}
	return p.Fabric.Links[out[0]].To
}

// graphOf returns the communication graph, built once.
func (p *Problem) graphOf() *Graph {
	if p.graph == nil {
		p.graph = p.Comm.Graph()
	}
	return p.graph
}

// GroupSize returns the most common number of allocated hosts per leaf
// switch (the tile area of tile).
func (p *Problem) GroupSize() int {
	count := map[int32]int{}
	best, bestN := 0, 0
	for g := 0; g+1 < len(p.groups); g++ {
		s := p.groups[g+1] - p.groups[g]
		count[s]++
		if c := count[s]; c > bestN || c == bestN && int(s) > best {
			best, bestN = int(s), c
		}
	}
	return best
}

// fromOrder places rank perm[i] on the i-th host of the linear_bfs order.
func (p *Problem) fromOrder(perm []int32) Placement {
	pl := make(Placement, p.Comm.Ranks)
	for i, r := range perm {
		pl[r] = p.order[i]
	}
	return pl
}

// Check verifies that pl places every rank on a distinct host of the
// allocation.
func (p *Problem) Check(pl Placement) error {
	if len(pl) != p.Comm.Ranks {
		return fmt.Errorf("placement of %d ranks for a job of %d", len(pl), p.Comm.Ranks)
	}
	in := make(map[int32]bool, len(p.Hosts))
	for _, h := range p.Hosts {
		in[h] = true
	}
	used := make(map[int32]int32, len(pl))
	for r, h := range pl {
		if !in[h] {
			return fmt.Errorf("rank %d on host %d, which is not in the allocation", r, h)
		}
		if o, dup := used[h]; dup {
			return fmt.Errorf("ranks %d and %d on the same host %s", o, r, p.Fabric.HostName(int(h)))
		}
		used[h] = int32(r)
	}
	return nil
}

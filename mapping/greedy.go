package mapping

func init() {
	register(&Strategy{
		Name: "greedy",
		Doc: "heaviest-communicating ranks first, each onto the free host closest (in hops) to its placed partners, " +
			"weighted by traffic (LibTopoMap's greedy)",
		Place: placeGreedy,
	})
}

// leafDistances returns the leaf switches of the allocation (in order of
// first appearance in the linear_bfs host order), every allocated host's
// leaf index, by position in p.order, and the hop distance between every
// two leaves (flat, row-major), by breadth-first search over the cables.
// They are computed once (greedy, bisect and search's starts share them)
// and must not be modified.
func (p *Problem) leafDistances() (leaves []int32, leafAt []int32, dist []int32) {
	if p.leaves == nil {
		p.leaves, p.leafAt, p.leafDist = p.computeLeafDistances()
	}
	return p.leaves, p.leafAt, p.leafDist
}

// computeLeafDistances computes what leafDistances returns.
func (p *Problem) computeLeafDistances() (leaves []int32, leafAt []int32, dist []int32) {
	f := p.Fabric
	index := make([]int32, len(f.Nodes))
	for i := range index {
		index[i] = -1
	}
	leafAt = make([]int32, len(p.order))
	for i, h := range p.order {
		l := p.leafOf(h)
		if index[l] < 0 {
			index[l] = int32(len(leaves))
			leaves = append(leaves, l)
		}
		leafAt[i] = index[l]
	}
	k := len(leaves)
	dist = make([]int32, k*k)
	var d []int32
	for a, src := range leaves {
		d = f.Hops(d, src)
		for b, dst := range leaves {
			dist[a*k+b] = d[dst]
		}
	}
	return leaves, leafAt, dist
}

func placeGreedy(p *Problem) (Placement, error) {
	g := p.graphOf()
	n := p.Comm.Ranks
	vol := g.Volume()
	leaves, leafAt, dist := p.leafDistances()
	k := len(leaves)
	// Free hosts of every leaf, in linear_bfs order.
	free := make([][]int32, k)
	for i := len(p.order) - 1; i >= 0; i-- {
		free[leafAt[i]] = append(free[leafAt[i]], int32(i))
	}
	pl := make(Placement, n)
	leafOfRank := make([]int32, n)
	placed := make([]bool, n)
	conn := make([]int64, n) // weight to placed ranks
	cost := make([]int64, k)
	for range n {
		next := int32(-1)
		for r := range int32(n) {
			if placed[r] {
				continue
			}
			if next < 0 || conn[r] > conn[next] || conn[r] == conn[next] && vol[r] > vol[next] {
				next = r
			}
		}
		for i := range cost {
			cost[i] = 0
		}
		for e := g.Start[next]; e < g.Start[next+1]; e++ {
			if q := g.Adj[e]; placed[q] {
				row := dist[int(leafOfRank[q])*k:]
				for l := range k {
					cost[l] += g.W[e] * int64(row[l]+2)
				}
			}
		}
		best := -1
		for l := range k {
			if len(free[l]) > 0 && (best < 0 || cost[l] < cost[best]) {
				best = l
			}
		}
		slot := free[best][len(free[best])-1]
		free[best] = free[best][:len(free[best])-1]
		pl[next] = p.order[slot]
		leafOfRank[next] = int32(best)
		placed[next] = true
		for e := g.Start[next]; e < g.Start[next+1]; e++ {
			conn[g.Adj[e]] += g.W[e]
		}
	}
	return pl, nil
}

package mapping

import "slices"

func init() {
	register(&Strategy{
		Name: "rcm",
		Doc: "reverse Cuthill–McKee order of the communication graph onto the hosts in linear_bfs order " +
			"(whole leaf switches together), as in Taffet §4.2.1",
		Place: placeRCM,
	})
}

func placeRCM(p *Problem) (Placement, error) {
	return p.fromOrder(RCM(p.graphOf())), nil
}

// RCM returns the reverse Cuthill–McKee order of g's vertices: per
// connected component (components by their lowest vertex), a breadth-first
// search from a pseudo-peripheral vertex of least degree that visits
// neighbours by increasing degree (ties by number), the whole order then
// reversed.
func RCM(g *Graph) []int32 {
	n := len(g.Start) - 1
	deg := func(v int32) int32 { return g.Start[v+1] - g.Start[v] }
	seen := make([]bool, n)
	order := make([]int32, 0, n)
	level := make([]int32, n)
	for i := range level {
		level[i] = -1
	}
	var comp []int32
	for s := range int32(n) {
		if seen[s] {
			continue
		}
		// The component of s, and its vertex of least degree.
		comp = bfsOrder(g, s, comp[:0], level)
		resetLevels(level, comp)
		start := comp[0]
		for _, v := range comp {
			if deg(v) < deg(start) || deg(v) == deg(start) && v < start {
				start = v
			}
		}
		start = peripheral(g, start, level, comp)
		queue := append(order, start)
		seen[start] = true
		var nb []int32
		for i := len(order); i < len(queue); i++ {
			v := queue[i]
			nb = nb[:0]
			for _, w := range g.Adj[g.Start[v]:g.Start[v+1]] {
				if !seen[w] {
					seen[w] = true
					nb = append(nb, w)
				}
			}
			slices.SortFunc(nb, func(a, b int32) int {
				if d := deg(a) - deg(b); d != 0 {
					return int(d)
				}
				return int(a - b)
			})
			queue = append(queue, nb...)
		}
		order = queue
	}
	slices.Reverse(order)
	return order
}

// bfsOrder appends the vertices reachable from s in breadth-first order to
// out and sets their level (distance from s). level must be sized n and be
// −1 for every vertex; the caller resets the levels of out to −1 after use.
func bfsOrder(g *Graph, s int32, out []int32, level []int32) []int32 {
	start := len(out)
	out = append(out, s)
	level[s] = 0
	for i := start; i < len(out); i++ {
		v := out[i]
		for _, w := range g.Adj[g.Start[v]:g.Start[v+1]] {
			if level[w] < 0 {
				level[w] = level[v] + 1
				out = append(out, w)
			}
		}
	}
	return out
}

// peripheral finds a pseudo-peripheral vertex from s (George–Liu): move to
// a least-degree vertex of the last BFS level while the eccentricity grows.
func peripheral(g *Graph, s int32, level []int32, scratch []int32) int32 {
	ecc := int32(-1)
	for range 8 {
		scratch = bfsOrder(g, s, scratch[:0], level)
		last := level[scratch[len(scratch)-1]]
		if last <= ecc {
			resetLevels(level, scratch)
			break
		}
		ecc = last
		best := int32(-1)
		for i := len(scratch) - 1; i >= 0 && level[scratch[i]] == last; i-- {
			v := scratch[i]
			d, bd := g.Start[v+1]-g.Start[v], int32(0)
			if best >= 0 {
				bd = g.Start[best+1] - g.Start[best]
			}
			if best < 0 || d < bd || d == bd && v < best {
				best = v
			}
		}
		resetLevels(level, scratch)
		s = best
	}
	return s
}

// resetLevels sets the level of the vertices vs back to −1.
func resetLevels(level, vs []int32) {
	for _, v := range vs {
		level[v] = -1
	}
}

package lft

// Hops returns every node's distance in links from the nearest of the
// nodes from, −1 for nodes none of them reaches, by a breadth-first walk
// over the links. It reuses dist when it has room.
func (f *Fabric) Hops(dist []int32, from ...int32) []int32 {
	n := len(f.Nodes)
	if cap(dist) < n {
		dist = make([]int32, n)
	}
	dist = dist[:n]
	for i := range dist {
		dist[i] = -1
	}
	queue := make([]int32, 0, n)
	for _, v := range from {
		if dist[v] < 0 {
			dist[v] = 0
			queue = append(queue, v)
		}
	}
	for i := 0; i < len(queue); i++ {
		v := queue[i]
		for _, l := range f.OutLinks(v) {
			if w := f.Links[l].To; dist[w] < 0 {
				dist[w] = dist[v] + 1
				queue = append(queue, w)
			}
		}
	}
	return dist
}

// Levels returns every node's distance in links from the nearest host
// (hosts 0; in a Clos network, the stage: leaf switches 1, the next stage
// 2, …), −1 for nodes no host reaches.
func (f *Fabric) Levels() []int32 {
	return f.Hops(nil, f.hosts...)
}

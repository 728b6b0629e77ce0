package samplingsim

import "orcs/lft"

// NodeLevels returns the stage of every node of f: hosts are level 0, a
// switch is one more than its lowest neighbour (leaf switches 1, the next
// stage 2, …), found by a breadth-first search from the hosts. In a Clos
// network (fat tree) these are its stages. Unreachable switches get −1.
func NodeLevels(f *lft.Fabric) []int {
	level := make([]int, len(f.Nodes))
	for i := range level {
		level[i] = -1
	}
	var queue []int32
	for h := range f.NumHosts() {
		v := f.HostNode(h)
		level[v] = 0
		queue = append(queue, v)
	}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, l := range f.OutLinks(v) {
			w := f.Links[l].To
			if level[w] < 0 {
				level[w] = level[v] + 1
				queue = append(queue, w)
			}
		}
	}
	return level
}

// Direction says which way a link direction goes in a Clos network.
type Direction uint8

const (
	// Up goes away from the hosts (towards the core).
	Up Direction = iota
	// Down goes towards the hosts.
	Down
	// Level joins two nodes of the same level (e.g. in a torus).
	Level
)

// String returns "up", "down" or "level".
func (d Direction) String() string {
	switch d {
	case Up:
		return "up"
	case Down:
		return "down"
	}
	return "level"
}

// linkDirection classifies link l by the node levels.
func linkDirection(f *lft.Fabric, level []int, l int32) Direction {
	a, b := level[f.Links[l].From], level[f.Links[l].To]
	switch {
	case b > a:
		return Up
	case b < a:
		return Down
	}
	return Level
}

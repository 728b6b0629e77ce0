package samplingsim

import "orcs/lft"

// NodeLevels returns the stage of every node of f (lft.Fabric.Levels):
// hosts are level 0, a switch is one more than its lowest neighbour (leaf
// switches 1, the next stage 2, …). In a Clos network (fat tree) these are
// its stages. Unreachable switches get −1.
func NodeLevels(f *lft.Fabric) []int {
	levels := f.Levels()
	level := make([]int, len(levels))
	for v, l := range levels {
		level[v] = int(l)
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

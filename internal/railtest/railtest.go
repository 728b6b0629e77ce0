// Package railtest builds small GPU fabrics for tests: nodes of several
// HCAs named "nodeNN mlx5_R" on leaf switches under one spine, routed by
// hand (a leaf reaches its own hosts directly and everything else through
// the spine), so that a test can derive every congestion by hand.
package railtest

import (
	"fmt"

	"orcs/lft"
)

// Fabric returns nodes × rails hosts ("node01 mlx5_0" …) on leaves leaf
// switches L0 … under the spine S, with one cable each way between every
// leaf and the spine; HCA rail of node i hangs on leaf leafOf(i, rail).
func Fabric(nodes, rails, leaves int, leafOf func(node, rail int) int) (*lft.Fabric, error) {
	b := lft.NewBuilder()
	spine := b.Node("S", lft.Switch)
	leaf := make([]int32, leaves)
	up, down := make([]int32, leaves), make([]int32, leaves)
	for k := range leaves {
		leaf[k] = b.Node(fmt.Sprintf("L%d", k), lft.Switch)
	}
	for k := range leaves {
		up[k] = b.Link(leaf[k], spine, 1, k+1)
		down[k] = b.Link(spine, leaf[k], k+1, 1)
	}
	for i := range nodes {
		for r := range rails {
			k := leafOf(i, r)
			if k < 0 || k >= leaves {
				return nil, fmt.Errorf("node %d rail %d on leaf %d of %d", i, r, k, leaves)
			}
			name := Host(i, r)
			h := b.Node(name, lft.Host)
			b.Route(b.Link(h, leaf[k], 1, 2+i*rails+r), lft.AnyDest)
			d := b.Dest(name)
			b.Route(b.Link(leaf[k], h, 2+i*rails+r, 1), d)
			b.Route(down[k], d)
		}
	}
	for k := range leaves {
		b.Route(up[k], lft.AnyDest)
	}
	return b.Build()
}

// Host names HCA rail of node i (counted from 0) as a GPU node's HCA is
// named: "node01 mlx5_0".
func Host(i, rail int) string { return fmt.Sprintf("node%02d mlx5_%d", i+1, rail) }

// RailLeaves puts rail r of every node on leaf r (rail-optimized).
func RailLeaves(_, rail int) int { return rail }

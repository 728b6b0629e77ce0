package analyze

import (
	"fmt"
	"orcs/internal/plural"

	"orcs/lft"
	"orcs/nodes"
	"orcs/rng"
)

// NodePlacement chooses the hosts of an NCCL collective: whole GPU nodes,
// every one with an HCA on each of the layout's rails (nodes with fewer,
// such as service nodes of one HCA, are left out), in rank order, which is
// the node order of the allocation when one is given, else natural name
// order. It sets cfg.Pattern.Rails to the rails, and cfg.Commsize, a
// number of GPUs, to that of the nodes taking part (0 = every node). The
// linear_bfs subset takes the first nodes, rand draws them at random;
// each run then shuffles whole nodes (keeping a node's GPUs together)
// unless NoShuffle. The result lists the hosts node by node, rail by
// rail: rank r runs on it[r].
func NodePlacement(f *lft.Fabric, cfg *Config) ([]int32, error) {
	l := cfg.Nodes
	if l == nil {
		var err error
		if l, err = nodes.FromFabric(f); err != nil {
			return nil, err
		}
	}
	rails := l.Rails
	order := make([]int32, 0, len(l.Nodes)) // candidate nodes in rank order
	// A node takes part with an HCA on every rail: a service node's list
	// of HCAs is shorter than the layout's rails, or holds -1 for a rail.
	full := func(k int32) bool { return l.Nodes[k].Count() == rails }
	if cfg.Allocation != nil {
		seen := make([]bool, len(l.Nodes))
		for _, h := range cfg.Allocation {
			if k := l.NodeOf(h); !seen[k] && full(k) {
				seen[k] = true
				order = append(order, k)
			}
		}
	} else {
		for k := range l.Nodes {
			if full(int32(k)) {
				order = append(order, int32(k))
			}
		}
	}
	if len(order) < 2 {
		where := "of the fabric"
		if cfg.Allocation != nil {
			where = "of the allocation"
		}
		return nil, fmt.Errorf("pattern %s runs on whole GPU nodes: %d %s %s (%s) has an HCA on each of %d rails: at least 2 are needed",
			cfg.Pattern.Name, len(order), plural.Noun(len(order), "node"), where, l.Summary(), rails)
	}
	k := len(order)
	if c := cfg.Commsize; c != 0 && cfg.Commsize != len(order)*rails {
		if c%rails != 0 || c/rails > len(order) || c/rails < 2 {
			return nil, fmt.Errorf("pattern %s: commsize %d is not 2 to %d whole nodes of %d GPUs (%s)",
				cfg.Pattern.Name, c, len(order), rails, l.Summary())
		}
		k = c / rails
	}
	if k < len(order) {
		switch cfg.Subset {
		case SubsetLinearBFS, "":
		case SubsetRand:
			r := rng.New(cfg.Seed, subsetStream)
			for i := 0; i < k; i++ { // partial Fisher–Yates over nodes
				j := i + r.IntN(len(order)-i)
				order[i], order[j] = order[j], order[i]
			}
		default:
			return nil, fmt.Errorf("unknown subset %q (known: linear_bfs, rand)", cfg.Subset)
		}
		order = order[:k]
	}
	hosts := make([]int32, 0, k*rails)
	for _, node := range order {
		hosts = append(hosts, l.Nodes[node].HCAs...)
	}
	cfg.Commsize = k * rails
	cfg.Pattern.Rails = rails
	return hosts, nil
}

// shuffleNodes permutes the blocks of rails hosts of hosts uniformly at
// random (Fisher–Yates over nodes), keeping each node's GPUs together and
// in rail order.
func shuffleNodes(st *rng.Stream, hosts []int32, rails int) {
	for i := len(hosts)/rails - 1; i > 0; i-- {
		j := st.IntN(i + 1)
		if i != j {
			a, b := hosts[i*rails:(i+1)*rails], hosts[j*rails:(j+1)*rails]
			for r := range rails {
				a[r], b[r] = b[r], a[r]
			}
		}
	}
}

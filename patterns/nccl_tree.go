package patterns

func init() {
	registerCollective("nccl_tree_allreduce",
		"NCCL double binary tree allreduce over nodes, both trees on every rail; one level: every tree edge both ways (reduce up, broadcast down, pipelined)",
		ncclTree)
}

// ncclTree returns the fabric flows of NCCL's double binary tree
// allreduce on nodes × rails GPUs. NCCL chains a node's GPUs over NVLink
// and builds the trees over nodes (ncclGetDtree): tree 0 is btree, tree 1
// its mirror (node i ↦ n−1−i) for an even number of nodes, else btree
// shifted by one node. Each channel runs on one rail and the channels are
// doubled, one copy per tree, so rail c carries both trees. The reduction
// (child → parent) and the broadcast (parent → child) are pipelined: in
// the steady state every edge carries data both ways, which is the one
// level.
func ncclTree(nodes, rails int) []Level {
	var b builder
	for c := range rails {
		for t := range 2 {
			for i := range nodes {
				p := dtreeParent(nodes, i, t)
				if p < 0 {
					continue
				}
				b.add(gpu(i, c, rails), gpu(p, c, rails))
				b.add(gpu(p, c, rails), gpu(i, c, rails))
			}
		}
	}
	b.end()
	return b.levels()
}

// btreeParent returns the parent of rank in NCCL's binary tree of n ranks
// rooted at 0 (ncclGetBtree), or -1 for the root. The tree alternates
// leaves and inner nodes: with b the lowest set bit of rank, the parent
// is (rank ^ b) | 2b, or rank ^ b when that is out of range.
//
//	0---------------8
//	         ______/ \______
//	        4               12
//	      /   \            /  \
//	    2       6       10     \
//	   / \     / \     /  \     \
//	  1   3   5   7   9   11    13
func btreeParent(n, rank int) int {
	if rank == 0 {
		return -1
	}
	bit := rank & -rank
	up := (rank ^ bit) | bit<<1
	if up >= n {
		up = rank ^ bit
	}
	return up
}

// NCCLTreeParent returns the parent of node in tree t (0 or 1) of NCCL's
// double binary tree over nodes (ncclGetDtree), or -1 for the tree's
// root: the tree that nccl_tree_allreduce loads the fabric with, for
// simulators that run the collective (samplingsim's nccl workload).
func NCCLTreeParent(nodes, node, t int) int { return dtreeParent(nodes, node, t) }

// dtreeParent returns the parent of rank in tree t (0 or 1) of NCCL's
// double binary tree of n ranks, or -1 for the root.
func dtreeParent(n, rank, t int) int {
	if t == 0 {
		return btreeParent(n, rank)
	}
	if n%2 == 1 { // shift by one
		u := btreeParent(n, (rank-1+n)%n)
		if u < 0 {
			return -1
		}
		return (u + 1) % n
	}
	u := btreeParent(n, n-1-rank) // mirror
	if u < 0 {
		return -1
	}
	return n - 1 - u
}

package workload

import "orcs/registry"

func init() {
	reduceParams := []registry.Param{
		{Key: "arrays", Default: "50", Doc: "arrays each rank contributes, one message each"},
		{Key: "size", Default: "4096", Doc: "bytes per array"},
		{Key: "root", Default: "0", Doc: "rank that gets the result"},
	}
	registerWorkload(&workload{
		name:   "naive-reduce",
		doc:    "every rank sends its arrays straight to the root (thesis §4.3: endpoint congestion)",
		params: reduceParams,
		build:  buildNaiveReduce,
	})
	registerWorkload(&workload{
		name:   "binomial-reduce",
		doc:    "binomial-tree reduce: a rank sends its arrays to its parent once its children's have arrived (MPI_Reduce)",
		params: reduceParams,
		build:  buildBinomialReduce,
	})
}

func reduceArgs(args *registry.Reader, b *JobBuilder) (arrays, size, root int, err error) {
	arrays, size, root = args.IntAtLeast("arrays", 1), args.IntAtLeast("size", 1), rank(args, "root", b)
	return arrays, size, root, args.Err()
}

func buildNaiveReduce(args *registry.Reader, b *JobBuilder) error {
	arrays, size, root, err := reduceArgs(args, b)
	if err != nil {
		return err
	}
	for r := range b.Ranks() {
		if r == root {
			continue
		}
		for range arrays {
			b.Send(r, root, int64(size), -1)
		}
	}
	return nil
}

// buildBinomialReduce: with v = (rank − root) mod n, rank v sends to
// v − 2^k in round k, where 2^k is the lowest set bit of v, after it has
// received the arrays of its children v + 2^j (j < k).
func buildBinomialReduce(args *registry.Reader, b *JobBuilder) error {
	arrays, size, root, err := reduceArgs(args, b)
	if err != nil {
		return err
	}
	n := b.Ranks()
	rank := func(v int) int { return (v + root) % n }
	// gate[v] opens when all children of v have delivered.
	gate := make([]int32, n)
	for v := range n {
		gate[v] = -1
		if v+1 < n && v&1 == 0 { // v has at least the child v+1
			gate[v] = b.Gate()
		}
	}
	for v := 1; v < n; v++ {
		low := v & -v
		parent := v - low
		for range arrays {
			b.Send(rank(v), rank(parent), int64(size), gate[v], gate[parent])
		}
	}
	return nil
}

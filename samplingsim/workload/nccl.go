package workload

import (
	"slices"

	"orcs/registry"
)

func init() {
	registerWorkload(&workload{
		name: "nccl",
		doc: "an NCCL collective on nodes of rails GPUs (rank r: GPU r mod rails of node r / rails, on the node's HCA r mod rails; " +
			"NVLink traffic inside a node is free): op=allreduce, allgather, reducescatter (rings, one per rail, chunks pipelined " +
			"hop by hop), alltoall or alltoall_pxn (each GPU's sends one after another, in NCCL's node-then-rail order); " +
			"size as nccl-tests counts it (allreduce: the buffer; allgather, reducescatter: the gathered buffer; alltoall: the send buffer)",
		params: []registry.Param{
			{Key: "op", Default: "allreduce", Doc: "allreduce, allgather, reducescatter, alltoall, alltoall_pxn"},
			{Key: "size", Default: "1048576", Doc: "bytes, as nccl-tests' size column"},
			{Key: "rails", Default: "1", Doc: "GPUs (HCAs, rails) per node"},
			{Key: "iters", Default: "1", Doc: "collectives, one after another"},
		},
		build: buildNCCL,
	})
}

// NCCLOps lists the operations of the nccl workload.
var NCCLOps = []string{"allreduce", "allgather", "reducescatter", "alltoall", "alltoall_pxn"}

// NCCLBusFactor returns nccl-tests' factor from algorithm bandwidth
// (size / time) to bus bandwidth for op on n ranks: 2(n−1)/n for
// allreduce, (n−1)/n for allgather, reduce-scatter and all-to-all.
func NCCLBusFactor(op string, n int) float64 {
	f := float64(n-1) / float64(n)
	if op == "allreduce" {
		return 2 * f
	}
	return f
}

func buildNCCL(args *registry.Reader, b *JobBuilder) error {
	op := args.String("op")
	size, rails, iters := args.IntAtLeast("size", 1), args.IntAtLeast("rails", 1), args.IntAtLeast("iters", 1)
	if err := args.Err(); err != nil {
		return err
	}
	if !slices.Contains(NCCLOps, op) {
		return errorf("op=%s: want one of %v", op, NCCLOps)
	}
	n := b.Ranks()
	if n%rails != 0 || n/rails < 2 {
		return errorf("%d ranks are not 2 or more whole nodes of rails=%d GPUs", n, rails)
	}
	nodes := n / rails
	gpu := func(node, rail int) int { return node*rails + rail }
	wait := int32(-1) // the previous collective's end
	for range iters {
		done := b.Gate()
		switch op {
		case "allreduce", "allgather", "reducescatter":
			// Each rail's ring moves size/rails bytes in chunks of
			// size/(rails·n): 2(n−1) steps for allreduce, n−1 otherwise.
			// A node forwards step s of a ring when step s−1 arrived.
			steps := n - 1
			if op == "allreduce" {
				steps = 2 * (n - 1)
			}
			chunk := max(int64(size)/int64(rails*n), 1)
			arrived := make([]int32, nodes) // gate of the last chunk into node i, per ring
			next := make([]int32, nodes)
			for c := range rails {
				for i := range arrived {
					arrived[i] = wait
				}
				for s := range steps {
					for i := range nodes {
						next[i] = b.Gate()
					}
					for i := range nodes {
						j := (i + 1) % nodes
						sig := []int32{next[j]}
						if s == steps-1 {
							sig = append(sig, done)
						}
						b.Send(gpu(i, c), gpu(j, c), chunk, arrived[i], sig...)
					}
					copy(arrived, next)
				}
			}
		case "alltoall", "alltoall_pxn":
			// GPU (i, a) sends size/n bytes to every GPU of the other
			// nodes, node distance k first, then rail shift s; with PXN
			// the HCA on the destination's rail sends the node's data for
			// it, rails chunks at once, and stays on its rail.
			per := max(int64(size)/int64(n), 1)
			for i := range nodes {
				for a := range rails {
					prev := wait
					for k := 1; k < nodes; k++ {
						j := (i + k) % nodes
						if op == "alltoall_pxn" {
							g := b.Gate()
							b.Send(gpu(i, a), gpu(j, a), per*int64(rails), prev, g, done)
							prev = g
							continue
						}
						for s := range rails {
							g := b.Gate()
							b.Send(gpu(i, a), gpu(j, (a+s)%rails), per, prev, g, done)
							prev = g
						}
					}
				}
			}
		}
		wait = done
	}
	return nil
}

package patterns

import "fmt"

func init() {
	const doc = "NCCL ring %s: one ring per channel, channel c on rail c; node i's HCA c sends to node i+1's (one level: every step has these flows)"
	registerCollective("nccl_ring_allreduce", fmt.Sprintf(doc, "allreduce"), ncclRing)
	registerCollective("nccl_ring_allgather", fmt.Sprintf(doc, "allgather"), ncclRing)
	registerCollective("nccl_ring_reducescatter", fmt.Sprintf(doc, "reduce-scatter"), ncclRing)
}

// ncclRing returns the fabric flows of NCCL's rings on nodes × rails GPUs,
// nodes in rank order. NCCL runs one ring per channel and puts channel c
// on NIC c of every node: the ring enters a node on GPU c's HCA, passes
// the node's GPUs over NVLink and leaves it on the same HCA towards the
// next node. Every step of allreduce (2(n−1) steps), allgather and
// reduce-scatter (n−1 each) sends a chunk along every ring edge at once,
// so all steps load the fabric alike: the one level stands for each of
// them. On one node the ring never leaves it and the level is empty.
func ncclRing(nodes, rails int) []Level {
	var b builder
	if nodes > 1 {
		for c := range rails {
			for i := range nodes {
				b.add(gpu(i, c, rails), gpu((i+1)%nodes, c, rails))
			}
		}
	}
	b.end()
	return b.levels()
}

package patterns

func init() {
	registerCollective("nccl_alltoall",
		"NCCL all-to-all without PXN: levels by node distance k = 1…nodes−1 and rail shift s: GPU (i, a) sends on HCA a to GPU (i+k, a+s)'s HCA",
		ncclAlltoall)
	registerCollective("nccl_alltoall_pxn",
		"NCCL all-to-all with PXN: levels by node distance k = 1…nodes−1: HCA (i, b) sends to HCA (i+k, b) what node i's GPUs have for GPU b (rail-local)",
		ncclAlltoallPXN)
}

// ncclAlltoall returns the fabric flows of NCCL's all-to-all without PXN
// on nodes × rails GPUs. NCCL schedules the sends of a group node by node
// and then rank by rank within the node: in step (k, s) GPU a of node i
// sends to GPU (a+s) mod rails of node (i+k) mod nodes. Each GPU sends on
// its own HCA, so for s ≠ 0 a flow leaves rail a for rail a+s and crosses
// the spines. Steps to the own node (k = 0) use NVLink and are left out:
// (nodes−1)·rails levels, each a permutation of the HCAs.
func ncclAlltoall(nodes, rails int) []Level {
	var b builder
	for k := 1; k < nodes; k++ {
		for s := range rails {
			for i := range nodes {
				for a := range rails {
					b.add(gpu(i, a, rails), gpu((i+k)%nodes, (a+s)%rails, rails))
				}
			}
			b.end()
		}
	}
	return b.levels()
}

// ncclAlltoallPXN returns the fabric flows of NCCL's all-to-all with PXN
// (PCI × NVLink): a GPU hands the data for a GPU on another rail over
// NVLink to the GPU of its node on that rail, which sends it on its own
// HCA. So HCA b of node i sends to HCA b of node i+k the data of all the
// node's GPUs for GPU b there: one flow of rails chunks per rail and
// node distance, and every flow stays on its rail. nodes−1 levels, each
// level as long as rails levels of nccl_alltoall (the bandwidth fraction,
// a ratio of step times, is the same for levels of equal length).
func ncclAlltoallPXN(nodes, rails int) []Level {
	var b builder
	for k := 1; k < nodes; k++ {
		for i := range nodes {
			for c := range rails {
				b.add(gpu(i, c, rails), gpu((i+k)%nodes, c, rails))
			}
		}
		b.end()
	}
	return b.levels()
}

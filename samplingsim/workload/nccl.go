package workload

import (
	"math/bits"
	"slices"

	"orcs/patterns"
	"orcs/registry"
)

func init() {
	registerWorkload(&workload{
		name: "nccl",
		doc: "an NCCL collective on nodes of rails GPUs (rank r: GPU r mod rails of node r / rails, on the node's HCA r mod rails; " +
			"NVLink traffic inside a node is free): op=allreduce, allgather, reducescatter (algo=ring: one ring per rail, chunks " +
			"pipelined hop by hop; allreduce also algo=tree: NCCL's double binary tree over nodes, both trees on every rail, " +
			"reduce up and broadcast down pipelined in NCCL's chunks), alltoall or alltoall_pxn (each GPU posts all its sends " +
			"at once, as NCCL's grouped send/receive, in NCCL's node-then-rail order); " +
			"size as nccl-tests counts it (allreduce: the buffer; allgather, reducescatter: the gathered buffer; alltoall: the send buffer)",
		params: []registry.Param{
			{Key: "op", Default: "allreduce", Doc: "allreduce, allgather, reducescatter, alltoall, alltoall_pxn"},
			{Key: "algo", Default: "ring", Doc: "ring, or tree (allreduce only), as NCCL_ALGO"},
			{Key: "size", Default: "1048576", Doc: "bytes, as nccl-tests' size column"},
			{Key: "rails", Default: "1", Doc: "GPUs (HCAs, rails) per node"},
			{Key: "iters", Default: "1", Doc: "collectives, one after another"},
		},
		build: buildNCCL,
	})
}

// NCCLOps lists the operations of the nccl workload.
var NCCLOps = []string{"allreduce", "allgather", "reducescatter", "alltoall", "alltoall_pxn"}

// NCCLAlgos lists the algorithms of the nccl workload (NCCL_ALGO).
var NCCLAlgos = []string{"ring", "tree"}

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

// ncclSteps is NCCL's NCCL_STEPS: the buffer slots of a connection. A
// tree sender runs at most this many chunks ahead of what has arrived.
const ncclSteps = 8

// NCCLTreeDepth returns the depth NCCL gives its trees on nodes × rails
// GPUs: the chain of a node's GPUs (rails − 1) and ⌊log2 nodes⌋ levels of
// the binary tree over nodes (ncclTopoPostset).
func NCCLTreeDepth(nodes, rails int) int { return rails - 1 + bits.Len(uint(nodes)) - 1 }

// NCCLTreeChunk returns the chunk of NCCL's tree allreduce (Simple
// protocol) of size bytes on channels channels of a tree of the given
// depth, as NCCL's enqueue computes it: a step of the 4 MiB buffer
// (512 KiB), halved while there are fewer than 8·depth chunks per channel
// and the chunk is above 128 KiB, then fewer than 4·depth above 64 KiB,
// then fewer than depth above 32 KiB.
func NCCLTreeChunk(size int64, channels, depth int) int64 {
	chunk := int64(512 << 10)
	perChannel := func() int64 { return size / (int64(channels) * chunk) }
	for perChannel() < int64(8*depth) && chunk > 128<<10 {
		chunk /= 2
	}
	for perChannel() < int64(4*depth) && chunk > 64<<10 {
		chunk /= 2
	}
	for perChannel() < int64(depth) && chunk > 32<<10 {
		chunk /= 2
	}
	return chunk
}

func buildNCCL(args *registry.Reader, b *JobBuilder) error {
	op, algo := args.String("op"), args.String("algo")
	size, rails, iters := args.IntAtLeast("size", 1), args.IntAtLeast("rails", 1), args.IntAtLeast("iters", 1)
	if err := args.Err(); err != nil {
		return err
	}
	if !slices.Contains(NCCLOps, op) {
		return errorf("op=%s: want one of %v", op, NCCLOps)
	}
	if !slices.Contains(NCCLAlgos, algo) {
		return errorf("algo=%s: want one of %v", algo, NCCLAlgos)
	}
	if algo == "tree" && op != "allreduce" {
		return errorf("algo=tree: NCCL's tree runs allreduce only, not op=%s", op)
	}
	n := b.Ranks()
	if n%rails != 0 || n/rails < 2 {
		return errorf("%d ranks are not 2 or more whole nodes of rails=%d GPUs", n, rails)
	}
	c := ncclShape{b: b, nodes: n / rails, rails: rails, size: int64(size)}
	if op == "alltoall" || op == "alltoall_pxn" {
		b.target.Jobs[b.job].Alltoall = true // Application-Aware routing's alltoall mode
	}
	wait := int32(-1) // the previous collective's end
	for range iters {
		done := b.Gate()
		switch {
		case algo == "tree":
			c.tree(wait, done)
		case op == "alltoall" || op == "alltoall_pxn":
			c.alltoall(op == "alltoall_pxn", wait, done)
		default:
			steps := c.nodes*rails - 1
			if op == "allreduce" {
				steps *= 2
			}
			c.ring(steps, wait, done)
		}
		wait = done
	}
	return nil
}

// ncclShape is a collective's job and shape: nodes × rails GPUs, size
// bytes as nccl-tests counts them.
type ncclShape struct {
	b            *JobBuilder
	nodes, rails int
	size         int64
}

// gpu returns the rank of GPU rail of node.
func (c *ncclShape) gpu(node, rail int) int { return node*c.rails + rail }

// ring adds one ring collective of steps steps: each rail's ring moves
// size/rails bytes in chunks of size/(rails·n); a node forwards step s
// of a ring when step s−1 arrived. The first step waits for gate wait,
// the last signals done.
func (c *ncclShape) ring(steps int, wait, done int32) {
	chunk := max(c.size/int64(c.rails*c.nodes*c.rails), 1)
	arrived := make([]int32, c.nodes) // gate of the last chunk into node i, per ring
	next := make([]int32, c.nodes)
	for r := range c.rails {
		for i := range arrived {
			arrived[i] = wait
		}
		for s := range steps {
			for i := range next {
				next[i] = c.b.Gate()
			}
			for i := range c.nodes {
				j := (i + 1) % c.nodes
				sig := []int32{next[j]}
				if s == steps-1 {
					sig = append(sig, done)
				}
				c.b.Send(c.gpu(i, r), c.gpu(j, r), chunk, arrived[i], sig...)
			}
			copy(arrived, next)
		}
	}
}

// alltoall adds one all-to-all: GPU (i, a) sends size/n bytes to every
// GPU of the other nodes, node distance k first, then rail shift s, all
// posted at once after gate wait (NCCL groups the sends and receives of
// an all-to-all, so all are in flight together; the NIC sends them in
// this order). With PXN the HCA on the destination's rail sends the
// node's data for it, rails chunks in one message, and stays on its rail.
// Every message signals done.
func (c *ncclShape) alltoall(pxn bool, wait, done int32) {
	per := max(c.size/int64(c.nodes*c.rails), 1)
	for i := range c.nodes {
		for a := range c.rails {
			for k := 1; k < c.nodes; k++ {
				j := (i + k) % c.nodes
				if pxn {
					c.b.Send(c.gpu(i, a), c.gpu(j, a), per*int64(c.rails), wait, done)
					continue
				}
				for s := range c.rails {
					c.b.Send(c.gpu(i, a), c.gpu(j, (a+s)%c.rails), per, wait, done)
				}
			}
		}
	}
}

// dtree is one binary tree of NCCL's double binary tree over nodes.
type dtree struct {
	parent []int   // −1 for the root
	kids   [][]int // children in node order
}

// newDtree builds tree t (0 or 1) over nodes as the analyzer's
// nccl_tree_allreduce does (patterns.NCCLTreeParent).
func newDtree(nodes, t int) dtree {
	tr := dtree{parent: make([]int, nodes), kids: make([][]int, nodes)}
	for i := range nodes {
		tr.parent[i] = patterns.NCCLTreeParent(nodes, i, t)
		if p := tr.parent[i]; p >= 0 {
			tr.kids[p] = append(tr.kids[p], i)
		}
	}
	return tr
}

// treeGates are the gates of one tree's chunks k … k+ncclSteps, chunk k
// in slot k mod (ncclSteps+1): up[i] opens when node i may send the chunk
// to its parent (its children's parts have arrived, and the chunk
// ncclSteps before it on the same edge), dn[j] when j's parent may send
// it the chunk's result.
type treeGates struct{ up, dn [][]int32 }

// tree adds one allreduce by NCCL's double binary tree: NCCL doubles its
// channels, one copy per tree, and each runs on one rail, so rail r
// carries both trees over the nodes' HCAs r, each with size/(2·rails)
// bytes in NCCL's chunks (NCCLTreeChunk). A node sends chunk k up when
// its children's chunk k has arrived (a leaf at once), the root sends
// chunk k down when it has its children's, an inner node forwards it down
// when it arrived from its parent; a sender is at most ncclSteps chunks
// ahead of the arrivals on each edge. The leaves' first sends wait for
// gate wait, every broadcast message signals done.
func (c *ncclShape) tree(wait, done int32) {
	channels := 2 * c.rails
	data := max(c.size/int64(channels), 1)
	chunk := min(NCCLTreeChunk(c.size, channels, NCCLTreeDepth(c.nodes, c.rails)), data)
	chunks := int((data + chunk - 1) / chunk)
	trees := [2]dtree{newDtree(c.nodes, 0), newDtree(c.nodes, 1)}
	const window = ncclSteps + 1
	var g [2]treeGates
	for t := range g {
		g[t] = treeGates{up: make([][]int32, c.nodes), dn: make([][]int32, c.nodes)}
		for i := range c.nodes {
			g[t].up[i], g[t].dn[i] = make([]int32, window), make([]int32, window)
		}
	}
	open := func(t, k int) {
		for i, p := range trees[t].parent {
			if p < 0 {
				continue
			}
			g[t].up[i][k%window] = wait
			if len(trees[t].kids[i]) > 0 || k >= ncclSteps {
				g[t].up[i][k%window] = c.b.Gate()
			}
			g[t].dn[i][k%window] = c.b.Gate()
		}
	}
	for r := range c.rails {
		for t := range 2 {
			for k := range min(window, chunks) {
				open(t, k)
			}
		}
		for k := range chunks {
			bytes := min(chunk, data-int64(k)*chunk)
			for t := range 2 {
				c.treeChunk(r, k, chunks, bytes, &trees[t], &g[t], done)
			}
			if k+window < chunks {
				for t := range 2 {
					open(t, k+window)
				}
			}
		}
	}
}

// treeChunk adds chunk k (of chunks) of one tree on rail r: every edge
// once up and once down.
func (c *ncclShape) treeChunk(r, k, chunks int, bytes int64, tr *dtree, g *treeGates, done int32) {
	const window = ncclSteps + 1
	slot, ahead := k%window, (k+ncclSteps)%window
	var sig []int32
	for i, p := range tr.parent { // reduce: i → its parent
		if p < 0 {
			continue
		}
		sig = sig[:0]
		if tr.parent[p] >= 0 {
			sig = append(sig, g.up[p][slot])
		} else { // into the root: its results go down
			for _, j := range tr.kids[p] {
				sig = append(sig, g.dn[j][slot])
			}
		}
		if k+ncclSteps < chunks {
			sig = append(sig, g.up[i][ahead])
		}
		c.b.Send(c.gpu(i, r), c.gpu(p, r), bytes, g.up[i][slot], sig...)
	}
	for j, p := range tr.parent { // broadcast: j's parent → j
		if p < 0 {
			continue
		}
		sig = append(sig[:0], done)
		for _, x := range tr.kids[j] {
			sig = append(sig, g.dn[x][slot])
		}
		if k+ncclSteps < chunks {
			sig = append(sig, g.dn[j][ahead])
		}
		c.b.Send(c.gpu(p, r), c.gpu(j, r), bytes, g.dn[j][slot], sig...)
	}
}

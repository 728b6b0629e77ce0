package patterns

import "fmt"

// The NCCL collectives. Ranks are GPUs: rank r is GPU r mod R of node
// r / R for R = Spec.Rails, and GPU c of a node sends and receives on the
// node's HCA c (rail c). Traffic between GPUs of one node goes over NVLink
// and is not part of a level; a level holds the fabric's flows only.

// collectiveGen builds the levels of a collective on nodes × rails GPUs.
type collectiveGen func(nodes, rails int) []Level

// registerCollective adds an NCCL collective to the registry.
func registerCollective(name, doc string, gen collectiveGen) {
	known.Register(name, doc, &entry{collective: true, compile: func(spec Spec, n int) (*Source, error) {
		r := spec.Rails
		if r < 0 {
			return nil, fmt.Errorf("pattern %s: %d GPUs (rails) per node", name, r)
		}
		if r == 0 { // every rank a node of one GPU
			r = 1
		}
		if n%r != 0 {
			return nil, fmt.Errorf("pattern %s: %d ranks are not whole nodes of %d GPUs (rails) each", name, n, r)
		}
		return fixedSource(gen(n/r, r), n), nil
	}})
}

// gpu returns the rank of GPU rail of node.
func gpu(node, rail, rails int) int { return node*rails + rail }

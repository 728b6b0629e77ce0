package gen

import "orcs/lft"

// Recognize returns the generator's network of a fabric read from a dot
// file that orcs gen wrote: such a graph is named after its spec, and the
// network is returned only when the fabric has exactly the generated nodes
// and links (same names, kinds and order), so that the generator's
// coordinates and port numbers describe it. Otherwise it returns nil.
func Recognize(f *lft.Fabric) *Network {
	s, err := Parse(f.GraphName)
	if err != nil || s.Size().Hosts != f.NumHosts() {
		return nil
	}
	n, err := s.Build()
	if err != nil || !SameTopology(f, n.Fabric) {
		return nil
	}
	return n
}

// SameTopology reports whether a and b have the same nodes (names and
// kinds) and links (endpoints) in the same order.
func SameTopology(a, b *lft.Fabric) bool {
	if len(a.Nodes) != len(b.Nodes) || len(a.Links) != len(b.Links) {
		return false
	}
	for v := range a.Nodes {
		if a.Nodes[v].Name != b.Nodes[v].Name || a.Nodes[v].Kind != b.Nodes[v].Kind {
			return false
		}
	}
	for l := range a.Links {
		if a.Links[l].From != b.Links[l].From || a.Links[l].To != b.Links[l].To {
			return false
		}
	}
	return true
}

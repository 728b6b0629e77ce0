// Package nodes groups a fabric's hosts (HCAs) into machines: a GPU node
// carries one HCA per rail, and its hosts share the first word of their
// names ("dgx017 mlx5_3").
package nodes

import (
	"fmt"
	"slices"
	"strings"

	"orcs/lft"
)

// Node is one machine and its HCAs.
type Node struct {
	// Name is the machine's name, the first word of its hosts' names.
	Name string
	// HCAs holds the host index of the node's HCA on each rail; -1 where
	// the node has no HCA on that rail.
	HCAs []int32
}

// Layout is the fabric's hosts grouped into nodes.
type Layout struct {
	// Nodes lists the nodes in natural name order (node2 before node10).
	Nodes []Node
	// Rails is the largest number of HCAs of a node.
	Rails int

	nodeOf []int32 // host index → node index
}

// FromFabric groups the hosts of f by the first word of their node
// descriptions ("node017 mlx5_3" read from InfiniBand dumps), or of their
// names when they have none; a node's rail r is its r-th HCA in natural
// order of those descriptions (names).
func FromFabric(f *lft.Fabric) (*Layout, error) {
	if f.NumHosts() == 0 {
		return nil, fmt.Errorf("the fabric has no hosts")
	}
	byName := map[string]int{}
	var names []string
	var members [][]int32
	label := func(h int) string {
		if d := f.Nodes[f.HostNode(h)].Desc; d != "" {
			return d
		}
		return f.HostName(h)
	}
	for h := range f.NumHosts() {
		name := label(h)
		first, _, _ := strings.Cut(strings.TrimSpace(name), " ")
		if first == "" {
			return nil, fmt.Errorf("host %d has an empty name", h)
		}
		i, ok := byName[first]
		if !ok {
			i = len(names)
			byName[first] = i
			names = append(names, first)
			members = append(members, nil)
		}
		members[i] = append(members[i], int32(h))
	}
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return naturalCompare(names[a], names[b]) })
	l := &Layout{Nodes: make([]Node, len(names)), nodeOf: make([]int32, f.NumHosts())}
	for k, i := range order {
		hs := members[i]
		slices.SortFunc(hs, func(a, b int32) int { return naturalCompare(label(int(a)), label(int(b))) })
		l.Nodes[k] = Node{Name: names[i], HCAs: hs}
		l.Rails = max(l.Rails, len(hs))
		for _, h := range hs {
			l.nodeOf[h] = int32(k)
		}
	}
	for k := range l.Nodes {
		for len(l.Nodes[k].HCAs) < l.Rails {
			l.Nodes[k].HCAs = append(l.Nodes[k].HCAs, -1)
		}
	}
	return l, nil
}

// NodeOf returns the node index of host index host.
func (l *Layout) NodeOf(host int32) int32 { return l.nodeOf[host] }

// Lookup returns the index of the node called name.
func (l *Layout) Lookup(name string) (int, bool) {
	for i := range l.Nodes {
		if l.Nodes[i].Name == name {
			return i, true
		}
	}
	return 0, false
}

// Summary describes the layout as "16 nodes × 4 HCAs, 2 nodes × 1 HCA".
func (l *Layout) Summary() string {
	count := map[int]int{}
	var sizes []int
	for _, n := range l.Nodes {
		k := 0
		for _, h := range n.HCAs {
			if h >= 0 {
				k++
			}
		}
		if count[k] == 0 {
			sizes = append(sizes, k)
		}
		count[k]++
	}
	slices.SortFunc(sizes, func(a, b int) int { return b - a })
	parts := make([]string, len(sizes))
	for i, k := range sizes {
		parts[i] = fmt.Sprintf("%d %s × %d %s", count[k], plural(count[k], "node"), k, plural(k, "HCA"))
	}
	return strings.Join(parts, ", ")
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// naturalCompare orders strings with their digit runs compared as numbers.
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := len(na) - len(nb); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func digits(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

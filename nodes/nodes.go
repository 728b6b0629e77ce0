// Package nodes groups a fabric's hosts (HCAs) into machines and rails.
//
// A GPU server carries several HCAs, one per GPU, and a rail-optimized
// fabric cables HCA k of every server of a scalable unit to the same leaf
// switch, the leaf of rail k. The fabric files know only HCAs; the machine
// an HCA belongs to is the first word of its description ("dgx017" of
// "dgx017 mlx5_3", as the driver writes node descriptions), and its rail is
// its index on the machine.
package nodes

import (
	"cmp"
	"errors"
	"fmt"
	"orcs/ib"
	"orcs/internal/plural"
	"slices"
	"strconv"
	"strings"

	"orcs/lft"
)

// Node is one machine: a name and its HCAs by rail.
type Node struct {
	// Name is the machine's name: the first word of the host name
	// ("dgx017" of "dgx017 mlx5_3").
	Name string
	// HCAs holds the host index (lft host index 0..H-1) per rail; rail r is
	// HCAs[r]; -1 where the machine has no HCA on that rail.
	HCAs []int32
}

// Count returns the number of HCAs the node has (entries ≥ 0).
func (n *Node) Count() int {
	c := 0
	for _, h := range n.HCAs {
		if h >= 0 {
			c++
		}
	}
	return c
}

// Layout is a fabric's hosts grouped into nodes.
type Layout struct {
	// Nodes lists the machines in name order (natural sort: dgx2 < dgx10).
	Nodes []Node
	// Rails is the largest HCA count of a node (the length of the longest
	// HCAs).
	Rails int

	nodeOf []int32 // host index → node index
	railOf []int32 // host index → rail
	byName map[string]int
}

// hcaName is what the fabric says of one host: the machine's name, the
// rest of its host name (the HCA's own name, "mlx5_3"), and its port.
type hcaName struct {
	host     int32
	machine  string
	rest     string
	port     int32
	portGUID uint64
}

// Split splits a host's name into the machine's name and the HCA's own
// name. A name with a blank splits at the blank ("dgx017 mlx5_3"). A name
// made from a description by --names desc or host ("H-dgx017_mlx5_3",
// "H-dgx017:2") splits after "H-" at the first '_' or ':'. A name of a
// port of a multi-port HCA ("H0002c903000a1b2c:2") splits at the ':'.
// Any other name is a machine with one HCA.
func Split(name string) (machine, hca string) {
	name = strings.TrimSpace(name)
	if i := strings.IndexAny(name, " \t"); i >= 0 {
		return strings.TrimPrefix(name[:i], "H-"), strings.TrimSpace(name[i+1:])
	}
	if rest, ok := strings.CutPrefix(name, "H-"); ok && rest != "" {
		if i := strings.IndexAny(rest, "_:"); i > 0 {
			return rest[:i], rest[i+1:]
		}
		return rest, ""
	}
	if i := strings.LastIndexByte(name, ':'); i > 0 {
		return name[:i], name[i+1:]
	}
	return name, ""
}

// hostName is the name a host is grouped by: its node description when the
// fabric files gave one, else its name in the fabric.
func hostName(f *lft.Fabric, h int) string {
	n := &f.Nodes[f.HostNode(h)]
	if !ib.NoDesc(n.Desc) {
		return n.Desc
	}
	return n.Name
}

// hcaNumber is the number of an HCA's own name: N of "mlx5_N" and of any
// name ending in digits after a non-digit ("HCA-2"), or -1.
func hcaNumber(s string) int {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	if i == len(s) || len(s)-i > 4 {
		return -1
	}
	n, _ := strconv.Atoi(s[i:])
	return n
}

// maxRailNumber bounds the rail an HCA's number gives; a larger number (a
// name that is not mlx5_N) orders the node's HCAs by name instead.
const maxRailNumber = 64

// FromFabric groups the hosts of f into nodes by the first word of their
// host name (the node description when known, else the fabric's name; see
// Split). A node's rails are its HCAs' indices on the machine: the number
// N of mlx5_N (rail N; a missing number leaves a -1) when every HCA of the
// node has a distinct one below 64; else the order of the HCAs'
// descriptions, then port numbers, port GUIDs and host indices.
func FromFabric(f *lft.Fabric) (*Layout, error) {
	if f == nil || f.NumHosts() == 0 {
		return nil, errors.New("nodes: the fabric has no hosts")
	}
	H := f.NumHosts()
	hcas := make([]hcaName, H)
	for h := range H {
		n := &f.Nodes[f.HostNode(h)]
		m, rest := Split(hostName(f, h))
		if m == "" {
			m = n.Name
		}
		hcas[h] = hcaName{host: int32(h), machine: m, rest: rest, port: n.Port, portGUID: n.PortGUID}
	}
	groups := map[string][]hcaName{}
	var names []string
	for _, x := range hcas {
		if _, ok := groups[x.machine]; !ok {
			names = append(names, x.machine)
		}
		groups[x.machine] = append(groups[x.machine], x)
	}
	slices.SortFunc(names, NaturalCompare)
	l := &Layout{
		Nodes:  make([]Node, len(names)),
		nodeOf: make([]int32, H),
		railOf: make([]int32, H),
		byName: make(map[string]int, len(names)),
	}
	for i, name := range names {
		l.Nodes[i] = Node{Name: name, HCAs: rails(groups[name])}
		l.byName[name] = i
		l.Rails = max(l.Rails, len(l.Nodes[i].HCAs))
		for r, h := range l.Nodes[i].HCAs {
			if h >= 0 {
				l.nodeOf[h] = int32(i)
				l.railOf[h] = int32(r)
			}
		}
	}
	return l, nil
}

// rails orders one machine's HCAs by rail (see FromFabric).
func rails(g []hcaName) []int32 {
	numbered := len(g) > 1
	seen := map[int]bool{}
	top := 0
	for _, x := range g {
		n := hcaNumber(x.rest)
		if n < 0 || n >= maxRailNumber || seen[n] {
			numbered = false
			break
		}
		seen[n] = true
		top = max(top, n)
	}
	if numbered {
		out := make([]int32, top+1)
		for i := range out {
			out[i] = -1
		}
		for _, x := range g {
			out[hcaNumber(x.rest)] = x.host
		}
		return out
	}
	slices.SortStableFunc(g, func(a, b hcaName) int {
		return cmp.Or(NaturalCompare(a.rest, b.rest), cmp.Compare(a.port, b.port),
			cmp.Compare(a.portGUID, b.portGUID), cmp.Compare(a.host, b.host))
	})
	out := make([]int32, len(g))
	for i, x := range g {
		out[i] = x.host
	}
	return out
}

// NodeOf returns the node index of host index host, or -1 for none.
func (l *Layout) NodeOf(host int32) int32 {
	if host < 0 || int(host) >= len(l.nodeOf) {
		return -1
	}
	return l.nodeOf[host]
}

// RailOf returns the rail of host index host, or -1 for none.
func (l *Layout) RailOf(host int32) int32 {
	if host < 0 || int(host) >= len(l.railOf) {
		return -1
	}
	return l.railOf[host]
}

// Lookup returns the index of the node named name.
func (l *Layout) Lookup(name string) (int, bool) {
	i, ok := l.byName[name]
	return i, ok
}

// MultiHCA reports whether some node has more than one HCA.
func (l *Layout) MultiHCA() bool {
	for i := range l.Nodes {
		if l.Nodes[i].Count() > 1 {
			return true
		}
	}
	return false
}

// Summary counts the nodes by their number of HCAs, most HCAs first:
// "140 nodes × 8 HCAs, 10 nodes × 1 HCA".
func (l *Layout) Summary() string {
	count := map[int]int{}
	var sizes []int
	for i := range l.Nodes {
		c := l.Nodes[i].Count()
		if count[c] == 0 {
			sizes = append(sizes, c)
		}
		count[c]++
	}
	slices.SortFunc(sizes, func(a, b int) int { return cmp.Compare(b, a) })
	parts := make([]string, len(sizes))
	for i, c := range sizes {
		parts[i] = plural.N(count[c], "node") + " × " + plural.N(c, "HCA")
	}
	return strings.Join(parts, ", ")
}

// NaturalCompare orders names as a person does: runs of digits compare as
// numbers (dgx2 < dgx10), everything else byte by byte; names that are
// equal as numbers (dgx02, dgx2) compare as bytes.
func NaturalCompare(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ca, cb := a[i], b[j]
		if isDigit(ca) && isDigit(cb) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			na := strings.TrimLeft(a[si:i], "0")
			nb := strings.TrimLeft(b[sj:j], "0")
			if c := cmp.Or(cmp.Compare(len(na), len(nb)), strings.Compare(na, nb)); c != 0 {
				return c
			}
			continue
		}
		if ca != cb {
			return cmp.Compare(ca, cb)
		}
		i++
		j++
	}
	if c := cmp.Compare(len(a)-i, len(b)-j); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// leafOf returns the node id of the switch host h is cabled to, or -1.
func leafOf(f *lft.Fabric, h int) int32 {
	for _, k := range f.OutLinks(f.HostNode(h)) {
		to := f.Links[k].To
		if f.SwitchIndex(to) >= 0 {
			return to
		}
	}
	return -1
}

// CheckRails checks the rails against the cabling of a rail-optimized
// fabric: the HCAs of multi-HCA nodes on one leaf switch should all be of
// one rail. A leaf's rail is the rail most of its multi-HCA nodes' HCAs
// have; an HCA on the leaf of another rail is reported, one sentence each
// ("dgx017 HCA mlx5_3 (rail 3) is cabled to leaf S0_12, whose other HCAs
// are of rail 5"). A fabric where fewer than 3 in 4 of these HCAs are of
// their leaf's rail is not rail-optimized and is not checked (nil).
func (l *Layout) CheckRails(f *lft.Fabric) []string {
	type tally struct {
		count map[int32]int
		hosts []int32
	}
	leaves := map[int32]*tally{}
	var order []int32
	for i := range l.Nodes {
		n := &l.Nodes[i]
		if n.Count() < 2 {
			continue
		}
		for r, h := range n.HCAs {
			if h < 0 {
				continue
			}
			sw := leafOf(f, int(h))
			if sw < 0 {
				continue
			}
			t := leaves[sw]
			if t == nil {
				t = &tally{count: map[int32]int{}}
				leaves[sw] = t
				order = append(order, sw)
			}
			t.count[int32(r)]++
			t.hosts = append(t.hosts, h)
		}
	}
	// A leaf's rail is its most common rail (the lower on a tie).
	railOfLeaf := map[int32]int32{}
	agree, all := 0, 0
	for _, sw := range order {
		t := leaves[sw]
		best, bestN := int32(-1), 0
		for r, c := range t.count {
			if c > bestN || c == bestN && r < best {
				best, bestN = r, c
			}
		}
		railOfLeaf[sw] = best
		agree += bestN
		all += len(t.hosts)
	}
	if all == 0 || 4*agree < 3*all {
		return nil
	}
	slices.Sort(order)
	var out []string
	for _, sw := range order {
		t := leaves[sw]
		best := railOfLeaf[sw]
		for _, h := range t.hosts {
			if r := l.railOf[h]; r != best {
				n := &l.Nodes[l.nodeOf[h]]
				_, hca := Split(hostName(f, int(h)))
				if hca == "" {
					hca = f.HostName(int(h))
				}
				out = append(out, fmt.Sprintf("%s HCA %s (rail %d) is cabled to leaf %s, whose other HCAs are of rail %d",
					n.Name, hca, r, f.Nodes[sw].Name, best))
			}
		}
	}
	return out
}

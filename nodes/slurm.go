package nodes

import (
	"fmt"
	"io"
	"orcs/internal/plural"
	"slices"
	"strconv"
	"strings"

	"orcs/hostlist"
	"orcs/lft"
)

// Slurm is the switch hierarchy that Slurm's topology plugins take, made
// from a fabric and its nodes.
//
// Level 0 holds the units: leaf switches joined by the multi-HCA nodes
// cabled to them (the leaves of one scalable unit of a rail-optimized
// fabric, each rail on its own leaf, form one unit; a fabric of single-HCA
// nodes has one unit per leaf). A node sits in the unit of its HCAs.
// Level l+1 holds the switches l+1 hops above the nearest leaf; switches of
// one level whose children (the units, or the level-l groups, they link
// to) are the same form one group, as Slurm needs only the grouping: the
// spines of a two-level fabric that link to every leaf are one switch for
// Slurm.
type Slurm struct {
	// Levels[0] are the units, Levels[l] the switch groups l levels up.
	Levels [][]SlurmSwitch
	// Excluded counts the nodes left out.
	Excluded int
	// Nodes counts the nodes in the units.
	Nodes int
}

// SlurmSwitch is one switch (or group of switches, or unit) for Slurm.
type SlurmSwitch struct {
	// Name is the name in the topology file: the switch's name when it
	// stands for one switch, else su1, su2, … (units), spine1, … (level 1),
	// core1, … (level 2), level3_1, … above.
	Name string
	// Nodes are the node names of a unit (level 0), in node order.
	Nodes []string
	// Children are the indices of the switches one level down.
	Children []int
	// Switches are the fabric's switch node ids it stands for.
	Switches []int32
}

// slurmName makes a switch name safe for Slurm's files: letters, digits,
// '.', '_' and '-' stay, anything else becomes '_'.
func slurmName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b)
}

// BuildSlurm derives the Slurm switch hierarchy of f with layout l,
// leaving out the nodes named in exclude (unknown names are an error).
func BuildSlurm(f *lft.Fabric, l *Layout, exclude []string) (*Slurm, error) {
	skip, err := excludedNodes(l, exclude)
	if err != nil {
		return nil, err
	}
	// Units: leaves joined by nodes (union-find over switch node ids).
	parent := map[int32]int32{}
	var find func(v int32) int32
	find = func(v int32) int32 {
		p, ok := parent[v]
		if !ok {
			parent[v] = v
			return v
		}
		if p == v {
			return v
		}
		r := find(p)
		parent[v] = r
		return r
	}
	nodeLeaf := make([]int32, len(l.Nodes))
	for i := range l.Nodes {
		nodeLeaf[i] = -1
		for _, h := range l.Nodes[i].HCAs {
			if h < 0 {
				continue
			}
			sw := leafOf(f, int(h))
			if sw < 0 {
				continue
			}
			if nodeLeaf[i] < 0 {
				nodeLeaf[i] = find(sw)
			} else if a, b := find(nodeLeaf[i]), find(sw); a != b {
				parent[b] = a
			}
		}
	}
	s := &Slurm{}
	unitOf := map[int32]int{} // union-find root → unit index
	var units []SlurmSwitch
	for i := range l.Nodes {
		if nodeLeaf[i] < 0 {
			if !skip[i] {
				return nil, fmt.Errorf("node %s has no HCA cabled to a switch", l.Nodes[i].Name)
			}
			continue
		}
		root := find(nodeLeaf[i])
		u, ok := unitOf[root]
		if !ok {
			u = len(units)
			unitOf[root] = u
			units = append(units, SlurmSwitch{})
		}
		if skip[i] {
			s.Excluded++
			continue
		}
		units[u].Nodes = append(units[u].Nodes, l.Nodes[i].Name)
		s.Nodes++
	}
	// The leaves of each unit.
	leafUnit := map[int32]int{}
	for v := range parent {
		if u, ok := unitOf[find(v)]; ok {
			leafUnit[v] = u
			units[u].Switches = append(units[u].Switches, v)
		}
	}
	for u := range units {
		slices.Sort(units[u].Switches)
		if len(units[u].Switches) == 1 {
			units[u].Name = slurmName(f.Nodes[units[u].Switches[0]].Name)
		} else {
			units[u].Name = "su" + strconv.Itoa(u+1)
		}
	}
	s.Levels = append(s.Levels, units)
	// Upper levels: breadth first from the leaves.
	s.addUpperLevels(f, leafUnit)
	s.prune()
	return s, nil
}

// excludedNodes marks the nodes named in exclude; a name that is no node
// of the layout is an error (the first five named).
func excludedNodes(l *Layout, exclude []string) ([]bool, error) {
	skip := make([]bool, len(l.Nodes))
	var unknown []string
	for _, name := range exclude {
		i, ok := l.Lookup(name)
		if !ok {
			unknown = append(unknown, name)
			continue
		}
		skip[i] = true
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("--exclude: %d of the %d names are no nodes of the fabric: %s",
			len(unknown), len(exclude), plural.Some(unknown, 5))
	}
	return skip, nil
}

// addUpperLevels adds the switch levels above the leaves, breadth first
// from them: switches of a level with the same children form one group,
// named by their switch when alone (spineN, coreN, levelL_N otherwise).
func (s *Slurm) addUpperLevels(f *lft.Fabric, leafUnit map[int32]int) {
	level := map[int32]int{}
	groupOf := map[int32]int{} // switch → its group's index on its level
	var frontier []int32
	for v, u := range leafUnit {
		level[v] = 0
		groupOf[v] = u
		frontier = append(frontier, v)
	}
	slices.Sort(frontier)
	for lv := 1; len(frontier) > 0; lv++ {
		var next []int32
		for _, v := range frontier {
			for _, k := range f.OutLinks(v) {
				w := f.Links[k].To
				if f.SwitchIndex(w) < 0 {
					continue
				}
				if _, seen := level[w]; !seen {
					level[w] = lv
					next = append(next, w)
				}
			}
		}
		slices.Sort(next)
		var groups []SlurmSwitch
		byKids := map[string]int{}
		for _, w := range next {
			var kids []int
			for _, k := range f.OutLinks(w) {
				x := f.Links[k].To
				if lx, ok := level[x]; ok && lx == lv-1 && f.SwitchIndex(x) >= 0 {
					kids = append(kids, groupOf[x])
				}
			}
			slices.Sort(kids)
			kids = slices.Compact(kids)
			key := fmt.Sprint(kids)
			g, ok := byKids[key]
			if !ok {
				g = len(groups)
				byKids[key] = g
				groups = append(groups, SlurmSwitch{Children: kids})
			}
			groups[g].Switches = append(groups[g].Switches, w)
			groupOf[w] = g
		}
		for g := range groups {
			switch {
			case len(groups[g].Switches) == 1:
				groups[g].Name = slurmName(f.Nodes[groups[g].Switches[0]].Name)
			case lv == 1:
				groups[g].Name = "spine" + strconv.Itoa(g+1)
			case lv == 2:
				groups[g].Name = "core" + strconv.Itoa(g+1)
			default:
				groups[g].Name = "level" + strconv.Itoa(lv) + "_" + strconv.Itoa(g+1)
			}
		}
		if len(groups) > 0 {
			s.Levels = append(s.Levels, groups)
		}
		frontier = next
	}
}

// prune drops units without nodes and the switches above that have no
// children left, renumbering the children.
func (s *Slurm) prune() {
	var keep []int
	for lv := range s.Levels {
		newIndex := make([]int, len(s.Levels[lv]))
		var out []SlurmSwitch
		for i, sw := range s.Levels[lv] {
			newIndex[i] = -1
			if lv > 0 {
				var kids []int
				for _, c := range sw.Children {
					if keep[c] >= 0 {
						kids = append(kids, keep[c])
					}
				}
				sw.Children = kids
			}
			if len(sw.Nodes) == 0 && len(sw.Children) == 0 {
				continue
			}
			newIndex[i] = len(out)
			out = append(out, sw)
		}
		s.Levels[lv] = out
		keep = newIndex
	}
	for len(s.Levels) > 0 && len(s.Levels[len(s.Levels)-1]) == 0 {
		s.Levels = s.Levels[:len(s.Levels)-1]
	}
}

// Summary says what the hierarchy holds, e.g. "4 units (su1 … su4) of
// 32 nodes, 128 nodes; 1 level of switches above; 3 nodes excluded".
func (s *Slurm) Summary() string {
	var b strings.Builder
	if len(s.Levels) == 0 {
		return "no nodes"
	}
	units := s.Levels[0]
	lo, hi := len(units[0].Nodes), len(units[0].Nodes)
	for _, u := range units {
		lo, hi = min(lo, len(u.Nodes)), max(hi, len(u.Nodes))
	}
	size := strconv.Itoa(lo)
	if lo != hi {
		size = strconv.Itoa(lo) + " to " + strconv.Itoa(hi)
	}
	fmt.Fprintf(&b, "%s of %s %s, %s", plural.N(len(units), "unit"), size, plural.Noun(hi, "node"), plural.N(s.Nodes, "node"))
	fmt.Fprintf(&b, "; %s of switches above", plural.N(len(s.Levels)-1, "level"))
	if s.Excluded > 0 {
		fmt.Fprintf(&b, "; %s excluded", plural.N(s.Excluded, "node"))
	}
	return b.String()
}

// names returns the names of switches idx of level lv as a host list.
func (s *Slurm) names(lv int, idx []int) string {
	names := make([]string, len(idx))
	for i, c := range idx {
		names[i] = s.Levels[lv][c].Name
	}
	return hostlist.Compress(names)
}

// BlockSizes returns the block sizes (in nodes) for Slurm's block plugin:
// the smallest unit's node count as the base block size, then twice, four
// and eight times it, up to the first that covers every unit, as Slurm
// aggregates blocks by default. Slurm takes the first block's node count as
// the base when BlockSizes is not given, and slurmctld 24.11 stops on a
// later block with fewer nodes ("children count lower than
// bblock_node_cnt"), as after --exclude; so the writers always give them.
func (s *Slurm) BlockSizes() []int {
	if len(s.Levels) == 0 || len(s.Levels[0]) == 0 {
		return nil
	}
	units := s.Levels[0]
	base := len(units[0].Nodes)
	for _, u := range units {
		base = min(base, len(u.Nodes))
	}
	var sizes []int
	for k := 0; k < 4; k++ {
		sizes = append(sizes, base<<k)
		if 1<<k >= len(units) {
			break
		}
	}
	return sizes
}

// BlockNote says how Slurm's block plugin sizes the blocks when the units
// differ in node count, e.g. "Slurm's block plugin plans in blocks of 2
// nodes (BlockSizes=2,4,8, from su2); 2 units have more nodes: su1, su3";
// "" when every unit has the same count.
func (s *Slurm) BlockNote() string {
	sizes := s.BlockSizes()
	if len(sizes) == 0 {
		return ""
	}
	var smallest string
	var larger []string
	for _, u := range s.Levels[0] {
		switch {
		case len(u.Nodes) > sizes[0]:
			larger = append(larger, u.Name)
		case smallest == "":
			smallest = u.Name
		}
	}
	if len(larger) == 0 {
		return ""
	}
	list := make([]string, len(sizes))
	for i, n := range sizes {
		list[i] = strconv.Itoa(n)
	}
	verb := "units have"
	if len(larger) == 1 {
		verb = "unit has"
	}
	return fmt.Sprintf("Slurm's block plugin plans in blocks of %s (BlockSizes=%s, from %s); %d %s more nodes: %s",
		plural.N(sizes[0], "node"), strings.Join(list, ","), smallest,
		len(larger), verb, plural.Some(larger, 5))
}

// WriteConf writes topology.conf for the tree plugin (block false:
// SwitchName= lines, units first, then upward) or the block plugin (block
// true: one BlockName= line per unit). header is written first as
// comment lines.
func (s *Slurm) WriteConf(w io.Writer, block bool, header string) error {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(header, "\n"), "\n") {
		b.WriteString("# " + line + "\n")
	}
	for lv, sws := range s.Levels {
		if block && lv > 0 {
			break
		}
		for _, sw := range sws {
			switch {
			case block:
				fmt.Fprintf(&b, "BlockName=%s Nodes=%s\n", sw.Name, hostlist.Compress(sw.Nodes))
			case lv == 0:
				fmt.Fprintf(&b, "SwitchName=%s Nodes=%s\n", sw.Name, hostlist.Compress(sw.Nodes))
			default:
				fmt.Fprintf(&b, "SwitchName=%s Switches=%s\n", sw.Name, s.names(lv-1, sw.Children))
			}
		}
	}
	if block {
		b.WriteString("BlockSizes=")
		for i, n := range s.BlockSizes() {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(n))
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteYAML writes topology.yaml (Slurm 25.05 and later): the tree as the
// cluster's default topology "tree", the units as blocks of topology
// "block", and topology "flat".
func (s *Slurm) WriteYAML(w io.Writer, header string) error {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(header, "\n"), "\n") {
		b.WriteString("# " + line + "\n")
	}
	b.WriteString("- topology: tree\n  cluster_default: true\n  tree:\n    switches:\n")
	for lv, sws := range s.Levels {
		for _, sw := range sws {
			fmt.Fprintf(&b, "      - switch: %s\n", sw.Name)
			if lv == 0 {
				fmt.Fprintf(&b, "        nodes: %s\n", hostlist.Compress(sw.Nodes))
			} else {
				fmt.Fprintf(&b, "        children: %s\n", s.names(lv-1, sw.Children))
			}
		}
	}
	b.WriteString("- topology: block\n  cluster_default: false\n  block:\n    block_sizes:\n")
	for _, n := range s.BlockSizes() {
		fmt.Fprintf(&b, "      - %d\n", n)
	}
	b.WriteString("    blocks:\n")
	if len(s.Levels) > 0 {
		for _, sw := range s.Levels[0] {
			fmt.Fprintf(&b, "      - block: %s\n        nodes: %s\n", sw.Name, hostlist.Compress(sw.Nodes))
		}
	}
	b.WriteString("- topology: flat\n  cluster_default: false\n  flat: true\n")
	_, err := io.WriteString(w, b.String())
	return err
}

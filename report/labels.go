package report

import (
	"strings"

	"orcs/metrics"
)

// descForms returns the ways a switch description can be shown, shortest
// first: the system name ("MF0;sw-leaf-03:SX6036/U1" → "sw-leaf-03"), the
// system name with the chip's place in it ("MF0;ibcore01:IS5100/L01/U1" →
// "ibcore01/L01", then "ibcore01/L01/U1": a director switch's chips share
// the system name), the whole description.
func descForms(desc string) []string {
	desc = strings.TrimSpace(desc)
	if desc == "" {
		return nil
	}
	rest := desc
	if _, after, ok := strings.Cut(rest, ";"); ok { // "MF0;": the firmware's prefix
		rest = after
	}
	system, model, hasModel := strings.Cut(rest, ":")
	system = strings.TrimSpace(system)
	forms := []string{}
	if system != "" {
		forms = append(forms, system)
		if _, place, ok := strings.Cut(model, "/"); hasModel && ok && place != "" {
			if first, _, more := strings.Cut(place, "/"); more && first != "" {
				forms = append(forms, system+"/"+first) // "ibcore01/L01"
			}
			forms = append(forms, system+"/"+place)
		}
	}
	return append(forms, desc)
}

// switchLabels gives every node of t the name a drawing or table shows:
// a switch its description in the shortest form no other node shows (see
// descForms), else its name (a GUID name when the fabric came from
// InfiniBand files); a host its name.
func switchLabels(t *metrics.Topology) []string {
	labels := make([]string, len(t.Nodes))
	forms := make([][]string, len(t.Nodes))
	taken := map[string]int{} // how many nodes show a label
	for i, n := range t.Nodes {
		labels[i] = n.Name
		if n.Switch {
			forms[i] = descForms(n.Desc)
		}
		if len(forms[i]) == 0 {
			taken[n.Name]++
		}
	}
	for step := 0; ; step++ {
		count := map[string]int{}
		for i := range t.Nodes {
			if step < len(forms[i]) {
				count[forms[i][step]]++
			}
		}
		more := false
		for i := range t.Nodes {
			if step >= len(forms[i]) {
				continue
			}
			if f := forms[i][step]; count[f] == 1 && taken[f] == 0 {
				labels[i], forms[i] = f, nil
				taken[f]++
				continue
			}
			more = more || step+1 < len(forms[i])
		}
		if !more {
			break
		}
	}
	seen := make(map[string]bool, len(labels))
	for _, l := range labels {
		if seen[l] { // a switch left with its name shows a name another shows
			for i, n := range t.Nodes {
				labels[i] = n.Name
			}
			break
		}
		seen[l] = true
	}
	return labels
}

// labelled returns t with every node named by its label (switchLabels) in
// its nodes and cables, and the map from the names to the labels; t
// itself is left as it is. Labels are unique, so the cables still name
// their ends.
func labelled(t *metrics.Topology) (*metrics.Topology, map[string]string) {
	labels := switchLabels(t)
	byName := make(map[string]string, len(t.Nodes))
	c := *t
	c.Nodes = append([]metrics.TopologyNode(nil), t.Nodes...)
	for i := range c.Nodes {
		byName[c.Nodes[i].Name] = labels[i]
		c.Nodes[i].Name = labels[i]
	}
	c.Cables = append([]metrics.CableLoad(nil), t.Cables...)
	for i := range c.Cables {
		c.Cables[i].From, c.Cables[i].To = byName[c.Cables[i].From], byName[c.Cables[i].To]
	}
	return &c, byName
}

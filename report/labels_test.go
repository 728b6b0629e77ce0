package report

import (
	"slices"
	"testing"

	"orcs/metrics"
)

// TestSwitchLabels: switches are shown by the shortest form of their
// description that no other node shows, else by their name; hosts by
// their names. The cases are written by hand from the descriptions of
// testdata/ib/cluster (a director switch ibcore01 with spine chips S01,
// S02 and line chips L01, L02; leaves leaf01, leaf02).
func TestSwitchLabels(t *testing.T) {
	sw := func(name, desc string) metrics.TopologyNode {
		return metrics.TopologyNode{Name: name, Desc: desc, Switch: true}
	}
	host := func(name string) metrics.TopologyNode { return metrics.TopologyNode{Name: name} }
	for _, c := range []struct {
		name  string
		nodes []metrics.TopologyNode
		want  []string
	}{
		{"leaf switches: the system name",
			[]metrics.TopologyNode{sw("S01", "MF0;sw-leaf-03:SX6036/U1"), sw("S02", "MF0;leaf01:MQM8700/U1"), host("H1")},
			[]string{"sw-leaf-03", "leaf01", "H1"}},
		{"a director's chips: the system name and the chip's place",
			[]metrics.TopologyNode{sw("S1", "MF0;ibcore01:IS5100/S02/U1"), sw("S2", "MF0;ibcore01:IS5100/L01/U1"), sw("S3", "MF0;leaf02:MQM8700/U1")},
			[]string{"ibcore01/S02", "ibcore01/L01", "leaf02"}},
		{"the same place twice: the whole place",
			[]metrics.TopologyNode{sw("S1", "MF0;core:X/L01/U1"), sw("S2", "MF0;core:X/L01/U2")},
			[]string{"core/L01/U1", "core/L01/U2"}},
		{"no firmware prefix, no model: the description",
			[]metrics.TopologyNode{sw("S1", "S-leaf0"), sw("S2", " spine 1 ")},
			[]string{"S-leaf0", "spine 1"}},
		{"no description, or one every switch shares: the name",
			[]metrics.TopologyNode{sw("S1", ""), sw("S2", "switch"), sw("S3", "switch")},
			[]string{"S1", "S2", "S3"}},
		{"a description that is another node's name: the name",
			[]metrics.TopologyNode{sw("S1", "H1"), host("H1")},
			[]string{"S1", "H1"}},
		{"a host's description is not used",
			[]metrics.TopologyNode{{Name: "H1", Desc: "node01 HCA-1"}},
			[]string{"H1"}},
	} {
		got := switchLabels(&metrics.Topology{Nodes: c.nodes})
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

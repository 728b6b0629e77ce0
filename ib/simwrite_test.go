package ib

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"orcs/lft"
)

// cableSet lists a topology's cables as "a[p]-b[q]" strings (both ends).
func cableSet(t *Topology) map[string]int {
	out := map[string]int{}
	for _, n := range t.Nodes {
		for _, p := range n.Ports {
			out[fmt.Sprintf("%s[%d]-%s[%d]", n.ID, p.Num, t.Nodes[p.Peer].ID, p.PeerPort)]++
		}
	}
	return out
}

func TestDotToIBSimNetRoundTrip(t *testing.T) {
	for _, name := range []string{"ft16.dot", "ft64.dot", "torus4x4.dot", "manual4.dot"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile("../testdata/" + name)
			if err != nil {
				t.Fatal(err)
			}
			n, err := DotToSimNet(data, name)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := n.Write(&buf); err != nil {
				t.Fatal(err)
			}
			topo, err := ReadSimNet(buf.Bytes(), name+".net")
			if err != nil {
				t.Fatalf("%v\n%s", err, buf.String())
			}
			f := n.Fabric
			if len(topo.Nodes) != len(f.Nodes) {
				t.Fatalf("%d nodes in the net file, %d in the dot", len(topo.Nodes), len(f.Nodes))
			}
			cables := 0
			for v, node := range topo.Nodes {
				want := f.Nodes[v]
				if node.ID != want.Name || (node.Kind == lft.Host) != (want.Kind == lft.Host) {
					t.Fatalf("node %d: %s %q, want %s %q", v, node.Kind, node.ID, want.Kind, want.Name)
				}
				if node.NPorts != len(f.OutLinks(int32(v))) {
					t.Errorf("%s: %d ports, want %d (one per edge)", node.ID, node.NPorts, len(f.OutLinks(int32(v))))
				}
				cables += len(node.Ports)
				for _, p := range node.Ports {
					l := n.LinkAt(int32(v), p.Num)
					if l < 0 || f.Links[l].To != int32(p.Peer) || n.PeerPort(l) != int32(p.PeerPort) {
						t.Fatalf("%s port %d: net file says %s[%d], plan says link %d", node.ID, p.Num,
							topo.Nodes[p.Peer].ID, p.PeerPort, l)
					}
				}
			}
			if cables != len(f.Links) {
				t.Errorf("%d connected ports, want %d (one per directed link)", cables, len(f.Links))
			}
			nodes, switches, ports := n.Limits()
			if nodes != len(f.Nodes) || switches != f.NumSwitches() || ports != cables+len(f.Nodes) {
				t.Errorf("Limits = %d, %d, %d", nodes, switches, ports)
			}
		})
	}
}

func TestIBSimNetKeepPorts(t *testing.T) {
	// Two switches with a host each, joined by two parallel cables on
	// chosen ports; port 2 of S1 stays unconnected.
	b := lft.NewBuilder()
	h0, h1 := b.Node("H0", lft.Host), b.Node("H1", lft.Host)
	s0, s1 := b.Node("S0", lft.Switch), b.Node("S1", lft.Switch)
	cable := func(a int32, pa int, c int32, pc int) {
		b.Link(a, c, pa, pc)
		b.Link(c, a, pc, pa)
	}
	cable(h0, 1, s0, 3)
	cable(h1, 1, s1, 1)
	cable(s0, 1, s1, 4)
	cable(s0, 2, s1, 3)
	f, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteSimNet(&buf, f, SimOptions{KeepPorts: true}); err != nil {
		t.Fatal(err)
	}
	want := `# ibsim net file: 4 nodes (2 hosts, 2 switches), 4 cables

Hca 1 "H0"
[1] "S0"[3] # lid 0 4xSDR

Hca 1 "H1"
[1] "S1"[1] # lid 0 4xSDR

Switch 3 "S0"
[1] "S1"[4] # lid 0 4xSDR
[2] "S1"[3] # lid 0 4xSDR
[3] "H0"[1] # lid 0 4xSDR

Switch 4 "S1"
[1] "H1"[1] # lid 0 4xSDR
[3] "S0"[2] # lid 0 4xSDR
[4] "S0"[1] # lid 0 4xSDR
`
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	topo, err := ReadSimNet(buf.Bytes(), "keep.net")
	if err != nil {
		t.Fatal(err)
	}
	if got := cableSet(topo); len(got) != 8 || got["S0[2]-S1[3]"] != 1 {
		t.Errorf("cables %v", got)
	}
	// Without KeepPorts the ports follow the out-link order.
	buf.Reset()
	if err := WriteSimNet(&buf, f, SimOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "Switch 3 \"S0\"\n[1] \"H0\"[1] # lid 0 4xSDR\n[2] \"S1\"[2] # lid 0 4xSDR\n[3] \"S1\"[3] # lid 0 4xSDR\n") {
		t.Errorf("paired ports:\n%s", buf.String())
	}
}

func TestDotToIBSimNetErrors(t *testing.T) {
	cases := []struct {
		name, dot, want string
	}{
		{"host without link", `digraph {
  "H0";
  "H1";
  "S0";
  "H0" -> "S0" [comment="*"];
  "S0" -> "H0" [comment="H0"];
}`, `x.dot:3: host "H1" has no link`},
		{"no reverse", `digraph {
  "H0" -> "S0";
  "S0" -> "H0";
  "H1" -> "S0";
}`, `x.dot:4: link "H1" -> "S0" has no reverse edge`},
		{"parallel without reverse", `digraph {
  H0 -> S0
  S0 -> H0
  S0 -> S1
  S1 -> S0
  S0 -> S1
  H1 -> S1
  S1 -> H1
}`, `x.dot:6: link "S0" -> "S1" has no reverse edge: 2 edges "S0" -> "S1" but only 1 back`},
		{"two host links", `digraph {
  H0 -> S0
  S0 -> H0
  H0 -> S1
  S1 -> H0
}`, `x.dot:4: host "H0" has 2 links`},
		{"self loop", `digraph {
  H0 -> S0
  S0 -> H0
  S0 -> S0
}`, `x.dot:4: link "S0" -> "S0" is a loopback without its reverse edge: 1 edges "S0" -> "S0" (a loopback cable is two)`},
		{"host loop", `digraph {
  H0 -> S0
  S0 -> H0
  H0 -> H0
}`, `x.dot:4: link "H0" -> "H0" connects a host with itself`},
		{"hash in name", `digraph {
  "H#0" -> S0
  S0 -> "H#0"
}`, `x.dot:2: node "H#0": name contains '#'`},
		{"long name", `digraph {
  H0 -> S0123456789012345678901234567890123456789012345678901234567890123456789
}`, `x.dot:2: node "S0123456789012345678901234567890123456789012345678901234567890123456789": name of 71 bytes`},
		{"not simple dot", `digraph { H0 -> S0; S0 -> H0; H1 -> S0 }`, `x.dot: link "H1" -> "S0" has no reverse edge`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DotToSimNet([]byte(c.dot), "x.dot")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestIBSimNetTooManyPorts(t *testing.T) {
	b := lft.NewBuilder()
	s := b.Node("S0", lft.Switch)
	for i := 0; i <= MaxPorts; i++ {
		h := b.Node(fmt.Sprintf("H%d", i), lft.Host)
		b.Link(h, s, 0, 0)
		b.Link(s, h, 0, 0)
	}
	f, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	_, err = PlanSimNet(f, SimOptions{})
	if err == nil || !strings.Contains(err.Error(), `switch "S0" has 255 ports`) {
		t.Errorf("error %v", err)
	}
}

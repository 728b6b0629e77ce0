package ib

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"orcs/lft"
)

// checkNetRoundTrip writes t as an ibsim net file and reads it back: when
// the writer takes t, the file must read, with every node (same order,
// kind, GUID, port count, description), every cable between the same
// ports, the LIDs and LMCs, and the port GUIDs ibsim gives (a CA's node
// GUID + port).
func checkNetRoundTrip(t *testing.T, topo *Topology) {
	t.Helper()
	var b bytes.Buffer
	if err := WriteTopologyNet(&b, topo); err != nil {
		if !strings.Contains(err.Error(), "cannot emulate") && !strings.Contains(err.Error(), "ibsim takes 1 to") {
			t.Fatalf("WriteTopologyNet: %v", err)
		}
		return
	}
	back, err := ReadSimNet(b.Bytes(), "back.net")
	if err != nil {
		t.Fatalf("the net file does not read back: %v\n%s", err, b.String())
	}
	if len(back.Nodes) != len(topo.Nodes) {
		t.Fatalf("%d nodes back, want %d", len(back.Nodes), len(topo.Nodes))
	}
	for i := range topo.Nodes {
		n, m := &topo.Nodes[i], &back.Nodes[i]
		if m.Kind != n.Kind || m.GUID != n.GUID || m.NPorts != n.NPorts || m.ID != NetID(n) {
			t.Fatalf("node %d: %s %s 0x%x %d ports, want %s %s 0x%x %d", i, m.Kind, m.ID, m.GUID, m.NPorts, n.Kind, NetID(n), n.GUID, n.NPorts)
		}
		if n.Desc != "" && !strings.ContainsAny(n.Desc, "\"\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\v\f\r\x7f") && m.Desc != n.Desc {
			t.Errorf("node %d: description %q, want %q", i, m.Desc, n.Desc)
		}
		if n.Kind == lft.Switch && (m.Port0.LID != n.Port0.LID || n.Port0.LID != 0 && m.Port0.LMC != n.Port0.LMC) {
			t.Errorf("%s: LID %d LMC %d, want %d %d", m.ID, m.Port0.LID, m.Port0.LMC, n.Port0.LID, n.Port0.LMC)
		}
		if len(m.Ports) != len(n.Ports) {
			t.Fatalf("%s: %d cabled ports, want %d", m.ID, len(m.Ports), len(n.Ports))
		}
		for j, p := range n.Ports {
			q := m.Ports[j]
			if q.Num != p.Num || q.Peer != p.Peer || q.PeerPort != p.PeerPort {
				t.Fatalf("%s port %d -> node %d port %d, want port %d -> node %d port %d", m.ID, q.Num, q.Peer, q.PeerPort, p.Num, p.Peer, p.PeerPort)
			}
			if n.Kind == lft.Host && (q.LID != p.LID || q.LMC != p.LMC || q.GUID != n.GUID+uint64(p.Num)) {
				t.Errorf("%s port %d: LID %d LMC %d GUID 0x%x, want %d %d 0x%x", m.ID, p.Num, q.LID, q.LMC, q.GUID, p.LID, p.LMC, n.GUID+uint64(p.Num))
			}
		}
	}
}

// TestWriteTopologyNet round-trips the topologies of the real tools' files,
// aggregation nodes, multi-port CAs, loopback cables, a CA cabled on port 2
// only and kept LIDs among them, and checks one file by hand.
func TestWriteTopologyNet(t *testing.T) {
	for _, name := range []string{"sharp/minhop/ibnetdiscover.txt", "cluster/minhop/ibnetdiscover.txt", "loopback/minhop/ibnetdiscover.txt",
		"port2/minhop/ibnetdiscover.txt", "ft16/minhop-lmc1/ibnetdiscover.txt", "dualport/minhop/opensm-subnet.lst", "torus/torus.net"} {
		topo, err := ReadTopologyFile(filepath.Join(ibRoot, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) { checkNetRoundTrip(t, topo) })
	}
	topo, err := ReadNetDiscover([]byte(`switchguid=0x20(20)
Switch	4 "S-0000000000000020"		# "sw" base port 0 lid 1 lmc 0
[1]	"H-0000000000000010"[2](12) 		# "agg" lid 2 4xSDR
[3]	"S-0000000000000020"[4]		# "sw" lid 1 4xSDR
[4]	"S-0000000000000020"[3]		# "sw" lid 1 4xSDR

caguid=0x10
Ca	2 "H-0000000000000010"		# "Mellanox Technologies Aggregation Node"
[2](12) 	"S-0000000000000020"[1]		# lid 2 lmc 0 "sw" lid 1 4xSDR
`), "hand.txt")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteTopologyNet(&b, topo); err != nil {
		t.Fatal(err)
	}
	want := `# ibsim net file of hand.txt: 2 nodes (1 switches)

switchguid=0x20
Switch 4 "S-0000000000000020" # "sw" base port 0 lid 1 lmc 0
[1] "H-0000000000000010"[2] # lid 0 4xSDR
[3] "S-0000000000000020"[4] # lid 0 4xSDR
[4] "S-0000000000000020"[3] # lid 0 4xSDR

caguid=0x10
Hca 2 "H-0000000000000010" # "Mellanox Technologies Aggregation Node"
[2] "S-0000000000000020"[1] # lid 2 lmc 0 "" lid 0 4xSDR
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestWriteTopologyNetGUIDClash: ibsim gives port p of a CA the GUID node
// GUID + p, which may be another CA's port GUID; the writer refuses it
// with both nodes named.
func TestWriteTopologyNetGUIDClash(t *testing.T) {
	topo, err := ReadSimNet([]byte(`Switch 4 "S"
[1] "A"[2]
[2] "B"[1]

caguid=0x10
Hca 2 "A"
[2] "S"[1]

caguid=0x11
Hca 1 "B"
[1] "S"[2]
`), "clash.net")
	if err != nil {
		t.Fatal(err)
	}
	err = WriteTopologyNet(&bytes.Buffer{}, topo)
	if err == nil || !strings.Contains(err.Error(), `clash.net:10: cannot emulate CA "B" (node GUID 0x0000000000000011): ibsim would give one of its ports the GUID 0x0000000000000012, which it also gives CA "A" (line 6)`) {
		t.Errorf("got %v", err)
	}
}

// TestPlanSimNetLoopback: a loopback cable (two ports of one switch) is
// planned with the links' port numbers, or without them on the next free
// ports.
func TestPlanSimNetLoopback(t *testing.T) {
	b := lft.NewBuilder()
	s := b.Node("S", lft.Switch)
	h := b.Node("H", lft.Host)
	b.Route(b.Link(h, s, 1, 1), lft.AnyDest)
	b.Route(b.Link(s, h, 1, 1), b.Dest("H"))
	b.Link(s, s, 3, 4)
	b.Link(s, s, 4, 3)
	f, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	net, err := PlanSimNet(f, SimOptions{KeepPorts: true})
	if err != nil {
		t.Fatal(err)
	}
	if net.Reverse[2] != 3 || net.Reverse[3] != 2 || net.PeerPort(2) != 4 || net.NPorts[s] != 4 {
		t.Errorf("reverse %v, ports %v", net.Reverse, net.NPorts)
	}
	var out bytes.Buffer
	if err := net.Write(&out); err != nil || !strings.Contains(out.String(), "[3] \"S\"[4]") || !strings.Contains(out.String(), "[4] \"S\"[3]") {
		t.Errorf("net file (%v):\n%s", err, out.String())
	}
	// Without port numbers (a dot file) the two self links pair in order
	// and take the next ports.
	net, err = PlanSimNet(f, SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := net.Write(&out); err != nil || net.Reverse[2] != 3 || !strings.Contains(out.String(), "[2] \"S\"[3]") || !strings.Contains(out.String(), "[3] \"S\"[2]") {
		t.Errorf("without ports (%v): reverse %v\n%s", err, net.Reverse, out.String())
	}
}

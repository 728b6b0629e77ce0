package deadlock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"orcs/fabricarg"
	"orcs/lft"
)

// ring builds n switches S1…Sn in a ring, each with one host Hi on port 3;
// Si's port 1 is cabled to S(i+1)'s port 2. Every switch sends to its own
// host and everything else clockwise (port 1): the classic credit loop.
func ring(t *testing.T, n int) *lft.Fabric {
	t.Helper()
	b := lft.NewBuilder()
	sw := make([]int32, n)
	hs := make([]int32, n)
	for i := range n {
		sw[i] = b.Node(fmt.Sprintf("S%d", i+1), lft.Switch)
	}
	for i := range n {
		hs[i] = b.Node(fmt.Sprintf("H%d", i+1), lft.Host)
	}
	cw := make([]int32, n)
	for i := range n {
		j := (i + 1) % n
		cw[i] = b.Link(sw[i], sw[j], 1, 2)
		b.Link(sw[j], sw[i], 2, 1) // counter-clockwise: never used
	}
	for i := range n {
		b.Route(b.Link(hs[i], sw[i], 1, 3), lft.AnyDest)
		b.Route(b.Link(sw[i], hs[i], 3, 1), b.Dest(fmt.Sprintf("H%d", i+1)))
		b.Route(cw[i], lft.AnyDest)
	}
	f, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func check(t *testing.T, f *lft.Fabric, lanes *Lanes) *Result {
	t.Helper()
	r, err := Check(f, lanes, Options{Threads: 2, Examples: 3})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func text(t *testing.T, r *Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestRingClockwise: the four clockwise cables form the one shortest
// loop, printed exactly, with the flows that create each dependency.
func TestRingClockwise(t *testing.T) {
	r := check(t, ring(t, 4), nil)
	if r.Free() {
		t.Fatal("clockwise ring reported deadlock-free")
	}
	got := text(t, r)
	want := `credit loop on VL 0: 4 cables
routes: 12 ordered pairs of 4 hosts (4 switches, 16 directed cables)
SLs: not given: every path on SL 0
SL2VL: not given: VL = SL
VLs used: 0
dependency graph: 12 channels (cable, VL), 12 dependencies, 0 of them between VLs
  VL 0: 12 channels, 12 dependencies, 1 loop component
loops: 1 strongly connected component of the dependency graph holds a cycle (4 channels); elementary cycles are not counted
shortest credit loop (4 cables on VL 0):
  S1:1 -> S2:2
  S2:1 -> S3:2
  S3:1 -> S4:2
  S4:1 -> S1:2
flows that create its dependencies (source -> destination host):
  S1:1 -> S2:2 then S2:1 -> S3:2: H1 -> H3, H4 -> H3, H1 -> H4
  S2:1 -> S3:2 then S3:1 -> S4:2: H2 -> H1, H1 -> H4, H2 -> H4
  S3:1 -> S4:2 then S4:1 -> S1:2: H2 -> H1, H3 -> H1, H3 -> H2
  S4:1 -> S1:2 then S1:1 -> S2:2: H3 -> H2, H4 -> H2, H4 -> H3

` + r.Statement() + "\n"
	if got != want {
		t.Errorf("report:\n%s\nwant:\n%s", got, want)
	}
	if r.Short() != "loop" || r.LoopComponents != 1 {
		t.Errorf("short %q, %d loop components", r.Short(), r.LoopComponents)
	}
}

// TestRingThree: the same on three switches: a loop of three cables.
func TestRingThree(t *testing.T) {
	r := check(t, ring(t, 3), nil)
	if len(r.Loop) != 3 || r.Cable(r.Loop[0].Link) != "S1:1 -> S2:2" {
		t.Fatalf("loop %v", r.Loop)
	}
}

// TestRingDateline splits the clockwise ring at the dateline (the cable
// S4 -> S1) over two VLs, torus-style: paths that cross the dateline get
// SL 1. With SL 1, S4 sends onto the dateline cable on VL 1, S1 and S2 keep
// packets that arrive from the ring (input port 2: they have crossed) on
// VL 1, and everything else travels on VL 0. Each VL layer is acyclic, and
// the dependencies from VL 0 into VL 1 close no cycle.
func TestRingDateline(t *testing.T) {
	f := ring(t, 4)
	lanes := NewLanes(f)
	for s := int32(0); s < 4; s++ {
		for d := int32(0); d < 4; d++ {
			if s != d && d < s { // clockwise from s to d passes S4 -> S1
				lanes.SetSL(s, d, 1)
			}
		}
	}
	for _, name := range []string{"S1", "S2", "S3", "S4"} {
		v, _ := f.NodeByName(name)
		for in := 0; in <= 3; in++ {
			for out := 1; out <= 3; out++ {
				for sl := uint8(0); sl < NumSLs; sl++ {
					vl := uint8(0)
					if sl == 1 && out == 1 && (name == "S4" || in == 2 && name != "S3") {
						vl = 1
					}
					lanes.SetVL(v, in, out, sl, vl)
				}
			}
		}
	}
	r := check(t, f, lanes)
	if !r.Free() {
		t.Fatalf("dateline ring: %s\n%s", r.Verdict(), text(t, r))
	}
	if r.Verdict() != "deadlock-free (2 VLs)" || r.Short() != "free (2 VLs)" {
		t.Errorf("verdict %q, short %q", r.Verdict(), r.Short())
	}
	if r.CrossVL == 0 || len(r.Layers) != 2 {
		t.Errorf("want dependencies between the two layers: %+v", r)
	}
	// A switch that misses the dateline rule (S2 sends every SL-1 packet
	// on VL 0) closes the loop across both VLs.
	s2, _ := f.NodeByName("S2")
	lanes.SetVL(s2, 2, 1, 1, 0)
	r = check(t, f, lanes)
	if r.Free() || !strings.HasPrefix(r.Verdict(), "credit loop across VLs") {
		t.Errorf("broken dateline: %s", r.Verdict())
	}
	if r := check(t, f, nil); r.Free() {
		t.Error("ring without lanes reported free")
	}
}

// TestTree: a two-level tree routes every pair over its unique path.
func TestTree(t *testing.T) {
	b := lft.NewBuilder()
	root := b.Node("R", lft.Switch)
	for l := 0; l < 2; l++ {
		leaf := b.Node(fmt.Sprintf("L%d", l), lft.Switch)
		var mine []string
		for h := 0; h < 2; h++ {
			name := fmt.Sprintf("H%d", 2*l+h)
			mine = append(mine, name)
			hn := b.Node(name, lft.Host)
			b.Route(b.Link(hn, leaf, 1, h+1), lft.AnyDest)
			b.RouteList(b.Link(leaf, hn, h+1, 1), []byte(name))
		}
		b.Route(b.Link(leaf, root, 3, l+1), lft.AnyDest)
		b.RouteList(b.Link(root, leaf, l+1, 3), []byte(strings.Join(mine, ",")))
	}
	f, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	r := check(t, f, nil)
	if !r.Free() || r.Verdict() != "deadlock-free (1 VL)" || r.LoopComponents != 0 {
		t.Fatalf("tree: %s", text(t, r))
	}
}

// TestGenerated: dimension-order routing is deadlock-free on a mesh and
// not on a torus (one VL); a fat tree is free; the result does not depend
// on the number of threads.
func TestGenerated(t *testing.T) {
	for _, c := range []struct {
		spec string
		free bool
	}{
		{"mesh:dims=4x4", true},
		{"torus:dims=4x4", false},
		{"torus:dims=5", false},
		{"kary:k=4,n=3", true},
		{"fattree2:leaves=4,hosts=4,up=2", true},
	} {
		src, err := fabricarg.Load(fabricarg.Args{Input: "gen:" + c.spec})
		if err != nil {
			t.Fatal(err)
		}
		r := check(t, src.Fabric, nil)
		if r.Free() != c.free {
			t.Errorf("%s: %s", c.spec, r.Verdict())
		}
		one, err := Check(src.Fabric, nil, Options{Threads: 1, Examples: 3})
		if err != nil {
			t.Fatal(err)
		}
		if text(t, one) != text(t, r) {
			t.Errorf("%s: 1 thread and 2 threads differ:\n%s\n%s", c.spec, text(t, one), text(t, r))
		}
	}
}

// TestJSON checks the JSON form of the ring's report.
func TestJSON(t *testing.T) {
	r := check(t, ring(t, 4), nil)
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Verdict      string `json:"verdict"`
		DeadlockFree bool   `json:"deadlock_free"`
		VLs          []int  `json:"vls"`
		Loop         []struct {
			From     string                      `json:"from"`
			FromPort int                         `json:"from_port"`
			To       string                      `json:"to"`
			ToPort   int                         `json:"to_port"`
			VL       int                         `json:"vl"`
			Flows    []struct{ Src, Dst string } `json:"flows_to_next"`
		} `json:"loop"`
		LoopComponents int `json:"loop_components"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.DeadlockFree || doc.Verdict != "credit loop on VL 0: 4 cables" || len(doc.Loop) != 4 ||
		doc.Loop[0].From != "S1" || doc.Loop[0].FromPort != 1 || doc.Loop[0].To != "S2" || doc.Loop[0].ToPort != 2 ||
		len(doc.Loop[0].Flows) != 3 || doc.Loop[0].Flows[0].Src != "H1" || doc.Loop[0].Flows[0].Dst != "H3" || doc.LoopComponents != 1 {
		t.Errorf("json:\n%s", b.String())
	}
}

// TestNoTablesVLIsSL: with SLs but no SL2VL table anywhere (--sl2vl none),
// every hop's VL is the path's SL, on the switches as on the CA ports. On
// the 3-ring with every path on SL 1 the 9 channels (3 host→switch, 3
// clockwise, 3 switch→host) and 9 dependencies (host→clockwise,
// clockwise→next clockwise, clockwise→host, 3 each) all lie on VL 1, with
// the one clockwise loop; none is on VL 0.
func TestNoTablesVLIsSL(t *testing.T) {
	f := ring(t, 3)
	lanes := lanesOnSL(f, 1)
	r := check(t, f, lanes)
	if want := []LayerStats{{VL: 1, Channels: 9, Dependencies: 9, Loops: 1}}; fmt.Sprint(r.Layers) != fmt.Sprint(want) {
		t.Errorf("layers %+v, want %+v", r.Layers, want)
	}
	if len(r.Loop) != 3 {
		t.Fatalf("loop %+v, want the 3 clockwise cables", r.Loop)
	}
	for _, c := range r.Loop {
		if c.VL != 1 {
			t.Errorf("loop channel %+v: want VL 1", c)
		}
	}
}

// TestCAWithoutTablesVLIsSL: when the switches have SL2VL tables and no CA
// port has one, a path's first hop (host → switch) is on VL = SL; the
// switches' tables give the later hops. On the 3-ring with every path on
// SL 1 and every switch sending SL 1 on VL 2: the 3 host→switch channels
// on VL 1 (no dependency among them), the 6 others on VL 2 with 6
// dependencies and the loop, and 3 dependencies from VL 1 to VL 2.
func TestCAWithoutTablesVLIsSL(t *testing.T) {
	f := ring(t, 3)
	lanes := lanesOnSL(f, 1)
	for v := range f.Nodes {
		if f.HostIndex(int32(v)) >= 0 {
			continue
		}
		for in := 1; in <= 3; in++ {
			for out := 1; out <= 3; out++ {
				for sl := range uint8(NumSLs) {
					vl := sl
					if sl == 1 {
						vl = 2
					}
					lanes.SetVL(int32(v), in, out, sl, vl)
				}
			}
		}
	}
	r := check(t, f, lanes)
	want := []LayerStats{{VL: 1, Channels: 3}, {VL: 2, Channels: 6, Dependencies: 6, Loops: 1}}
	if fmt.Sprint(r.Layers) != fmt.Sprint(want) || r.CrossVL != 3 {
		t.Errorf("layers %+v, %d dependencies across VLs; want %+v, 3", r.Layers, r.CrossVL, want)
	}
}

// lanesOnSL returns one-lane lanes of f with every host pair on SL sl.
func lanesOnSL(f *lft.Fabric, sl uint8) *Lanes {
	lanes := NewLanes(f)
	H := int32(f.NumHosts())
	for s := range H {
		for d := range H {
			if s != d {
				lanes.SetSL(s, d, sl)
			}
		}
	}
	return lanes
}

package gen

import (
	"strconv"
	"strings"
	"testing"

	"orcs/lft"
)

var dragonflySpecs = []string{
	"dragonfly:a=2,h=1",
	"dragonfly:a=4,h=2,p=2",
	"dragonfly:a=2,h=2,g=3",
	"dragonfly:a=3,h=2,p=1,g=4",
	"dragonfly:a=1,h=2,p=2",
	"dragonfly:a=4,h=1,p=2,g=2",
	"dragonfly:a=4,h=2,p=3,g=5",
}

// group returns the Dragonfly group of a switch from its name S<G>_<r>.
func group(f *lft.Fabric, v int32) string {
	name := f.Nodes[v].Name
	return name[:strings.IndexByte(name, '_')]
}

// TestDragonfly checks the Dragonfly's size, cabling (every cable a pair
// of links with swapped ports; every two routers of a group joined once;
// every two groups joined by a·h/(g-1) global links) and routing (complete
// tables; every route at most local, global, local).
func TestDragonfly(t *testing.T) {
	for _, spec := range dragonflySpecs {
		n := build(t, spec)
		f := n.Fabric
		s := n.Spec
		a, h, g := s.num("a"), s.num("h"), dragonflyGroups(s)
		size := Size{Hosts: f.NumHosts(), Switches: f.NumSwitches(), Links: len(f.Links)}
		for _, l := range f.Links {
			if f.SwitchIndex(l.From) >= 0 {
				size.Radix = max(size.Radix, int(l.FromPort))
			}
		}
		if want := s.Size(); size != want {
			t.Errorf("%s: fabric has %v, Size says %v", spec, size, want)
		}
		used := map[[2]int32]bool{}
		local := map[[2]int32]int{}
		global := map[[2]string]int{}
		for i, l := range f.Links {
			if i%2 == 0 {
				r := f.Links[i+1]
				if r.From != l.To || r.To != l.From || r.FromPort != l.ToPort || r.ToPort != l.FromPort {
					t.Fatalf("%s: link %d is not followed by its reverse", spec, i)
				}
			}
			if used[[2]int32{l.From, l.FromPort}] {
				t.Fatalf("%s: port %d of %s used twice", spec, l.FromPort, f.Nodes[l.From].Name)
			}
			used[[2]int32{l.From, l.FromPort}] = true
			if f.HostIndex(l.From) >= 0 || f.HostIndex(l.To) >= 0 {
				continue
			}
			if ga, gb := group(f, l.From), group(f, l.To); ga == gb {
				local[[2]int32{l.From, l.To}]++
			} else {
				global[[2]string{ga, gb}]++
			}
		}
		if len(local) != g*a*(a-1) {
			t.Errorf("%s: %d directed router pairs joined in groups, want %d", spec, len(local), g*a*(a-1))
		}
		for k, c := range local {
			if c != 1 {
				t.Errorf("%s: %v joined %d times", spec, k, c)
			}
		}
		if len(global) != g*(g-1) {
			t.Errorf("%s: %d directed group pairs joined, want %d", spec, len(global), g*(g-1))
		}
		for k, c := range global {
			if c != a*h/(g-1) {
				t.Errorf("%s: groups %v joined %d times, want %d", spec, k, c, a*h/(g-1))
			}
		}
		H := f.NumHosts()
		for sw := range f.NumSwitches() {
			for d := range H {
				if f.NextHop(0, f.SwitchNode(sw), int32(d)) < 0 {
					t.Fatalf("%s: switch %s has no entry for %s", spec, f.Nodes[f.SwitchNode(sw)].Name, f.HostName(d))
				}
			}
		}
		if c := f.CheckRoutes(allHosts(f), 3, 2); !c.OK() {
			t.Fatalf("%s: %d unroutable, %d loops: %v", spec, c.Unroutable, c.Loops, c.Examples)
		}
		var buf []int32
		for src := range H {
			for dst := range H {
				buf, _ = f.AppendRoute(buf[:0], int32(src), int32(dst))
				globals, locals := 0, 0
				for _, l := range buf {
					k := f.Links[l]
					if f.HostIndex(k.From) >= 0 || f.HostIndex(k.To) >= 0 {
						continue
					}
					if group(f, k.From) == group(f, k.To) {
						locals++
					} else {
						globals++
					}
				}
				sameGroup := src != dst && group(f, f.Links[buf[0]].To) == group(f, f.Links[buf[len(buf)-1]].From)
				if globals > 1 || locals > 2 || (sameGroup && globals > 0) || (globals == 0 && locals > 1) {
					t.Fatalf("%s: route %s→%s has %d global and %d local hops", spec, f.HostName(src), f.HostName(dst), globals, locals)
				}
			}
		}
	}
}

func TestDragonflyErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"dragonfly:a=2,h=1,g=4": "enough for at most 3 groups",
		"dragonfly:a=3,h=1,g=3": "must split evenly over the other 2 groups",
		"dragonfly:a=1,h=1,g=1": "at least 2 groups",
	} {
		if _, err := Parse(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", spec, err, want)
		}
	}
}

// TestTaffetSystems builds the two systems of Taffet's Table 3.1 as
// three-level fat trees: 3564 hosts on 36-port switches without taper, and
// 4608 hosts on 48-port switches with a 2:1 taper at the leaves.
func TestTaffetSystems(t *testing.T) {
	for _, c := range []struct {
		spec         string
		hosts, radix int
	}{
		{"fattree3:pods=11,leaves=18,hosts=18", 3564, 36},
		{"fattree3:pods=6,leaves=24,hosts=32,up=16", 4608, 48},
	} {
		size, err := Describe(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		if size.Hosts != c.hosts || size.Radix > c.radix {
			t.Errorf("%s: %v, want %d hosts on %d-port switches", c.spec, size, c.hosts, c.radix)
		}
	}
}

// TestDragonflyGroups: Network.Groups gives every switch the group its
// name S<G>_<r> says.
func TestDragonflyGroups(t *testing.T) {
	for _, spec := range dragonflySpecs {
		n := build(t, spec)
		f := n.Fabric
		if len(n.Groups) != f.NumSwitches() {
			t.Fatalf("%s: %d groups for %d switches", spec, len(n.Groups), f.NumSwitches())
		}
		for sw := range f.NumSwitches() {
			v := f.SwitchNode(sw)
			if want := "S" + strconv.Itoa(int(n.Groups[sw])); group(f, v) != want {
				t.Errorf("%s: switch %s in group %d", spec, f.Nodes[v].Name, n.Groups[sw])
			}
		}
	}
	if n := build(t, "kary:k=2,n=2"); n.Groups != nil {
		t.Errorf("a fat tree has groups")
	}
}

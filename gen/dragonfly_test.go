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

// TestTaffetSystems builds the two systems of Taffet's Table 3.1 as the
// CODES fat-tree model (which the thesis's simulations used) lays them out:
// Full, 3564 hosts on 504 switches of 36 ports without taper (11 pods of 18
// leaves and 18 middle switches; 108 spines, each linking to 3 middle
// switches of every pod), and Tapered, 4608 hosts on 288 switches of 48
// ports with a 2:1 taper at the leaves (6 pods of 24 leaves with 32 hosts
// and 16 up-links, 16 middle switches of 24 down and 24 up; 48 spines, each
// linking to 8 middle switches of every pod). Every switch port is counted
// by hand from that layout. The other reading of Tapered with 288 switches,
// doubled leaf–middle links (12 pods of 12 leaves and 8 middle switches,
// each leaf with 2 links to each; 48 spines with 4 links into every pod),
// is built with lmul=2 and checked the same way, with its parallel links.
func TestTaffetSystems(t *testing.T) {
	for _, c := range []struct {
		spec                           string
		hosts, radix                   int
		leaves, middles, spines, ports int // ports: used ports per spine
		lmul                           int // links from a leaf to each middle switch of its pod
	}{
		{"fattree3:pods=11,leaves=18,hosts=18,rep=3", 3564, 36, 198, 198, 108, 33, 1},
		{"fattree3:pods=6,leaves=24,hosts=32,up=16,rep=8", 4608, 48, 144, 96, 48, 48, 1},
		{"fattree3:pods=12,leaves=12,hosts=32,up=16,mup=24,rep=4,lmul=2", 4608, 48, 144, 96, 48, 48, 2},
	} {
		size, err := Describe(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		if size.Hosts != c.hosts || size.Radix > c.radix || size.Switches != c.leaves+c.middles+c.spines {
			t.Errorf("%s: %v, want %d hosts on %d switches of ≤ %d ports", c.spec, size, c.hosts, c.leaves+c.middles+c.spines, c.radix)
		}
		spec, err := Parse(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		net, err := spec.Build()
		if err != nil {
			t.Fatal(err)
		}
		f := net.Fabric
		counts := []int{c.leaves, c.middles, c.spines}
		for lv := range 3 {
			sw := net.Tree.Switches(lv)
			if len(sw) != counts[lv] {
				t.Errorf("%s: level %d has %d switches, want %d", c.spec, lv, len(sw), counts[lv])
			}
			for _, v := range sw {
				if n := len(f.OutLinks(v)); n > c.radix || (lv == 2 && n != c.ports) {
					t.Fatalf("%s: switch %s has %d ports (radix %d, spines %d)", c.spec, f.Nodes[v].Name, n, c.radix, c.ports)
				}
			}
		}
		// Leaf 0's up-links: lmul to each of the up/lmul middle switches.
		to := map[int32]int{}
		for _, l := range f.OutLinks(net.Tree.Switches(0)[0]) {
			if v := f.Links[l].To; net.Tree.Level(v) == 1 {
				to[v]++
			}
		}
		if len(to) != 16/c.lmul && c.hosts == 4608 || len(to) != 18 && c.hosts == 3564 {
			t.Errorf("%s: leaf 0 links to %d middle switches", c.spec, len(to))
		}
		for v, n := range to {
			if n != c.lmul {
				t.Errorf("%s: leaf 0 has %d links to %s, want %d", c.spec, n, f.Nodes[v].Name, c.lmul)
			}
		}
		if rc := f.CheckRoutes(nil, 3, 2); !rc.OK() {
			t.Errorf("%s: %+v", c.spec, rc)
		}
		// Host 0 to the last host (another pod): up to a spine and down,
		// 6 links.
		route, _ := f.AppendRoute(nil, 0, int32(c.hosts-1))
		if len(route) != 6 {
			t.Errorf("%s: route across pods has %d links, want 6", c.spec, len(route))
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

package ib_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"orcs/gen"
	"orcs/ib"
	"orcs/lft"
)

// ibDumps writes a generated fabric as ibnetdiscover output and
// opensm-lfts.dump, the way the tools would for a real fabric of that
// shape: CA i has node GUID 0x100000+2i and LID i+1, switch s node GUID
// 0x200000+s and LID H+s+1; every switch lists every host LID.
func ibDumps(f *lft.Fabric) (topo, lfts []byte) {
	H, S := f.NumHosts(), f.NumSwitches()
	guid := func(v int32) uint64 {
		if h := f.HostIndex(v); h >= 0 {
			return 0x100000 + 2*uint64(h)
		}
		return 0x200000 + uint64(f.SwitchIndex(v))
	}
	lid := func(v int32) int {
		if h := f.HostIndex(v); h >= 0 {
			return int(h) + 1
		}
		return H + int(f.SwitchIndex(v)) + 1
	}
	var b []byte
	for s := 0; s < S; s++ {
		v := f.SwitchNode(s)
		radix := 0
		for _, l := range f.OutLinks(v) {
			radix = max(radix, int(f.Links[l].FromPort))
		}
		g := guid(v)
		b = fmt.Appendf(b, "switchguid=0x%x(%x)\nSwitch\t%d \"S-%016x\"\t\t# \"%s\" base port 0 lid %d lmc 0\n", g, g, radix, g, f.Nodes[v].Name, lid(v))
		for _, l := range f.OutLinks(v) {
			k := f.Links[l]
			if f.HostIndex(k.To) >= 0 {
				b = fmt.Appendf(b, "[%d]\t\"H-%016x\"[1](%x) \t\t# \"%s\" lid %d 4xSDR\n", k.FromPort, guid(k.To), guid(k.To)+1, f.Nodes[k.To].Name, lid(k.To))
			} else {
				b = fmt.Appendf(b, "[%d]\t\"S-%016x\"[%d]\t\t# \"%s\" lid %d 4xSDR\n", k.FromPort, guid(k.To), k.ToPort, f.Nodes[k.To].Name, lid(k.To))
			}
		}
		b = append(b, '\n')
	}
	for h := 0; h < H; h++ {
		v := f.HostNode(h)
		k := f.Links[f.OutLinks(v)[0]]
		g := guid(v)
		b = fmt.Appendf(b, "caguid=0x%x\nCa\t1 \"H-%016x\"\t\t# \"%s\"\n[1](%x) \t\"S-%016x\"[%d]\t\t# lid %d lmc 0 \"%s\" lid %d 4xSDR\n\n",
			g, g, f.Nodes[v].Name, g+1, guid(k.To), k.ToPort, lid(v), f.Nodes[k.To].Name, lid(k.To))
	}
	topo = b
	b = make([]byte, 0, S*H*72)
	top := H + S
	for s := 0; s < S; s++ {
		v := f.SwitchNode(s)
		b = fmt.Appendf(b, "Unicast lids [0-%d] of switch Lid %d guid 0x%016x ('%s'):\n", top, lid(v), guid(v), f.Nodes[v].Name)
		for h := 0; h < H; h++ {
			l := f.NextHop(0, v, int32(h))
			if l < 0 {
				continue
			}
			d := f.HostNode(h)
			b = append(b, "0x"...)
			b = appendHex4(b, h+1)
			b = append(b, ' ')
			b = appendDec3(b, int(f.Links[l].FromPort))
			b = append(b, " # Channel Adapter portguid 0x"...)
			b = appendHex16(b, guid(d)+1)
			b = append(b, ": '"...)
			b = append(b, f.Nodes[d].Name...)
			b = append(b, "'\n"...)
		}
		b = fmt.Appendf(b, "0x%04x 000 # Switch portguid 0x%016x: '%s'\n", lid(v), guid(v), f.Nodes[v].Name)
		b = strconv.AppendInt(b, int64(top), 10)
		b = append(b, " lids dumped\n"...)
	}
	return topo, b
}

func appendHex4(b []byte, x int) []byte {
	const digits = "0123456789abcdef"
	return append(b, digits[x>>12&15], digits[x>>8&15], digits[x>>4&15], digits[x&15])
}

func appendHex16(b []byte, x uint64) []byte {
	const digits = "0123456789abcdef"
	for i := 60; i >= 0; i -= 4 {
		b = append(b, digits[x>>uint(i)&15])
	}
	return b
}

func appendDec3(b []byte, x int) []byte {
	return append(b, byte('0'+x/100), byte('0'+x/10%10), byte('0'+x%10))
}

// BenchmarkReadIB4096 reads and builds a 4096-host, 768-switch fat tree
// (k-ary 3-tree, k=16) from ibnetdiscover output and a 260 MB
// opensm-lfts.dump, and checks that the routes are the generator's.
func BenchmarkReadIB4096(b *testing.B) {
	orig, err := gen.Generate("kary:k=16,n=3")
	if err != nil {
		b.Fatal(err)
	}
	topo, lfts := ibDumps(orig)
	b.Logf("ibnetdiscover %d KB, opensm-lfts.dump %d MB", len(topo)>>10, len(lfts)>>20)
	dir := b.TempDir()
	topoFile, lftsFile := filepath.Join(dir, "ibnetdiscover.txt"), filepath.Join(dir, "opensm-lfts.dump")
	if os.WriteFile(topoFile, topo, 0o644) != nil || os.WriteFile(lftsFile, lfts, 0o644) != nil {
		b.Fatal("cannot write the dumps")
	}
	b.SetBytes(int64(len(topo) + len(lfts)))
	topo, lfts = nil, nil
	b.ReportAllocs()
	b.ResetTimer()
	var f *lft.Fabric
	for i := 0; i < b.N; i++ {
		f, err = ib.ReadFiles(topoFile, lftsFile, ib.Options{})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if f.NumHosts() != orig.NumHosts() || f.NumSwitches() != orig.NumSwitches() || len(f.Links) != len(orig.Links) {
		b.Fatalf("%d hosts %d switches %d links", f.NumHosts(), f.NumSwitches(), len(f.Links))
	}
	// Same routes, hop by hop (hosts keep their order: GUIDs follow it).
	hop := func(g *lft.Fabric, l int32) string {
		k := g.Links[l]
		return fmt.Sprint(g.Nodes[k.To].Name == "", k.FromPort, k.ToPort)
	}
	for s := int32(0); s < int32(f.NumHosts()); s += 97 {
		for d := int32(0); d < int32(f.NumHosts()); d += 13 {
			a, _ := orig.AppendRoute(nil, s, d)
			c, st := f.AppendRoute(nil, s, d)
			if len(a) != len(c) || st != lft.RouteOK {
				b.Fatalf("route %d to %d: %d hops, want %d", s, d, len(c), len(a))
			}
			for i := range a {
				if hop(orig, a[i]) != hop(f, c[i]) {
					b.Fatalf("route %d to %d differs at hop %d", s, d, i)
				}
			}
		}
	}
}

package ib

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestSpeedRates: the data rate of every speed after encoding, worked by
// hand from the signalling rates (libibmad's table: 2.5, 5, 10, 14.0625,
// 25.78125, 53.125, 106.25 Gb/s per lane; FDR10 10.3125) and the
// encodings (8b/10b up to QDR, 64b/66b from FDR10 on).
func TestSpeedRates(t *testing.T) {
	for _, c := range []struct {
		rate string
		gbps float64
	}{
		{"1xSDR", 2.5 * 0.8},
		{"4xSDR", 8},
		{"4xDDR", 16},
		{"4xQDR", 32},
		{"12xQDR", 96},
		{"4xFDR10", 40}, // 4 × 10.3125 × 64/66
		{"4xFDR", 4 * 14.0625 * 64 / 66},
		{"4xEDR", 100}, // 4 × 25.78125 × 64/66
		{"4xHDR", 4 * 53.125 * 64 / 66},
		{"2xNDR", 2 * 106.25 * 64 / 66},
		{"8xNDR", 8 * 106.25 * 64 / 66},
	} {
		r, err := ParseLinkRate(c.rate)
		if err != nil {
			t.Errorf("%s: %v", c.rate, err)
			continue
		}
		if math.Abs(r.Gbps()-c.gbps) > 1e-9 || r.String() != c.rate {
			t.Errorf("%s: %g Gb/s, %q; want %g", c.rate, r.Gbps(), r, c.gbps)
		}
	}
	for _, bad := range []string{"4x", "xQDR", "3xQDR", "4xQDR10", "4x???", "4XQDR", ""} {
		if r, err := ParseLinkRate(bad); err == nil {
			t.Errorf("%q parsed as %v", bad, r)
		}
	}
}

// The rates of the rates fixture, by node GUID and port, as
// testdata/ib/rates/rates.net sets them (see its README): ibsim 0.10
// answers FDR10 ports as QDR, so the tools' outputs say 4xQDR where the
// net file says 4xFDR10.
func ratesFixture(fdr10 string) map[string]string {
	want := map[string]string{}
	cable := func(a uint64, pa int, b uint64, pb int, rate string) {
		want[fmt.Sprintf("%x:%d", a, pa)] = rate
		want[fmt.Sprintf("%x:%d", b, pb)] = rate
	}
	leaf0, leaf1, spine0, spine1 := uint64(0x200000), uint64(0x200001), uint64(0x200002), uint64(0x200003)
	for i := range 4 {
		cable(leaf0, i+1, 0x100000+2*uint64(i), 1, fdr10)
	}
	cable(leaf1, 1, 0x100008, 1, "4xEDR")
	cable(leaf1, 2, 0x10000a, 1, "4xEDR")
	cable(leaf1, 3, 0x10000c, 1, "4xQDR")
	cable(leaf1, 4, 0x10000e, 1, "1xSDR")
	cable(leaf0, 5, spine0, 1, fdr10)
	cable(leaf0, 6, spine1, 1, fdr10)
	cable(leaf1, 5, spine0, 2, "4xHDR")
	cable(leaf1, 6, spine1, 2, "4xEDR")
	return want
}

// TestLinkRatesFormats: every topology format that gives rates reads those
// of the real outputs of the tools on the mixed-rate fabric, and
// LinkRates gives each link of the built fabric the rate of its cable.
func TestLinkRatesFormats(t *testing.T) {
	dir := "../testdata/ib/rates/"
	for _, c := range []struct{ file, fdr10 string }{
		{"rates.net", "4xFDR10"},
		{"minhop/ibnetdiscover.txt", "4xQDR"},
		{"minhop/ibnetdiscover-s.txt", "4xQDR"},
		{"minhop/ibnetdiscover-g.txt", "4xQDR"},
		{"minhop/ibnetdiscover-p.txt", "4xQDR"},
		{"minhop/iblinkinfo.txt", "4xQDR"},
		{"minhop/iblinkinfo-l.txt", "4xQDR"},
		{"minhop/opensm-subnet.lst", "4xQDR"},
	} {
		topo, err := ReadTopologyFile(dir + c.file)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		want := ratesFixture(c.fdr10)
		got := map[string]string{}
		for _, n := range topo.Nodes {
			for _, p := range n.Ports {
				got[fmt.Sprintf("%x:%d", n.GUID, p.Num)] = p.Rate.String()
			}
		}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s: port %s rate %q, want %q", c.file, k, got[k], w)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d connected ports, want %d", c.file, len(got), len(want))
		}
		f, err := BuildTopology(topo, Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		rates := LinkRates(topo, f)
		if len(rates) != len(f.Links) || len(f.Links) != len(want) {
			t.Fatalf("%s: %d rates for %d links", c.file, len(rates), len(f.Links))
		}
		for l, k := range f.Links {
			key := fmt.Sprintf("%x:%d", f.Nodes[k.From].GUID, k.FromPort)
			if rates[l].String() != want[key] {
				t.Errorf("%s: link %s rate %q, want %q", c.file, f.LinkName(int32(l)), rates[l], want[key])
			}
		}
	}
}

// TestLinkRatesAbsent: a topology without rates (ibsim's default net
// files) gives none, and a link whose file gives no rate the zero rate.
func TestLinkRatesAbsent(t *testing.T) {
	topo, err := ReadTopologyFile("../testdata/ib/ft16/ft16.net")
	if err != nil {
		t.Fatal(err)
	}
	f, err := BuildTopology(topo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := LinkRates(topo, f); r != nil {
		t.Errorf("ft16.net: rates %v, want none", r)
	}
}

// TestLinkRateSpellings: the words of real files from other tool versions,
// one port line each (ibnetdiscover, iblinkinfo, a ports report and a
// subnet list), including the rates the emulation cannot give.
func TestLinkRateSpellings(t *testing.T) {
	for _, c := range []struct {
		got  LinkRate
		want string
	}{
		{tailRate([]byte(`# "MF0;leaf01:MQM8700/U1" lid 7 4xFDR10`)), "4xFDR10"},
		{tailRate([]byte(`# lid 3 lmc 0 "leaf01" lid 7 2xNDR`)), "2xNDR"},
		{tailRate([]byte(`# "desc ending lid 4 4xEDR" lid 7 4xHDR`)), "4xHDR"},
		{tailRate([]byte(`# "sw" lid 7 4x???`)), ""},
		{tailRate([]byte(`# lid 3 lmc 0`)), ""},
		{linkFieldRate([]byte(" 4X  10.0 Gbps (FDR10) Active/  LinkUp")), "4xFDR10"},
		{linkFieldRate([]byte(" 4X      14.0625 Gbps Active/  LinkUp")), "4xFDR"},
		{linkFieldRate([]byte(" 2X       106.25 Gbps Active/  LinkUp")), "2xNDR"},
		{linkFieldRate([]byte("                Down/ Polling")), ""},
		{subnetLstRate("4x", "FDR10"), "4xFDR10"},
		{subnetLstRate("4x", "14"), "4xFDR"},
		{subnetLstRate("4x", "??"), ""},
	} {
		if c.got.String() != c.want {
			t.Errorf("rate %q, want %q", c.got, c.want)
		}
	}
}

// TestSimNetOptionRates: the rates ibsim gives the port options w=, s=
// and e= of testdata/ib/ratesopt/ratesopt.net are those ibnetdiscover read
// from the emulated fabric (ratesopt/minhop/ibnetdiscover.txt): w=3 is 4x,
// a port without w= 4x, e= before s=, w=8 s=1 12xSDR.
func TestSimNetOptionRates(t *testing.T) {
	rates := func(file string) map[string]string {
		topo, err := ReadTopologyFile("../testdata/ib/ratesopt/" + file)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, n := range topo.Nodes {
			for _, p := range n.Ports {
				m[fmt.Sprintf("%x:%d", n.GUID, p.Num)] = p.Rate.String()
			}
		}
		return m
	}
	net, real := rates("ratesopt.net"), rates("minhop/ibnetdiscover.txt")
	want := map[string]string{"200000:1": "4xQDR", "200000:2": "1xDDR", "200000:3": "4xEDR", "200000:4": "4xHDR",
		"200001:3": "12xSDR", "200001:4": "4xFDR"}
	for k, w := range want {
		if net[k] != w || real[k] != w {
			t.Errorf("port %s: net file %q, ibnetdiscover %q, want %q", k, net[k], real[k], w)
		}
	}
	if len(net) != len(real) {
		t.Fatalf("%d ports in the net file, %d in ibnetdiscover", len(net), len(real))
	}
	for k, r := range real {
		if net[k] != r {
			t.Errorf("port %s: net file %q, ibnetdiscover %q", k, net[k], r)
		}
	}
	for _, bad := range []string{"w=0", "w=32", "s=8", "e=16", "w=x"} {
		_, err := ReadSimNet([]byte("Switch 2 \"s\"\n[1] \"h\"[1] "+bad+"\n\nHca 1 \"h\"\n[1] \"s\"[1]\n"), "bad.net")
		if err == nil || !strings.Contains(err.Error(), "bad.net:2: port 1: bad \""+bad+"\"") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

package ib

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"orcs/dot"
	"orcs/lft"
)

// The fuzz targets feed each reader arbitrary bytes: it must return a
// fabric part or an error located in the file, never panic. What parses is
// then built against the matching part of the dualport fixture (which has
// multi-port CAs, parallel links and unconnected switch ports), and a
// fabric that builds is checked and written as dot.

// fuzzSeeds adds fixture files as seeds.
func fuzzSeeds(f *testing.F, names ...string) {
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(ibRoot, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// fuzzPair returns the dualport/minhop topology and tables.
func fuzzPair(f *testing.F) (*Topology, *Routing) {
	t, err := ReadTopologyFile(filepath.Join(ibRoot, "dualport", "minhop", "ibnetdiscover.txt"))
	if err != nil {
		f.Fatal(err)
	}
	r, err := ReadRoutingFile(filepath.Join(ibRoot, "dualport", "minhop", "opensm-lfts.dump"))
	if err != nil {
		f.Fatal(err)
	}
	return t, r
}

// fuzzClusterTables returns the tables of cluster/minhop, for the readers
// whose seeds are cluster files.
func fuzzClusterTables(f *testing.F) *Routing {
	r, err := ReadRoutingFile(filepath.Join(ibRoot, "cluster", "minhop", "opensm-lfts.dump"))
	if err != nil {
		f.Fatal(err)
	}
	return r
}

// fuzzBuild builds, and checks and writes what builds, with and without
// LMC spread.
func fuzzBuild(t *testing.T, topo *Topology, rt *Routing) {
	for _, spread := range []bool{false, true} {
		f, err := Build(topo, rt, Options{LMCSpread: spread, Names: NamesDesc})
		if err != nil {
			if bytes.Contains([]byte(err.Error()), []byte("panic")) {
				t.Fatal(err)
			}
			continue
		}
		all := allHosts(f)
		f.CheckRoutes(all, 1, 1)
		for s := range all {
			appendSpreadRoute(f, nil, int32(s), int32(len(all)-1-s))
		}
		var buf bytes.Buffer
		if err := dot.Write(&buf, f, dot.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		g, err := dot.Read(buf.Bytes(), "fuzz.dot", dot.Options{})
		if err != nil {
			t.Fatalf("dot written from dumps does not read back: %v", err)
		}
		routers := false
		for _, n := range f.Nodes {
			routers = routers || n.Kind == lft.Router
		}
		if !routers && g.Digest() != f.Digest() { // dot has no routers
			t.Fatal("dot read back is another fabric")
		}
	}
}

func checkTopology(t *testing.T, topo *Topology, err error, format Format) {
	if err != nil {
		return
	}
	if topo.Format != format || len(topo.Nodes) == 0 {
		t.Fatalf("format %v, %d nodes", topo.Format, len(topo.Nodes))
	}
	for i, n := range topo.Nodes {
		for _, p := range n.Ports {
			back := topo.Nodes[p.Peer].Port(p.PeerPort)
			if back == nil || back.Peer != i || back.PeerPort != p.Num {
				t.Fatalf("cable of %s port %d does not connect back", n.ID, p.Num)
			}
		}
	}
}

func FuzzIBNetDiscover(f *testing.F) {
	fuzzSeeds(f, "dualport/minhop/ibnetdiscover.txt", "dualport/minhop/ibnetdiscover-s.txt", "ft16/minhop-lmc1/ibnetdiscover.txt",
		"cluster/minhop/ibnetdiscover-g.txt", "cluster/noisy/ibnetdiscover.txt", "cluster/ibdiagnet/ibdiagnet2.ibnetdiscover",
		"rates/minhop/ibnetdiscover.txt")
	f.Add([]byte("switchguid=0x1(2)\nSwitch\t2 \"S\" # \"s\" base port 0 lid 1 lmc 0\n[1]\t\"H\"[1](11) # \"h\" lid 2 4xSDR\n\ncaguid=0x10\nCa\t1 \"H\" # \"h\"\n[1](11) \t\"S\"[1] # lid 2 lmc 0 \"s\" lid 1 4xSDR\n"))
	_, rt := fuzzPair(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		topo, err := ReadNetDiscover(data, "fuzz.txt")
		checkTopology(t, topo, err, FormatIBNetDiscover)
		if err == nil {
			fuzzBuild(t, topo, rt)
			checkNetRoundTrip(t, topo)
		}
	})
}

func FuzzIBSimNet(f *testing.F) {
	fuzzSeeds(f, "dualport/dualport.net", "torus/torus.net", "rates/rates.net")
	f.Add([]byte("switchguid+1\nSwitch 2 \"s\" # d lid 3 lmc 1\n[1] \"h\" w=4\n[2] \"h\"[2] s=1\n\nHca 2 \"h\"\n[1] \"s\"[1] # lid 8 lmc 2\n[2] \"s\"[2]\n"))
	_, rt := fuzzPair(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		topo, err := ReadSimNet(data, "fuzz.net")
		checkTopology(t, topo, err, FormatIBSimNet)
		if err == nil {
			fuzzBuild(t, topo, rt)
			checkNetRoundTrip(t, topo)
		}
	})
}

func FuzzSubnetLst(f *testing.F) {
	fuzzSeeds(f, "dualport/minhop/opensm-subnet.lst", "ft16/minhop-lmc1/opensm-subnet.lst", "cluster/ibdiagnet/ibdiagnet.lst",
		"rates/minhop/opensm-subnet.lst")
	_, rt := fuzzPair(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		topo, err := ReadSubnetLst(data, "fuzz.lst")
		checkTopology(t, topo, err, FormatSubnetLst)
		if err == nil {
			fuzzBuild(t, topo, rt)
		}
	})
}

func FuzzPortsReport(f *testing.F) {
	fuzzSeeds(f, "cluster/minhop/ibnetdiscover-p.txt", "cluster/updn/ibnetdiscover-p.txt", "rates/minhop/ibnetdiscover-p.txt")
	f.Add([]byte("CA 1 1 0x11 4x SDR - SW 2 1 0x20 ( 'h x' - 's' )\nSW 2 2 0x20 4x SDR                                    's'\nSW 2 1 0x20 4x SDR - CA 1 1 0x11 ( 's' - 'h x' )\n"))
	rt := fuzzClusterTables(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		topo, err := ReadPortsReport(data, "fuzz.txt")
		checkTopology(t, topo, err, FormatIBNetDiscoverPorts)
		if err == nil {
			fuzzBuild(t, topo, rt)
		}
	})
}

func FuzzLinkInfo(f *testing.F) {
	fuzzSeeds(f, "cluster/minhop/iblinkinfo.txt", "cluster/minhop/iblinkinfo-l.txt", "cluster/noisy/iblinkinfo.txt",
		"rates/minhop/iblinkinfo.txt")
	f.Add([]byte("CA: h:\n      0x11      1    1[  ] ==( 4X 2.5 Gbps Active/  LinkUp)==>       2    1[  ] \"s\" ( )\n" +
		"Switch: 0x20 s:\n           2    1[  ] ==( 4X 2.5 Gbps Active/  LinkUp)==>       1    1[  ] \"h\" ( )\n" +
		"           2    2[  ] ==(              Down/ Polling)==>             [  ] \"\" ( )\n"))
	rt := fuzzClusterTables(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		topo, err := ReadLinkInfo(data, "fuzz.txt")
		checkTopology(t, topo, err, FormatIBLinkInfo)
		if err == nil {
			fuzzBuild(t, topo, rt)
		}
	})
}

func FuzzDBCSV(f *testing.F) {
	fuzzSeeds(f, "cluster/ibdiagnet/ibdiagnet2.db_csv")
	f.Add([]byte("START_NODES\nNodeDesc,NumPorts,NodeType,NodeGUID\n\"h, \"\"x\"\"\",1,1,0x10\n\"s\",2,2,0x20\nEND_NODES\n" +
		"START_PORTS\nNodeGuid,PortGuid,PortNum,LID,LMC\n0x10,0x11,1,1,0\n0x20,0x20,0,2,N/A\nEND_PORTS\n" +
		"START_LINKS\nNodeGuid1,PortNum1,NodeGuid2,PortNum2\n0x10,1,0x20,1\nEND_LINKS\n"))
	rt := fuzzClusterTables(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		topo, err := ReadDBCSV(data, "fuzz.csv")
		checkTopology(t, topo, err, FormatIBDiagCSV)
		if err == nil {
			fuzzBuild(t, topo, rt)
		}
	})
}

// checkRouting checks what a routing reader returns.
func checkRouting(t *testing.T, rt *Routing, err error, format Format) {
	if err != nil {
		return
	}
	if rt.Format != format || len(rt.Switches) == 0 {
		t.Fatalf("format %v, %d tables", rt.Format, len(rt.Switches))
	}
	for _, lt := range rt.Switches {
		for _, e := range lt.Entries {
			if e.LID == 0 || e.LID > maxUnicastLID || e.Port > MaxPorts || e.Line < int32(lt.Line) {
				t.Fatalf("bad entry %+v in table at line %d", e, lt.Line)
			}
		}
	}
}

func FuzzLFTDump(f *testing.F) {
	fuzzSeeds(f, "dualport/minhop/opensm-lfts.dump", "ft16/minhop-lmc1/opensm-lfts.dump")
	topo, _ := fuzzPair(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		rt, err := ReadLFTDump(data, "fuzz.dump")
		checkRouting(t, rt, err, DetectFormat(data))
		if err == nil {
			fuzzBuild(t, topo, rt)
		}
	})
}

func FuzzDumpFTS(f *testing.F) {
	fuzzSeeds(f, "dualport/minhop/dump_fts.txt", "dualport/minhop/ibroute-S-1.txt", "ft16/minhop-lmc1/dump_fts.txt",
		"cluster/minhop/dump_fts-a.txt", "cluster/noisy/ibroute-S-leaf01.txt", "cluster/noisy/dump_fts.txt")
	topo, _ := fuzzPair(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		rt, err := ReadLFTDump(data, "fuzz.txt")
		checkRouting(t, rt, err, DetectFormat(data))
		if err == nil {
			fuzzBuild(t, topo, rt)
		}
	})
}

func FuzzFDBs(f *testing.F) {
	fuzzSeeds(f, "dualport/minhop/opensm.fdbs", "torus/torus-2QoS/opensm.fdbs", "cluster/ibdiagnet/ibdiagnet2.fdbs")
	topo, _ := fuzzPair(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		rt, err := ReadFDBs(data, "fuzz.fdbs")
		checkRouting(t, rt, err, FormatFDBs)
		if err == nil {
			fuzzBuild(t, topo, rt)
		}
	})
}

// FuzzDetectFormat checks that detection and the generic readers agree
// and never panic.
func FuzzDetectFormat(f *testing.F) {
	fuzzSeeds(f, "dualport/minhop/opensm.fdbs", "dualport/minhop/opensm-subnet.lst", "dualport/minhop/dump_fts.txt",
		"cluster/minhop/ibnetdiscover-p.txt", "cluster/minhop/ibnetdiscover-l.txt", "cluster/minhop/iblinkinfo.txt", "cluster/ibdiagnet/ibdiagnet2.db_csv", "cluster/ibdiagnet/ibdiagnet2.ibnetdiscover")
	f.Fuzz(func(t *testing.T, data []byte) {
		format := DetectFormat(data)
		topo, err := ReadTopology(data, "fuzz")
		if err == nil && topo.Format != format {
			t.Fatalf("detected %v, read %v", format, topo.Format)
		}
		rt, err := ReadRouting(data, "fuzz")
		if err == nil && rt.Format != format {
			t.Fatalf("detected %v, read %v", format, rt.Format)
		}
	})
}

// FuzzParseLinkRate: a rate word parses to a rate that prints back as the
// same word, with a positive data rate, or to an error; never a panic.
func FuzzParseLinkRate(f *testing.F) {
	for _, s := range []string{"4xFDR10", "1xSDR", "12xQDR", "2xNDR", "4xHDR", "4x???", "8xXDR", "x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseLinkRate(s)
		if err != nil {
			return
		}
		if !r.Known() || r.Gbps() <= 0 {
			t.Fatalf("%q: rate %+v, %g Gb/s", s, r, r.Gbps())
		}
		back, err := ParseLinkRate(r.String())
		if err != nil || back != r {
			t.Fatalf("%q: %v prints as %q, which reads %v, %v", s, r, r.String(), back, err)
		}
	})
}

package ib

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"orcs/dot"
	"orcs/lft"
)

// ibRoot holds the fixtures made by real ibsim, OpenSM and
// infiniband-diags (see its README).
const ibRoot = "../testdata/ib"

// ibRun is one OpenSM routing of a fixture fabric.
type ibRun struct {
	fabric, run, dir string
}

func (r ibRun) String() string { return r.fabric + "/" + r.run }

func ibRuns(t testing.TB) []ibRun {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(ibRoot, "*", "*", "engine.txt"))
	if err != nil || len(paths) < 20 {
		t.Fatalf("fixtures: %v (%d runs)", err, len(paths))
	}
	var runs []ibRun
	for _, p := range paths {
		dir := filepath.Dir(p)
		if _, err := os.Stat(filepath.Join(dir, "dump_fts.txt")); err != nil {
			continue // sharp576 keeps only what compare --topo/--lfts reads
		}
		runs = append(runs, ibRun{filepath.Base(filepath.Dir(dir)), filepath.Base(dir), dir})
	}
	return runs
}

// topoFiles and routingFiles are the inputs of every run; the ibsim net
// file is the fabric's.
var (
	topoFiles    = []string{"ibnetdiscover.txt", "ibnetdiscover-s.txt", "opensm-subnet.lst", "NET"}
	routingFiles = []string{"opensm-lfts.dump", "dump_fts.txt", "opensm.fdbs"}
)

func (r ibRun) path(name string) string {
	if name == "NET" {
		return filepath.Join(ibRoot, r.fabric, r.fabric+".net")
	}
	return filepath.Join(r.dir, name)
}

// ibCounts are hosts, switches and links of the fixture fabrics (README):
// every connected CA port is a host, every cable two links.
var ibCounts = map[string][3]int{
	"ft16":     {16, 8, 2 * (16 + 16)},
	"ft64":     {64, 48, 2 * (64 + 64 + 64)},
	"dualport": {8, 2, 2 * (8 + 2)},
	"torus":    {16, 16, 2 * (16 + 32)},
	"lid64":    {63, 1, 2 * 63},
	// 8 CA ports that are hosts (2 aggregation nodes left out), 4 ASICs of
	// a director and 2 edge switches.
	"cluster": {8, 6, 2 * (8 + 4 + 4)},
	"mesh":    {16, 16, 2 * (16 + 24)},
	// 12 aggregation nodes left out.
	"sharp": {64, 12, 2 * (64 + 8*4)},
	// Two loopback cables, each two links.
	"loopback": {6, 4, 2 * (6 + 4 + 2)},
	"port2":    {4, 1, 2 * 4},
	// ft16 with an aggregation node on each spine (left out as hosts).
	"sharp-spines": {16, 8, 2 * (16 + 16)},
	// 8 hosts on 2 leaves, 2 spines, each leaf cabled to both spines.
	"rates": {8, 4, 2 * (8 + 4)},
	// 4 hosts, 2 switches with two parallel cables.
	"ratesopt": {4, 2, 2 * (4 + 2)},
	// 7 nodes × 4 HCAs and 2 service HCAs on 8 leaves, each leaf cabled
	// once to each of 4 spines.
	"rail": {30, 12, 2 * (30 + 8*4)},
}

func mustTopology(t testing.TB, path string) *Topology {
	t.Helper()
	topo, err := ReadTopologyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

func mustRouting(t testing.TB, path string) *Routing {
	t.Helper()
	r, err := ReadRoutingFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func allHosts(f *lft.Fabric) []int32 {
	all := make([]int32, f.NumHosts())
	for i := range all {
		all[i] = int32(i)
	}
	return all
}

// TestIBFixtures builds every fixture run from every topology and routing
// file: the counts are those of the fabric, every combination gives the
// same fabric and tables, every host pair routes without loops (the README:
// host LIDs are always routed), and every route is the one found by
// walking the raw files LID by LID.
func TestIBFixtures(t *testing.T) {
	for _, run := range ibRuns(t) {
		t.Run(run.String(), func(t *testing.T) {
			ref := mustTopology(t, run.path("ibnetdiscover.txt"))
			want := ibCounts[run.fabric]
			var digest string
			for _, tf := range topoFiles {
				topo := mustTopology(t, run.path(tf))
				for _, rf := range routingFiles {
					rt := mustRouting(t, run.path(rf))
					f, err := Build(topo, rt, Options{})
					switch {
					case tf == "NET" && rf == "opensm.fdbs":
						// Neither file gives a LID.
						if err == nil || !strings.Contains(err.Error(), "give no CA port a LID") {
							t.Fatalf("%s + %s: %v, want the no-LID error", tf, rf, err)
						}
						continue
					case run.fabric == "lid64" && rf == "dump_fts.txt":
						if err == nil || !strings.Contains(err.Error(), "drop the last LID when the top is a multiple of 64") {
							t.Fatalf("%s + %s: %v, want the dump_fts quirk reported", tf, rf, err)
						}
						continue
					case err != nil:
						t.Fatalf("%s + %s: %v", tf, rf, err)
					}
					got := [3]int{f.NumHosts(), f.NumSwitches(), len(f.Links)}
					if got != want {
						t.Fatalf("%s + %s: hosts, switches, links = %v, want %v", tf, rf, got, want)
					}
					if d := f.Digest(); digest == "" {
						digest = d
						check := f.CheckRoutes(allHosts(f), 3, 2)
						if !check.OK() {
							t.Fatalf("%s + %s: %d unroutable, %d loops; %s", tf, rf, check.Unroutable, check.Loops,
								check.Examples[0].Error())
						}
						checkAgainstFiles(t, f, ref, rt, false)
					} else if d != digest {
						t.Fatalf("%s + %s: a different fabric than the first combination", tf, rf)
					}
				}
			}
		})
	}
}

// checkAgainstFiles compares every route of f with a walk over the raw
// files: the LFT of each switch, LID by LID, and the cables of ref (an
// ibnetdiscover topology, which gives every LID and LMC). With spread, the
// destination LID is base + source index mod 2^LMC, and f's routes are
// taken by source.
func checkAgainstFiles(t *testing.T, f *lft.Fabric, ref *Topology, rt *Routing, spread bool) {
	t.Helper()
	tables := map[uint64]map[uint16]uint8{}
	for _, lt := range rt.Switches {
		m := map[uint16]uint8{}
		for _, e := range lt.Entries {
			m[e.LID] = e.Port
		}
		tables[lt.GUID] = m
	}
	byGUID := map[uint64]int{}
	for i, n := range ref.Nodes {
		byGUID[n.GUID] = i
	}
	type end struct{ node, port int }
	endOf := func(h int) end {
		n := f.Nodes[f.HostNode(h)]
		return end{byGUID[n.GUID], int(n.Port)}
	}
	var buf []int32
	for s := 0; s < f.NumHosts(); s++ {
		src := endOf(s)
		for d := 0; d < f.NumHosts(); d++ {
			if s == d {
				continue
			}
			dst := endOf(d)
			dp := ref.Nodes[dst.node].Port(dst.port)
			lid := int(dp.LID)
			if spread {
				lid += s % (1 << dp.LMC)
			}
			// The walk over the files.
			var want []string
			at := end{src.node, src.port}
			ok := false
			for hops := 0; hops < 64; hops++ {
				n := &ref.Nodes[at.node]
				want = append(want, fmt.Sprintf("%x:%d", n.GUID, at.port))
				p := n.Port(at.port)
				next := end{p.Peer, p.PeerPort}
				if next == dst {
					ok = true
					break
				}
				nn := &ref.Nodes[next.node]
				if nn.Kind == lft.Host {
					break
				}
				out, routed := tables[nn.GUID][uint16(lid)]
				if !routed || out == 0 {
					break
				}
				at = end{next.node, int(out)}
			}
			if !ok {
				t.Fatalf("%s to %s: the files give no route over LID %d", f.HostName(s), f.HostName(d), lid)
			}
			var st lft.RouteStatus
			if spread {
				buf, st = appendSpreadRoute(f, buf[:0], int32(s), int32(d))
			} else {
				buf, st = f.AppendRoute(buf[:0], int32(s), int32(d))
			}
			var got []string
			for _, l := range buf {
				k := f.Links[l]
				got = append(got, fmt.Sprintf("%x:%d", f.Nodes[k.From].GUID, k.FromPort))
			}
			if st != lft.RouteOK || strings.Join(got, " ") != strings.Join(want, " ") {
				t.Fatalf("%s to %s over LID %d: route %v (%v), the files say %v", f.HostName(s), f.HostName(d), lid, got, st, want)
			}
		}
	}
}

// tableMap is a routing dump as switch GUID → LID → out port.
func tableMap(r *Routing) map[uint64]map[uint16]uint8 {
	m := map[uint64]map[uint16]uint8{}
	for _, lt := range r.Switches {
		e := map[uint16]uint8{}
		for _, x := range lt.Entries {
			e[x.LID] = x.Port
		}
		m[lt.GUID] = e
	}
	return m
}

// TestIBTablesAgree checks that the three dumps of every run hold the same
// tables: opensm-lfts.dump against dump_fts (read back from the switches)
// and against opensm.fdbs, and that the two labelled dumps name the same
// port for every LID. In lid64, dump_fts lacks exactly the top LID 0x40
// (the infiniband-diags quirk of the README).
func TestIBTablesAgree(t *testing.T) {
	for _, run := range ibRuns(t) {
		lfts := mustRouting(t, run.path("opensm-lfts.dump"))
		fts := mustRouting(t, run.path("dump_fts.txt"))
		fdbs := mustRouting(t, run.path("opensm.fdbs"))
		if lfts.Format != FormatLFTDump || fts.Format != FormatDumpFTS || fdbs.Format != FormatFDBs {
			t.Fatalf("%s: formats %v %v %v", run, lfts.Format, fts.Format, fdbs.Format)
		}
		a, b, c := tableMap(lfts), tableMap(fts), tableMap(fdbs)
		if len(a) != ibCounts[run.fabric][1] || len(b) != len(a) || len(c) != len(a) {
			t.Fatalf("%s: %d, %d, %d switch tables", run, len(a), len(b), len(c))
		}
		for guid, want := range a {
			if !sameTable(want, c[guid]) {
				t.Errorf("%s: switch %x: opensm.fdbs differs from opensm-lfts.dump", run, guid)
			}
			got := b[guid]
			if run.fabric == "lid64" {
				if _, ok := got[0x40]; ok || want[0x40] != 63 {
					t.Errorf("%s: dump_fts has LID 0x40 or the dump lacks it", run)
				}
				got = copyTable(got)
				got[0x40] = want[0x40]
			}
			if !sameTable(want, got) {
				t.Errorf("%s: switch %x: dump_fts differs from opensm-lfts.dump", run, guid)
			}
		}
		for lid := 1; lid < max(len(lfts.labels), len(fts.labels)); lid++ {
			g1, _ := lfts.LIDLabel(lid)
			g2, _ := fts.LIDLabel(lid)
			if g1 != g2 && !(run.fabric == "lid64" && lid == 0x40) {
				t.Errorf("%s: LID %d: port 0x%x in opensm-lfts.dump, 0x%x in dump_fts", run, lid, g1, g2)
			}
		}
	}
}

func sameTable(a, b map[uint16]uint8) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func copyTable(a map[uint16]uint8) map[uint16]uint8 {
	b := map[uint16]uint8{}
	for k, v := range a {
		b[k] = v
	}
	return b
}

// TestIBDetectFormat recognises every fixture file and the dot files.
func TestIBDetectFormat(t *testing.T) {
	want := map[string]Format{
		"ibnetdiscover.txt":   FormatIBNetDiscover,
		"ibnetdiscover-s.txt": FormatIBNetDiscover,
		"opensm-subnet.lst":   FormatSubnetLst,
		"opensm-lfts.dump":    FormatLFTDump,
		"dump_fts.txt":        FormatDumpFTS,
		"opensm.fdbs":         FormatFDBs,
		"engine.txt":          FormatUnknown,

		"ibnetdiscover-g.txt":      FormatIBNetDiscover,
		"ibnetdiscover-p.txt":      FormatIBNetDiscoverPorts,
		"ibnetdiscover-l.txt":      FormatIBNetDiscoverList,
		"iblinkinfo.txt":           FormatIBLinkInfo,
		"iblinkinfo-l.txt":         FormatIBLinkInfo,
		"dump_fts-a.txt":           FormatDumpFTS,
		"ibdiagnet2.db_csv":        FormatIBDiagCSV,
		"ibdiagnet2.fdbs":          FormatFDBs,
		"ibdiagnet2.ibnetdiscover": FormatIBNetDiscover,
		"ibdiagnet.lst":            FormatSubnetLst,
	}
	files, _ := filepath.Glob(filepath.Join(ibRoot, "*", "*", "*"))
	files = append(files, must(filepath.Glob(filepath.Join(ibRoot, "*", "*.net")))...)
	files = append(files, must(filepath.Glob("../testdata/*.dot"))...)
	n := 0
	for _, p := range files {
		base := filepath.Base(p)
		w, ok := want[base]
		switch {
		case strings.HasPrefix(base, "ibroute-"):
			w, ok = FormatDumpFTS, true
		case strings.HasSuffix(base, ".net"):
			w, ok = FormatIBSimNet, true
		case strings.HasSuffix(base, ".dot"):
			w, ok = FormatDot, true
		}
		if !ok {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := DetectFormat(data); got != w {
			t.Errorf("%s: %v, want %v", p, got, w)
		}
		n++
	}
	if n < 190 {
		t.Fatalf("only %d files checked", n)
	}
	if DetectFormat(nil) != FormatUnknown || DetectFormat([]byte("hello\n")) != FormatUnknown {
		t.Error("garbage recognised")
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestIBRoute checks a single switch table read by ibroute against the
// same switch in opensm-lfts.dump.
func TestIBRoute(t *testing.T) {
	for _, run := range ibRuns(t) {
		files, _ := filepath.Glob(filepath.Join(run.dir, "ibroute-S*.txt")) // not ibroute -a
		if len(files) != 1 {
			t.Fatalf("%s: %d ibroute files", run, len(files))
		}
		r := mustRouting(t, files[0])
		if len(r.Switches) != 1 || r.Switches[0].LID == 0 {
			t.Fatalf("%s: %d tables, LID %d", run, len(r.Switches), r.Switches[0].LID)
		}
		lt := r.Switches[0]
		want := tableMap(mustRouting(t, run.path("opensm-lfts.dump")))[lt.GUID]
		got := tableMap(r)[lt.GUID]
		if run.fabric == "lid64" {
			got = copyTable(got)
			got[0x40] = want[0x40]
		}
		if !sameTable(want, got) {
			t.Errorf("%s: ibroute table of %s differs", run, lt.Desc)
		}
		// One table is not the fabric's routing: Build names the switches
		// without one.
		_, err := Build(mustTopology(t, run.path("ibnetdiscover.txt")), r, Options{})
		wantErr := "has no table in the dump"
		switch run.fabric {
		case "lid64":
			wantErr = "drop the last LID" // its only switch is there
		case "port2":
			if err != nil { // its only switch is there
				t.Errorf("%s: %v", run, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%s: %v", run, err)
		}
	}
}

// TestIBNodeInfo checks what the fabric keeps of the files: GUIDs, ports,
// descriptions, LIDs and LMCs, and the names.
func TestIBNodeInfo(t *testing.T) {
	run := ibRun{"dualport", "minhop", filepath.Join(ibRoot, "dualport", "minhop")}
	f, err := ReadFiles(run.path("ibnetdiscover.txt"), run.path("opensm-lfts.dump"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range f.Nodes {
		got = append(got, fmt.Sprintf("%s %s %x %q p%d %x lid%d lmc%d", n.Name, n.Kind, n.GUID, n.Desc, n.Port, n.PortGUID, n.LID, n.LMC))
	}
	want := []string{
		`H0000000000100000 host 100000 "H-0" p1 100001 lid1 lmc0`,
		`H0000000000100002 host 100002 "H-1" p1 100003 lid4 lmc0`,
		`H0000000000100004 host 100004 "H-2" p1 100005 lid5 lmc0`,
		`H0000000000100006 host 100006 "H-3" p1 100007 lid6 lmc0`,
		`H0000000000100008:1 host 100008 "H-4" p1 100009 lid7 lmc0`,
		`H0000000000100008:2 host 100008 "H-4" p2 10000a lid8 lmc0`,
		`H000000000010000b:1 host 10000b "H-5" p1 10000c lid9 lmc0`,
		`H000000000010000b:2 host 10000b "H-5" p2 10000d lid10 lmc0`,
		`S0000000000200000 switch 200000 "S-0" p0 200000 lid2 lmc0`,
		`S0000000000200001 switch 200001 "S-1" p0 200001 lid3 lmc0`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("nodes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Real port numbers on the links: S-0 port 5 and 6 are the parallel
	// links to S-1 ports 7 and 8.
	s0, _ := f.NodeByName("S0000000000200000")
	var ports []string
	for _, l := range f.OutLinks(s0) {
		k := f.Links[l]
		ports = append(ports, fmt.Sprintf("%d>%s:%d", k.FromPort, f.Nodes[k.To].Name, k.ToPort))
	}
	if p := strings.Join(ports, " "); p != "1>H0000000000100000:1 2>H0000000000100002:1 3>H0000000000100008:1:1 4>H000000000010000b:2:2 5>S0000000000200001:7 6>S0000000000200001:8" {
		t.Errorf("S-0 links: %s", p)
	}
	// LMC 1: the CA ports own two LIDs from an even base; switches one.
	lmc, err := ReadFiles(filepath.Join(ibRoot, "ft16", "minhop-lmc1", "opensm-subnet.lst"),
		filepath.Join(ibRoot, "ft16", "minhop-lmc1", "opensm.fdbs"), Options{Names: NamesDesc})
	if err != nil {
		t.Fatal(err)
	}
	h0 := lmc.Nodes[lmc.HostNode(0)]
	if h0.Name != "H-0" || h0.LID != 2 || h0.LMC != 1 {
		t.Errorf("lmc1 H-0: %+v", h0)
	}
	for h := 0; h < lmc.NumHosts(); h++ {
		if n := lmc.Nodes[lmc.HostNode(h)]; n.LMC != 1 || n.LID%2 != 0 {
			t.Errorf("lmc1 %s: LID %d LMC %d", n.Name, n.LID, n.LMC)
		}
	}
	for s := 0; s < lmc.NumSwitches(); s++ {
		if n := lmc.Nodes[lmc.SwitchNode(s)]; n.LMC != 0 || n.LID == 0 {
			t.Errorf("lmc1 %s: LID %d LMC %d", n.Name, n.LID, n.LMC)
		}
	}
}

// TestIBNames checks both name styles on a fixture and the rules for
// unsafe, empty and repeated descriptions.
func TestIBNames(t *testing.T) {
	dir := filepath.Join(ibRoot, "ft16", "minhop")
	f, err := ReadFiles(filepath.Join(dir, "ibnetdiscover.txt"), filepath.Join(dir, "opensm-lfts.dump"), Options{Names: NamesDesc})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range f.Nodes {
		names = append(names, n.Name)
	}
	want := "H-0 H-1 H-2 H-3 H-4 H-5 H-6 H-7 H-8 H-9 H-10 H-11 H-12 H-13 H-14 H-15 " +
		"S-leaf0 S-leaf1 S-leaf2 S-leaf3 S-spine0 S-spine1 S-spine2 S-spine3"
	if strings.Join(names, " ") != want {
		t.Errorf("desc names: %s", strings.Join(names, " "))
	}
	nodes := []ibNamed{
		{lft.Host, 0x10, "node01 HCA-1", 0},
		{lft.Host, 0x20, "MT25408 ConnectX", 1},
		{lft.Host, 0x20, "MT25408 ConnectX", 2},
		{lft.Host, 0x30, "MT25408 ConnectX", 0},
		{lft.Host, 0x40, "", 0},
		{lft.Host, 0x50, "Hx,y\"z*", 0},
		{lft.Switch, 0x60, "HPE switch", 0},
		{lft.Switch, 0x70, "ib/sw 1", 0},
		{lft.Router, 0x80, "rt", 0},
	}
	got := ibNames(nodes, NamesDesc)
	wantNames := []string{
		"H-node01_HCA-1",
		"H-MT25408_ConnectX@0000000000000020:1",
		"H-MT25408_ConnectX@0000000000000020:2",
		"H-MT25408_ConnectX@0000000000000030",
		"H0000000000000040",
		"Hx_y_z",
		"S-HPE_switch",
		"ib/sw_1",
		"rt",
	}
	if strings.Join(got, " ") != strings.Join(wantNames, " ") {
		t.Errorf("desc names:\n%q\nwant\n%q", got, wantNames)
	}
	got = ibNames(nodes, NamesGUID)
	if got[0] != "H0000000000000010" || got[1] != "H0000000000000020:1" || got[6] != "S0000000000000060" || got[8] != "R0000000000000080" {
		t.Errorf("guid names: %q", got)
	}
	for _, s := range []string{"guid", "desc", ""} {
		if _, err := ParseNameStyle(s); err != nil {
			t.Error(err)
		}
	}
	if _, err := ParseNameStyle("lid"); err == nil {
		t.Error("bad style accepted")
	}
}

// TestIBLMCSpread checks LMC spread on the LMC 1 fixture: routes follow the
// LID of the source's offset (checked against the files), minhop sends the
// two LIDs of a port over different up-links so some routes change, and
// without spread the base LIDs are used.
func TestIBLMCSpread(t *testing.T) {
	dir := filepath.Join(ibRoot, "ft16", "minhop-lmc1")
	ref := mustTopology(t, filepath.Join(dir, "ibnetdiscover.txt"))
	for _, tf := range []string{"ibnetdiscover.txt", "opensm-subnet.lst", "../ft16.net"} {
		for _, rf := range routingFiles {
			if tf == "../ft16.net" && rf == "opensm.fdbs" {
				continue
			}
			topo := mustTopology(t, filepath.Join(dir, tf))
			rt := mustRouting(t, filepath.Join(dir, rf))
			base, err := Build(topo, rt, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if base.LMCSpread() {
				t.Fatal("spread without the option")
			}
			checkAgainstFiles(t, base, ref, rt, false)
			f, err := Build(topo, rt, Options{LMCSpread: true})
			if err != nil {
				t.Fatalf("%s + %s: %v", tf, rf, err)
			}
			if !f.LMCSpread() || !sameBaseTables(f, base) {
				t.Fatal("spread fabric: no spread, or different base tables")
			}
			if f.Digest() == base.Digest() {
				t.Fatal("spread and base fabrics share a digest: their shards could be merged")
			}
			checkAgainstFiles(t, f, ref, rt, true)
			changed := 0
			for s := int32(0); s < int32(f.NumHosts()); s++ {
				for d := int32(0); d < int32(f.NumHosts()); d++ {
					a, _ := base.AppendRoute(nil, s, d)
					b, _ := appendSpreadRoute(f, nil, s, d)
					if !equalInt32(a, b) {
						changed++
						if s%2 == 0 {
							t.Fatalf("%s to %s: an even source changed route", f.HostName(int(s)), f.HostName(int(d)))
						}
					}
					if s != d && f.NextHop(s, f.HostNode(int(s)), d) != base.NextHop(s, base.HostNode(int(s)), d) {
						t.Fatal("first hop changed")
					}
				}
			}
			if changed == 0 {
				t.Fatal("LMC spread changed no route")
			}
		}
	}
	// The route walk itself (AppendRoute) must follow the spread tables.
	topo := mustTopology(t, filepath.Join(dir, "ibnetdiscover.txt"))
	rt := mustRouting(t, filepath.Join(dir, "opensm-lfts.dump"))
	f, err := Build(topo, rt, Options{LMCSpread: true})
	if err != nil {
		t.Fatal(err)
	}
	checkAgainstFiles(t, f, ref, rt, true)
	var buf []int32
	for s := int32(0); s < int32(f.NumHosts()); s++ {
		for d := int32(0); d < int32(f.NumHosts()); d++ {
			var st lft.RouteStatus
			buf, st = f.AppendRoute(buf[:0], s, d)
			want, _ := appendSpreadRoute(f, nil, s, d)
			if st != lft.RouteOK || !equalInt32(buf, want) {
				t.Fatalf("AppendRoute %d to %d", s, d)
			}
		}
	}
}

// TestIBWriteDotRoundTrip writes every fixture fabric as dot and reads it
// back: same fabric, same tables.
func TestIBWriteDotRoundTrip(t *testing.T) {
	for _, run := range ibRuns(t) {
		if run.run != "minhop" {
			continue
		}
		for _, style := range []NameStyle{NamesGUID, NamesDesc} {
			f, err := ReadFiles(run.path("ibnetdiscover-s.txt"), run.path("opensm-lfts.dump"), Options{Names: style})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := dot.Write(&buf, f, dot.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			g, err := dot.Read(buf.Bytes(), run.String()+".dot", dot.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if g.Digest() != f.Digest() {
				t.Errorf("%s %v: the dot read back is another fabric", run, style)
			}
		}
	}
}

// TestIBSimNetGrammar covers the parts of the ibsim grammar the fixtures
// do not: GUID directives, include, options, comments inside records,
// default remote port, bare descriptions and LIDs in comments.
func TestIBSimNetGrammar(t *testing.T) {
	dir := t.TempDir()
	inc := "Hca 2 \"h2\"\n[1] \"sw\"[3]\n[2] \"sw\"[4] # lid 9 lmc 1\n"
	if err := os.WriteFile(filepath.Join(dir, "more.net"), []byte(inc), 0o644); err != nil {
		t.Fatal(err)
	}
	main := `# a comment
switchguid=0x3000
Switch 4 "sw" # sw-desc base port 0 lid 1 lmc 0
[1] "h1"[1] w=4
# a comment inside the record
[2] "h1"[2]
[3] "h2"
[4] "h2"[2] s=1

caguid+0x10
Hca 2 "h1"
[1] "sw"[1] # lid 4 lmc 0 "sw" lid 1 4xSDR
[2] "sw"[2]

include "more.net"
`
	path := filepath.Join(dir, "main.net")
	if err := os.WriteFile(path, []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	topo, err := ReadTopologyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range topo.Nodes {
		s := fmt.Sprintf("%s %s %x %q lid%d", n.ID, n.Kind, n.GUID, n.Desc, n.Port0.LID)
		for _, p := range n.Ports {
			s += fmt.Sprintf(" [%d %x %s[%d] lid%d/%d %v]", p.Num, p.GUID, topo.Nodes[p.Peer].ID, p.PeerPort, p.LID, p.LMC, p.LMCKnown)
		}
		got = append(got, s)
	}
	want := []string{
		`sw switch 3000 "sw-desc" lid1 [1 3000 h1[1] lid0/0 false] [2 3000 h1[2] lid0/0 false] [3 3000 h2[1] lid0/0 false] [4 3000 h2[2] lid0/0 false]`,
		`h1 host 100010 "h1" lid0 [1 100011 sw[1] lid4/0 true] [2 100012 sw[2] lid0/0 false]`,
		`h2 host 100013 "h2" lid0 [1 100014 sw[3] lid0/0 false] [2 100015 sw[4] lid9/1 true]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// From memory, include is refused.
	data, _ := os.ReadFile(path)
	if _, err := ReadTopology(data, "main.net"); err == nil || !strings.Contains(err.Error(), "main.net:15: include \"more.net\": includes are only followed when reading a net file by name") {
		t.Errorf("include from memory: %v", err)
	}
}

// TestIBSortedPorts checks that port lines in any order give sorted ports.
func TestIBSortedPorts(t *testing.T) {
	net := "Switch 3 \"s\"\n[3] \"a\"[1]\n[1] \"b\"[1]\n\nHca 1 \"a\"\n[1] \"s\"[3]\n\nHca 1 \"b\"\n[1] \"s\"[1]\n"
	topo, err := ReadSimNet([]byte(net), "x.net")
	if err != nil {
		t.Fatal(err)
	}
	ps := topo.Nodes[0].Ports
	if !sort.SliceIsSorted(ps, func(i, j int) bool { return ps[i].Num < ps[j].Num }) || ps[0].Num != 1 {
		t.Errorf("ports %+v", ps)
	}
}

// TestIBRouter reads a fabric with a router (no fixture has one): the
// router is a non-host node named R<guid>, owns the LID of its port, and
// forwards nothing without a table.
func TestIBRouter(t *testing.T) {
	topo := `# Topology file: generated by hand
vendid=0x0
switchguid=0x200000(200000)
Switch	4 "S-0000000000200000"		# "sw" base port 0 lid 1 lmc 0
[1]	"H-0000000000100000"[1](100001) 		# "h0" lid 2 4xSDR
[2]	"H-0000000000100002"[1](100003) 		# "h1" lid 3 4xSDR
[3]	"R-0000000000300000"[1](300001) 		# "rt" lid 4 4xSDR

caguid=0x100000
Ca	1 "H-0000000000100000"		# "h0"
[1](100001) 	"S-0000000000200000"[1]		# lid 2 lmc 0 "sw" lid 1 4xSDR

caguid=0x100002
Ca	1 "H-0000000000100002"		# "h1"
[1](100003) 	"S-0000000000200000"[2][ext 7]		# lid 3 lmc 0 "sw" lid 1 4xSDR

rtguid=0x300000
Rt	2 "R-0000000000300000"		# "rt"
[1](300001) 	"S-0000000000200000"[3]		# lid 4 lmc 0 "sw" lid 1 4xSDR
`
	lfts := `Unicast lids [0-4] of switch Lid 1 guid 0x0000000000200000 ('sw'):
0x0001 000 # Switch portguid 0x0000000000200000: 'sw'
0x0002 001 # Channel Adapter portguid 0x0000000000100001: 'h0'
0x0003 002 # Channel Adapter portguid 0x0000000000100003: 'h1'
0x0004 003 # Router portguid 0x0000000000300001: 'rt'
4 lids dumped
`
	tp, err := ReadTopology([]byte(topo), "topo.txt")
	if err != nil {
		t.Fatal(err)
	}
	rt, err := ReadRouting([]byte(lfts), "lfts.dump")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Build(tp, rt, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f.NumHosts() != 2 || f.NumSwitches() != 2 || len(f.Links) != 6 {
		t.Fatalf("%d hosts, %d switches, %d links", f.NumHosts(), f.NumSwitches(), len(f.Links))
	}
	r, ok := f.NodeByName("R0000000000300000")
	if !ok || f.Nodes[r].Kind != lft.Router || f.Nodes[r].LID != 4 || f.Nodes[r].PortGUID != 0x300001 {
		t.Fatalf("router %+v", f.Nodes[r])
	}
	if check := f.CheckRoutes(allHosts(f), 1, 1); !check.OK() {
		t.Fatal(check.Examples[0].Error())
	}
}

// appendSpreadRoute is the tests' oracle for AppendRoute under LMC spread:
// it walks node by node through the public per-source NextHopFrom, not the
// compiled walk.
func appendSpreadRoute(f *lft.Fabric, buf []int32, src, dst int32) ([]int32, lft.RouteStatus) {
	v, target := f.HostNode(int(src)), f.HostNode(int(dst))
	for hops := 0; v != target; hops++ {
		if hops >= len(f.Nodes) {
			return buf, lft.Loop
		}
		l := f.NextHop(src, v, dst)
		if l < 0 {
			return buf, lft.Unroutable
		}
		buf = append(buf, l)
		v = f.Links[l].To
	}
	return buf, lft.RouteOK
}

// sameBaseTables reports whether a and b have the same base-LID rows.
func sameBaseTables(a, b *lft.Fabric) bool {
	for v := range a.Nodes {
		ra, ua := a.Row(int32(v))
		rb, ub := b.Row(int32(v))
		if ua != ub || !equalInt32(ra, rb) {
			return false
		}
	}
	return true
}

func equalInt32(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestIBSimNetRelativeGUID: caguid+N counts from the last caguid= value,
// not from where the counter went since. caguid=0x1000 gives h1 node GUID
// 0x1000 (ports 0x1001, 0x1002) and leaves the counter at 0x1003 (nports
// + 1 further); caguid+0x10 then gives h2 0x1000 + 0x10 = 0x1010 (port
// 0x1011), not 0x1013.
func TestIBSimNetRelativeGUID(t *testing.T) {
	net := `Switch 3 "sw"
[1] "h1"[1]
[2] "h1"[2]
[3] "h2"[1]

caguid=0x1000
Hca 2 "h1"
[1] "sw"[1]
[2] "sw"[2]

caguid+0x10
Hca 1 "h2"
[1] "sw"[3]
`
	topo, err := ReadSimNet([]byte(net), "rel.net")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range topo.Nodes[1:] {
		s := fmt.Sprintf("%s %x", n.ID, n.GUID)
		for _, p := range n.Ports {
			s += fmt.Sprintf(" %x", p.GUID)
		}
		got = append(got, s)
	}
	if want := []string{"h1 1000 1001 1002", "h2 1010 1011"}; !slices.Equal(got, want) {
		t.Errorf("GUIDs %q, want %q", got, want)
	}
}

package ib

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orcs/dot"
	"orcs/lft"
)

// The cluster fabric (testdata/ib/cluster) has what production fabrics
// have: descriptions with host names, a director switch, SHARP aggregation
// nodes. Its runs hold every output that administrators bring, from the
// real tools; cluster/noisy holds them pasted with prompts and standard
// error; cluster/ibdiagnet the hand-made ibdiagnet files.

var clusterDir = filepath.Join(ibRoot, "cluster")

// clusterTopos and clusterTables are the files of a cluster run that
// describe its topology and its tables, with the format each must be
// detected as.
var (
	clusterTopos = map[string]Format{
		"ibnetdiscover.txt":   FormatIBNetDiscover,
		"ibnetdiscover-s.txt": FormatIBNetDiscover,
		"ibnetdiscover-g.txt": FormatIBNetDiscover,
		"ibnetdiscover-p.txt": FormatIBNetDiscoverPorts,
		"iblinkinfo.txt":      FormatIBLinkInfo,
		"iblinkinfo-l.txt":    FormatIBLinkInfo,
		"opensm-subnet.lst":   FormatSubnetLst,
		"../cluster.net":      FormatIBSimNet,
	}
	clusterTables = map[string]Format{
		"opensm-lfts.dump": FormatLFTDump,
		"dump_fts.txt":     FormatDumpFTS,
		"dump_fts-a.txt":   FormatDumpFTS,
		"opensm.fdbs":      FormatFDBs,
	}
)

// buildWarn builds with the host names and collects the warnings.
func buildWarn(t *testing.T, topo *Topology, rt *Routing, opt Options) (*lft.Fabric, []string) {
	t.Helper()
	var warns []string
	opt.Warn = func(m string) { warns = append(warns, m) }
	f, err := Build(topo, rt, opt)
	if err != nil {
		t.Fatalf("%s + %s: %v", topo.File, rt.File, err)
	}
	return f, warns
}

// TestIBClusterFormats reads every output of the real tools of both
// cluster runs, and the ibdiagnet files: each is detected as its format,
// and every topology with every table file gives the same fabric, with the
// two aggregation nodes left out and reported.
func TestIBClusterFormats(t *testing.T) {
	for _, run := range []string{"minhop", "updn"} {
		dir := filepath.Join(clusterDir, run)
		topos, tables := map[string]Format{}, map[string]Format{}
		for k, v := range clusterTopos {
			topos[k] = v
		}
		for k, v := range clusterTables {
			tables[k] = v
		}
		if run == "minhop" {
			topos["../ibdiagnet/ibdiagnet2.db_csv"] = FormatIBDiagCSV
			topos["../ibdiagnet/ibdiagnet2.ibnetdiscover"] = FormatIBNetDiscover
			tables["../ibdiagnet/ibdiagnet2.fdbs"] = FormatFDBs
		}
		var digest string
		for tf, tfmt := range topos {
			topo := mustTopology(t, filepath.Join(dir, tf))
			if topo.Format != tfmt || len(topo.Warnings) != 0 {
				t.Fatalf("%s/%s: format %v, warnings %q", run, tf, topo.Format, topo.Warnings)
			}
			for rf, rfmt := range tables {
				rt := mustRouting(t, filepath.Join(dir, rf))
				if rt.Format != rfmt {
					t.Fatalf("%s/%s: format %v, want %v", run, rf, rt.Format, rfmt)
				}
				if tf == "../cluster.net" && rfmt == FormatFDBs {
					continue // neither gives a LID
				}
				f, warns := buildWarn(t, topo, rt, Options{Names: NamesHost})
				if len(warns) != 1 || !strings.Contains(warns[0], "left out 2 SHARP aggregation nodes") {
					t.Fatalf("%s/%s + %s: warnings %q", run, tf, rf, warns)
				}
				if f.NumHosts() != 8 || f.NumSwitches() != 6 || len(f.Links) != 32 {
					t.Fatalf("%s/%s + %s: %d hosts, %d switches, %d links", run, tf, rf, f.NumHosts(), f.NumSwitches(), len(f.Links))
				}
				if digest == "" {
					digest = f.Digest()
					if c := f.CheckRoutes(allHosts(f), 1, 2); !c.OK() {
						t.Fatalf("%s: %s", run, c.Summary())
					}
				} else if f.Digest() != digest {
					t.Errorf("%s/%s + %s: another fabric than the first pair", run, tf, rf)
				}
			}
		}
		// dump_fts -a holds the tables of dump_fts; ibroute -a those of
		// its switch.
		plain := tableMap(mustRouting(t, filepath.Join(dir, "dump_fts.txt")))
		all := tableMap(mustRouting(t, filepath.Join(dir, "dump_fts-a.txt")))
		one := tableMap(mustRouting(t, filepath.Join(dir, "ibroute-a-S-leaf01.txt")))
		for g, tab := range plain {
			if !sameTable(tab, all[g]) {
				t.Errorf("%s: switch %x: dump_fts -a differs from dump_fts", run, g)
			}
		}
		if len(one) != 1 || !sameTable(one[0x200004], plain[0x200004]) {
			t.Errorf("%s: ibroute -a differs from dump_fts", run)
		}
	}
}

// TestIBClusterNames checks the host names of the cluster: the host name
// of each description, "H-" in front unless it starts with H, the whole
// description for the two HCAs of one machine, ":<port>" for the ports of
// a 2-port HCA, and the GUID name for a CA without description.
func TestIBClusterNames(t *testing.T) {
	names := func(topo, lfts string, opt Options) string {
		f, err := ReadFiles(filepath.Join(clusterDir, topo), filepath.Join(clusterDir, lfts), opt)
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for h := 0; h < f.NumHosts(); h++ {
			s = append(s, f.HostName(h))
		}
		return strings.Join(s, " ")
	}
	want := "H-node001 H-node002 H-node003_mlx5_0 H-node003_mlx5_1 H-node004 H-login01:1 H-login01:2 Hydra"
	if got := names("minhop/ibnetdiscover.txt", "minhop/opensm-lfts.dump", Options{Names: NamesHost}); got != want {
		t.Errorf("host names %q\nwant %q", got, want)
	}
	// node004 did not answer: no description in ibnetdiscover, "<unknown>"
	// from OpenSM, {} in ibdiagnet.lst.
	want = strings.Replace(want, "H-node004", "H0000000000100008", 1)
	for _, topo := range []string{"noisy/ibnetdiscover.txt", "noisy/opensm-subnet.lst", "noisy/iblinkinfo.txt", "ibdiagnet/ibdiagnet.lst"} {
		if got := names(topo, "noisy/opensm-lfts.dump", Options{Names: NamesHost}); got != want {
			t.Errorf("%s: host names %q\nwant %q", topo, got, want)
		}
	}
	got := names("minhop/ibnetdiscover.txt", "minhop/opensm-lfts.dump", Options{Names: NamesHost, IncludeAggregationNodes: true})
	if !strings.HasSuffix(got, " Hydra H-Mellanox_Technologies_Aggregation_Node_000000000010000f H-Mellanox_Technologies_Aggregation_Node_0000000000100011") {
		t.Errorf("with aggregation nodes: %q", got)
	}
	// The names are valid ibsim node ids and round-trip through dot and
	// an ibsim net file: the net file's descriptions give the same names.
	f, err := ReadFiles(filepath.Join(clusterDir, "minhop", "iblinkinfo.txt"), filepath.Join(clusterDir, "minhop", "opensm.fdbs"), Options{Names: NamesHost})
	if err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	if err := dot.Write(&buf, f, dot.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	g, err := dot.Read([]byte(buf.String()), "cluster.dot", dot.Options{})
	if err != nil || g.Digest() != f.Digest() {
		t.Fatalf("dot round trip: %v", err)
	}
	plan, err := PlanSimNet(g, SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var net strings.Builder
	if err := plan.Write(&net); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSimNet([]byte(net.String()), "back.net")
	if err != nil {
		t.Fatal(err)
	}
	bf, err := BuildTopology(back, Options{Names: NamesHost})
	if err != nil {
		t.Fatal(err)
	}
	for h := 0; h < f.NumHosts(); h++ {
		if _, ok := bf.NodeByName(f.HostName(h)); !ok {
			t.Errorf("host %s lost its name through ibsim", f.HostName(h))
		}
	}
}

// TestIBNoisyFiles reads the outputs pasted from a terminal, with the
// tools' standard error (cluster/noisy): the byte-order mark, the prompts
// and the messages are skipped with a warning naming file and line, and
// the fabric is that of the clean files.
func TestIBNoisyFiles(t *testing.T) {
	dir := filepath.Join(clusterDir, "noisy")
	ref, _ := buildWarn(t, mustTopology(t, filepath.Join(dir, "opensm-subnet.lst")), mustRouting(t, filepath.Join(dir, "opensm-lfts.dump")), Options{Names: NamesHost})
	p := func(name string) string { return filepath.Join(dir, name) }
	wantTopo := map[string][]string{
		"ibnetdiscover.txt": {
			p("ibnetdiscover.txt") + ":1: skipped a UTF-8 byte-order mark",
			p("ibnetdiscover.txt") + `:1: skipped a shell prompt line "[root@mgmt01 ~]# ibnetdiscover"`,
			p("ibnetdiscover.txt") + `:2: skipped an error message of libibnetdisc "./libibnetdisc/query_smp.c:186; umad (DR path sl…"`,
			p("ibnetdiscover.txt") + `:133: skipped a shell prompt line "[root@mgmt01 ~]#"`,
		},
		"iblinkinfo.txt": {
			p("iblinkinfo.txt") + `:1: skipped a shell prompt line "admin@mgmt01:~$ iblinkinfo"`,
			p("iblinkinfo.txt") + `:2: skipped an error message of libibnetdisc "./libibnetdisc/query_smp.c:186; umad (DR path sl…"`,
			p("iblinkinfo.txt") + `:76: skipped a shell prompt line "admin@mgmt01:~$"`,
		},
	}
	wantFTS := []string{
		p("dump_fts.txt") + `:1: skipped a shell prompt line "$ dump_fts"`,
		p("dump_fts.txt") + `:2: skipped an error message of libibnetdisc "./libibnetdisc/query_smp.c:186; umad (DR path sl…"`,
	}
	fts := mustRouting(t, p("dump_fts.txt"))
	if strings.Join(fts.Warnings, "\n") != strings.Join(wantFTS, "\n") {
		t.Errorf("dump_fts warnings\n%s\nwant\n%s", strings.Join(fts.Warnings, "\n"), strings.Join(wantFTS, "\n"))
	}
	for name, want := range wantTopo {
		topo := mustTopology(t, p(name))
		f, warns := buildWarn(t, topo, fts, Options{Names: NamesHost})
		want = append(append(append([]string(nil), want...), wantFTS...), p(name)+`: left out 2 SHARP aggregation nodes (CAs described "Mellanox Technologies Aggregation Node", inside switches): they are no compute hosts; --include-aggregation-nodes keeps them`)
		if strings.Join(warns, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: warnings\n%s\nwant\n%s", name, strings.Join(warns, "\n"), strings.Join(want, "\n"))
		}
		if f.Digest() != ref.Digest() {
			t.Errorf("%s: another fabric than opensm-subnet.lst + opensm-lfts.dump", name)
		}
	}
	// ibroute with the libibmad warnings about the node that does not
	// answer: the table of one switch.
	rt := mustRouting(t, p("ibroute-S-leaf01.txt"))
	if len(rt.Switches) != 1 || len(rt.Switches[0].Entries) != 16 || len(rt.Warnings) != 2 ||
		!strings.HasSuffix(rt.Warnings[1], `:2: skipped a diagnostic message of libibmad "ibwarn: [18011] mad_rpc: _do_madrpc failed; dpor…"`) {
		t.Errorf("ibroute: %d tables, warnings %q", len(rt.Switches), rt.Warnings)
	}
}

// TestIBAggregationNodes checks that aggregation nodes never make a
// fabric fail: left out, they need no LID and no route; included, they are
// hosts, and a LID the tables lack leaves them unroutable, not the build
// failing.
func TestIBAggregationNodes(t *testing.T) {
	dir := filepath.Join(clusterDir, "minhop")
	lines := strings.Split(string(must(os.ReadFile(filepath.Join(dir, "opensm-lfts.dump")))), "\n")
	var kept []string
	for _, l := range lines {
		if !strings.Contains(l, "Aggregation Node") {
			kept = append(kept, l)
		}
	}
	// The dump has no label and no route for the aggregation nodes' LIDs,
	// and its trailers still say "<top> lids dumped".
	rt, err := ReadRouting([]byte(strings.Join(kept, "\n")), "lfts")
	if err != nil {
		t.Fatal(err)
	}
	for _, topo := range []string{"../cluster.net", "opensm-subnet.lst", "ibnetdiscover.txt"} {
		tp := mustTopology(t, filepath.Join(dir, topo))
		f, _ := buildWarn(t, tp, rt, Options{})
		if c := f.CheckRoutes(allHosts(f), 1, 2); f.NumHosts() != 8 || !c.OK() {
			t.Errorf("%s: %d hosts", topo, f.NumHosts())
		}
		f, _ = buildWarn(t, tp, rt, Options{IncludeAggregationNodes: true})
		c := f.CheckRoutes(allHosts(f), 1, 2)
		if f.NumHosts() != 10 || c.OK() || c.Unroutable != 9*2 { // every host to the two aggregation nodes
			t.Errorf("%s with aggregation nodes: %d hosts, %d unroutable", topo, f.NumHosts(), c.Unroutable)
		}
	}
}

package ib

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orcs/lft"
)

// TestIBNoiseLines checks which lines the scanner skips as not the tools'
// output, and that no line of any fixture is taken for one.
func TestIBNoiseLines(t *testing.T) {
	cases := []struct{ line, want string }{
		{"[root@node01 ~]# ibnetdiscover", "a shell prompt line"},
		{"[admin@mgmt-01 /var/tmp]$ iblinkinfo -l", "a shell prompt line"},
		{"[root@host dir]#", "a shell prompt line"},
		{"$ ibnetdiscover", "a shell prompt line"},
		{"$", "a shell prompt line"},
		{"user@host:~$ dump_fts", "a shell prompt line"},
		{"root@host:/tmp# ibroute 4", "a shell prompt line"},
		{"mgmt01:~ # ibnetdiscover -p", "a shell prompt line"},
		{"bash-5.1# ibnetdiscover", "a shell prompt line"},
		{"ibwarn: [12345] mad_rpc: _do_madrpc failed; dport (Lid 11)", "a diagnostic message of libibmad"},
		{"ibpanic: [1] main: can't open port: No such device", "a diagnostic message of libibmad"},
		{"ibroute: iberror: failed: dump tables: node info failed: valid addr?", "an error message of infiniband-diags"},
		{"ibnetdiscover: iberror: [pid 77] main: failed: discover failed", "an error message of infiniband-diags"},
		{"src/query_smp.c:228; umad (DR path slid 0; dlid 0; 0,1,3 Attr 0x11:0) bad status 110; Connection timed out", "an error message of libibnetdisc"},
		{"./libibnetdisc/query_smp.c:186; umad (DR path slid 0; dlid 0; 0,1 Attr 0x10:0) bad status 110; Connection timed out", "an error message of libibnetdisc"},
		{"/builddir/rdma-core/libibnetdisc/ibnetdisc.c:400; Failed to query", "an error message of libibnetdisc"},
		// Lines of the formats.
		{"[1]\t\"H-0000000000100000\"[1](100001) \t\t# \"node001\" lid 1 4xSDR", ""},
		{"[1][ext 1]\t\"S-0000000000200000\"[1]\t\t# \"x\" lid 2 4xSDR", ""},
		{"$foo", ""},
		{"switchguid=0x200002(200002)\t# IS5100 Spine 1 Chip 1", ""},
		{"Switch: 0x0000000000200003 MF0;ibcore01:IS5100/S02/U1:", ""},
		{"CA: node003 mlx5_1:", ""},
		{"0x0001 001 # Channel Adapter portguid 0x0000000000100001: 'H-0'", ""},
		{"24 lids dumped", ""},
		{"query_smp.c:12 no semicolon", ""},
		{"x.c:; y", ""},
		{"START_NODES", ""},
		{`"node001 mlx5_0",1,1,1,1,0x1,0x1,0x2`, ""},
	}
	for _, c := range cases {
		if got := noise([]byte(c.line)); got != c.want {
			t.Errorf("noise(%q) = %q, want %q", c.line, got, c.want)
		}
	}
	files, _ := filepath.Glob(filepath.Join(ibRoot, "*", "*", "*"))
	files = append(files, must(filepath.Glob(filepath.Join(ibRoot, "*", "*.net")))...)
	for _, p := range files {
		if strings.Contains(p, "noisy") || strings.HasSuffix(p, "engine.txt") {
			continue
		}
		for i, l := range strings.Split(string(must(os.ReadFile(p))), "\n") {
			if why := noise([]byte(l)); why != "" {
				t.Errorf("%s:%d: %q taken for %s", p, i+1, l, why)
			}
		}
	}
}

// TestIBNoiseEveryReader pastes a byte-order mark, prompts and tool
// messages into a fixture file of every format: each reader skips them
// with warnings naming the lines, reads what the clean file gives, and
// still locates its errors by the line numbers of the file.
func TestIBNoiseEveryReader(t *testing.T) {
	files := []string{
		"dualport/minhop/ibnetdiscover.txt", "dualport/minhop/ibnetdiscover-s.txt", "dualport/dualport.net",
		"dualport/minhop/opensm-subnet.lst", "dualport/minhop/opensm-lfts.dump", "dualport/minhop/dump_fts.txt",
		"dualport/minhop/ibroute-S-1.txt", "dualport/minhop/opensm.fdbs",
		"cluster/minhop/ibnetdiscover-g.txt", "cluster/minhop/ibnetdiscover-p.txt", "cluster/minhop/iblinkinfo.txt",
		"cluster/minhop/iblinkinfo-l.txt", "cluster/minhop/dump_fts-a.txt", "cluster/ibdiagnet/ibdiagnet2.db_csv",
		"cluster/ibdiagnet/ibdiagnet2.ibnetdiscover", "cluster/ibdiagnet/ibdiagnet.lst",
	}
	read := func(data []byte, name string) (any, []string, error) {
		if f := DetectFormat(data); f.IsRouting() {
			rt, err := ReadRouting(data, name)
			if err != nil {
				return nil, nil, err
			}
			w := rt.Warnings
			rt.Warnings = nil
			return rt, w, nil
		}
		topo, err := ReadTopology(data, name)
		if err != nil {
			return nil, nil, err
		}
		w := topo.Warnings
		topo.Warnings = nil
		return topo, w, nil
	}
	for _, name := range files {
		clean := string(must(os.ReadFile(filepath.Join(ibRoot, name))))
		lines := strings.Split(strings.TrimSuffix(clean, "\n"), "\n")
		mid := len(lines) / 2
		noisy := append([]string{"\ufeff[root@mgmt01 ~]# cat " + filepath.Base(name)}, lines[:mid]...)
		noisy = append(noisy, "ibwarn: [4242] mad_rpc: _do_madrpc failed; dport (Lid 7)",
			"src/query_smp.c:228; umad (DR path slid 0; dlid 0; 0,1 Attr 0x11:0) bad status 110; Connection timed out")
		noisy = append(noisy, lines[mid:]...)
		noisy = append(noisy, "tool: iberror: failed: something", "[root@mgmt01 ~]# ")
		want, _, err := read([]byte(clean), "f")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, warns, err := read([]byte(strings.Join(noisy, "\n")+"\n"), "f")
		if err != nil {
			t.Fatalf("%s with noise: %v", name, err)
		}
		// Entries and ports keep the lines of the clean file, shifted:
		// compare what does not name lines.
		if a, b := fmt.Sprintf("%v", stripLines(want)), fmt.Sprintf("%v", stripLines(got)); a != b {
			t.Errorf("%s: noise changes what is read", name)
		}
		n := len(noisy)
		wantWarns := []string{
			"f:1: skipped a UTF-8 byte-order mark",
			`f:1: skipped a shell prompt line "[root@mgmt01 ~]# cat ` + filepath.Base(name) + `"`,
			fmt.Sprintf(`f:%d: skipped a diagnostic message of libibmad "ibwarn: [4242] mad_rpc: _do_madrpc failed; dport…"`, mid+2),
			fmt.Sprintf(`f:%d: skipped an error message of libibnetdisc "src/query_smp.c:228; umad (DR path slid 0; dlid …"`, mid+3),
			fmt.Sprintf(`f:%d: skipped an error message of infiniband-diags "tool: iberror: failed: something"`, n-1),
			"f: skipped 1 more line that is not the tool's output",
		}
		if strings.Join(warns, "\n") != strings.Join(wantWarns, "\n") {
			t.Errorf("%s: warnings\n%s\nwant\n%s", name, strings.Join(warns, "\n"), strings.Join(wantWarns, "\n"))
		}
		// An error after the noise names the line of the file.
		bad := append([]string(nil), noisy...)
		bad[mid+4] = "\x01garbage line"
		_, _, err = read([]byte(strings.Join(bad, "\n")+"\n"), "f")
		if err == nil || !strings.HasPrefix(err.Error(), fmt.Sprintf("f:%d: ", mid+5)) {
			if !strings.HasSuffix(name, ".net") { // ibsim ignores lines it does not know
				t.Errorf("%s: error %v, want one at line %d", name, err, mid+5)
			}
		}
	}
}

// stripLines returns a copy of a topology or routing without line numbers.
func stripLines(v any) any {
	switch x := v.(type) {
	case *Topology:
		c := *x
		c.Nodes = append([]TopoNode(nil), x.Nodes...)
		for i := range c.Nodes {
			n := &c.Nodes[i]
			n.Line, n.File, n.Port0.Line = 0, "", 0
			n.Ports = append([]TopoPort(nil), n.Ports...)
			for k := range n.Ports {
				n.Ports[k].Line = 0
			}
		}
		return c
	case *Routing:
		c := *x
		c.labels = nil
		c.Switches = append([]LFT(nil), x.Switches...)
		for i := range c.Switches {
			s := &c.Switches[i]
			s.Line = 0
			s.Entries = append([]LFTEntry(nil), s.Entries...)
			for k := range s.Entries {
				s.Entries[k].Line = 0
			}
		}
		return c
	}
	return v
}

// TestIBReadBackAll checks the dump_fts -a and ibroute -a dialect and the
// no-route entries of .fdbs files: LID 0, out port 255 and illegal ports
// are no routes; the trailer counts every entry line.
func TestIBReadBackAll(t *testing.T) {
	head := "Unicast lids [0x0-0x4] of switch DR path slid 0; dlid 0; 0 guid 0x0000000000200000 (sw):\n  Lid  Out   Destination\n       Port     Info \n"
	ok := head + "0x0000 255 : (path #0 - illegal port)\n0x0001 001 : (Channel Adapter portguid 0x0000000000100001: 'h')\n" +
		"0x0002 000 : (Switch portguid 0x0000000000200000: 'sw')\n0x0003 255 : (illegal port)\n0x0004 040 : (illegal port)\n5 lids dumped \n"
	rt, err := ReadLFTDump([]byte(ok), "a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if e := rt.Switches[0].Entries; len(e) != 2 || e[0].LID != 1 || e[1].LID != 2 || rt.Format != FormatDumpFTS {
		t.Errorf("entries %+v", e)
	}
	for _, c := range []struct{ data, want string }{
		{strings.Replace(ok, "5 lids dumped", "4 lids dumped", 1), "a.txt:9: trailer says 4 lids dumped, the table of switch 0x0000000000200000 (line 1) has 5 entries"},
		{strings.Replace(ok, "5 lids dumped", "3 valid lids dumped", 1), "a.txt:9: trailer says 3 valid lids, the table of switch 0x0000000000200000 (line 1) has 5 entries"},
		{strings.Replace(ok, "0x0003 255", "0x0003 256", 1), "a.txt:7: LID 0x0003: out port 256 out of range 0-254"},
		{strings.Replace(ok, "0x0004 040", "0xc000 001", 1), "a.txt:8: LID 0xc000 is not a unicast LID"},
	} {
		if _, err := ReadLFTDump([]byte(c.data), "a.txt"); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("error %v, want %s", err, c.want)
		}
	}
	fdbs := "osm_ucast_mgr_dump_ucast_routes: Switch 0x0000000000200000\nLID    : Port : Hops : Optimal\n" +
		"0x0000 : 255  : 00   : yes\n0x0001 : 001  : 01   : yes\n0x0002 : 255  : 00   : yes\n0x0003 : UNREACHABLE\n0x0004 : 000  : 00   : yes\n"
	rt, err = ReadFDBs([]byte(fdbs), "x.fdbs")
	if err != nil {
		t.Fatal(err)
	}
	if e := rt.Switches[0].Entries; len(e) != 2 || e[0].LID != 1 || e[1].LID != 4 || rt.Switches[0].Top != 4 {
		t.Errorf("fdbs entries %+v", e)
	}
}

// TestIBChassisFiles checks ibnetdiscover -g and ibdiagnet's
// ibnetdiscover file: chassis headers and external port numbers are
// skipped, and node GUIDs are those of the ids, not the chassis GUID of
// switchguid=.
func TestIBChassisFiles(t *testing.T) {
	g := mustTopology(t, filepath.Join(clusterDir, "minhop", "ibnetdiscover-g.txt"))
	d := mustTopology(t, filepath.Join(clusterDir, "ibdiagnet", "ibdiagnet2.ibnetdiscover"))
	p := mustTopology(t, filepath.Join(clusterDir, "minhop", "ibnetdiscover.txt"))
	for _, topo := range []*Topology{g, d} {
		guids := map[uint64]bool{}
		for _, n := range topo.Nodes {
			guids[n.GUID] = true
			if n.Kind == lft.Switch && n.Port0.GUID != n.GUID {
				t.Errorf("%s: switch %s: port 0 GUID 0x%x", topo.File, n.ID, n.Port0.GUID)
			}
		}
		for _, n := range p.Nodes {
			if !guids[n.GUID] {
				t.Errorf("%s lacks node 0x%x", topo.File, n.GUID)
			}
		}
		if len(topo.Nodes) != len(p.Nodes) {
			t.Errorf("%s: %d nodes", topo.File, len(topo.Nodes))
		}
	}
	// The lines -g adds are errors in ibnetdiscover output without them
	// only where they do not belong: in an ibsim net file ibsim ignores
	// them.
	for _, extra := range []string{"Chassis 1 (guid 0x2c90300abc000)", "Non-Chassis Nodes", "Hostname: chassis-a"} {
		data := "#\n# Topology file: generated on x\n#\n" + extra + "\n\nvendid=0x0\ncaguid=0x10\nCa\t1 \"H-0000000000000010\"\t\t# \"h\"\n"
		if topo, err := ReadNetDiscover([]byte(data), "g.txt"); err != nil || len(topo.Nodes) != 1 {
			t.Errorf("%s: %v", extra, err)
		}
		if _, err := ReadNetDiscover([]byte(strings.Replace(data, extra, "Chassisx", 1)), "g.txt"); err == nil {
			t.Errorf("%s: other lines accepted", extra)
		}
	}
	// switchguid= with a chassis GUID repeated: two ASICs, one chassis.
	data := "vendid=0x2c9\nswitchguid=0xabc(0000000000000001)\nSwitch\t2 \"S-0000000000000001\"\t\t# \"a\" base port 0 lid 1 lmc 0\n[1]\t\"S-0000000000000002\"[1]\t\t# \"b\" lid 2 4xSDR\n\n" +
		"vendid=0x2c9\nswitchguid=0xabc(0000000000000002)\nSwitch\t2 \"S-0000000000000002\"\t\t# \"b\" base port 0 lid 2 lmc 0\n[1]\t\"S-0000000000000001\"[1]\t\t# \"a\" lid 1 4xSDR\n"
	topo, err := ReadNetDiscover([]byte(data), "d.txt")
	if err != nil || topo.Nodes[0].GUID != 1 || topo.Nodes[1].GUID != 2 || topo.Nodes[1].Port0.GUID != 2 {
		t.Errorf("chassis GUIDs: %v %+v", err, topo)
	}
	if DetectFormat([]byte(data)) != FormatIBNetDiscover {
		t.Error("not detected as ibnetdiscover")
	}
	// An ibsim net file with vendid= directives stays an ibsim net file.
	if f := DetectFormat([]byte("vendid=0x2c9\nSwitch 2 \"sw\"\n[1] \"h\"[1]\n")); f != FormatIBSimNet {
		t.Errorf("net file detected as %v", f)
	}
}

// TestIBReaderErrors checks the errors of the readers of ibnetdiscover -p,
// iblinkinfo and ibdiagnet2.db_csv: located at their line, never a
// partial result.
func TestIBReaderErrors(t *testing.T) {
	lines := func(path string) []string {
		return strings.Split(strings.TrimSuffix(string(must(os.ReadFile(filepath.Join(clusterDir, path)))), "\n"), "\n")
	}
	ports := lines("minhop/ibnetdiscover-p.txt")
	link := lines("minhop/iblinkinfo.txt")
	linkL := lines("minhop/iblinkinfo-l.txt")
	csv := lines("ibdiagnet/ibdiagnet2.db_csv")
	find := func(ls []string, sub string) int {
		for i, l := range ls {
			if strings.Contains(l, sub) {
				return i
			}
		}
		t.Fatalf("no line with %q", sub)
		return -1
	}
	type tc struct {
		name  string
		data  []byte
		read  func([]byte, string) (*Topology, error)
		line  int
		want  string
		isFmt bool
	}
	var cases []tc
	add := func(name string, ls []string, i int, repl string, read func([]byte, string) (*Topology, error), want string) {
		cases = append(cases, tc{name, edit(ls, map[int]string{i + 1: repl}), read, i + 1, want, false})
	}
	i := find(ports, "CA    14  1")
	add("ports: bad type", ports, i, strings.Replace(ports[i], "CA ", "XX ", 1), ReadPortsReport, `unknown node type "XX"`)
	add("ports: bad guid", ports, i, strings.Replace(ports[i], "0x000000000010000e", "0xzz", 1), ReadPortsReport, "port 1: bad port GUID")
	add("ports: no descriptions", ports, i, ports[i][:strings.Index(ports[i], " ( '")], ReadPortsReport, "want ( '<description>' - '<remote description>' )")
	add("ports: unknown remote", ports, i, strings.Replace(ports[i], "0x0000000000200005", "0x0000000000300005", 1), ReadPortsReport, "port 1 connects to a switch (node GUID 0x0000000000300005), which the report does not list")
	add("ports: remote port disagrees", ports, i, strings.Replace(ports[i], "SW     9  4", "SW     9  7", 1), ReadPortsReport, "port 7 of switch \"MF0;leaf02:MQM8700/U1\" (0x0000000000200005)")
	cases[len(cases)-1].line = 0 // the first port of the cable in file order
	j := find(ports, "SW     6  7")
	add("ports: LID differs", ports, j, strings.Replace(ports[j], "SW     6", "SW     7", 1), ReadPortsReport, "switch 0x0000000000200003 has LID 7 here, 6 at line")
	i = find(link, `"Hydra mlx5_0"`)
	add("linkinfo: bad remote port", link, i, strings.Replace(link[i], "    1[  ] \"Hydra", "    x[  ] \"Hydra", 1), ReadLinkInfo, "bad remote port number")
	add("linkinfo: unknown LID", link, i, strings.Replace(link[i], "      14    1[  ] \"Hydra", "      99    1[  ] \"Hydra", 1), ReadLinkInfo, "connects to LID 99 (\"Hydra mlx5_0\"), which the file does not list: iblinkinfo --switches-only")
	add("linkinfo: LID 0", link, i, strings.Replace(link[i], "      14    1[  ] \"Hydra", "       0    1[  ] \"Hydra", 1), ReadLinkInfo, "which has LID 0")
	add("linkinfo: no arrow", link, i, strings.Replace(link[i], ")==>", ")=>", 1), ReadLinkInfo, "unexpected line")
	k := find(link, "CA: Hydra")
	add("linkinfo: CA line without GUID", link, k+1, strings.Replace(link[k+1], "0x000000000010000e", "", 1), ReadLinkInfo, "CA port line without its port GUID")
	i = find(linkL, `"Hydra mlx5_0"`)
	add("linkinfo -l: unknown GUID", linkL, i, strings.Replace(linkL[i], "0x000000000010000e     14", "0x000000000010009e     14", 1), ReadLinkInfo, "connects to port GUID 0x000000000010009e")
	i = find(csv, "0x000000000010000d,1,0x0000000000200005,4")
	add("csv: unknown node", csv, i, "0x000000000010009d,1,0x0000000000200005,4", ReadDBCSV, "node 0x000000000010009d is not in the START_NODES table")
	add("csv: port out of range", csv, i, "0x000000000010000d,3,0x0000000000200005,4", ReadDBCSV, "port 3 of CA \"Hydra mlx5_0\" (0x000000000010000d): the node has ports 1-1")
	add("csv: port twice", csv, i, "0x000000000010000d,1,0x0000000000200005,1", ReadDBCSV, "port 1 of switch \"MF0;leaf02:MQM8700/U1\" (0x0000000000200005) is in two START_LINKS rows")
	add("csv: fields", csv, i, "0x000000000010000d,1,0x0000000000200005", ReadDBCSV, "3 fields, the header of START_LINKS")
	add("csv: quote", csv, find(csv, `"Hydra`), `"Hydra mlx5_0,1,1`, ReadDBCSV, "unterminated quoted field")
	add("csv: bad number", csv, find(csv, `"Hydra`), strings.Replace(csv[find(csv, `"Hydra`)], ",1,1,1,1,", ",x,1,1,1,", 1), ReadDBCSV, `bad NumPorts "x"`)
	add("csv: END mismatch", csv, find(csv, "END_LINKS"), "END_NODES", ReadDBCSV, "END_NODES closes START_LINKS")
	add("csv: column missing", csv, find(csv, "NodeGuid1,PortNum1"), "NodeGuid1,PortNum1,NodeGuid2,Port2", ReadDBCSV, "START_LINKS table without a PortNum2 column")
	add("csv: text outside", csv, find(csv, "START_LINKS")-1, "hello", ReadDBCSV, `unexpected line "hello" outside a START_/END_ table`)
	end := find(csv, "END_LINKS")
	cases = append(cases,
		tc{"csv: truncated", []byte(strings.Join(csv[:end], "\n")), ReadDBCSV, end, "START_LINKS of line", false},
		tc{"csv: no links", []byte(strings.Join(csv[:find(csv, "START_LINKS")], "\n")), ReadDBCSV, 0, "no START_LINKS table", true},
		tc{"linkinfo: nothing", []byte("CA: x:\n"), ReadLinkInfo, 0, "no ports listed", true},
		tc{"ports: nothing", []byte("# x\n"), ReadPortsReport, 0, "no ports listed", true},
		tc{"linkinfo: port before header", []byte(link[1] + "\n"), ReadLinkInfo, 1, "port line before any", false},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			topo, err := c.read(c.data, "f")
			if topo != nil || err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, %v; want an error with %q", topo != nil, err, c.want)
			}
			if c.isFmt {
				parseErr(t, err, "f", 0, ErrFormat)
			} else {
				parseErr(t, err, "f", c.line, nil)
			}
		})
	}
}

// TestIBHostNames checks the host name style on made-up descriptions.
func TestIBHostNames(t *testing.T) {
	long := strings.Repeat("n", 70)
	nodes := []ibNamed{
		{lft.Host, 0x10, "node017 mlx5_0", 0},
		{lft.Host, 0x20, "node018 mlx5_0", 1},
		{lft.Host, 0x20, "node018 mlx5_0", 2},
		{lft.Host, 0x30, "MT4123 ConnectX6 Mellanox Technologies", 0},
		{lft.Host, 0x40, "MT4123 ConnectX6 Mellanox Technologies", 0},
		{lft.Host, 0x50, "", 0},
		{lft.Host, 0x60, "<unknown>", 0},
		{lft.Host, 0x70, "HPC-login1 HCA-1", 0},
		{lft.Host, 0x80, "hpc,\"x\"#y@z HCA", 0},
		{lft.Host, 0x90, long + " x", 0},
		{lft.Host, 0xa0, "H0000000000000050", 0},
		{lft.Switch, 0xb0, "node017 switch", 0},
		{lft.Router, 0xc0, "rt", 0},
	}
	want := []string{
		"H-node017",
		"H-node018:1",
		"H-node018:2",
		"H-MT4123_ConnectX6_Mellanox_Technologies_0000000000000030",
		"H-MT4123_ConnectX6_Mellanox_Technologies_0000000000000040",
		"H0000000000000050_0000000000000050", // shares its name with the next but one
		"H0000000000000060",
		"HPC-login1",
		"H-hpc_x_y_z",
		"H-" + long[:40],
		"H0000000000000050_00000000000000a0",
		"S00000000000000b0",
		"R00000000000000c0",
	}
	got := ibNames(nodes, NamesHost)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("host names:\n%q\nwant\n%q", got, want)
	}
	for _, name := range got {
		if err := checkIBSimName(name); err != nil || strings.ContainsAny(name, " ,@") {
			t.Errorf("%q: %v", name, err)
		}
	}
	if s, err := ParseNameStyle("host"); err != nil || s != NamesHost || s.String() != "host" {
		t.Errorf("ParseNameStyle(host) = %v, %v", s, err)
	}
}

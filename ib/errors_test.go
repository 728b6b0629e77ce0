package ib

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orcs/infile"
)

// fixtureLines returns a fixture file of dualport/minhop (or another run)
// as lines.
func fixtureLines(t *testing.T, run, name string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(ibRoot, run, name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// edit applies changes to a copy of lines: line number (1-based) → new
// text; "" deletes the line; a text starting with "+" inserts it before
// the line.
func edit(lines []string, changes map[int]string) []byte {
	var out []string
	for i, l := range lines {
		c, ok := changes[i+1]
		switch {
		case !ok:
			out = append(out, l)
		case c == "":
		case strings.HasPrefix(c, "+"):
			out = append(out, c[1:], l)
		default:
			out = append(out, c)
		}
	}
	return []byte(strings.Join(out, "\n") + "\n")
}

func head(lines []string, n int) []byte { return []byte(strings.Join(lines[:n], "\n") + "\n") }

// TestIBBadInput checks that every kind of bad input is refused with its
// exact message, located at the offending line, whether the files are read
// from memory or from disk (packed tables).
func TestIBBadInput(t *testing.T) {
	const dp = "dualport/minhop"
	topo := fixtureLines(t, dp, "ibnetdiscover.txt")
	lfts := fixtureLines(t, dp, "opensm-lfts.dump")
	fts := fixtureLines(t, dp, "dump_fts.txt")
	fdbs := fixtureLines(t, dp, "opensm.fdbs")
	lst := fixtureLines(t, dp, "opensm-subnet.lst")
	net := fixtureLines(t, "dualport", "dualport.net")
	okTopo := edit(topo, nil)
	okLFTS := edit(lfts, nil)
	ft16LFTS := edit(fixtureLines(t, "ft16/minhop", "opensm-lfts.dump"), nil)
	cases := []struct {
		name        string
		topoName    string
		topo        []byte
		routingName string
		routing     []byte
		want        string
	}{
		// Dumps.
		{"truncated lfts dump", "ibnetdiscover.txt", okTopo, "opensm-lfts.dump", head(lfts, 18),
			`opensm-lfts.dump:18: truncated dump: the table of switch 0x0000000000200001 (line 13) has no "lids dumped" trailer`},
		{"truncated dump_fts", "ibnetdiscover.txt", okTopo, "dump_fts.txt", head(fts, 9),
			`dump_fts.txt:9: truncated dump: the table of switch 0x0000000000200001 (line 1) has no "lids dumped" trailer`},
		{"dump_fts trailer disagrees", "ibnetdiscover.txt", okTopo, "dump_fts.txt", edit(fts, map[int]string{8: ""}),
			`dump_fts.txt:13: trailer says 10 valid lids, the table of switch 0x0000000000200001 (line 1) has 9 entries: truncated or edited`},
		{"truncated fdbs", "ibnetdiscover.txt", okTopo, "opensm.fdbs", head(fdbs, 21),
			`opensm.fdbs:21: truncated file: the last table (switch 0x0000000000200001, line 13) ends at LID 0x0007, the table at line 1 goes to 0x000A`},
		{"fdbs cut inside a line", "ibnetdiscover.txt", okTopo, "opensm.fdbs", []byte(strings.Join(fdbs[:20], "\n") + "\n0x0007 : 00"),
			`opensm.fdbs:21: LID 0x0007: want ': <hops>' after the port, got ""`},
		{"lfts table without header", "ibnetdiscover.txt", okTopo, "opensm-lfts.dump", edit(lfts, map[int]string{1: ""}),
			`opensm-lfts.dump:1: entry "0x0001 001 # Channel Adapter portguid 0x00000000…" outside a switch table (no "Unicast lids" header before it)`},
		{"fdbs table without header", "ibnetdiscover.txt", okTopo, "opensm.fdbs", edit(fdbs, map[int]string{1: "", 2: ""}),
			`opensm.fdbs:1: entry "0x0001 : 001  : 01   : yes" outside a switch table (no "dump_ucast_routes: Switch" header before it)`},
		{"LID listed twice", "ibnetdiscover.txt", okTopo, "opensm-lfts.dump", edit(lfts, map[int]string{7: "+" + lfts[5]}),
			`opensm-lfts.dump:7: LID 0x0005 listed twice in the table of switch 0x0000000000200000`},
		{"out port beyond the switch", "ibnetdiscover.txt", okTopo, "opensm-lfts.dump", edit(lfts, map[int]string{6: strings.Replace(lfts[5], " 005 ", " 009 ", 1)}),
			`opensm-lfts.dump:6: LID 0x0005: out port 9 out of range: switch "S-0" (0x0000000000200000) has ports 1-6`},
		{"out port beyond 254", "ibnetdiscover.txt", okTopo, "opensm-lfts.dump", edit(lfts, map[int]string{6: strings.Replace(lfts[5], " 005 ", " 300 ", 1)}),
			`opensm-lfts.dump:6: LID 0x0005: out port 300 out of range 0-254`},
		{"out port 0 for a host", "ibnetdiscover.txt", okTopo, "opensm-lfts.dump", edit(lfts, map[int]string{2: strings.Replace(lfts[1], " 001 ", " 000 ", 1)}),
			`opensm-lfts.dump:2: LID 0x0001: out port 0 (the switch itself) in the table of switch "S-0" (0x0000000000200000), but the LID is CA "H-0" (0x0000000000100000) port 1's`},
		{"out port without cable", "ibnetdiscover.txt", okTopo, "opensm-lfts.dump", edit(lfts, map[int]string{18: strings.Replace(lfts[17], " 001 ", " 005 ", 1)}),
			`opensm-lfts.dump:18: LID 0x0005 (CA "H-2" (0x0000000000100004) port 1): out port 5 of switch "S-1" (0x0000000000200001) has no cable in ibnetdiscover.txt`},
		{"unknown LID", "ibnetdiscover.txt", okTopo, "opensm.fdbs",
			edit(fdbs, map[int]string{13: "+0x000B : 005  : 02   : yes", 24: fdbs[23] + "\n0x000B : 007  : 02   : yes"}),
			`opensm.fdbs:13: LID 0x000b is not in ibnetdiscover.txt: no port has it`},
		{"unknown LID in a dump", "ibnetdiscover.txt", okTopo, "opensm-lfts.dump",
			edit(lfts, map[int]string{1: strings.Replace(lfts[0], "[0-10]", "[0-11]", 1), 12: "0x000b 005 # Unknown\n11 lids dumped"}),
			`opensm-lfts.dump:12: LID 0x000b is not in ibnetdiscover.txt: no port has it`},
		{"LID of an unknown port", "ibnetdiscover.txt", okTopo, "opensm-lfts.dump",
			edit(lfts, map[int]string{6: strings.Replace(lfts[5], "100005", "999999", 1), 18: strings.Replace(lfts[17], "100005", "999999", 1)}),
			`opensm-lfts.dump:6: LID 0x0005 belongs to port GUID 0x0000000000999999, which is not in ibnetdiscover.txt: the files do not describe the same fabric`},
		{"labels disagree", "ibnetdiscover.txt", okTopo, "opensm-lfts.dump",
			edit(lfts, map[int]string{18: strings.Replace(lfts[17], "100005", "100007", 1)}),
			`opensm-lfts.dump:18: LID 0x0005 is port 0x0000000000100007 here but port 0x0000000000100005 at line 6`},
		{"labels disagree with the topology", "ibnetdiscover.txt", okTopo, "opensm-lfts.dump",
			edit(lfts, map[int]string{6: strings.Replace(lfts[5], "100005", "100007", 1), 18: strings.Replace(lfts[17], "100005", "100007", 1)}),
			`opensm-lfts.dump:6: LID 0x0005 is port GUID 0x0000000000100007 (CA "H-3" (0x0000000000100006) port 1) here but CA "H-2" (0x0000000000100004) port 1 in ibnetdiscover.txt (line 42)`},
		{"label of the wrong kind", "ibnetdiscover.txt", okTopo, "opensm-lfts.dump",
			edit(lfts, map[int]string{6: strings.Replace(lfts[5], "Channel Adapter", "Switch", 1)}),
			`opensm-lfts.dump:6: LID 0x0005: the dump calls port GUID 0x0000000000100005 a switch, ibnetdiscover.txt says CA "H-2" (0x0000000000100004) port 1`},
		{"mismatched pair", "ibnetdiscover.txt", okTopo, "opensm-lfts.dump", ft16LFTS,
			`opensm-lfts.dump:53: switch 0x0000000000200002 ("S-leaf2") is not in ibnetdiscover.txt: the files do not describe the same fabric`},
		{"switch without table", "ibnetdiscover.txt", okTopo, "opensm-lfts.dump", head(lfts, 12),
			`opensm-lfts.dump: switch "S-1" (0x0000000000200001) (ibnetdiscover.txt:10) has no table in the dump: the files do not describe the same fabric, or the dump is incomplete`},
		{"header LID disagrees", "ibnetdiscover.txt", okTopo, "opensm-lfts.dump", edit(lfts, map[int]string{1: strings.Replace(lfts[0], "Lid 2", "Lid 9", 1)}),
			`opensm-lfts.dump:1: the header gives switch 0x0000000000200000 LID 9, ibnetdiscover.txt says 2 (line 22)`},
		{"bad LID", "ibnetdiscover.txt", okTopo, "opensm-lfts.dump", edit(lfts, map[int]string{3: "0xzz02 000 # Switch"}),
			`opensm-lfts.dump:3: bad LID "zz02"`},
		{"multicast LID", "ibnetdiscover.txt", okTopo, "opensm-lfts.dump", edit(lfts, map[int]string{3: "0xc002 000 # Switch"}),
			`opensm-lfts.dump:3: LID 0xc002 is not a unicast LID`},
		{"garbage in a dump", "ibnetdiscover.txt", okTopo, "opensm-lfts.dump", edit(lfts, map[int]string{3: "hello world"}),
			`opensm-lfts.dump:3: unexpected line "hello world"`},
		// Topologies.
		{"duplicate LID", "ibnetdiscover.txt", edit(topo, map[int]string{35: strings.Replace(topo[34], "# lid 6 ", "# lid 5 ", 1)}), "opensm-lfts.dump", okLFTS,
			`ibnetdiscover.txt:42: duplicate LID 5: CA "H-2" (0x0000000000100004) port 1 and CA "H-3" (0x0000000000100006) port 1 (line 35) both have it`},
		{"topology port beyond the switch", "ibnetdiscover.txt", edit(topo, map[int]string{28: strings.Replace(topo[27], "[6]", "[7]", 1)}), "opensm-lfts.dump", okLFTS,
			`ibnetdiscover.txt:28: port 7 out of range: switch "S-0000000000200000" has ports 1-6`},
		{"one-sided cable", "dualport.net", edit(net, map[int]string{13: ""}), "opensm-lfts.dump", okLFTS,
			`dualport.net:42: port 2 of "H-5" connects to "S-0"[4], which does not list that port (both ends of a cable must be listed)`},
		{"cable ends disagree", "dualport.net", edit(net, map[int]string{22: strings.Replace(net[21], "[5]", "[6]", 1), 23: strings.Replace(net[22], "[6]", "[5]", 1)}), "opensm-lfts.dump", okLFTS,
			`dualport.net:14: port 5 of "S-0" connects to "S-1"[7], but that port connects to "S-0"[6] (line 22)`},
		{"unknown remote", "dualport.net", edit(net, map[int]string{10: `[1] "H-9"[1]`}), "opensm-lfts.dump", okLFTS,
			`dualport.net:10: port 1 connects to unknown node id "H-9"`},
		{"duplicate node id", "dualport.net", edit(net, map[int]string{29: `Hca 1 "H-0"`}), "opensm-lfts.dump", okLFTS,
			`dualport.net:29: node id "H-0" defined twice (first at line 25)`},
		{"port line outside a record", "dualport.net", edit(net, map[int]string{8: `[1] "S-1"[1]`}), "opensm-lfts.dump", okLFTS,
			`dualport.net:8: port line "[1] \"S-1\"[1]" outside a node record (a record starts with Switch, Hca, Ca or Rt)`},
		{"bad port count", "dualport.net", edit(net, map[int]string{9: `Switch 0 "S-0"`}), "opensm-lfts.dump", okLFTS,
			`dualport.net:9: Switch 0: a node has 1 to 254 ports`},
		{"unexpected ibnetdiscover line", "ibnetdiscover.txt", edit(topo, map[int]string{7: "hello"}), "opensm-lfts.dump", okLFTS,
			`ibnetdiscover.txt:7: unexpected line "hello" in ibnetdiscover output`},
		{"bad lmc", "ibnetdiscover.txt", edit(topo, map[int]string{35: strings.Replace(topo[34], "lmc 0", "lmc 9", 1)}), "opensm-lfts.dump", okLFTS,
			`ibnetdiscover.txt:35: port 1: lmc 9 out of range 0-7`},
		{"subnet list node type", "opensm-subnet.lst", edit(lst, map[int]string{2: strings.Replace(lst[1], "{ SW ", "{ XX ", 1)}), "opensm-lfts.dump", okLFTS,
			`opensm-subnet.lst:2: unknown node type "XX" (want SW, CA or Rt)`},
		{"subnet list cut", "opensm-subnet.lst", []byte(lst[0][:120] + "\n"), "opensm-lfts.dump", okLFTS,
			`opensm-subnet.lst:1: DevID: bad hexadecimal value ""`},
		{"subnet list ends disagree", "opensm-subnet.lst", edit(lst, map[int]string{2: strings.Replace(lst[1], "PN:01 } {", "PN:03 } {", 1)}), "opensm-lfts.dump", okLFTS,
			`opensm-subnet.lst:2: port 1 of 0x0000000000100000 ("H-0") connects to 0x0000000000200000[3] here but to 0x0000000000200000[1] at line 1`},
		// Files of the wrong kind.
		{"routing dump as topology", "opensm-lfts.dump", okLFTS, "opensm-lfts.dump", okLFTS,
			`opensm-lfts.dump: this is a routing dump (opensm-lfts.dump), not a topology: want a topology (ibnetdiscover output, plain, -s, -g or -p, iblinkinfo output, an ibsim net file, opensm-subnet.lst, ibdiagnet2.db_csv)`},
		{"topology as routing dump", "ibnetdiscover.txt", okTopo, "ibnetdiscover.txt", okTopo,
			`ibnetdiscover.txt: this is a topology (ibnetdiscover), not a routing dump: want forwarding tables (opensm-lfts.dump, dump_fts or ibroute output, opensm.fdbs, ibdiagnet2.fdbs)`},
		{"empty dump", "ibnetdiscover.txt", okTopo, "opensm-lfts.dump", nil,
			`opensm-lfts.dump: empty file: want forwarding tables (opensm-lfts.dump, dump_fts or ibroute output, opensm.fdbs, ibdiagnet2.fdbs); ` + routingHint},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			topo, err := ReadTopology(c.topo, c.topoName)
			var rt *Routing
			if err == nil {
				rt, err = ReadRouting(c.routing, c.routingName)
			}
			if err == nil {
				_, err = Build(topo, rt, Options{})
			}
			if err == nil {
				t.Fatalf("no error, want %s", c.want)
			}
			if err.Error() != c.want {
				t.Errorf("error\n %s\nwant\n %s", err, c.want)
			}
			// The same files read from disk: the readers pack the
			// tables, Build checks their bytes.
			dir := t.TempDir()
			tp, rp := filepath.Join(dir, "t", c.topoName), filepath.Join(dir, "r", c.routingName)
			for p, data := range map[string][]byte{tp: c.topo, rp: c.routing} {
				if os.MkdirAll(filepath.Dir(p), 0o755) != nil || os.WriteFile(p, data, 0o644) != nil {
					t.Fatal("cannot write the files")
				}
			}
			_, err = ReadFiles(tp, rp, Options{})
			if err == nil {
				t.Fatalf("from files: no error, want %s", c.want)
			}
			msg := strings.ReplaceAll(strings.ReplaceAll(err.Error(), filepath.Dir(tp)+"/", ""), filepath.Dir(rp)+"/", "")
			if msg != c.want {
				t.Errorf("from files: error\n %s\nwant\n %s", msg, c.want)
			}
		})
	}
}

// TestIBDumpFTSQuirk checks the message for the last LID that
// infiniband-diags drops (lid64: LinearFDBTop 0x40).
func TestIBDumpFTSQuirk(t *testing.T) {
	dir := filepath.Join(ibRoot, "lid64", "minhop")
	_, err := ReadFiles(filepath.Join(dir, "ibnetdiscover.txt"), filepath.Join(dir, "dump_fts.txt"), Options{})
	want := dir + `/dump_fts.txt:1: the table of switch "S-0" (0x0000000000200000) has no entry for LID 0x0040 (CA "H-62" (0x000000000010007c) port 1), the top of its range [0x0-0x40]: dump_fts and ibroute of infiniband-diags drop the last LID when the top is a multiple of 64; use opensm-lfts.dump`
	if err == nil || err.Error() != want {
		t.Errorf("error\n %v\nwant\n %s", err, want)
	}
	// The same table with the LID present is taken.
	data, _ := os.ReadFile(filepath.Join(dir, "dump_fts.txt"))
	fixed := strings.Replace(string(data), "63 valid lids dumped", "0x0040 063 : (Channel Adapter portguid 0x000000000010007d: 'H-62')\n64 valid lids dumped", 1)
	r, err := ReadLFTDump([]byte(fixed), "fixed.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Build(mustTopology(t, filepath.Join(dir, "ibnetdiscover.txt")), r, Options{}); err != nil {
		t.Error(err)
	}
}

// TestIBWarnings checks findings that do not stop the build: a CA port
// without a LID.
func TestIBWarnings(t *testing.T) {
	net := fixtureLines(t, "dualport", "dualport.net")
	lfts := fixtureLines(t, "dualport/minhop", "opensm-lfts.dump")
	// H-0's LID (0x0001) lines removed from the dump: nothing names it.
	topo, err := ReadTopology(edit(net, nil), "dualport.net")
	if err != nil {
		t.Fatal(err)
	}
	rt, err := ReadRouting(edit(lfts, map[int]string{2: "", 14: ""}), "lfts.dump")
	if err != nil {
		t.Fatal(err)
	}
	var warnings []string
	f, err := Build(topo, rt, Options{Warn: func(m string) { warnings = append(warnings, m) }})
	if err != nil {
		t.Fatal(err)
	}
	want := `CA "H-0" (0x0000000000100000) port 1 has no LID in dualport.net or lfts.dump: no switch routes to it`
	if len(warnings) != 1 || warnings[0] != want {
		t.Errorf("warnings %q", warnings)
	}
	check := f.CheckRoutes(allHosts(f), 1, 1)
	if check.Unroutable != int64(f.NumHosts()-1) || check.Loops != 0 {
		t.Errorf("check %+v", check)
	}
}

// TestIBStreamedFiles checks the file readers, which stream: gzip input,
// a corrupt gzip stream, lines longer than the read buffer, and the same
// errors (file and line) as the readers of data in memory.
func TestIBStreamedFiles(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(ibRoot, "ft16", "minhop")
	gz := func(name string, data []byte) string {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(data)
		zw.Close()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	topoData, _ := os.ReadFile(filepath.Join(src, "ibnetdiscover-s.txt"))
	lftsData, _ := os.ReadFile(filepath.Join(src, "opensm-lfts.dump"))
	f, err := ReadFiles(gz("topo.gz", topoData), gz("lfts.gz", lftsData), Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := ReadFiles(filepath.Join(src, "ibnetdiscover-s.txt"), filepath.Join(src, "opensm-lfts.dump"), Options{})
	if err != nil || f.Digest() != g.Digest() {
		t.Fatalf("gzip input gives another fabric (%v)", err)
	}
	// A corrupt stream: the compressed data cut in half.
	whole, _ := os.ReadFile(gz("cut.gz", lftsData))
	cut := filepath.Join(dir, "cut.gz")
	os.WriteFile(cut, whole[:len(whole)/2], 0o644)
	if _, err := ReadRoutingFile(cut); err == nil || !strings.Contains(err.Error(), "cut.gz: after line ") ||
		!strings.Contains(err.Error(), "gzip: corrupt or truncated data") {
		t.Errorf("cut gzip: %v", err)
	}
	// Errors name the same line as in memory, also after a line longer
	// than the buffer.
	lines := strings.Split(string(lftsData), "\n")
	lines[30] = strings.Replace(lines[30], ": '", ": '"+strings.Repeat("x", 200000), 1)
	lines[40] = "0x0005 bad"
	bad := []byte(strings.Join(lines, "\n"))
	p := filepath.Join(dir, "bad.dump")
	os.WriteFile(p, bad, 0o644)
	_, err1 := ReadRoutingFile(p)
	_, err2 := ReadRouting(bad, p)
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() || !strings.Contains(err1.Error(), "bad.dump:41: LID 0x0005: bad out port") {
		t.Errorf("streamed %v, in memory %v", err1, err2)
	}
	// A missing routing file: say where tables come from.
	_, err = ReadRoutingFile(filepath.Join(dir, "nothere"))
	var pe *infile.ParseError
	if !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) ||
		!strings.Contains(err.Error(), "nothere: open: no such file or directory; OpenSM writes opensm-lfts.dump and opensm.fdbs only when its log flags include 0x40") ||
		!strings.Contains(err.Error(), "dump_fts > dump_fts.txt") || !strings.Contains(err.Error(), "ibdiagnet2.fdbs") {
		t.Errorf("missing file: %v", err)
	}
}

// TestIBUnroutedLID checks that a host LID missing from one table leaves
// exactly the pairs through that switch unroutable, and CheckRoutes names
// the switch.
func TestIBUnroutedLID(t *testing.T) {
	topo, err := ReadTopology(edit(fixtureLines(t, "dualport/minhop", "ibnetdiscover.txt"), nil), "ibnetdiscover.txt")
	if err != nil {
		t.Fatal(err)
	}
	// S-1 (second table) loses LID 0x0001 (H-0).
	rt, err := ReadRouting(edit(fixtureLines(t, "dualport/minhop", "opensm-lfts.dump"), map[int]string{14: ""}), "lfts.dump")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Build(topo, rt, Options{Names: NamesDesc})
	if err != nil {
		t.Fatal(err)
	}
	check := f.CheckRoutes(allHosts(f), 1, 1)
	// H-2, H-3, H-4:2 and H-5:1 hang on S-1.
	if check.Unroutable != 4 || check.Loops != 0 {
		t.Fatalf("%d unroutable, %d loops", check.Unroutable, check.Loops)
	}
	if msg := check.Examples[0].Error(); msg != "no route from H-2 to H-0: node S-1 has no table entry for H-0" {
		t.Errorf("message %q", msg)
	}
}

// TestReadPairBothStdin: the topology and the routing dump cannot both
// come from standard input; the error says so before reading either.
func TestReadPairBothStdin(t *testing.T) {
	if _, _, err := ReadPair("-", "-"); err == nil || !strings.Contains(err.Error(), "cannot both be standard input") {
		t.Errorf("ReadPair(-, -) = %v", err)
	}
	if _, err := ReadFiles("-", "-", Options{}); err == nil || !strings.Contains(err.Error(), "cannot both be standard input") {
		t.Errorf("ReadFiles(-, -) = %v", err)
	}
}

package ib

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"orcs/gen"
	"orcs/internal/hugemem"
)

// netCases are the fixtures' ibnetdiscover outputs, a generated fabric's
// and damaged copies of it: the fast reader must give what the line by
// line reader gives, or leave the text to it.
func netCases(t testing.TB) map[string][]byte {
	cases := map[string][]byte{}
	err := filepath.WalkDir(ibRoot, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if DetectFormat(data) == FormatIBNetDiscover {
			name, _ := filepath.Rel(ibRoot, path)
			cases[name] = data
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	f, err := gen.Generate("kary:k=4,n=3")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteNetDiscover(&b, f); err != nil {
		t.Fatal(err)
	}
	g := b.Bytes()
	cases["gen"] = g
	edit := func(name string, f func(ls []string) []string) {
		ls := strings.SplitAfter(string(g), "\n")
		cases[name] = []byte(strings.Join(f(ls), ""))
	}
	// Line numbers of the generated text (1-based), for the edits: a
	// switch record from line 6 on, its ports from line 11.
	edit("bad port line", func(ls []string) []string { ls[400] = "[x]\n"; return ls })
	edit("unknown far end", func(ls []string) []string {
		ls[12] = strings.Replace(ls[12], `"H-0000000000`, `"H-0000000001`, 1)
		return ls
	})
	edit("far id of another kind", func(ls []string) []string { ls[10] = strings.Replace(ls[10], `"H-`, `"S-`, 1); return ls })
	// Port lines just off the shape the fast reader parses in one pass
	// (portShaped): each is read as the line by line reader reads it. A
	// switch's port lines are lines 11 on, a CA's port line 619.
	for name, sub := range map[string][2]string{
		"rate after a tab": {" 4xSDR", "\t4xSDR"}, "rate FDR10": {"4xSDR", "4xFDR10"},
		"rate unnamed": {"4xSDR", "4x???"}, "no lid before the rate": {" lid ", " lad "},
		"blank after the rate": {"4xSDR\n", "4xSDR \n"}, "quote in the rate": {"4xSDR", `4x"SDR`},
		"no blank before the far id": {"]\t\"H-", "]\"H-"}, "far port past the last": {"[1](1", "[255](1"},
		"far port with ext": {"[1](1", "[1][ext 2](1"}, "comment without blanks": {") \t\t#", ")#"},
		"option after the far end": {") \t\t#", ") w=2 #"}, "long far GUID": {"](100003)", "](10000000000000003)"},
		"non-ASCII description": {`"H1"`, `"H1é"`}, "port of four digits": {"[2]\t", "[0002]\t"},
	} {
		edit("switch port line: "+name, func(ls []string) []string { ls[11] = strings.Replace(ls[11], sub[0], sub[1], 1); return ls })
	}
	for name, sub := range map[string][2]string{
		"upper-case port GUID": {"[1](100001)", "[1](10000A)"}, "LID multicast": {"lid 1 lmc", "lid 49153 lmc"},
		"LMC 8": {"lmc 0", "lmc 8"}, "no LID": {"# lid 1 lmc 0 ", "# "}, "GUID of 17 digits": {"[1](100001)", "[1](00000000000100001)"},
	} {
		edit("CA port line: "+name, func(ls []string) []string { ls[618] = strings.Replace(ls[618], sub[0], sub[1], 1); return ls })
	}
	edit("switch port line: listed twice", func(ls []string) []string { ls[12] = ls[11]; return ls })
	edit("switch port line: listed twice in a row", func(ls []string) []string { ls[11] += ls[11]; return ls })
	edit("switch port lines: out of order", func(ls []string) []string { ls[11], ls[12] = ls[12], ls[11]; return ls })
	edit("switch port line: past the switch's ports", func(ls []string) []string {
		ls[17] = strings.Replace(ls[17], "[8]\t", "[9]\t", 1)
		return ls
	})
	edit("switch port line: glued to a pasted message", func(ls []string) []string {
		ls[11] = `[2]"H-0000000000100002"[1](100003)#x:` + "\n"
		return ls
	})
	// Two rates in a row, the second another than the first (the rate of
	// the line before is kept only for the same word).
	edit("switch port lines: two rates", func(ls []string) []string {
		ls[11] = strings.Replace(ls[11], "4xSDR", "4xQDR", 1)
		ls[12] = strings.Replace(ls[12], "4xSDR", "12xEDR", 1)
		return ls
	})
	// Pasted messages whose first word the fast grammar would take.
	for i, msg := range []string{"vendid: iberror: [pid 77] discover failed", "devid@host:~$ ibnetdiscover",
		"vendid=0x0: iberror: failed", "sysimgguid=x.c:12; umad failed"} {
		edit(fmt.Sprintf("pasted message %d", i), func(ls []string) []string { ls[200] = msg + "\n" + ls[200]; return ls })
	}
	edit("upper-case GUID", func(ls []string) []string { ls[9] = strings.Replace(ls[9], "S-00", "S-0A", 1); return ls })
	edit("noise", func(ls []string) []string {
		ls[300] = "ibwarn: [123] mad_rpc: _do_madrpc failed; dport (Lid 4)\n" + ls[300]
		return ls
	})
	edit("prompt", func(ls []string) []string { ls[0] = "[root@host ~]# ibnetdiscover\n" + ls[0]; return ls })
	edit("BOM", func(ls []string) []string { ls[0] = "\uFEFF" + ls[0]; return ls })
	edit("CRLF", func(ls []string) []string {
		for i := range ls {
			ls[i] = strings.Replace(ls[i], "\n", "\r\n", 1)
		}
		return ls
	})
	edit("port twice", func(ls []string) []string { ls[11] = ls[10]; return ls })
	edit("ports out of order", func(ls []string) []string { ls[10], ls[11] = ls[11], ls[10]; return ls })
	edit("node twice", func(ls []string) []string { return append(ls, ls[5:14]...) })
	edit("one end of a cable", func(ls []string) []string { return append(ls[:10], ls[11:]...) })
	edit("router", func(ls []string) []string {
		return append(ls, "rtguid=0x900\n", "Rt\t1 \"R-0000000000000900\"\t\t# \"r\"\n")
	})
	edit("port0 GUID left over", func(ls []string) []string { return append(ls, "switchguid=0x5(6)\n") })
	edit("no final line break", func(ls []string) []string {
		ls[len(ls)-2] = strings.TrimSuffix(ls[len(ls)-2], "\n")
		return ls[:len(ls)-1]
	})
	edit("indented and commented", func(ls []string) []string {
		ls[10] = "  " + ls[10]
		ls[11] = "# a comment\n" + ls[11]
		return ls
	})
	edit("blank lines", func(ls []string) []string {
		for i := range ls {
			if ls[i] == "\n" {
				ls[i] = "\n \n\n"
			}
		}
		return ls
	})
	return cases
}

// topologyText prints a topology with everything the readers set, or the
// error.
func topologyText(t *Topology, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %v %q\n", t.File, t.Format, t.Warnings)
	for _, n := range t.Nodes {
		fmt.Fprintf(&b, "%+v\n", n)
	}
	return b.String()
}

// readNetBoth reads data line by line and with the fast reader (pieces of
// at least pieceMin bytes on threads goroutines). fast is "" when the
// fast reader left the text to the line by line one.
func readNetBoth(data []byte, pieceMin, threads int) (seq, fast string, same bool) {
	old := netPieceMin
	netPieceMin = pieceMin
	defer func() { netPieceMin = old }()
	ts, es := readNet(newLines(data, "ibnetdiscover.txt"), FormatIBNetDiscover, nil)
	tf := readNetFast(data, "ibnetdiscover.txt", threads)
	tr, er := readNetDiscover(data, "ibnetdiscover.txt", threads)
	seq = topologyText(ts, es)
	if tf != nil {
		fast = topologyText(tf, nil)
		same = es == nil && reflect.DeepEqual(ts, tf)
	} else {
		same = true
	}
	return seq, fast, same && topologyText(tr, er) == seq
}

// TestNetFastSameAsLineByLine: on every fixture, a generated fabric and
// damaged copies, in one piece or many, on 1 to 3 goroutines, the fast
// reader gives the line by line reader's topology (nodes, ports, lines,
// far ends) or leaves the text to it, and ReadNetDiscover gives that
// reader's topology or error. The clean outputs are read fast.
func TestNetFastSameAsLineByLine(t *testing.T) {
	fastWant := map[string]bool{"gen": true, "CRLF": true, "indented and commented": true,
		"blank lines": true, "no final line break": true,
		filepath.Join("cluster", "minhop", "ibnetdiscover.txt"):    true,
		filepath.Join("cluster", "minhop", "ibnetdiscover-g.txt"):  true,
		filepath.Join("dualport", "minhop", "ibnetdiscover-s.txt"): true,
		filepath.Join("ft64", "minhop", "ibnetdiscover.txt"):       true,
		filepath.Join("rates", "minhop", "ibnetdiscover.txt"):      true,
		// Port lines off portShaped's shape that the fast reader still
		// takes, through port.
		"switch port line: rate after a tab": true, "switch port line: rate FDR10": true,
		"switch port line: rate unnamed": true, "switch port line: no lid before the rate": true,
		"switch port line: blank after the rate": true, "switch port line: quote in the rate": true,
		"switch port line: no blank before the far id": true, "switch port line: far port with ext": true,
		"switch port line: comment without blanks": true, "switch port line: non-ASCII description": true,
		"switch port line: port of four digits": true, "switch port lines: two rates": true,
		"CA port line: upper-case port GUID": true, "CA port line: no LID": true,
		"switch port line: glued to a pasted message": true,
	}
	for name, data := range netCases(t) {
		runs := []struct{ pieceMin, threads int }{{1 << 20, 1}, {100, 3}, {1000, 2}, {1, 2}}
		if strings.Contains(name, "/") {
			runs = runs[1:3] // the fixtures: pieces of many records and of one
		}
		for _, c := range runs {
			seq, fast, same := readNetBoth(data, c.pieceMin, c.threads)
			if !same {
				t.Fatalf("%s (pieces of %d bytes, %d threads):\nline by line:\n%.3000s\nfast:\n%.3000s", name, c.pieceMin, c.threads, seq, fast)
			}
			if fastWant[name] && fast == "" {
				t.Errorf("%s (pieces of %d bytes, %d threads): not read by the fast reader: %.300s", name, c.pieceMin, c.threads, seq)
			}
			if !fastWant[name] && !strings.Contains(name, "/") && fast != "" {
				t.Errorf("%s: read by the fast reader, want the line by line one", name)
			}
		}
	}
}

// TestNetPieceBoundaries: pieces start at a record after a blank line,
// never inside one, and an error in a later piece names its line in the
// whole file.
func TestNetPieceBoundaries(t *testing.T) {
	data := netCases(t)["gen"]
	for _, n := range []int{2, 3, 7, 50} {
		pieces := cutNetPieces(data, n)
		if len(pieces) < 2 {
			t.Fatalf("%d pieces wanted: %d", n, len(pieces))
		}
		var joined []byte
		for i, pc := range pieces {
			joined = append(joined, pc.data...)
			if i == 0 {
				continue
			}
			before := joined[:len(joined)-len(pc.data)]
			if !bytes.HasSuffix(before, []byte("\n\n")) || !bytes.HasPrefix(pc.data, []byte("vendid=")) {
				t.Fatalf("%d pieces: piece %d starts %q after %q", n, i, pc.data[:min(20, len(pc.data))], before[max(0, len(before)-20):])
			}
		}
		if !bytes.Equal(joined, data) {
			t.Fatalf("%d pieces do not give the text back", n)
		}
	}
	// The cut point of the second of 2 pieces falls in the middle of a
	// switch record: the record stays whole.
	ls := strings.SplitAfter(string(data), "\n")
	half := len(data) / 2
	at, line := 0, 0
	for at+len(ls[line]) <= half {
		at += len(ls[line])
		line++
	}
	cut := cutNetPieces(data, 2)[1]
	if !bytes.HasPrefix(cut.data, []byte("vendid=")) || len(cut.data) >= len(data)-half {
		t.Fatalf("second piece starts %q, %d bytes", cut.data[:20], len(cut.data))
	}
	// An error in the last piece: the line by line reader's message, its
	// line counted from the start of the file.
	bad := append([]string(nil), ls...)
	badLine := len(ls) - 2 // a CA's port line in the last record (ls ends "\n", "")
	bad[badLine-1] = "[1](x)\n"
	text := []byte(strings.Join(bad, ""))
	seq, fast, same := readNetBoth(text, 1, 3)
	want := fmt.Sprintf("ibnetdiscover.txt:%d: port 1: bad port GUID", badLine)
	if !same || fast != "" || !strings.Contains(seq, want) {
		t.Fatalf("want %q, got %q (fast %q)", want, seq, fast)
	}
	// Lines of nodes in later pieces are those of the file.
	tp := readNetFast(data, "x", 3)
	if tp == nil {
		t.Fatal("generated text not read fast")
	}
	last := tp.Nodes[len(tp.Nodes)-1]
	if got := strings.TrimSpace(ls[last.Line-1]); !strings.HasPrefix(got, "Ca\t") || last.Ports[0].Line != last.Line+1 {
		t.Fatalf("last node at line %d: %q, port at %d", last.Line, got, last.Ports[0].Line)
	}
}

// FuzzNetFast: on any input the fast reader gives what the line by line
// reader gives, or leaves it to that reader.
func FuzzNetFast(f *testing.F) {
	fuzzSeeds(f, "dualport/minhop/ibnetdiscover.txt", "cluster/minhop/ibnetdiscover-g.txt", "rates/minhop/ibnetdiscover.txt")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, pieceMin := range []int{1, 256} {
			seq, fast, same := readNetBoth(data, pieceMin, 2)
			if !same {
				t.Fatalf("pieces of %d bytes:\nline by line:\n%.2000s\nfast:\n%.2000s", pieceMin, seq, fast)
			}
		}
	})
}

// TestNetFastFileLimits: a file that the fast reader would take but the
// line by line reader refuses (a line past maxLine, though a comment; a
// run of blank space past infile.MaxBlank) is refused as before.
func TestNetFastFileLimits(t *testing.T) {
	data := netCases(t)["gen"]
	dir := t.TempDir()
	for name, extra := range map[string]string{
		"a line longer than": "# " + strings.Repeat("x", maxLine+10) + "\n",
		"of blank space":     strings.Repeat("\n", 1<<20+10),
	} {
		path := filepath.Join(dir, "topo.txt")
		at := nextRecordStart(data, len(data)/2)
		text := append(append(append([]byte(nil), data[:at]...), extra...), data[at:]...)
		if err := os.WriteFile(path, text, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadTopologyFile(path); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("want an error %q, got %v", name, err)
		}
	}
}

// TestReadTopologyFileAllocates: reading ibnetdiscover output from a file
// allocates on the heap about what the topology holds (its nodes, their
// ports, ids and descriptions) and not the text, which is held apart and
// given back; the ports of a piece are one allocation.
func TestReadTopologyFileAllocates(t *testing.T) {
	f, err := gen.Generate("kary:k=14,n=3") // 2 744 hosts, 588 switches, 16 464 ports
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ibnetdiscover.txt")
	writeFile(t, path, func(w *bytes.Buffer) error { return WriteNetDiscover(w, f) })
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	mapped := hugemem.Mapped()
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	tp, err := ReadTopologyFile(path)
	runtime.ReadMemStats(&m1)
	if err != nil {
		t.Fatal(err)
	}
	ports, text := 0, 0
	for _, n := range tp.Nodes {
		ports += len(n.Ports)
		text += len(n.ID) + len(n.Desc)
	}
	held := uint64(len(tp.Nodes))*uint64(unsafe.Sizeof(TopoNode{})) + uint64(ports)*uint64(unsafe.Sizeof(TopoPort{})) + uint64(text)
	alloc, allocs := m1.TotalAlloc-m0.TotalAlloc, m1.Mallocs-m0.Mallocs
	t.Logf("%d nodes, %d ports, %d bytes held, %d allocated in %d objects; the text %d bytes", len(tp.Nodes), ports, held, alloc, allocs, st.Size())
	// The pieces' nodes before the join (40 bytes each) and the GUID index
	// (24 bytes a node) come on top: 30 % at most here. The text on the
	// heap, or a piece's ports in chunks of netChunk, would pass it.
	if limit := held + held*3/10; alloc > limit || allocs > 60 {
		t.Errorf("%d bytes in %d objects allocated for a topology of %d bytes (text %d bytes): want at most %d bytes in 60 objects", alloc, allocs, held, st.Size(), limit)
	}
	if hugemem.Mapped() != mapped {
		t.Errorf("%d bytes left mapped after the read", hugemem.Mapped()-mapped)
	}
	// What was read from the mapping, given back since, is the topology
	// the line by line reader gives; from a gzip file as well.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	if _, err := zw.Write(data); err != nil || zw.Close() != nil {
		t.Fatal("gzip:", err)
	}
	gz := filepath.Join(t.TempDir(), "ibnetdiscover.txt.gz")
	if err := os.WriteFile(gz, zb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tz, err := ReadTopologyFile(gz)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC() // a string or slice into the mapping would be read after it is gone
	for _, got := range []*Topology{tp, tz} {
		want, err := readNet(newLines(data, got.File), FormatIBNetDiscover, nil)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := topologyText(got, nil), topologyText(want, nil); g != w {
			t.Fatalf("%s read from the file:\n%.2000s\nline by line:\n%.2000s", got.File, g, w)
		}
	}
}

// TestCountNetLines: the one pass that sizes a piece's arrays counts the
// lines after a line break that start as node records do and those that
// start with '[' (hand-counted: a switch, a CA and an HCA record, two
// lines that only start like one, "Switching" and "Cat", which are
// counted too since the count only sizes arrays; four port lines, of
// which the one that starts the text follows no line break).
func TestCountNetLines(t *testing.T) {
	text := "[9]\t\"H-0000000000000001\"[1]\n" +
		"vendid=0x2c9\nswitchguid=0x2(2)\nSwitch\t8 \"S-0000000000000002\"\t\t# \"sw\" base port 0 lid 3 lmc 0\n" +
		"[1]\t\"H-0000000000000001\"[1](1) \t\t# \"h1\" lid 1 4xQDR\n" +
		"[2]\t\"H-0000000000000003\"[1](3) \t\t# \"h2\" lid 2 4xQDR\n\n" +
		"Ca\t2 \"H-0000000000000001\"\t\t# \"h1\"\n" +
		"[1](1) \t\"S-0000000000000002\"[1]\t\t# lid 1 lmc 0 \"sw\" lid 3 4xQDR\n\n" +
		"Hca\t1 \"H-0000000000000003\"\nSwitching is not a record\nCat\n" +
		"# [1] a comment\n"
	nodes, ports := countNetLines([]byte(text))
	if nodes != 5 || ports != 3 {
		t.Fatalf("countNetLines: %d nodes, %d ports; want 5, 3", nodes, ports)
	}
	// Texts cut anywhere (a truncated file ends a piece in "\nC" or
	// "\nH"), with CRLF line ends: the counts of the patterns each
	// counted on its own.
	for _, text := range []string{"", "\n", "\n\n", "x\nC", "x\nH", "x\nS", "x\n[", "\nCa", "\nHc",
		"a\r\n[1]\r\nSwitch\r\n\r\nCa\r\nHca 1\r\n", text[:len(text)/2], text[:len(text)/3]} {
		d := []byte(text)
		wantNodes := bytes.Count(d, []byte("\nSwitch")) + bytes.Count(d, []byte("\nCa")) + bytes.Count(d, []byte("\nHca"))
		wantPorts := bytes.Count(d, []byte("\n["))
		if nodes, ports := countNetLines(d); nodes != wantNodes || ports != wantPorts {
			t.Errorf("countNetLines(%q): %d nodes, %d ports; want %d, %d", text, nodes, ports, wantNodes, wantPorts)
		}
	}
}

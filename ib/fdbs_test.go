package ib

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readFDBsBoth reads data line by line and in parallel pieces (windows of
// window bytes, threads goroutines), and returns both results printed.
func readFDBsBoth(data []byte, window, threads int, packed bool) (seq, par string) {
	old := parallelWindow
	parallelWindow = window
	defer func() { parallelWindow = old }()
	rs, es := readFDBs(newLines(data, "opensm.fdbs"))
	rp, ep := readFDBsParallel(bytes.NewReader(data), "opensm.fdbs", packed, threads)
	return routingText(rs, es), routingText(rp, ep)
}

// fdbsCases are the fixtures' .fdbs files and damaged copies of one: the
// errors must come at the same line.
func fdbsCases(t testing.TB) map[string][]byte {
	cases := map[string][]byte{}
	for _, pattern := range []string{"*/*/opensm.fdbs", "*/*/*.fdbs"} {
		paths, _ := filepath.Glob(filepath.Join(ibRoot, pattern))
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			name, _ := filepath.Rel(ibRoot, p)
			cases[name] = data
		}
	}
	ft := cases[filepath.Join("ft64", "minhop", "opensm.fdbs")]
	if ft == nil {
		t.Fatal("no ft64/minhop/opensm.fdbs")
	}
	edit := func(name string, f func(ls []string) []string) {
		ls := strings.SplitAfter(string(ft), "\n")
		cases[name] = []byte(strings.Join(f(ls), ""))
	}
	// Tables of 114 lines: headers at lines 1, 115, 229, ... (ls[0], ls[114], ...).
	edit("bad entry", func(ls []string) []string { ls[3000] = "0x0001 : x\n"; return ls })
	edit("two bad entries", func(ls []string) []string { ls[3000] = "0x0001 : x\n"; ls[4000] = "garbage\n"; return ls })
	edit("LIDs out of order", func(ls []string) []string { ls[2010], ls[2011] = ls[2011], ls[2010]; return ls })
	edit("empty table", func(ls []string) []string { return append(ls[:116], ls[228:]...) })
	edit("truncated", func(ls []string) []string { return ls[:len(ls)-20] })
	edit("noise", func(ls []string) []string {
		for _, i := range []int{5, 114, 500, 1500, 2500, 3500, 4500, 5400} {
			ls[i] = "ibwarn: [123] mad_rpc: _do_madrpc failed; dport (Lid 4) dump_ucast_routes: Switch 0x1\n" + ls[i]
		}
		return ls
	})
	edit("header in an entry", func(ls []string) []string {
		ls[1000] = strings.TrimSuffix(ls[1000], "\n") + " dump_ucast_routes: Switch 0x5\n"
		return ls
	})
	edit("CRLF", func(ls []string) []string {
		for i := range ls {
			ls[i] = strings.Replace(ls[i], "\n", "\r\n", 1)
		}
		return ls
	})
	edit("BOM", func(ls []string) []string { ls[0] = "\uFEFF" + ls[0]; return ls })
	edit("no final line break", func(ls []string) []string {
		ls[len(ls)-2] = strings.TrimSuffix(ls[len(ls)-2], "\n")
		return ls
	})
	edit("entry before the first table", func(ls []string) []string { return append([]string{"0x0001 : 001 : 01 : yes\n"}, ls...) })
	// Lines of the entry loop's two shapes and near them, in the second
	// table (ls[116] is LID 1 there): LID 0, port 255 (no route), port
	// 300, an upper-case X, other hops or optimal, UNREACHABLE, a line a
	// byte longer, an empty optimal column, no 0x.
	for name, line := range map[string]string{
		"LID 0":              "0x0000 : 001  : 01   : yes\n",
		"port 255":           "0x0003 : 255  : 01   : yes\n",
		"port 300":           "0x0003 : 300  : 01   : yes\n",
		"upper-case X":       "0X0003 : 001  : 01   : yes\n",
		"hops not digits":    "0x0003 : 001  : 0x   : yes\n",
		"not optimal":        "0x0003 : 001  : 01   : no \n",
		"optimal empty":      "0x0003 : 001  : 01   :    \n",
		"no 0x":              "0y0003 : 001  : 01   : yes\n",
		"unreachable":        "0x0003 : UNREACHABLE\n",
		"unreachable, CR":    "0x0003 : UNREACHABLE\r\n",
		"a byte longer":      "0x0003 : 001  : 01   : yes \n",
		"a LID repeated":     "0x0002 : 001  : 01   : yes\n",
		"upper-case LID":     "0x000A : 001  : 01   : yes\n",
		"a LID out of range": "0xC000 : 001  : 01   : yes\n",
	} {
		edit("entry: "+name, func(ls []string) []string { ls[118] = line; return ls })
	}
	edit("entry: unreachable, then more", func(ls []string) []string {
		for i := 118; i < 140; i += 3 {
			ls[i] = ls[i][:9] + "UNREACHABLE\n"
		}
		return ls
	})
	return cases
}

// TestFDBsFastSameAsStreamed: an input held in memory, whose entry lines
// the byte loop takes (fastEntries), reads as the same input streamed
// line by line, which never takes that loop: every fixture and damaged
// copy, the copies with lines of and near the loop's shapes among them.
// The loop takes every entry line of an OpenSM file: all but a header and
// a title line per table.
func TestFDBsFastSameAsStreamed(t *testing.T) {
	ft := fdbsCases(t)[filepath.Join("ft64", "minhop", "opensm.fdbs")]
	p := &fdbsParser{r: newLines(ft, "opensm.fdbs"), rt: &Routing{File: "opensm.fdbs", Format: FormatFDBs}, packed: true}
	if err := p.all(); err != nil {
		t.Fatal(err)
	}
	if want := p.r.phys - 2*len(p.rt.Switches); p.fast != want {
		t.Errorf("the byte loop took %d of %d lines (%d tables), want %d", p.fast, p.r.phys, len(p.rt.Switches), want)
	}
	for name, data := range fdbsCases(t) {
		for _, packed := range []bool{false, true} {
			a, ea := readFDBsAs(newLines(data, "opensm.fdbs"), packed)
			b, eb := readFDBsAs(streamLines(bufio.NewReader(bytes.NewReader(data)), "opensm.fdbs"), packed)
			if x, y := routingText(a, ea), routingText(b, eb); x != y {
				t.Fatalf("%s (packed %v):\nin memory:\n%.2000s\nstreamed:\n%.2000s", name, packed, x, y)
			}
		}
	}
}

// TestParallelFDBsSameAsLineByLine: the parallel .fdbs reader gives what
// the line by line reader gives — tables, entries with their lines,
// warnings, or the same error at the same line — for every fixture and
// damaged copies, with windows from a few lines to the whole file, on 1
// to 3 goroutines.
func TestParallelFDBsSameAsLineByLine(t *testing.T) {
	for name, data := range fdbsCases(t) {
		runs := [][2]int{{4096, 3}, {1 << 20, 2}}
		if !strings.Contains(name, "/") || name == filepath.Join("ft64", "minhop", "opensm.fdbs") {
			runs = [][2]int{{300, 3}, {300, 1}, {4096, 2}, {4096, 3}, {1 << 20, 3}}
		}
		a, ea := readFDBs(newLines(data, "opensm.fdbs"))
		if b, eb := readFDBsAs(newLines(data, "opensm.fdbs"), true); routingText(a, ea) != routingText(b, eb) {
			t.Fatalf("%s: packed and unpacked tables differ", name)
		}
		for i, c := range runs {
			packed := i%2 == 0
			seq, par := readFDBsBoth(data, c[0], c[1], packed)
			if seq != par {
				t.Fatalf("%s (window %d, %d threads, packed %v):\nline by line:\n%.2000s\nparallel:\n%.2000s", name, c[0], c[1], packed, seq, par)
			}
		}
	}
}

// TestParallelFDBsLines: hand-counted lines: an error in a later piece
// and window names its line in the file, and the entries of the last
// table carry theirs.
func TestParallelFDBsLines(t *testing.T) {
	ft := fdbsCases(t)[filepath.Join("ft64", "minhop", "opensm.fdbs")]
	ls := strings.SplitAfter(string(ft), "\n")
	ls[4999] = "0x0001 : 300 : 01 : yes\n" // line 5000, in the 44th table
	old := parallelWindow
	parallelWindow = 4096
	defer func() { parallelWindow = old }()
	_, err := readFDBsParallel(strings.NewReader(strings.Join(ls, "")), "opensm.fdbs", true, 3)
	if want := "opensm.fdbs:5000: LID 0x0001: out port 300 out of range"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("got %v, want %s", err, want)
	}
	rt, err := readFDBsParallel(bytes.NewReader(ft), "opensm.fdbs", true, 3)
	if err != nil {
		t.Fatal(err)
	}
	if rt.Switches[0].packed == nil || rt.Switches[47].packed == nil {
		t.Fatal("tables not packed")
	}
	rt, err = readFDBsParallel(bytes.NewReader(ft), "opensm.fdbs", false, 3)
	if err != nil {
		t.Fatal(err)
	}
	last := &rt.Switches[len(rt.Switches)-1]
	// The last table's header is at line 5473-114 = 5359; its first
	// entry (LID 1) at line 5361, after the column titles.
	if last.Line != 5359 || last.Entries[0].LID != 1 || last.Entries[0].Line != 5361 || len(rt.Switches) != 48 {
		t.Fatalf("last table at line %d, first entry LID %d at line %d, %d tables", last.Line, last.Entries[0].LID, last.Entries[0].Line, len(rt.Switches))
	}
}

// FuzzParallelFDBs: on any input the parallel .fdbs reader and the line
// by line one agree (tables, lines, warnings or the error).
func FuzzParallelFDBs(f *testing.F) {
	fuzzSeeds(f, "ft16/minhop/opensm.fdbs", "cluster/ibdiagnet/ibdiagnet2.fdbs", "lid64/minhop/opensm.fdbs")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, window := range []int{256, 4096} {
			seq, par := readFDBsBoth(data, window, 2, window == 256)
			if seq != par {
				t.Fatalf("window %d:\nline by line:\n%.1000s\nparallel:\n%.1000s", window, seq, par)
			}
		}
	})
}

// FuzzFDBsFast: on any input, read in memory (the entry loop) and
// streamed (never the loop), packed or not, the .fdbs reader gives the
// same tables, lines, warnings or error.
func FuzzFDBsFast(f *testing.F) {
	fuzzSeeds(f, "ft16/minhop/opensm.fdbs", "ft16/dnup/opensm.fdbs", "cluster/ibdiagnet/ibdiagnet2.fdbs")
	f.Add([]byte("dump_ucast_routes: Switch 0x1\n0x0001 : 001  : 01   : yes\n0x0002 : UNREACHABLE\n0x0003 : 255  : 01   : yes\n0x0003 : 001  : 01   :    \n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, packed := range []bool{false, true} {
			a, ea := readFDBsAs(newLines(data, "f"), packed)
			b, eb := readFDBsAs(streamLines(bufio.NewReader(bytes.NewReader(data)), "f"), packed)
			if x, y := routingText(a, ea), routingText(b, eb); x != y {
				t.Fatalf("packed %v:\nin memory:\n%.1000s\nstreamed:\n%.1000s", packed, x, y)
			}
		}
	})
}

// FuzzFDBEntryAsWritten: an entry line that the in-place reader takes
// reads the same with parseFDBEntry (seeds: every entry shape of the
// fixtures and near misses).
func FuzzFDBEntryAsWritten(f *testing.F) {
	for _, l := range []string{"0x0001 : 001  : 01   : yes", "0x000A : UNREACHABLE", "0xBFFF : 255  : 00   : yes",
		"0xC000 : 001  : 01   : yes", "0x0001 : 256  : 01   : yes", "0x0001 : 0x1  : 01   : yes", "0x00g1 : 001  : 01   : yes",
		"0x0001 : 001  : 0x   : yes", "0x0001 : 001  : 01   : yea", "0x0001 : UNREACHABLX", "0x0001 : 001 : 01 : yes"} {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, l []byte) {
		if len(l) < 3 || l[0] != '0' || l[1] != 'x' && l[1] != 'X' {
			return
		}
		lid, port, routed, ok := fdbEntryAsWritten(l)
		if !ok {
			return
		}
		r := newLines(l, "x")
		r.next()
		lid2, port2, routed2, err := parseFDBEntry(r, l)
		if err != nil || lid != lid2 || port != port2 || routed != routed2 {
			t.Fatalf("%q: in place %d %d %v, parsed %d %d %v %v", l, lid, port, routed, lid2, port2, routed2, err)
		}
	})
}

// BenchmarkReadFDBsFile reads an opensm.fdbs as ReadPair does (on all
// cores): the file named by $ORCS_BENCH_FDBS, else the one WriteFDBs
// writes for a generated 4096-host fat tree (kary:k=16,n=3, 97 MB).
// bench/ib-readers.sh compares its MB/s with wc -l on the same file.
func BenchmarkReadFDBsFile(b *testing.B) {
	benchReadRouting(b, benchInput(b, "ORCS_BENCH_FDBS", "opensm.fdbs", WriteFDBs))
}

package ib

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"orcs/gen"
	"orcs/internal/hugemem"
	"orcs/lft"
)

// routingText prints what a reader gave, entries with their lines, labels
// and warnings, or the error.
func routingText(rt *Routing, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %v %d tables\n", rt.File, rt.Format, len(rt.Switches))
	for i := range rt.Switches {
		t := &rt.Switches[i]
		fmt.Fprintf(&b, "table %x lid %d %q top %d line %d readback %v len %d\n", t.GUID, t.LID, t.Desc, t.Top, t.Line, t.readBack, t.Len())
		t.Each(func(e LFTEntry) bool {
			fmt.Fprintf(&b, " %d:%d@%d", e.LID, e.Port, e.Line)
			return true
		})
		b.WriteByte('\n')
	}
	for lid := range rt.labels {
		if g, line := rt.LIDLabel(lid); g != 0 {
			fmt.Fprintf(&b, "label %d %x %d %d\n", lid, g, line, rt.labels[lid].kind)
		}
	}
	for _, w := range rt.Warnings {
		fmt.Fprintln(&b, "warning", w)
	}
	return b.String()
}

// readBoth reads data line by line and in parallel pieces (windows of
// window bytes, threads goroutines), packed or not, and returns both
// results printed.
func readBoth(data []byte, window, threads int, packed bool) (seq, par string) {
	old := parallelWindow
	parallelWindow = window
	defer func() { parallelWindow = old }()
	rs, es := readUnicastAs(newLines(data, "dump"), packed)
	rp, ep := readUnicastParallel(bytes.NewReader(data), "dump", packed, threads)
	return routingText(rs, es), routingText(rp, ep)
}

// unicastCases are the fixtures' dumps of the "Unicast lids" grammar and
// damaged copies of them: the errors must come at the same line.
func unicastCases(t testing.TB) map[string][]byte {
	cases := map[string][]byte{}
	for _, pattern := range []string{"*/*/opensm-lfts.dump", "*/*/dump_fts*.txt", "*/*/ibroute-*.txt", "cluster/noisy/*"} {
		paths, _ := filepath.Glob(filepath.Join(ibRoot, pattern))
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if f := DetectFormat(data); f != FormatLFTDump && f != FormatDumpFTS {
				continue
			}
			name, _ := filepath.Rel(ibRoot, p)
			cases[name] = data
		}
	}
	ft := cases[filepath.Join("ft64", "minhop", "opensm-lfts.dump")]
	if ft == nil {
		t.Fatal("no ft64/minhop/opensm-lfts.dump")
	}
	edit := func(name string, f func(lines []string) []string) {
		ls := strings.SplitAfter(string(ft), "\n")
		cases[name] = []byte(strings.Join(f(ls), ""))
	}
	edit("trailer missing", func(ls []string) []string { return append(ls[:113], ls[114:]...) })
	edit("last trailer missing", func(ls []string) []string { return ls[:len(ls)-2] })
	edit("label conflict across tables", func(ls []string) []string {
		ls[1000] = strings.Replace(ls[1000], "portguid 0x00000000001", "portguid 0x00000000009", 1)
		return ls
	})
	edit("label conflict and a later error", func(ls []string) []string {
		ls[2000] = strings.Replace(ls[2000], "portguid 0x00000000001", "portguid 0x00000000009", 1)
		ls[2010] = "garbage\n"
		return ls
	})
	edit("error before a label conflict", func(ls []string) []string {
		ls[2000] = "garbage\n"
		ls[2010] = strings.Replace(ls[2010], "portguid 0x00000000001", "portguid 0x00000000009", 1)
		return ls
	})
	edit("LID twice", func(ls []string) []string { ls[3001] = ls[3000]; return ls })
	edit("noise lines", func(ls []string) []string {
		for _, i := range []int{5, 500, 1500, 2500, 3500, 4500, 5400} {
			ls[i] = "ibwarn: [123] mad_rpc: _do_madrpc failed; dport (Lid 4)\n" + ls[i]
		}
		return ls
	})
	edit("no final line break", func(ls []string) []string {
		ls[len(ls)-1] = strings.TrimSuffix(ls[len(ls)-1], "\n")
		return ls
	})
	edit("entries out of order", func(ls []string) []string { ls[10], ls[11] = ls[11], ls[10]; return ls })
	// LID 9's line in the second table (line 124) holds more than the
	// label text of its line in the first table (line 10), or that text
	// with one carriage return less.
	edit("longer label in a later table", func(ls []string) []string {
		ls[123] = strings.TrimSuffix(ls[123], "\n") + " x\n"
		return ls
	})
	edit("carriage returns after a label", func(ls []string) []string {
		ls[9] = strings.TrimSuffix(ls[9], "\n") + "\r\r\n"
		ls[123] = strings.TrimSuffix(ls[123], "\n") + "\r\n"
		return ls
	})
	edit("blank lines between tables", func(ls []string) []string {
		for i := range ls {
			if strings.HasPrefix(ls[i], "Unicast") {
				ls[i] = "\n\n" + ls[i]
			}
		}
		return ls
	})
	return cases
}

// TestParallelUnicastSameAsLineByLine: the parallel reader gives what the
// line-by-line reader gives — tables, entries with their lines, labels,
// warnings, the format, or the same error at the same line — for every
// fixture and damaged copies, with windows from a few lines to the whole
// file, on 1 to 3 goroutines, packed or not.
func TestParallelUnicastSameAsLineByLine(t *testing.T) {
	type run struct {
		window, threads int
		packed          bool
	}
	few := []run{{4096, 3, true}, {1 << 20, 1, false}}
	many := []run{{333, 3, true}, {333, 1, false}, {4096, 3, false}, {4096, 2, true}, {1 << 20, 3, true}}
	for name, data := range unicastCases(t) {
		runs := few
		if !strings.Contains(name, "/") || name == filepath.Join("ft64", "minhop", "opensm-lfts.dump") {
			runs = many // the damaged copies, and their original
		}
		for _, c := range runs {
			seq, par := readBoth(data, c.window, c.threads, c.packed)
			if seq != par {
				t.Fatalf("%s (window %d, %d threads, packed %v):\nline by line:\n%.2000s\nparallel:\n%.2000s", name, c.window, c.threads, c.packed, seq, par)
			}
		}
	}
}

// TestPackedTablesSameEntries: a packed table gives the entries, lines
// included, that the unpacked one holds.
func TestPackedTablesSameEntries(t *testing.T) {
	for name, data := range unicastCases(t) {
		a, ea := readUnicastAs(newLines(data, "dump"), false)
		b, eb := readUnicastAs(newLines(data, "dump"), true)
		if routingText(a, ea) != routingText(b, eb) {
			t.Fatalf("%s: packed and unpacked tables differ", name)
		}
		if eb == nil && name == filepath.Join("ft64", "minhop", "opensm-lfts.dump") && b.Switches[0].packed == nil {
			t.Fatalf("%s: table not packed", name)
		}
	}
}

// FuzzParallelUnicast: on any input the parallel reader and the line by
// line one agree (tables, lines, labels, warnings or the error), and so do
// packed tables (read with the shortcuts of fastEntries) and tables of
// entries.
func FuzzParallelUnicast(f *testing.F) {
	fuzzSeeds(f, "ft16/minhop/opensm-lfts.dump", "cluster/minhop/dump_fts.txt", "lid64/minhop/opensm-lfts.dump")
	f.Fuzz(func(t *testing.T, data []byte) {
		plain, packed := routingText(readUnicastAs(newLines(data, "dump"), false)), routingText(readUnicastAs(newLines(data, "dump"), true))
		if plain != packed {
			t.Fatalf("entries:\n%.1000s\npacked:\n%.1000s", plain, packed)
		}
		for _, window := range []int{256, 4096} {
			seq, par := readBoth(data, window, 2, true)
			if seq != par {
				t.Fatalf("window %d:\nline by line:\n%.1000s\nparallel:\n%.1000s", window, seq, par)
			}
		}
	})
}

// BenchmarkReadRoutingFile reads an opensm-lfts.dump as ReadPair does
// (packed tables, on all cores): the file named by $ORCS_BENCH_LFTS, else
// the dump of a generated 4096-host fat tree (kary:k=16,n=3, 207 MB).
// bench/ib-readers.sh compares its MB/s with wc -l on the same file.
func BenchmarkReadRoutingFile(b *testing.B) {
	benchReadRouting(b, benchInput(b, "ORCS_BENCH_LFTS", "opensm-lfts.dump", WriteLFTDump))
}

// benchReadRouting reads the routing file at path b.N times as ReadPair
// does and reports its entries.
func benchReadRouting(b *testing.B, path string) {
	var (
		rt  *Routing
		err error
	)
	for i := 0; i < b.N; i++ {
		if rt, err = readRoutingFile(path, true); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(rt.NumEntries()), "entries")
}

// BenchmarkReadTopologyFile reads ibnetdiscover output as ReadPair does:
// the file named by $ORCS_BENCH_TOPO, else that of a generated 4096-host
// fat tree (kary:k=16,n=3, 2 MB).
func BenchmarkReadTopologyFile(b *testing.B) {
	path := benchInput(b, "ORCS_BENCH_TOPO", "ibnetdiscover.txt", WriteNetDiscover)
	var (
		t   *Topology
		err error
	)
	for i := 0; i < b.N; i++ {
		if t, err = ReadTopologyFile(path); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(len(t.Nodes)), "nodes")
}

// benchInput returns the file a reader benchmark reads: the one named by
// $env, else file written by write for a generated 4096-host fat tree
// (kary:k=16,n=3). It sets the benchmark's bytes to the file's size,
// reports allocations and resets the timer.
func benchInput(b *testing.B, env, file string, write func(io.Writer, *lft.Fabric) error) string {
	b.Helper()
	path := os.Getenv(env)
	if path == "" {
		f, err := gen.Generate("kary:k=16,n=3")
		if err != nil {
			b.Fatal(err)
		}
		path = filepath.Join(b.TempDir(), file)
		writeFile(b, path, func(w *bytes.Buffer) error { return write(w, f) })
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	b.ResetTimer()
	return path
}

// TestParallelReadersAllocatePerTable: the parallel readers of both dump
// grammars use their buffers again from table to table and piece to
// piece (the block packer with its map and port array, the fdbs pieces'
// entry buffers): the 192 tables of 704 LIDs of an 8-ary 3-tree, read
// in windows of 64 KiB on two goroutines, allocate 1.76 MB from
// opensm-lfts.dump (2.20 MB with a packer per table) and 0.53 MB from
// opensm.fdbs (1.1 MB with a packer per table, 2.0 MB with fresh entry
// buffers per piece).
func TestParallelReadersAllocatePerTable(t *testing.T) {
	lfts, fdbs := genDumps(t, "kary:k=8,n=3")
	old := parallelWindow
	parallelWindow = 64 << 10
	defer func() { parallelWindow = old }()
	for _, c := range []struct {
		name  string
		read  func() (*Routing, error)
		limit uint64 // bytes per table
	}{
		{"opensm-lfts.dump", func() (*Routing, error) {
			return readUnicastParallel(bytes.NewReader(lfts), "opensm-lfts.dump", true, 2)
		}, 10 << 10},
		{"opensm.fdbs", func() (*Routing, error) {
			return readFDBsParallel(bytes.NewReader(fdbs), "opensm.fdbs", true, 2)
		}, 4 << 10},
	} {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		rt, err := c.read()
		runtime.ReadMemStats(&m1)
		if err != nil {
			t.Fatal(err)
		}
		alloc, tables := m1.TotalAlloc-m0.TotalAlloc, uint64(len(rt.Switches))
		if tables != 192 || alloc > c.limit*tables {
			t.Errorf("%s: %d tables, %d bytes allocated (%d a table), want 192 and at most %d a table", c.name, tables, alloc, alloc/max(tables, 1), c.limit)
		}
	}
}

// genDumps returns the opensm-lfts.dump and opensm.fdbs of the generated
// fabric spec, as orcs gen writes them.
func genDumps(t *testing.T, spec string) (lfts, fdbs []byte) {
	t.Helper()
	f, err := gen.Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	var l, d bytes.Buffer
	if err := WriteLFTDump(&l, f); err != nil {
		t.Fatal(err)
	}
	if err := WriteFDBs(&d, f); err != nil {
		t.Fatal(err)
	}
	return l.Bytes(), d.Bytes()
}

// TestParallelWindowsOnHugePages: windows of a mebibyte or more are held
// on huge pages (hugemem) and given back when the read ends; the tables,
// labels and lines read from them are those of the line by line reader,
// read after the windows are gone (a table or a message that kept bytes
// of a window would fault).
func TestParallelWindowsOnHugePages(t *testing.T) {
	lfts, fdbs := genDumps(t, "kary:k=8,n=3") // 9 MB of opensm-lfts.dump
	mapped := hugemem.Mapped()
	for _, c := range []struct {
		name string
		both func(data []byte, window, threads int, packed bool) (string, string)
		data []byte
	}{{"opensm-lfts.dump", readBoth, lfts}, {"opensm.fdbs", readFDBsBoth, fdbs}} {
		if len(c.data) < 3*hugemem.MinBytes {
			t.Fatalf("%s: %d bytes, want several windows of %d", c.name, len(c.data), hugemem.MinBytes)
		}
		seq, par := c.both(c.data, hugemem.MinBytes, 2, true)
		if seq != par || strings.HasPrefix(par, "error") {
			t.Fatalf("%s:\nline by line:\n%.1000s\nparallel:\n%.1000s", c.name, seq, par)
		}
		if got := hugemem.Mapped(); got != mapped {
			t.Errorf("%s: %d bytes mapped after the read, %d before", c.name, got, mapped)
		}
	}
}

// TestReadWindowsWholeTables: once the first window has shown how long a
// table is, the windows of a dump of long tables hold two whole tables
// per thread (pieces of a table each, as many for each thread), and the
// windows together are the input, byte for byte, across the change of
// size.
func TestReadWindowsWholeTables(t *testing.T) {
	const tables, lines = 12, 36 << 10 // tables of 2.4 MB: 3 in a window of 8 MiB
	var in bytes.Buffer
	for k := range tables {
		fmt.Fprintf(&in, "Unicast lids [0-%d] of switch Lid %d guid 0x%016x ('S%d'):\n", lines, k+1, k+1, k)
		for lid := 1; lid <= lines; lid++ {
			fmt.Fprintf(&in, "0x%04x %03d # Channel Adapter portguid 0x%016x: 'H%d'\n", lid%0x10000, lid%36, lid, lid)
		}
		fmt.Fprintf(&in, "%d lids dumped\n", lines)
	}
	old := parallelWindow
	parallelWindow = 0
	defer func() { parallelWindow = old }()
	mapped := hugemem.Mapped()
	var got bytes.Buffer
	var counts []int
	err := readWindows(bytes.NewReader(in.Bytes()), "dump", 2, unicastStart, func() (int, int) { return 0, 0 }, func(w []byte, _ tableStart) error {
		got.Write(w)
		counts = append(counts, bytes.Count(w, []byte("Unicast lids [")))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), in.Bytes()) {
		t.Fatalf("windows give %d bytes back of %d, or other bytes", got.Len(), in.Len())
	}
	for i, n := range counts[1 : len(counts)-1] {
		if n != 4 {
			t.Fatalf("window %d of %v holds %d tables, want 4 (two per thread)", i+1, counts, n)
		}
	}
	if m := hugemem.Mapped(); m != mapped {
		t.Errorf("%d bytes mapped after the read, %d before: a window not given back", m, mapped)
	}
}

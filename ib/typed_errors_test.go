package ib

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orcs/infile"
)

// parseErr asserts that err is an *infile.ParseError at file:line (line 0:
// any line) and of the given kind (nil: any).
func parseErr(t *testing.T, err error, file string, line int, kind error) {
	t.Helper()
	var pe *infile.ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not an *infile.ParseError", err, err)
	}
	if pe.File != file || line > 0 && pe.Line != line {
		t.Errorf("error at %s:%d, want %s:%d: %v", pe.File, pe.Line, file, line, err)
	}
	if kind != nil && !errors.Is(err, kind) {
		t.Errorf("error %v is not %v", err, kind)
	}
}

// TestTypedErrors checks that reader and build errors carry their file,
// line and kind.
func TestTypedErrors(t *testing.T) {
	dir := filepath.Join("..", "testdata", "ib", "ft16", "minhop")
	lfts, err := os.ReadFile(filepath.Join(dir, "opensm-lfts.dump"))
	if err != nil {
		t.Fatal(err)
	}
	topoData, err := os.ReadFile(filepath.Join(dir, "ibnetdiscover.txt"))
	if err != nil {
		t.Fatal(err)
	}

	// A dump cut before its last trailer is truncated.
	cut := lfts[:strings.LastIndex(string(lfts), "lids dumped")]
	cut = cut[:strings.LastIndexByte(string(cut), '\n')+1]
	_, err = ReadLFTDump(cut, "cut.dump")
	parseErr(t, err, "cut.dump", 0, ErrTruncated)

	// Two CA ports with one LID.
	topo := strings.Replace(string(topoData), "# lid 22 lmc 0", "# lid 21 lmc 0", 1)
	if topo == string(topoData) {
		t.Fatal("fixture changed: no CA port with LID 22")
	}
	tp, err := ReadNetDiscover([]byte(topo), "dup.txt")
	if err != nil {
		t.Fatal(err)
	}
	rt, err := ReadLFTDump(lfts, "lfts.dump")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Build(tp, rt, Options{})
	parseErr(t, err, "dup.txt", 0, ErrDuplicateLID)

	// Tables of another fabric.
	other, err := os.ReadFile(filepath.Join("..", "testdata", "ib", "ft64", "minhop", "opensm-lfts.dump"))
	if err != nil {
		t.Fatal(err)
	}
	ort, err := ReadLFTDump(other, "other.dump")
	if err != nil {
		t.Fatal(err)
	}
	good, err := ReadNetDiscover(topoData, "topo.txt")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Build(good, ort, Options{})
	parseErr(t, err, "other.dump", 0, ErrMismatch)

	// A routing dump where a topology is expected.
	_, err = ReadTopology(lfts, "lfts.dump")
	parseErr(t, err, "lfts.dump", 0, ErrFormat)
}

// TestIncludedFilePositions checks that an error in a record of an
// included ibsim net file names the included file and its line.
func TestIncludedFilePositions(t *testing.T) {
	dir := t.TempDir()
	// more.net's switch record (line 2) has a port above its port count.
	more := "\nSwitch 2 \"sw2\"\n[1] \"h2\"[1]\n[2] \"sw\"[3]\n\nHca 1 \"h2\"\n[1] \"sw2\"[1]\n"
	main := "Switch 3 \"sw\"\n[1] \"h1\"[1]\n[3] \"sw2\"[2]\n\nHca 1 \"h1\"\n[1] \"sw\"[1]\n\ninclude \"more.net\"\n"
	if err := os.WriteFile(filepath.Join(dir, "more.net"), []byte(more), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "main.net")
	if err := os.WriteFile(path, []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	topo, err := ReadTopologyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Give sw2 the GUID of sw: the build names the duplicate in more.net.
	for i := range topo.Nodes {
		if topo.Nodes[i].ID == "sw2" {
			if got, want := topo.Nodes[i].File, filepath.Join(dir, "more.net"); got != want || topo.Nodes[i].Line != 2 {
				t.Errorf("sw2 record at %s:%d, want %s:2", got, topo.Nodes[i].Line, want)
			}
			topo.Nodes[i].GUID = topo.Nodes[0].GUID
		}
	}
	_, err = BuildTopology(topo, Options{})
	parseErr(t, err, filepath.Join(dir, "more.net"), 2, nil)
	if err != nil && !strings.Contains(err.Error(), "also belongs to the node") {
		t.Errorf("error %v", err)
	}
}

// TestDumpLFTSBanner reads what dump_lfts prints: it is a script that runs
// dump_fts and then echoes a deprecation banner.
func TestDumpLFTSBanner(t *testing.T) {
	fts, err := os.ReadFile(filepath.Join("..", "testdata", "ib", "ft16", "minhop", "dump_fts.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out := string(fts) + "\n*** WARNING ***: this command has been replaced by dump_fts\n\n\n"
	banner, err := ReadRouting([]byte(out), "dump_lfts.txt")
	if err != nil {
		t.Fatal(err)
	}
	plain, err := ReadRouting(fts, "dump_fts.txt")
	if err != nil {
		t.Fatal(err)
	}
	if banner.NumEntries() != plain.NumEntries() || len(banner.Switches) != len(plain.Switches) {
		t.Errorf("with the banner: %d switches, %d entries; without: %d, %d", len(banner.Switches), banner.NumEntries(), len(plain.Switches), plain.NumEntries())
	}
}

// TestLongLineStops checks that a streamed file with an endless line stops
// at a bound with an error naming the line.
func TestLongLineStops(t *testing.T) {
	head, err := os.ReadFile(filepath.Join("..", "testdata", "ib", "ft16", "minhop", "ibnetdiscover.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfterN(string(head), "\n", 4)
	path := filepath.Join(t.TempDir(), "topo.txt")
	data := lines[0] + lines[1] + lines[2] + strings.Repeat("x", 3<<20) + "\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ReadTopologyFile(path)
	parseErr(t, err, path, 4, ErrFormat)
	if err == nil || !strings.Contains(err.Error(), "a line longer than 1048576 bytes") {
		t.Errorf("error %v", err)
	}
}

// TestIncludedFileThroughInfile checks that an ibsim include is opened as
// every input is: a gzip'd included file is read, and one holding a NUL
// byte is refused as binary with its name.
func TestIncludedFileThroughInfile(t *testing.T) {
	dir := t.TempDir()
	more := "Switch 2 \"sw2\"\n[1] \"h2\"[1]\n[2] \"sw\"[3]\n\nHca 1 \"h2\"\n[1] \"sw2\"[1]\n"
	main := "Switch 3 \"sw\"\n[1] \"h1\"[1]\n[3] \"sw2\"[2]\n\nHca 1 \"h1\"\n[1] \"sw\"[1]\n\ninclude \"more.net\"\n"
	path := filepath.Join(dir, "main.net")
	if err := os.WriteFile(path, []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write([]byte(more))
	zw.Close()
	if err := os.WriteFile(filepath.Join(dir, "more.net"), zb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	topo, err := ReadTopologyFile(path)
	if err != nil {
		t.Fatalf("gzip'd include: %v", err)
	}
	if len(topo.Nodes) != 4 {
		t.Errorf("gzip'd include: %d nodes, want 4", len(topo.Nodes))
	}
	if err := os.WriteFile(filepath.Join(dir, "more.net"), []byte("Switch\x00"+more), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ReadTopologyFile(path)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "more.net")+": a NUL byte at offset 6: binary data") {
		t.Errorf("include with a NUL byte: %v, want it refused as binary with its name", err)
	}
}

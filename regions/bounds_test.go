package regions

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orcs/gen"
	"orcs/infile"
)

// lines is a reader of n generated lines, counting the lines handed out,
// so that a test can feed a reader more than it should read without
// writing it anywhere.
type lines struct {
	n, i int
	line func(i int) string
	buf  []byte
	head string // written before the first line
	tail string // written after the last
}

func (g *lines) Read(p []byte) (int, error) {
	for len(g.buf) < len(p) && g.i <= g.n {
		switch {
		case g.i == 0 && g.head != "":
			g.buf = append(g.buf, g.head...)
		case g.i < g.n:
			g.buf = append(g.buf, g.line(g.i)...)
		default:
			g.buf = append(g.buf, g.tail...)
		}
		if g.i == 0 && g.head != "" {
			g.head = ""
			continue
		}
		g.i++
	}
	if len(g.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	return n, nil
}

// TestReadCSVBoundsWindows: a stall CSV of one row per window is refused
// at the window where windows × cables passes MaxCells, before any
// window's values are allocated (issue 22, item 5: 2 million one-row
// windows crashed).
func TestReadCSVBoundsWindows(t *testing.T) {
	f := loadDot(t, "ft16.dot")
	fit := MaxCells / len(f.Links)
	src := &lines{n: 4 * fit, line: func(i int) string { return fmt.Sprintf("%d,H0,,S0_0,,50\n", i) }}
	_, err := ReadCSV(src, "w.csv", f)
	want := fmt.Sprintf("w.csv:%d: time %d: %d windows × 64 cables = %d stall values, more than the 16777216", fit+1, fit, fit+1, (fit+1)*64)
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), fmt.Sprintf("the first %d windows fit", fit)) || !errors.Is(err, infile.ErrTooLarge) {
		t.Errorf("%v\nwant %s…", err, want)
	}
	if src.i > fit+10000 {
		t.Errorf("read %d lines of the %d", src.i, src.n)
	}
	// The windows that fit are read.
	s, err := ReadCSV(&lines{n: 3, line: func(i int) string { return fmt.Sprintf("%d,H0,,S0_0,,50\n", i) }}, "ok.csv", f)
	if err != nil || len(s.Values) != 3 {
		t.Errorf("3 windows: %d, %v", len(s.Values), err)
	}
}

// TestReadSamplingsimJSONBoundsWindows: samplingsim JSON is read one
// window at a time and refused at the window where the values pass
// MaxCells; the other fields are skipped without holding them.
func TestReadSamplingsimJSONBoundsWindows(t *testing.T) {
	f, err := gen.Generate("kary:k=4,n=3")
	if err != nil {
		t.Fatal(err)
	}
	fit := MaxCells / len(f.Links)
	src := &lines{n: 2 * fit, head: `{"events": [[1, {"a": "b"}], []], "windows": [`, tail: `{"index": 0, "start_us": 0, "end_us": 1, "links": []}]}`,
		line: func(i int) string {
			return fmt.Sprintf(`{"index": %d, "start_us": %d, "end_us": %d, "links": []},`+"\n", i, i, i+1)
		}}
	_, err = ReadSamplingsimJSON(src, "run.json", f)
	want := fmt.Sprintf("run.json: window %d: %d windows × %d cables = %d stall values, more than the 16777216", fit, fit+1, len(f.Links), (fit+1)*len(f.Links))
	if err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, infile.ErrTooLarge) {
		t.Errorf("%v\nwant %s…", err, want)
	}
	if src.i > fit+10000 {
		t.Errorf("read %d windows of the %d", src.i, src.n)
	}
	s, err := ReadSamplingsimJSON(&lines{n: 2, head: `{"jobs": {"x": [1, 2]}, "windows": [`, tail: `{"index": 2, "start_us": 2, "end_us": 3, "links": [{"link": 1, "from": "S0_0", "to": "H0", "truth_stalled_ns": 500}]}], "diagnosis": null}`,
		line: func(i int) string {
			return fmt.Sprintf(`{"index": %d, "start_us": %d, "end_us": %d, "links": []},`, i, i, i+1)
		}}, "ok.json", f)
	if err != nil || len(s.Values) != 3 || s.Values[2][1] != 50 || s.Times[2] != 2 {
		t.Errorf("3 windows: %v, %v", s.Times, err)
	}
}

// TestSourcesBoundStreams: every regions source refuses an endless or
// blank stream at a bound that its error names (issue 22, item 4: a 600
// MB blank --samplingsim file took 2.2 GB), and too many --perfquery
// snapshots are refused before any is read.
func TestSourcesBoundStreams(t *testing.T) {
	f := loadDot(t, "ft16.dot")
	dir := t.TempDir()
	blank := filepath.Join(dir, "blank")
	if err := os.WriteFile(blank, []byte(strings.Repeat(" \n", 600<<10)), 0o644); err != nil {
		t.Fatal(err)
	}
	header := filepath.Join(dir, "header")
	if err := os.WriteFile(header, []byte("link,from,to,from_port,to_port,load,scaled\n"+strings.Repeat(" \n", 600<<10)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, in := range []Inputs{{CSV: blank}, {Samplingsim: blank}, {Analyzer: header}, {Perfquery: []string{blank, blank}}} {
		_, _, err := in.Read(f)
		if err == nil || !strings.Contains(err.Error(), ":1: more than 1048576 bytes (1 MiB) of blank space") && !strings.Contains(err.Error(), ":2: more than 1048576 bytes (1 MiB) of blank space") {
			t.Errorf("%+v: %v", in, err)
		}
	}
	// An analyzer CSV padded with blank space between its rows stops at
	// the bytes a table of the fabric's 64 links can hold.
	rows := filepath.Join(dir, "rows.csv")
	body := "link,from,to,from_port,to_port,load,scaled\n"
	pad := strings.Repeat(" ", 900<<10) + "\n"
	for l, k := range f.Links[:4] {
		body += fmt.Sprintf("%d,%s,%s,%d,%d,5,0.5\n", l, f.Nodes[k.From].Name, f.Nodes[k.To].Name, k.FromPort, k.ToPort) + pad
	}
	if err := os.WriteFile(rows, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := Inputs{Analyzer: rows}.Read(f)
	if err == nil || !strings.Contains(err.Error(), "the most the get_cable_cong CSV of a fabric of 64 links (a row per link) can hold") || !errors.Is(err, infile.ErrTooLarge) {
		t.Errorf("analyzer: %v", err)
	}
	// Snapshots for more windows than fit are refused before any is read
	// (these files do not exist).
	many := make([]string, MaxCells/len(f.Links)+2)
	for i := range many {
		many[i] = filepath.Join(dir, "absent")
	}
	_, _, err = Inputs{Perfquery: many}.Read(f)
	if err == nil || !strings.Contains(err.Error(), "--perfquery: 262146 snapshots: 262145 windows × 64 cables") {
		t.Errorf("perfquery: %v", err)
	}
}

package ib

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orcs/infile"
)

// TestReadPathSLsFixture reads the PathRecords the SA of a real OpenSM
// (lash on the 4x4 torus) answered.
func TestReadPathSLsFixture(t *testing.T) {
	path := filepath.Join("..", "testdata", "ib", "torus", "lash-sl", "saquery-pr.txt")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ReadPathSLs(data, path)
	if err != nil {
		t.Fatal(err)
	}
	var sls [NumSLs]int
	for _, r := range recs {
		sls[r.SL]++
	}
	if len(recs) != 240 || sls[0]+sls[1] != 240 || sls[1] == 0 {
		t.Fatalf("%d records, SLs %v", len(recs), sls)
	}
	if r := recs[0]; r.SLID != 1 || r.DLID != 5 || r.Line != 1 {
		t.Errorf("first record %+v", r)
	}
	n := 0
	if err := ScanPathSLsFile(path, func(PathSL) error { n++; return nil }); err != nil || n != 240 {
		t.Errorf("scan: %d records, %v", n, err)
	}
}

func TestReadPathSLsErrors(t *testing.T) {
	rec := func(fields string) string { return "PathRecord dump:\n" + fields }
	for _, c := range []struct {
		in, want string
		kind     error
	}{
		{"", "no PathRecords", ErrFormat},
		{"Unicast lids [0-24] of switch\n", "want saquery PathRecord output", ErrFormat},
		{rec("\t\tslid....1\n\t\tdlid....2\n"), "x:1: PathRecord without sl", ErrTruncated},
		{rec("\t\tslid....1\n\t\tsl....0x1\n") + rec("\t\tslid....1\n\t\tdlid....3\n\t\tsl....0x0\n"), "x:1: PathRecord without dlid", ErrTruncated},
		{rec("\t\tslid....0\n\t\tdlid....2\n\t\tsl....0x0\n"), "slid 0: not a unicast LID", nil},
		{rec("\t\tslid....1\n\t\tdlid....49152\n\t\tsl....0x0\n"), "dlid 49152: not a unicast LID", nil},
		{rec("\t\tslid....1\n\t\tdlid....2\n\t\tsl....0x10\n"), `x:4: sl "0x10": want a number up to 15`, nil},
		{rec("\t\tslid....one\n"), `x:2: slid "one"`, nil},
	} {
		_, err := ReadPathSLs([]byte(c.in), "x")
		if err == nil || !strings.Contains(err.Error(), c.want) || c.kind != nil && !errors.Is(err, c.kind) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
	// Decimal SLs and hex LIDs are read as well.
	recs, err := ReadPathSLs([]byte(rec("slid..0x10\ndlid..0x2\nsl..3\n")), "x")
	if err != nil || len(recs) != 1 || recs[0] != (PathSL{SLID: 16, DLID: 2, SL: 3, Line: 1}) {
		t.Errorf("%+v, %v", recs, err)
	}
}

// TestReadSL2VLFixtures reads OpenSM's dump and the smpquery output of the
// same routing (torus-2QoS on the 4x4 torus) and finds the same tables.
func TestReadSL2VLFixtures(t *testing.T) {
	dir := filepath.Join("..", "testdata", "ib", "torus", "torus-2QoS-sl")
	dump, err := ReadSL2VLFile(filepath.Join(dir, "opensm-sl2vl.dump"), infile.Limit{})
	if err != nil {
		t.Fatal(err)
	}
	smp, err := ReadSL2VLFile(filepath.Join(dir, "smpquery-sl2vl.txt"), infile.Limit{})
	if err != nil {
		t.Fatal(err)
	}
	if dump.Format != "opensm-sl2vl.dump" || smp.Format != "smpquery sl2vl" || len(dump.Nodes) != 32 || len(smp.Nodes) != 32 {
		t.Fatalf("formats %q %q, %d and %d nodes", dump.Format, smp.Format, len(dump.Nodes), len(smp.Nodes))
	}
	n := dump.Nodes[0]
	if n.Kind != "Switch" || n.PortGUID != 0x200000 || n.LID != 2 || n.Desc != "S-0-0" || len(n.Entries) != 5*9 {
		t.Errorf("first node %+v", n)
	}
	if e := n.Entries[3]; e.In != 3 || e.Out != 1 || e.VL != [NumSLs]uint8{2, 3, 2, 3, 2, 3, 2, 3, 6, 7, 6, 7, 6, 7, 6, 7} {
		t.Errorf("entry in 3 out 1: %+v", e)
	}
	// Every table of the dump is in the smpquery output, found by LID.
	byLID := map[uint16]map[[2]uint8][NumSLs]uint8{}
	for _, nd := range smp.Nodes {
		m := map[[2]uint8][NumSLs]uint8{}
		for _, e := range nd.Entries {
			m[[2]uint8{e.In, e.Out}] = e.VL
		}
		byLID[nd.LID] = m
	}
	for _, nd := range dump.Nodes {
		for _, e := range nd.Entries {
			if got, ok := byLID[nd.LID][[2]uint8{e.In, e.Out}]; !ok || got != e.VL {
				t.Fatalf("LID %d in %d out %d: smpquery %v, dump %v", nd.LID, e.In, e.Out, got, e.VL)
			}
		}
	}
}

func TestReadSL2VLErrors(t *testing.T) {
	const head = "Switch 0x0000000000200000, base LID 2, \"S-0-0\"\n"
	const smp = "# SL2VL table: Lid 2\n"
	row := "| 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|12|13|14| 7|"
	for _, c := range []struct{ in, want string }{
		{"", "no SL2VL tables"},
		{"hello\n", `x:1: unexpected line "hello"`},
		{head, "x:1: SL2VL tables of LID 2: no entries"},
		{head + "0 1 : 0 1 2\n", "x:2: SL2VL line \"0 1 : 0 1 2\": want 16 VLs"},
		{head + "0 1 : 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n", "more than 16 VLs"},
		{head + "0 1 : 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 16\n", "want 16 VLs (0-15)"},
		{"Switch 0x20, LID 2\n", "x:1: SL2VL header"},
		{smp + "ports: in 0, out 1: " + row + "\n" + head, "x:3: a opensm-sl2vl.dump line in smpquery sl2vl output"},
		{"ports: in 0, out 1: " + row + "\n", "before any"},
		{"# SL2VL table: 0,1,2\n", "want \"# SL2VL table: Lid <LID>\""},
		{smp + "ports: in 0, out 1: | 0| 1|\n", `x:2: SL2VL line "ports: in 0, out 1: | 0| 1|": want 16 VLs (0-15), found 2`},
		{smp + "ports: in 0, out 1: | 0| 1\n", "want 16 VLs separated by |, found 2"},
		{smp + "ports: in 0 out 1: " + row + "\n", "want \"ports: in <port>, out <port>"},
	} {
		_, err := ReadSL2VL([]byte(c.in), "x")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
	// smpquery blocks of one LID are merged.
	s, err := ReadSL2VL([]byte(smp+"ports: in 0, out 1: "+row+"\n"+smp+"ports: in 1, out 2: "+row+"\n"), "x")
	if err != nil || len(s.Nodes) != 1 || len(s.Nodes[0].Entries) != 2 || s.Nodes[0].Entries[1].Out != 2 {
		t.Errorf("%+v, %v", s, err)
	}
}

// FuzzReadSL2VL: any input gives tables or an error, never a panic, and
// every entry read has 16 VLs of at most 15.
func FuzzReadSL2VL(f *testing.F) {
	for _, name := range []string{"opensm-sl2vl.dump", "smpquery-sl2vl.txt"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "ib", "torus", "torus-2QoS-sl", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data[:min(len(data), 2000)])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadSL2VL(data, "fuzz")
		if err != nil {
			return
		}
		for _, n := range s.Nodes {
			for _, e := range n.Entries {
				for _, vl := range e.VL {
					if vl > 15 {
						t.Fatalf("VL %d", vl)
					}
				}
			}
		}
	})
}

// TestReadPathSLsDFSSSPLog reads the path layers OpenSM's dfsssp logged
// for the 4x4 torus (its log lines with "route from src_lid=S to
// dest_lid=D on vl=V", switch LIDs included: 32 LIDs, 992 pairs), and
// refuses a log without them or with a damaged one.
func TestReadPathSLsDFSSSPLog(t *testing.T) {
	path := filepath.Join("..", "testdata", "ib", "torus", "dfsssp-sl", "dfsssp-sl.txt")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ReadPathSLs(data, path)
	if err != nil || len(recs) != 32*31 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	if recs[0] != (PathSL{SLID: 1, DLID: 2, SL: 0, Line: 1, Log: true}) {
		t.Errorf("first record %+v", recs[0])
	}
	layers := map[uint8]int{}
	for _, r := range recs {
		layers[r.SL]++
		if !r.Log {
			t.Fatalf("record %+v not from a log", r)
		}
	}
	if len(layers) != 3 || layers[0] == 0 || layers[6] == 0 || layers[7] == 0 {
		t.Errorf("layers %v, want 0, 6, 7", layers)
	}
	// Other lines of the log are skipped, wherever they are.
	mixed := "Nov 27 21:07:39 167000 [AFA416C0] 0x02 -> dfsssp_remove_deadlocks: Virtual Lanes needed: 3\n" +
		"Nov 27 21:07:39 167169 [AFA416C0] 0x08 -> vltable_print:    route from src_lid=1 to dest_lid=0x2 on vl=6\n" +
		"Nov 27 21:07:39 167170 [AFA416C0] 0x02 -> SUBNET UP\n"
	recs, err = ReadPathSLs([]byte(mixed), "x")
	if err != nil || len(recs) != 1 || recs[0] != (PathSL{SLID: 1, DLID: 2, SL: 6, Line: 2, Log: true}) {
		t.Errorf("%+v, %v", recs, err)
	}
	const pre = "Nov 27 21:07:39 167169 [AFA416C0] 0x08 -> vltable_print:    "
	for _, c := range []struct{ in, want string }{
		{"Nov 27 21:07:39 167000 [AFA416C0] 0x02 -> SUBNET UP\n", "an OpenSM log without dfsssp's path layers"},
		{pre + "route from src_lid=1 to dest_lid=2 on vl=16\n", `x:1: "vl=16": want vl=N with N up to 15`},
		{pre + "route from src_lid=0 to dest_lid=2 on vl=1\n", "x:1: src_lid 0: not a unicast LID"},
		{pre + "route from src_lid=1 to dest_lid=49152 on vl=1\n", "x:1: dest_lid 49152: not a unicast LID"},
		{pre + "route from src_lid=1 to dest_lid=2\n", "x:1: want \"route from src_lid=S"},
		{pre + "route from src_lid=1 to dlid=2 on vl=1\n", `x:1: "dlid=2": want dest_lid=N`},
	} {
		_, err := ReadPathSLs([]byte(c.in), "x")
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrFormat) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

// FuzzReadPathSLs: any input gives records with unicast LIDs and SLs up
// to 15, or an error.
func FuzzReadPathSLs(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "ib", "torus", "lash-sl", "saquery-pr.txt"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data[:min(len(data), 2000)])
	logData, err := os.ReadFile(filepath.Join("..", "testdata", "ib", "torus", "dfsssp-sl", "dfsssp-sl.txt"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(logData[:min(len(logData), 2000)])
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := ReadPathSLs(data, "fuzz")
		if err != nil {
			return
		}
		for _, r := range recs {
			if r.SLID == 0 || r.DLID == 0 || r.SLID > maxUnicastLID || r.DLID > maxUnicastLID || r.SL >= NumSLs {
				t.Fatalf("record %+v", r)
			}
		}
	})
}

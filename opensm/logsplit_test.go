package opensm

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogSplit: the lines with dfsssp's path layers go to the gzipped SL
// file, its other debug lines and function traces are dropped, every
// other line reaches opensm.log in order, and a last line OpenSM left
// unfinished is kept before the end mark.
func TestLogSplit(t *testing.T) {
	const pre = "Nov 27 21:07:39 167169 [AFA416C0] "
	in := pre + "0x02 -> osm_vendor_init: 1000 pending umads specified\n" +
		pre + "0x08 -> dfsssp_print_graph: adj_list[0]:\n" +
		pre + "0x08 -> vltable_print:    route from src_lid=1 to dest_lid=2 on vl=0\n" +
		pre + "0x10 -> __osm_ucast_mgr_process: [\n" +
		pre + "0x02 -> dfsssp_remove_deadlocks: Virtual Lanes needed: 3\n" +
		pre + "0x08 -> vltable_print:    route from src_lid=2 to dest_lid=1 on vl=6\n" +
		pre + "0x02 -> SUBNET UP\n" +
		pre + "0x01 -> osm_exit: unfinished"
	var logOut, slOut bytes.Buffer
	if err := split(strings.NewReader(in+string(logEnd)), &logOut, &slOut); err != nil {
		t.Fatal(err)
	}
	wantLog := pre + "0x02 -> osm_vendor_init: 1000 pending umads specified\n" +
		pre + "0x02 -> dfsssp_remove_deadlocks: Virtual Lanes needed: 3\n" +
		pre + "0x02 -> SUBNET UP\n" + pre + "0x01 -> osm_exit: unfinished\n"
	if logOut.String() != wantLog {
		t.Errorf("opensm.log:\n%s\nwant:\n%s", logOut.String(), wantLog)
	}
	zr, err := gzip.NewReader(&slOut)
	if err != nil {
		t.Fatal(err)
	}
	sl, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if want := pre + "0x08 -> vltable_print:    route from src_lid=1 to dest_lid=2 on vl=0\n" +
		pre + "0x08 -> vltable_print:    route from src_lid=2 to dest_lid=1 on vl=6\n"; string(sl) != want {
		t.Errorf("path layers:\n%s", sl)
	}
}

// TestLogSplitFIFO runs the split on a real FIFO that nobody writes to
// (OpenSM failed before opening its log): finish still ends it, with
// empty files.
func TestLogSplitFIFO(t *testing.T) {
	dir := t.TempDir()
	s, err := startLogSplit(filepath.Join(dir, logFIFO), filepath.Join(dir, "opensm.log"), filepath.Join(dir, PathSLLogFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.finish(); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "opensm.log")); err != nil || len(data) != 0 {
		t.Errorf("opensm.log %q, %v", data, err)
	}
}

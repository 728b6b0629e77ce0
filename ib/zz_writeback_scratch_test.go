package ib

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

func TestScratchWriteBack(t *testing.T) {
	dir := os.Getenv("WB_DIR")
	if dir == "" {
		t.Skip()
	}
	f, err := ReadFiles(dir+"/ibnetdiscover.txt", dir+"/opensm-lfts.dump", Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := os.Create("/tmp/h27read/written.dump")
	if err := WriteLFTDump(out, f); err != nil {
		t.Fatal(err)
	}
	out.Close()
	in, _ := os.Open(dir + "/opensm-lfts.dump")
	w, _ := os.Create("/tmp/h27read/filtered.dump")
	bw := bufio.NewWriter(w)
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		l := sc.Text()
		if strings.Contains(l, "# Switch portguid") && !strings.Contains(l, " 000 # Switch") {
			continue
		}
		bw.WriteString(l + "\n")
	}
	bw.Flush()
	w.Close()
}

package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ratesDir holds the real outputs of the tools on the mixed-rate fabric
// testdata/ib/rates/rates.net (4xQDR, 4xEDR, 4xHDR and 1xSDR links; ibsim
// answers its 4xFDR10 ports as 4xQDR).
const ratesDir = "../testdata/ib/rates/minhop/"

// flowFinishUs runs one flow of 10 full packets (40 960 bytes, MTU 4096)
// from rank src to rank dst and returns the summary and the job's
// completion time in µs from --json.
func flowFinishUs(t *testing.T, topo, lfts, flow string) (string, float64) {
	t.Helper()
	js := filepath.Join(t.TempDir(), "run.json")
	out, err := runSampling(t, "--topo", topo, "--lfts", lfts, "--workload", "flow:"+flow+",msgs=1,size=40960", "--json", js)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Jobs []struct {
			FinishUs float64 `json:"finish_us"`
		} `json:"jobs"`
		Config struct {
			BandwidthGbps float64 `json:"bandwidth_gbps"`
			LinkRates     []struct {
				Rate  string  `json:"rate"`
				Gbps  float64 `json:"gbps"`
				Links int     `json:"links"`
			} `json:"link_rates"`
		} `json:"config"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Jobs) != 1 {
		t.Fatalf("JSON: %v, %s", err, b)
	}
	return out, doc.Jobs[0].FinishUs
}

// TestSamplingsimLinkRates: samplingsim runs every link of a --topo fabric
// at the rate the file gives it (issue 20). Worked by hand: a flow of 10
// full packets between two hosts of one leaf crosses two links, store and
// forward, and the receiver consumes at its link's rate, so the last
// packet is consumed (10 + 2) packet times after the start, plus two link
// latencies (50 ns) and one router delay (100 ns). A packet of 4096 bytes
// takes 4096·8 bits / the link's data rate:
//
//	4xFDR10: 4 × 10.3125 × 64/66 = 40 Gb/s  → 819.2 ns → 12 × 819.2 + 200 = 10 030.4 ns
//	4xQDR:   4 × 10 × 8/10       = 32 Gb/s  → 1024 ns  → 12 × 1024 + 200  = 12 488 ns
//	4xEDR:   4 × 25.78125 × 64/66 = 100 Gb/s → 327.68 ns → 12 × 327.68 + 200 = 4 132.16 ns
//
// (The code before issue 20 ran every link at --gbps 100: 4 132.16 ns for
// all three.) The FDR10 fabric is the real ibnetdiscover output with its
// 4xQDR links written 4xFDR10, as a production FDR10 fabric reads.
func TestSamplingsimLinkRates(t *testing.T) {
	lfts := ratesDir + "opensm-lfts.dump"
	src, err := os.ReadFile(ratesDir + "ibnetdiscover.txt")
	if err != nil {
		t.Fatal(err)
	}
	fdr10 := filepath.Join(t.TempDir(), "ibnetdiscover-fdr10.txt")
	if err := os.WriteFile(fdr10, bytes.ReplaceAll(src, []byte(" 4xQDR\n"), []byte(" 4xFDR10\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, topo, flow string
		us               float64
		links            string
	}{
		{"FDR10 hosts (node000 -> node001)", fdr10, "src=0,dst=1", 10.0304,
			"links: 14 × 4xFDR10 40 Gb/s, 6 × 4xEDR 100 Gb/s, 2 × 1xSDR 2 Gb/s, 2 × 4xHDR 206.06 Gb/s\n"},
		{"QDR hosts (node000 -> node001)", ratesDir + "ibnetdiscover.txt", "src=0,dst=1", 12.488,
			"links: 14 × 4xQDR 32 Gb/s, 6 × 4xEDR 100 Gb/s, 2 × 1xSDR 2 Gb/s, 2 × 4xHDR 206.06 Gb/s\n"},
		{"EDR hosts of the same fabric (node004 -> node005)", ratesDir + "ibnetdiscover.txt", "src=4,dst=5", 4.13216, ""},
		{"the same from iblinkinfo", ratesDir + "iblinkinfo.txt", "src=0,dst=1", 12.488, ""},
		{"the same from opensm-subnet.lst", ratesDir + "opensm-subnet.lst", "src=4,dst=5", 4.13216, ""},
		// ibsim's net file without speeds: every link at --gbps 100, said so.
		{"no speeds in the file", "../testdata/ib/ft16/ft16.net", "src=0,dst=1", 4.13216,
			"links: 64 × 100 Gb/s (the topology gives no link speeds: every link at the default, --gbps)\n"},
	} {
		l := lfts
		if strings.Contains(c.topo, "ft16") {
			l = "../testdata/ib/ft16/minhop/opensm-lfts.dump"
		}
		out, us := flowFinishUs(t, c.topo, l, c.flow)
		if math.Abs(us-c.us) > 1e-9 {
			t.Errorf("%s: finished after %.6f µs, want %.6f", c.name, us, c.us)
		}
		if !strings.Contains(out, c.links) {
			t.Errorf("%s: summary lacks %q:\n%s", c.name, c.links, out)
		}
	}
	// The diagnosis weighs a root against its own link's rate: the link
	// into node000 (the root of a naive reduce to rank 0) is 4xQDR, 32 Gb/s.
	js := filepath.Join(t.TempDir(), "reduce.json")
	if _, err := runSampling(t, "--topo", ratesDir+"ibnetdiscover.txt", "--lfts", lfts, "--workload", "naive-reduce", "--json", js); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Diagnosis struct {
			Roots []struct {
				Name     string  `json:"name"`
				LineGbps float64 `json:"line_gbps"`
			} `json:"roots"`
		} `json:"diagnosis"`
	}
	if b, err := os.ReadFile(js); err != nil || json.Unmarshal(b, &doc) != nil || len(doc.Diagnosis.Roots) == 0 ||
		!strings.Contains(doc.Diagnosis.Roots[0].Name, "node000") || doc.Diagnosis.Roots[0].LineGbps != 32 {
		t.Errorf("naive reduce on the rates fabric: roots %+v, want the link into node000 at 32 Gb/s", doc.Diagnosis.Roots)
	}
	// A generated fabric has no rates: no line, --gbps everywhere.
	if out, err := runSampling(t, "--gen", "kary:k=2,n=2", "--workload", "flow:src=0,dst=1,msgs=1,size=40960"); err != nil || strings.Contains(out, "\nlinks: ") {
		t.Errorf("gen: %v\n%s", err, out)
	}
}

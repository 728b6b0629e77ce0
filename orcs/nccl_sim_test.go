package main

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestNCCLTable: nccl-tests' columns from hand-made times. 1 MiB in
// 100 µs is 10.49 GB/s (10^9 bytes); allreduce on 8 ranks multiplies by
// 2·7/8 = 1.75 (18.35), allgather by 7/8 (9.18).
func TestNCCLTable(t *testing.T) {
	var b bytes.Buffer
	rows := []ncclRow{{size: 1 << 20, times: []float64{100e-6, 50e-6}}}
	if err := writeNCCLTable(&b, "f", "allreduce", 8, []string{"static", "adaptive"}, rows); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"busbw = algbw × 1.7500",
		"      1048576       262144    float    sum     -1      100.0    10.49    18.35       50.0    20.97    36.70\n",
		"# Avg bus bandwidth (static): 18.350 GB/s",
		"# verdict: at 1048576 bytes adaptive reaches 36.70 GB/s bus bandwidth, 2.00× static's 18.35 GB/s",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := writeNCCLTable(&b, "f", "allgather", 8, []string{"static"}, []ncclRow{{size: 1 << 20, times: []float64{100e-6}}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "float   none     -1      100.0    10.49     9.18\n") {
		t.Errorf("allgather:\n%s", b.String())
	}
}

// TestNCCLSizes: --nccl-sizes ranges and their errors.
func TestNCCLSizes(t *testing.T) {
	if lo, hi, err := parseSizeRange("1M-1G"); lo != 1<<20 || hi != 1<<30 || err != nil {
		t.Errorf("1M-1G: %d %d %v", lo, hi, err)
	}
	for in, want := range map[string]string{
		"1M":    "want MIN-MAX",
		"2M-1M": "MIN is larger than MAX",
		"0-1K":  `"0" is not a size`,
		"1X-2X": `"1X" is not a size`,
	} {
		if _, _, err := parseSizeRange(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
}

// TestSamplingsimNCCLTests: samplingsim on 4 nodes × 2 rails routed by
// OpenSM's ftree (testdata/rail/rail4x2-ftree) prints one row per size,
// whose bus bandwidth is size / time × 1.75, below the 2 rails' 25 GB/s;
// the ring stays on its rail leaf, so adaptive routing has nothing to
// choose and both routings take the same time.
func TestSamplingsimNCCLTests(t *testing.T) {
	out, err := runCmd(t, "samplingsim", "--topo", "../testdata/rail/rail4x2.net", "--lfts", "../testdata/rail/rail4x2-ftree/opensm-lfts.dump",
		"-w", "nccl:op=allreduce", "--nccl-sizes", "1M-2M", "--compare-routing", "static;adaptive")
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for _, line := range strings.Split(out, "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			rows = append(rows, strings.Fields(line))
		}
	}
	if len(rows) != 2 || rows[0][0] != "1048576" || rows[1][0] != "2097152" {
		t.Fatalf("rows %v:\n%s", rows, out)
	}
	for _, r := range rows {
		size, _ := strconv.ParseFloat(r[0], 64)
		us, _ := strconv.ParseFloat(r[5], 64)
		bus, _ := strconv.ParseFloat(r[7], 64)
		if want := size / (us * 1e-6) / 1e9 * 1.75; fmt.Sprintf("%.1f", want) != fmt.Sprintf("%.1f", bus) || bus > 25 || r[5] != r[8] {
			t.Errorf("row %v: busbw %v, from the time %.2f", r, bus, want)
		}
	}
	if _, err := runCmd(t, "samplingsim", "--gen", "kary:k=2,n=2", "-w", "ring", "--nccl-sizes", "1M-2M"); err == nil || !strings.Contains(err.Error(), "give -w nccl:op=") {
		t.Errorf("ring: %v", err)
	}
}

// FuzzSizeRange: --nccl-sizes never panics, and a range it takes is
// 1 ≤ MIN ≤ MAX ≤ 2^40.
func FuzzSizeRange(f *testing.F) {
	for _, s := range []string{"1M-1G", "8-128M", "1K-1K", "0-1", "2G-1M", "-", "1T-2T", "9223372036854775807G-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lo, hi, err := parseSizeRange(s)
		if err == nil && (lo < 1 || lo > hi || hi > 1<<40) {
			t.Errorf("%q: %d-%d", s, lo, hi)
		}
	})
}

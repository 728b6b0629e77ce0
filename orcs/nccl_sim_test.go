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
	ring := []ncclVariant{{"ring", "static"}, {"ring", "adaptive"}}
	if err := writeNCCLTable(&b, "f", "allreduce", 8, ring, rows); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# f: nccl allreduce (ring) on 8 ranks (float, 4 bytes), simulated by samplingsim; busbw = algbw × 1.7500",
		"      1048576       262144    float    sum     -1      100.0    10.49    18.35       50.0    20.97    36.70\n",
		"# Avg bus bandwidth (static): 18.350 GB/s",
		"# verdict: at 1048576 bytes adaptive reaches 36.70 GB/s bus bandwidth, 2.00× static's 18.35 GB/s",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := writeNCCLTable(&b, "f", "allgather", 8, ring[:1], []ncclRow{{size: 1 << 20, times: []float64{100e-6}}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "float   none     -1      100.0    10.49     9.18\n") {
		t.Errorf("allgather:\n%s", b.String())
	}
}

// TestNCCLFastest: with several algorithms the table labels each column
// group "algo routing" and names the fastest per range of sizes, by hand
// from made-up times (µs) of ring static, ring adaptive, tree static,
// tree adaptive: the tree wins 1 and 2 MiB (100/50 = 2 and 200/80 =
// 2.5× the ring), both routings alike; at 4 MiB ring adaptive alone
// (300 against the tree's 450: 1.5×), at 8 MiB again (600 against 800,
// 1.33×; the slowest is now tree adaptive).
func TestNCCLFastest(t *testing.T) {
	vs := []ncclVariant{{"ring", "static"}, {"ring", "adaptive"}, {"tree", "static"}, {"tree", "adaptive"}}
	rows := []ncclRow{
		{1 << 20, []float64{100e-6, 100e-6, 50e-6, 50e-6}},
		{2 << 20, []float64{200e-6, 200e-6, 80e-6, 80e-6}},
		{4 << 20, []float64{400e-6, 300e-6, 450e-6, 450e-6}},
		{8 << 20, []float64{700e-6, 600e-6, 700e-6, 800e-6}},
	}
	var b bytes.Buffer
	if err := writeNCCLTable(&b, "f", "allreduce", 8, vs, rows); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# f: nccl allreduce (ring, tree) on 8 ranks",
		"                  ring static                ring adaptive                  tree static                tree adaptive\n",
		"# fastest: tree static = tree adaptive from 1048576 to 2097152 bytes, 2.00–2.50× the speed of ring static = ring adaptive\n",
		"# fastest: ring adaptive from 4194304 to 8388608 bytes, 1.33–1.50× the speed of tree static = tree adaptive; tree adaptive\n",
		"# verdict: at 8388608 bytes ring adaptive reaches 24.47 GB/s bus bandwidth, 1.33× tree adaptive's 18.35 GB/s",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := writeNCCLTable(&b, "f", "allreduce", 8, vs[:2], []ncclRow{{1 << 20, []float64{1, 1}}, {2 << 20, []float64{2, 2}}}); err != nil {
		t.Fatal(err)
	}
	if want := "# fastest: static = adaptive from 1048576 to 2097152 bytes, in the same time\n"; !strings.Contains(b.String(), want) {
		t.Errorf("routings alike: table lacks %q:\n%s", want, b.String())
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

// TestSamplingsimNCCLAlgos: --nccl-algos ring,tree on 4 nodes × 2 rails
// (OpenSM's ftree) prints one time/algbw/busbw group per algorithm and
// routing, the fastest per size, and the verdict. The tree's time is
// the workload's own (TestNCCLTreeHandWorked derives it by hand); here
// the table must hold it: 4 groups, the tree's busbw from its time, and a
// "fastest:" line for every size. The tree is only allreduce's, and an
// unknown algorithm is named.
func TestSamplingsimNCCLAlgos(t *testing.T) {
	args := []string{"samplingsim", "--topo", "../testdata/rail/rail4x2.net", "--lfts", "../testdata/rail/rail4x2-ftree/opensm-lfts.dump",
		"--nccl-sizes", "1M-2M", "--compare-routing", "static;adaptive", "--nccl-algos", "ring,tree"}
	out, err := runCmd(t, append(args, "-w", "nccl:op=allreduce")...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "nccl allreduce (ring, tree) on 8 ranks") || !strings.Contains(out, "tree adaptive") ||
		!strings.Contains(out, "# fastest: ") || !strings.Contains(out, "# verdict: at 2097152 bytes ") {
		t.Errorf("table:\n%s", out)
	}
	covered := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "# fastest: ") {
			covered += strings.Count(line, " bytes,")
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r := strings.Fields(line)
		if len(r) != 5+4*3 {
			t.Fatalf("row %v: want 4 groups of time, algbw, busbw", r)
		}
		size, _ := strconv.ParseFloat(r[0], 64)
		us, _ := strconv.ParseFloat(r[11], 64)
		bus, _ := strconv.ParseFloat(r[13], 64)
		if want := size / (us * 1e-6) / 1e9 * 1.75; fmt.Sprintf("%.1f", want) != fmt.Sprintf("%.1f", bus) || r[11] != r[14] {
			t.Errorf("tree row %v: busbw %v, from the time %.2f", r, bus, want)
		}
	}
	if covered != 1 && covered != 2 {
		t.Errorf("the fastest lines cover %d ranges of the 2 sizes:\n%s", covered, out)
	}
	for spec, want := range map[string]string{
		"nccl:op=allgather": "NCCL's tree runs allreduce only, not op=allgather",
	} {
		if _, err := runCmd(t, append(args, "-w", spec)...); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
	if _, err := runCmd(t, "samplingsim", "--topo", "../testdata/rail/rail4x2.net", "--lfts", "../testdata/rail/rail4x2-ftree/opensm-lfts.dump", "-w", "nccl:op=allreduce", "--nccl-algos", "tree"); err == nil ||
		!strings.Contains(err.Error(), "--nccl-algos runs with --nccl-sizes") {
		t.Errorf("--nccl-algos alone: %v", err)
	}
	bad := append(append([]string(nil), args[:len(args)-1]...), "ring,nvls", "-w", "nccl:op=allreduce")
	if _, err := runCmd(t, bad...); err == nil || !strings.Contains(err.Error(), `"nvls" is not one of [ring tree]`) {
		t.Errorf("nvls: %v", err)
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

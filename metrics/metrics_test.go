package metrics

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"orcs/dot"
	"orcs/patterns"
)

func TestSummarize(t *testing.T) {
	s := Summarize([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	want := Summary{N: 10, Mean: 5.5, Min: 1, Max: 10, Median: 5.5, P5: 1.45, P25: 3.25, P75: 7.75, P95: 9.55}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if s.N != want.N || !near(s.Mean, want.Mean) || !near(s.Min, 1) || !near(s.Max, 10) ||
		!near(s.Median, want.Median) || !near(s.P5, want.P5) || !near(s.P25, want.P25) ||
		!near(s.P75, want.P75) || !near(s.P95, want.P95) {
		t.Fatalf("got %+v", s)
	}
	// sample std of 1..10 = sqrt(9.1666…); t(0.975, 9) = 2.262157
	if !near(s.Std, math.Sqrt(55.0/6)) {
		t.Errorf("std %v", s.Std)
	}
	half := 2.2621571627409915 * math.Sqrt(55.0/6) / math.Sqrt(10)
	if math.Abs(s.CI95Low-(5.5-half)) > 1e-6 || math.Abs(s.CI95High-(5.5+half)) > 1e-6 {
		t.Errorf("ci %v %v, want ±%v", s.CI95Low, s.CI95High, half)
	}
	one := Summarize([]float64{0.5})
	if one.Std != 0 || one.CI95Low != 0.5 || one.CI95High != 0.5 {
		t.Errorf("single value: %+v", one)
	}
}

func TestBinEdgesExact(t *testing.T) {
	for _, c := range []struct {
		x   float64
		bin int
	}{{0, 0}, {0.049, 0}, {0.05, 1}, {0.1, 2}, {0.15, 3}, {0.35, 7}, {0.5, 10}, {0.6, 12},
		{0.75, 15}, {0.95, 19}, {0.99, 19}, {1, 19}, {1.0 / 3, 6}, {2.0 / 3, 13}} {
		if got := EdgesExact.Bin(c.x); got != c.bin {
			t.Errorf("exact Bin(%v) = %d, want %d", c.x, got, c.bin)
		}
	}
}

// TestBinEdgesORCS2 checks ORCS 2.0's bins. GSL's edge k is
// (k/20)·1.000000000000001 = (k/20)·(1 + 5·2⁻⁵²) rounded to a double. For
// k = 15: 0.75 + 3.75·2⁻⁵² = 0.75 + 7.5 units of 2⁻⁵³ (the spacing of
// doubles in [0.5, 1)), a tie that rounds to the even neighbour 0.75 + 8
// units. So 0.75 and 0.75 + 7 units lie in bin 14, 0.75 + 8 units in bin 15.
// Every k·0.05 (k = 1 … 19, as the double nearest to it) lies in bin k−1,
// 0 in bin 0 and 1 in bin 19.
func TestBinEdgesORCS2(t *testing.T) {
	ulps := func(x float64, n int) float64 {
		for range n {
			x = math.Nextafter(x, 2)
		}
		return x
	}
	cases := []struct {
		x   float64
		bin int
	}{{0, 0}, {0.049, 0}, {0.0500001, 1}, {0.75, 14}, {ulps(0.75, 7), 14}, {ulps(0.75, 8), 15},
		{0.7500001, 15}, {1, 19}, {0.99, 19}, {1.0 / 3, 6}, {2.0 / 3, 13}, {13.0 / 15, 17}, {17.0 / 90, 3}}
	for k := 1; k < HistBins; k++ {
		cases = append(cases, struct {
			x   float64
			bin int
		}{float64(k) * 0.05, k - 1})
	}
	for _, c := range cases {
		if got := EdgesORCS2.Bin(c.x); got != c.bin {
			t.Errorf("orcs2 Bin(%v) = %d, want %d", c.x, got, c.bin)
		}
	}
	if e, err := ParseBinEdges(""); err != nil || e != EdgesORCS2 {
		t.Errorf("default edges %q %v", e, err)
	}
	if _, err := ParseBinEdges("gsl"); err == nil || err.Error() != `unknown hist_acc_band bin edges "gsl" (known: orcs2, exact)` {
		t.Errorf("unknown edges: %v", err)
	}
}

func TestHistMaxCongText(t *testing.T) {
	// The manual's Listing 3: bruck on 16 nodes, 64 connections.
	r := &Result{Weights: []int64{0, 14, 44, 6}}
	var b bytes.Buffer
	m, _ := Lookup("hist_max_cong")
	m.Text(&b, r, nil)
	want := "weight 1: 14 of the 64 connections (21.88%)\n" +
		"weight 2: 44 of the 64 connections (68.75%)\n" +
		"weight 3: 6 of the 64 connections (9.38%)\n\nBW: 0.593750\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestHistAccBandText: the same 22 lines of ORCS for both conventions;
// only 0.5 and 0.25, which lie on edges, change bins.
func TestHistAccBandText(t *testing.T) {
	for edges, want := range map[BinEdges]map[int]string{
		EdgesExact: {
			2 + 5:  "  0.25000000   0.30000000     2",
			2 + 10: "  0.50000000   0.55000000     1",
			2 + 19: "  0.95000000   1.00000000     2",
			2 + 0:  "  0.00000000   0.05000000     0",
		},
		EdgesORCS2: {
			2 + 4:  "  0.20000000   0.25000000     1",
			2 + 5:  "  0.25000000   0.30000000     1",
			2 + 9:  "  0.45000000   0.50000000     1",
			2 + 10: "  0.50000000   0.55000000     0",
			2 + 19: "  0.95000000   1.00000000     2",
		},
	} {
		r := &Result{Meta: Meta{BinEdges: string(edges)}, Values: []float64{1, 1, 0.5, 0.25, 0.26}}
		var b bytes.Buffer
		m, _ := Lookup("hist_acc_band")
		m.Text(&b, r, nil)
		lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
		if len(lines) != 22 || lines[0] != "Histogramm bin width: 0.050000" ||
			lines[1] != "Fraction of full bandwidt | Number of occurences" {
			t.Fatalf("%s header:\n%s", edges, b.String())
		}
		for i, want := range want {
			if lines[i] != want {
				t.Errorf("%s: line %d = %q, want %q", edges, i, lines[i], want)
			}
		}
	}
}

func TestStatisticalResultsText(t *testing.T) {
	r := &Result{Values: []float64{3, 5, 3, 4}}
	var b bytes.Buffer
	m, _ := Lookup("sum_max_cong")
	m.Text(&b, r, nil)
	want := "Statistical Results\n===================\n\n" +
		"Minimal Maximal Congestion: 3.000000\nMaximal Maximal Congestion: 5.000000\n" +
		"Average Maximal Congestion: 3.750000\nMaximal Congestion Variance: 0.687500\n" +
		"===================\n\n" +
		"Congestion sum of 3 occured 2 times.\nCongestion sum of 4 occured 1 times.\nCongestion sum of 5 occured 1 times.\n"
	if b.String() != want {
		t.Fatalf("got\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	d, _ := Lookup("dep_max_delay")
	d.Text(&b, r, nil)
	if !strings.Contains(b.String(), "Minimal Delay: 3.000000\n") || !strings.Contains(b.String(), "Delay of 5 occured 1 times.\n") {
		t.Fatalf("delay text:\n%s", b.String())
	}
}

// TestDelayTracker: a binomial tree on 4 ranks (levels {0→1}, {0→2, 1→3})
// with weights 1, then 2 and 3: rank 3 gets its data at 1+3 = 4.
func TestDelayTracker(t *testing.T) {
	var d DelayTracker
	d.Reset(4, 4)
	d.Level(patterns.Level{{Src: 0, Dst: 1}}, []int32{1})
	d.Level(patterns.Level{{Src: 0, Dst: 2}, {Src: 1, Dst: 3}}, []int32{2, 3})
	if got := d.Delay(); got != 4 {
		t.Fatalf("delay %d, want 4", got)
	}
	// An exchange inside one level (0↔1) uses the ready times before the level.
	d.Reset(2, 2)
	d.Level(patterns.Level{{Src: 0, Dst: 1}, {Src: 1, Dst: 0}}, []int32{2, 2})
	d.Level(patterns.Level{{Src: 0, Dst: 1}, {Src: 1, Dst: 0}}, []int32{1, 3})
	if got := d.Delay(); got != 5 {
		t.Fatalf("exchange delay %d, want 5", got)
	}
	// Messages touching ranks of the second pattern do not count.
	d.Reset(4, 2)
	d.Level(patterns.Level{{Src: 0, Dst: 1}, {Src: 2, Dst: 3}}, []int32{1, 9})
	if got := d.Delay(); got != 1 {
		t.Fatalf("delay with background %d, want 1", got)
	}
}

// TestDelayTrackerORCS2 works ORCS 2.0's chaining rule by hand: a send is
// chained only to the first message its rank received in the previous
// level, and only a rank's first send of a level is chained at all.
func TestDelayTrackerORCS2(t *testing.T) {
	d := DelayTracker{ORCS2: true}
	// Binomial tree on 8 ranks, every w = 1. Level 2 has 1→5: rank 1
	// received in level 0, not in level 1, so 1→5 starts at 0 (arrival 1;
	// exact: 2). Level 2's 3→7 follows 0→1 (1), 1→3 (2): arrival 3.
	d.Reset(8, 8)
	d.Level(patterns.Level{{Src: 0, Dst: 1}}, []int32{1})
	d.Level(patterns.Level{{Src: 0, Dst: 2}, {Src: 1, Dst: 3}}, []int32{1, 1})
	d.Level(patterns.Level{{Src: 0, Dst: 4}, {Src: 1, Dst: 5}, {Src: 2, Dst: 6}, {Src: 3, Dst: 7}}, []int32{1, 1, 1, 1})
	if got := d.Delay(); got != 3 {
		t.Fatalf("tree: delay %d, want 3", got)
	}
	// Rank 0 receives 9 in level 0 and sends in level 2 only: that send
	// starts at 0. Exact: 9 + 1 = 10; ORCS 2.0: max(9, 1) = 9.
	d.Reset(4, 4)
	d.Level(patterns.Level{{Src: 1, Dst: 0}}, []int32{9})
	d.Level(patterns.Level{{Src: 2, Dst: 3}}, []int32{1})
	d.Level(patterns.Level{{Src: 0, Dst: 1}}, []int32{1})
	if got := d.Delay(); got != 9 {
		t.Fatalf("skipped level: delay %d, want 9", got)
	}
	// Rank 1 first receives with arrival 2 and then with 3; it then sends
	// with w = 5 and w = 6. Only its first send is chained, to the arrival
	// 2: 2 + 5 = 7; the second starts at 0 (6). Exact: 3 + 6 = 9.
	d.Reset(4, 4)
	d.Level(patterns.Level{{Src: 0, Dst: 1}, {Src: 2, Dst: 1}}, []int32{2, 3})
	d.Level(patterns.Level{{Src: 1, Dst: 3}, {Src: 1, Dst: 0}}, []int32{5, 6})
	if got := d.Delay(); got != 7 {
		t.Fatalf("first receipt and first send: delay %d, want 7", got)
	}
	// Messages touching the second pattern's ranks do not count.
	d.Reset(4, 2)
	d.Level(patterns.Level{{Src: 2, Dst: 3}, {Src: 0, Dst: 1}}, []int32{9, 1})
	if got := d.Delay(); got != 1 {
		t.Fatalf("with background: delay %d, want 1", got)
	}
}

// TestORCSEdgeList: on the manual's fabric ORCS 2.0 numbers the edges by
// node (S1, H1, H2, H3, H4, S11, S12 in order of first appearance) and
// then by out-edge: S1's eight edges (file edges 0–3 and 8–11) are 0 … 7,
// H1→S1 … H4→S1 (file edges 4–7) are 8 … 11, S11's and S12's two edges
// each 12 … 15. The list names only edges with a load, by Edge-ID.
func TestORCSEdgeList(t *testing.T) {
	f, err := dot.ReadFile("../testdata/manual4.dot", dot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []int{0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15}
	if ids := ORCSEdgeIDs(f); !slices.Equal(ids, want) {
		t.Errorf("Edge-IDs by link %v, want %v", ids, want)
	}
	r := &Result{Meta: Meta{Compat: CompatORCS2}, LinkLoad: make([]int64, len(f.Links))}
	r.LinkLoad[4] = 6 // the file's fifth edge, H1→S1: Edge-ID 8
	r.LinkLoad[0] = 7 // S1→H1: Edge-ID 0
	var b bytes.Buffer
	m, _ := Lookup("get_cable_cong")
	if err := m.Text(&b, r, f); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "\nCable Congestions:\n\n Edge-ID\tacc. cong\n0\t7\n8\t6\n" {
		t.Fatalf("edge list %q", got)
	}
}

func TestCongestionColor(t *testing.T) {
	if got := CongestionColor(0); got != "0.400000 0.900000 0.900000" {
		t.Errorf("idle colour %q", got)
	}
	if got := CongestionColor(1); got != "0.000000 0.900000 0.900000" {
		t.Errorf("hot colour %q", got)
	}
	s := ScaledLoad([]int64{0, 2, 4})
	if s[0] != 0 || s[1] != 0.5 || s[2] != 1 {
		t.Errorf("scaled %v", s)
	}
}

func TestLookupAlias(t *testing.T) {
	m, err := Lookup("get_cong_map")
	if err != nil || m.Name != "get_cable_cong" {
		t.Fatalf("alias: %v %v", m, err)
	}
	want := `unknown metric "hist_max_cng" (known: dep_max_delay, get_cable_cong, hist_acc_band, hist_bus_band, hist_max_cong, sum_max_cong); did you mean "hist_max_cong"?`
	if _, err := Lookup("hist_max_cng"); err == nil || err.Error() != want {
		t.Fatalf("unknown: %v, want %s", err, want)
	}
}

func TestRegisterDuplicatePanics(t *testing.T) {
	for _, c := range []struct {
		m     *Metric
		alias []string
	}{
		{&Metric{Name: "hist_acc_band"}, nil},
		{&Metric{Name: "get_cong_map"}, nil},
		{&Metric{Name: ""}, nil},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("Register(%q) did not panic", c.m.Name)
				}
			}()
			Register(c.m, c.alias...)
		}()
	}
	if m, err := Lookup("hist_acc_band"); err != nil || m.Text == nil {
		t.Errorf("hist_acc_band after a failed Register: %v, %v", m, err)
	}
}

// TestMetaDiff checks that Diff names the fields that differ.
func TestMetaDiff(t *testing.T) {
	a := Meta{Pattern: "bisect", Seed: 1, Runs: 10}
	b := a
	if d := a.Diff(b); d != "" {
		t.Errorf("equal metas differ: %q", d)
	}
	b.Seed, b.Runs = 2, 20
	if d := a.Diff(b); d != "seed 1 vs 2; runs 10 vs 20" {
		t.Errorf("Diff = %q", d)
	}
}

// TestBusBandwidth: the fraction is the ratio of the ideal and the actual
// sums of the levels' largest congestion, 0 without levels; the text
// counts runs per exact bin and prints their mean.
func TestBusBandwidth(t *testing.T) {
	for _, tc := range []struct {
		st   RunStats
		want float64
	}{
		{RunStats{SumLevelIdeal: 6, SumLevelMax: 15}, 0.4},
		{RunStats{SumLevelIdeal: 4, SumLevelMax: 4}, 1},
		{RunStats{}, 0},
	} {
		if got := tc.st.BusBandwidth(); got != tc.want {
			t.Errorf("%+v: %v, want %v", tc.st, got, tc.want)
		}
	}
	m, err := Lookup("hist_bus_band")
	if err != nil || !m.NeedsIdeal {
		t.Fatalf("hist_bus_band: %v, NeedsIdeal %v", err, m != nil && m.NeedsIdeal)
	}
	var b strings.Builder
	if err := m.Text(&b, &Result{Values: []float64{0.25, 0.5, 0.5}}, nil); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if lines[2+5] != "  0.25000000   0.30000000     1" || lines[2+10] != "  0.50000000   0.55000000     2" ||
		lines[23] != "mean bus bandwidth fraction: 0.416667" {
		t.Errorf("text:\n%s", b.String())
	}
}

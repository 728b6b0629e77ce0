package metrics

import (
	"bytes"
	"math"
	"strings"
	"testing"

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

func TestBandwidthBin(t *testing.T) {
	for _, c := range []struct {
		x   float64
		bin int
	}{{0, 0}, {0.049, 0}, {0.05, 1}, {0.1, 2}, {0.15, 3}, {0.35, 7}, {0.5, 10}, {0.6, 12},
		{0.75, 15}, {0.95, 19}, {0.99, 19}, {1, 19}, {1.0 / 3, 6}, {2.0 / 3, 13}} {
		if got := BandwidthBin(c.x); got != c.bin {
			t.Errorf("BandwidthBin(%v) = %d, want %d", c.x, got, c.bin)
		}
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

func TestHistAccBandText(t *testing.T) {
	r := &Result{Values: []float64{1, 1, 0.5, 0.25, 0.26}}
	var b bytes.Buffer
	m, _ := Lookup("hist_acc_band")
	m.Text(&b, r, nil)
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 22 || lines[0] != "Histogramm bin width: 0.050000" ||
		lines[1] != "Fraction of full bandwidt | Number of occurences" {
		t.Fatalf("header:\n%s", b.String())
	}
	for i, want := range map[int]string{
		2 + 5:  "  0.25000000   0.30000000     2",
		2 + 10: "  0.50000000   0.55000000     1",
		2 + 19: "  0.95000000   1.00000000     2",
		2 + 0:  "  0.00000000   0.05000000     0",
	} {
		if lines[i] != want {
			t.Errorf("line %d = %q, want %q", i, lines[i], want)
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
	want := `unknown metric "hist_max_cng" (known: dep_max_delay, get_cable_cong, hist_acc_band, hist_max_cong, sum_max_cong); did you mean "hist_max_cong"?`
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

package result

import (
	"math"
	"os"
	"strings"
	"testing"
)

// fixture is a hand-made file: two engines, single failures and a random
// sweep of two trials at K = 1 and 2.
func fixture() *File {
	row := func(i int, set string, k, trial int, status string, cut int64, kept float64, dl string) Row {
		return Row{Index: i, Set: set, K: k, Trial: trial, Status: status, PairsCut: cut, BandwidthKept: kept, Deadlock: dl, Cables: 1}
	}
	a := EngineResult{Engine: "a", Intact: Baseline{MeanBandwidth: 0.5, Deadlock: "free (1 VL)"}, Rows: []Row{
		row(0, "link:S1/1", 0, 0, StatusOK, 0, 0.9, "free (1 VL)"),
		row(1, "link:S1/2", 0, 0, StatusOK, 0, 0.8, "free (1 VL)"),
		row(2, "link:H1/1", 0, 0, StatusOK, 6, 1.0, "free (1 VL)"),
		row(3, "random:1#0", 1, 0, StatusOK, 0, 0.95, "free (1 VL)"),
		row(4, "random:1#1", 1, 1, StatusOK, 0, 0.85, "loop"),
		row(5, "random:2#0", 2, 0, StatusOK, 4, 0.7, "loop"),
		row(6, "random:2#1", 2, 1, StatusOK, 0, 0.75, "free (1 VL)"),
	}}
	b := EngineResult{Engine: "b", Intact: Baseline{MeanBandwidth: 0.6}, Rows: []Row{
		row(0, "link:S1/1", 0, 0, StatusFallback, 0, 0.5, "free (1 VL)"),
		row(1, "link:S1/2", 0, 0, StatusOK, 0, 0.99, "free (1 VL)"),
		row(2, "link:H1/1", 0, 0, StatusError, 0, 0, ""),
		row(3, "random:1#0", 1, 0, StatusOK, 0, 1, "free (1 VL)"),
		row(4, "random:1#1", 1, 1, StatusOK, 0, 1, "free (1 VL)"),
		row(5, "random:2#0", 2, 0, StatusOK, 4, 1, "free (1 VL)"),
		row(6, "random:2#1", 2, 1, StatusOK, 0, 1, "free (1 VL)"),
	}}
	return &File{FormatVersion: FileVersion, Fabric: "f", Sets: 7, Runs: 10, Pattern: "p", Engines: []EngineResult{a, b}}
}

// The summary, by hand: engine a's single non-critical failures keep 90 %
// and 80 % (min 80 %, mean 85 %); trial 0 turns critical at K = 2, trial 1
// never (median of {2, +Inf} = +Inf); trial 1 deadlocks at K = 1, trial 0
// at K = 2 (median 1.5). Engine b's fallback and error are counted, not
// compared: its only single failure is link:S1/2 (99 %).
func TestSummarize(t *testing.T) {
	s := fixture().Summarize()
	a, b := s[0], s[1]
	if a.Critical != 2 || a.Deadlocks != 2 || a.MinKept != 0.8 || math.Abs(a.MeanKept-0.85) > 1e-12 || a.WorstSingle != "link:S1/2" {
		t.Errorf("a: %+v", a)
	}
	if !math.IsInf(a.FirstCriticalK, 1) || a.FirstDeadlockK != 1.5 {
		t.Errorf("a: first critical K %v, first deadlock K %v: want +Inf, 1.5", a.FirstCriticalK, a.FirstDeadlockK)
	}
	if b.Fallbacks != 1 || b.Errors != 1 || b.OK != 5 || b.MinKept != 0.99 || b.FirstDeadlockK != 0 {
		t.Errorf("b: %+v", b)
	}
	c := fixture().Curves()[0]
	// K=1: both trials non-critical (95 %, 85 %); K=2: only trial 1 (75 %).
	if c.K[0] != 1 || math.Abs(c.Kept[0]-0.9) > 1e-12 || c.Kept[1] != 0.75 || c.Cut[1] != 0.5 {
		t.Errorf("curve %+v", c)
	}
	v := fixture().Verdict()
	for _, want := range []string{"a: 2 of 7 failure sets critical, any single non-critical failure keeps ≥ 80.0% of the intact bandwidth (worst link:S1/2), 2 deadlock",
		"b: 1 of 7 failure sets critical, any single non-critical failure keeps ≥ 99.0%", "1 fell back and 1 failed (not compared)"} {
		if !strings.Contains(v, want) {
			t.Errorf("verdict %q lacks %q", v, want)
		}
	}
}

// The plot holds one point per engine and K with a non-critical trial,
// and its axis reaches above 100 % when a failure raises the bandwidth
// (b at K=1: (123 % + 100 %) / 2 = 111.5 %, axis up to 120 %).
func TestPlotSVG(t *testing.T) {
	f := fixture()
	f.Engines[1].Rows[3].BandwidthKept = 1.23
	svg := f.PlotSVG(true)
	if n := strings.Count(svg, "<circle"); n != 4 {
		t.Errorf("%d points, want 4 (a at K=1, 2; b at K=1, 2)", n)
	}
	if !strings.Contains(svg, ">120%<") || !strings.Contains(svg, "b K=1: 111.5% kept") {
		t.Errorf("axis or tooltip missing:\n%s", svg)
	}
	if os.Getenv("WHATIF_PLOT") != "" {
		os.WriteFile(os.Getenv("WHATIF_PLOT"), []byte(svg), 0o644)
	}
}

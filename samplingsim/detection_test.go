package samplingsim

import (
	"strings"
	"testing"
)

// TestDetectionPower (issue 21, item 4): beside its false positives the
// diagnosis reports how much the estimates cannot see. On the naive
// reduction with adaptive routing, one-bit headers, the adaptive route set
// and the §5.5 threshold at 99.5 % (the set-up of the thesis's Figs.
// 5.4–5.5, scaled to 64 hosts) the threshold hides most links that carried
// traffic; the counts are checked against the link rows (the --csv
// output) counted here independently: every link that carried traffic is
// shown, hidden or never sampled; without the threshold none is hidden; a
// view that does not sample every job has no comparison.
func TestDetectionPower(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	for _, fp := range []float64{0.995, 0} {
		cfg := DefaultConfig()
		cfg.Routing, cfg.Scheme, cfg.Restrict, cfg.FalsePositiveConfidence = "adaptive", "onebit", "route", fp
		res := runJobs(t, f, cfg, JobSpec{Name: "reduce", Workload: "naive-reduce", Hosts: allHosts(f.NumHosts())})
		d := Diagnose(res, DiagnoseOptions{View: AllJobs, Window: -1})
		if d.Detection == nil {
			t.Fatalf("fp %g: no detection power", fp)
		}
		det := *d.Detection
		var want Detection
		for _, row := range res.Rows(AllJobs, true) {
			if !row.Sampled {
				continue
			}
			if row.Packets == 0 {
				if row.EstPackets > 0 {
					want.FalsePositives++
				}
				continue
			}
			want.Carried++
			switch {
			case row.EstHidden:
				want.Hidden++
			case row.EstPackets == 0:
				want.Missed++
			default:
				want.Shown++
				if row.EstPackets > 2*float64(row.Packets) {
					want.Over++
				} else if row.EstPackets < float64(row.Packets)/2 {
					want.Under++
				}
			}
		}
		var b strings.Builder
		det.Write(&b)
		t.Logf("fp %g:%s", fp, strings.TrimPrefix(b.String(), " "))
		if det.Carried != want.Carried || det.Shown != want.Shown || det.Hidden != want.Hidden || det.Missed != want.Missed ||
			det.FalsePositives != want.FalsePositives || det.Over != want.Over || det.Under != want.Under {
			t.Errorf("fp %g: %+v, the rows count %+v", fp, det, want)
		}
		if det.Shown+det.Hidden+det.Missed != det.Carried || det.SwitchOver > det.Over || det.SwitchShown > det.Shown {
			t.Errorf("fp %g: counts do not add up: %+v", fp, det)
		}
		switch {
		case fp > 0 && det.Hidden <= det.Shown:
			t.Errorf("threshold at %g hides %d links, shows %d: want most hidden", fp, det.Hidden, det.Shown)
		case fp == 0 && det.Hidden != 0:
			t.Errorf("no threshold, yet %d hidden", det.Hidden)
		}
	}
	two := runJobs(t, f, DefaultConfig(), JobSpec{Name: "a", Workload: "naive-reduce:arrays=2", Hosts: allHosts(32)},
		JobSpec{Name: "b", Workload: "naive-reduce:arrays=2", Hosts: allHosts(64)[32:]})
	if d := Diagnose(two, DiagnoseOptions{View: 0, Window: -1}); d.Detection != nil {
		t.Errorf("job a's view of two jobs compared with the truth of both: %+v", d.Detection)
	}
	if d := Diagnose(two, DiagnoseOptions{View: AllJobs, Window: -1}); d.Detection == nil {
		t.Errorf("the view of all jobs has no comparison")
	}
}

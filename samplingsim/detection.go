package samplingsim

import (
	"fmt"
	"io"
)

// Detection compares the estimates of a view that samples every job with
// the ground truth, link by link over the whole run: the detection power
// that "no false positives" leaves unsaid. Only links leaving a switch
// count (the headers cannot see the others). A simulator-only check: a
// real fabric has no ground truth.
type Detection struct {
	// Carried is the number of links that carried traffic; Shown how many
	// of them have an estimate, Hidden how many the false-positive
	// threshold zeroed and Missed how many were estimated at 0 without
	// it (no sample, or a one-bit estimate below 0).
	Carried int `json:"carried"`
	Shown   int `json:"shown"`
	Hidden  int `json:"hidden"`
	Missed  int `json:"missed"`
	// FalsePositives is the number of links shown that carried nothing.
	FalsePositives int `json:"false_positives"`
	// Over and Under count the links shown at more than twice, or less
	// than half, the packets they carried.
	Over  int `json:"over_2x"`
	Under int `json:"under_half"`
	// SwitchShown and SwitchOver restrict Shown and Over to links between
	// two switches (not into a host).
	SwitchShown int `json:"switch_shown"`
	SwitchOver  int `json:"switch_over_2x"`
	// Worst is the link shown with the largest ratio of estimate to
	// truth, with its truth and estimate in packets ("" if none shown).
	Worst      string  `json:"worst,omitempty"`
	WorstTruth int64   `json:"worst_truth"`
	WorstEst   float64 `json:"worst_est"`
}

// Detection compares the whole-run estimates of view with the ground
// truth; ok is false when the view does not sample every job (the truth
// then holds traffic the view cannot see) or nothing is sampled.
func (r *Result) Detection(view View) (d Detection, ok bool) {
	if (view >= 0 && len(r.Plan.Jobs) > 1) || r.Config.Scheme == "none" || !(r.Config.TagFraction > 0) {
		return d, false
	}
	f := r.Fabric
	worst := 0.0
	for l, e := range r.Estimates(view, -1) {
		if !r.Sampled(int32(l)) {
			continue
		}
		t := r.TruthOf(-1, int32(l))
		shown := e.Packets > 0
		if t.Packets == 0 {
			if shown {
				d.FalsePositives++
			}
			continue
		}
		d.Carried++
		switch {
		case e.Hidden:
			d.Hidden++
		case !shown:
			d.Missed++
		}
		if !shown {
			continue
		}
		d.Shown++
		between := f.HostIndex(f.Links[l].To) < 0
		if between {
			d.SwitchShown++
		}
		truth := float64(t.Packets)
		switch {
		case e.Packets > 2*truth:
			d.Over++
			if between {
				d.SwitchOver++
			}
		case e.Packets < truth/2:
			d.Under++
		}
		if ratio := e.Packets / truth; ratio > worst {
			worst, d.Worst, d.WorstTruth, d.WorstEst = ratio, f.LinkName(int32(l)), t.Packets, e.Packets
		}
	}
	return d, true
}

// Write prints the comparison in one line.
func (d Detection) Write(w io.Writer) error {
	pct := func(n int) float64 { return 100 * float64(n) / float64(max(d.Carried, 1)) }
	s := fmt.Sprintf("  estimates against the ground truth (simulator only): %d of %d links that carried traffic shown (%.0f %%), %d hidden by the false-positive threshold (%.0f %%), %d estimated at 0; %d false positives",
		d.Shown, d.Carried, pct(d.Shown), d.Hidden, pct(d.Hidden), d.Missed, d.FalsePositives)
	if d.Shown > 0 {
		s += fmt.Sprintf("; of those shown %d over 2× and %d under ½ their packets (between switches: %d shown, %d over 2×), the furthest %s: %d packets shown as %.0f",
			d.Over, d.Under, d.SwitchShown, d.SwitchOver, d.Worst, d.WorstTruth, d.WorstEst)
	}
	_, err := fmt.Fprintln(w, s)
	return err
}

package metrics

import (
	"bufio"
	"fmt"
	"io"

	"orcs/lft"
)

func init() {
	Register(&Metric{
		Name: "hist_bus_band",
		Doc: "per run, the fraction of the fabric's bus bandwidth the collective gets: " +
			"Σ levels' largest congestion on a non-blocking fabric / Σ levels' largest congestion; histogram over runs",
		ValueName:      "bus_bandwidth",
		Value:          RunStats.BusBandwidth,
		NeedsIdeal:     true,
		HigherIsBetter: true,
		Text:           histBusBandText,
	})
}

// BusBandwidth is the fraction of the bus bandwidth a collective gets
// under static routing. A level (a step of the collective) lasts as long
// as its slowest flow, whose share of a link is 1/w for the largest
// congestion w of the level; on a non-blocking fabric the same step has
// the largest congestion of the hosts' own links (a ring's 1, a tree
// node's flows on its HCA). The fraction is the ratio of the sums over
// levels: 1 when routing adds no congestion, 1/2 when every step waits
// for a flow that shares a cable with another.
func (s RunStats) BusBandwidth() float64 {
	if s.SumLevelMax == 0 {
		return 0
	}
	return float64(s.SumLevelIdeal) / float64(s.SumLevelMax)
}

// histBusBandText prints the histogram of the per-run bus-bandwidth
// fractions in hist_acc_band's layout, with exact bins ([k·0.05,
// (k+1)·0.05), 1.0 in the last), and their mean.
func histBusBandText(w io.Writer, r *Result, _ *lft.Fabric) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "Histogram bin width: %f\n", 1.0/HistBins)
	fmt.Fprintf(bw, "Fraction of bus bandwidth | Number of runs\n")
	h := EdgesExact.Histogram(r.Values)
	sum := 0.0
	for _, v := range r.Values {
		sum += v
	}
	for i, c := range h {
		fmt.Fprintf(bw, "%12.8f %12.8f %5d\n", float64(i)/HistBins, float64(i+1)/HistBins, c)
	}
	if len(r.Values) > 0 {
		fmt.Fprintf(bw, "\nmean bus bandwidth fraction: %f\n", sum/float64(len(r.Values)))
	}
	return bw.Flush()
}

package metrics

import (
	"bufio"
	"fmt"
	"io"

	"orcs/lft"
)

func init() {
	Register(&Metric{
		Name:           "hist_max_cong",
		Doc:            "histogram of the congestion of every connection of every run; BW = mean of 1/w",
		ValueName:      "bandwidth",
		Value:          RunStats.Bandwidth,
		HigherIsBetter: true,
		Text:           histMaxCongText,
	})
}

// histMaxCongText prints `weight W: C of the T connections (P%)` for every
// weight seen, then `BW: X`, as ORCS does.
func histMaxCongText(w io.Writer, r *Result, _ *lft.Fabric) error {
	bw := bufio.NewWriter(w)
	total := r.Connections()
	for weight, c := range r.Weights {
		if c > 0 {
			fmt.Fprintf(bw, "weight %d: %d of the %d connections (%.2f%%)\n",
				weight, c, total, float64(c)/float64(total)*100)
		}
	}
	fmt.Fprintf(bw, "\nBW: %f\n", r.MeanBandwidth())
	return bw.Flush()
}

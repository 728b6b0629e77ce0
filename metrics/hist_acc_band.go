package metrics

import (
	"bufio"
	"fmt"
	"io"
	"math"

	"orcs/lft"
)

// HistBins is the number of bins of the hist_acc_band histogram.
const HistBins = 20

func init() {
	Register(&Metric{
		Name:      "hist_acc_band",
		Doc:       "per run, the mean fraction of peak bandwidth of its connections; histogram over runs",
		ValueName: "bandwidth",
		Value:     RunStats.Bandwidth,
		Text:      histAccBandText,
	})
}

// BandwidthBin returns the bin of a bandwidth fraction: 20 bins of width
// 0.05 on [0, 1], lower edges inclusive, 1.0 in the last bin.
func BandwidthBin(x float64) int {
	b := int(math.Floor(x*HistBins + 1e-9))
	if b < 0 {
		b = 0
	}
	if b >= HistBins {
		b = HistBins - 1
	}
	return b
}

// BandwidthHistogram counts values per bin.
func BandwidthHistogram(values []float64) [HistBins]int64 {
	var h [HistBins]int64
	for _, v := range values {
		h[BandwidthBin(v)]++
	}
	return h
}

// histAccBandText prints ORCS's histogram (spelling as in ORCS).
func histAccBandText(w io.Writer, r *Result, _ *lft.Fabric) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "Histogramm bin width: %f\n", 1.0/HistBins)
	fmt.Fprintf(bw, "Fraction of full bandwidt | Number of occurences\n")
	h := BandwidthHistogram(r.Values)
	for i, c := range h {
		fmt.Fprintf(bw, "%12.8f %12.8f %5.0f\n", float64(i)/HistBins, float64(i+1)/HistBins, float64(c))
	}
	return bw.Flush()
}

package metrics

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"

	"orcs/lft"
)

// HistBins is the number of bins of the hist_acc_band histogram.
const HistBins = 20

func init() {
	Register(&Metric{
		Name:           "hist_acc_band",
		Doc:            "per run, the mean fraction of peak bandwidth of its connections; histogram over runs",
		ValueName:      "bandwidth",
		Value:          RunStats.Bandwidth,
		HigherIsBetter: true,
		Text:           histAccBandText,
	})
}

// BinEdges names how the 20 bins of hist_acc_band split [0, 1]. Every
// convention prints the same nominal edges k·0.05; they differ only in the
// bin that receives a run lying exactly on an edge.
type BinEdges string

const (
	// EdgesORCS2 bins as ORCS 2.0 does (the default): it lets the GNU
	// Scientific Library spread 20 uniform bins over [0, 1.000000000000001).
	// GSL computes the edges as range[i] = ((20−i)/20)·xmin + (i/20)·xmax in
	// double precision and counts x in bin i when range[i] ≤ x < range[i+1].
	// With xmax a little above 1, every inner edge lies a few units in the
	// last place above k·0.05, so a run of exactly k·0.05 (k ≥ 1) falls in
	// the bin below it, [(k−1)·0.05, k·0.05); 0 falls in the first bin and
	// 1.0 in the last.
	EdgesORCS2 BinEdges = "orcs2"
	// EdgesExact bins by the printed edges: [k·0.05, (k+1)·0.05), with 1.0
	// in the last bin. A value within 1e-9 below an edge counts as on it, so
	// that rounding of the mean (0.7499999999999999 for 3/4) does not move a
	// run down a bin.
	EdgesExact BinEdges = "exact"
)

// BinEdgeNames lists the conventions, the default first.
var BinEdgeNames = []string{string(EdgesORCS2), string(EdgesExact)}

// ParseBinEdges returns the convention named s; "" is the default,
// EdgesORCS2.
func ParseBinEdges(s string) (BinEdges, error) {
	switch BinEdges(s) {
	case "", EdgesORCS2:
		return EdgesORCS2, nil
	case EdgesExact:
		return EdgesExact, nil
	}
	return "", fmt.Errorf("unknown hist_acc_band bin edges %q (known: %s)", s, strings.Join(BinEdgeNames, ", "))
}

// orcs2Max is the upper end ORCS 2.0 gives GSL, 1 + 1e-15 as a double.
const orcs2Max = 1.000000000000001

// orcs2Ranges are GSL's 21 bin edges for 20 uniform bins over
// [0, orcs2Max), computed as GSL computes them.
var orcs2Ranges = func() (r [HistBins + 1]float64) {
	const xmin, xmax = 0.0, orcs2Max
	for i := range r {
		f1 := float64(HistBins-i) / HistBins
		f2 := float64(i) / HistBins
		r[i] = float64(f1*xmin) + float64(f2*xmax)
	}
	return r
}()

// Bin returns the bin (0 … HistBins−1) of a bandwidth fraction. Values
// outside [0, 1] are clamped into the first or the last bin.
func (e BinEdges) Bin(x float64) int {
	if e == EdgesExact {
		b := int(math.Floor(x*HistBins + 1e-9))
		return min(max(b, 0), HistBins-1)
	}
	b := min(max(int(x*HistBins), 0), HistBins-1)
	for b > 0 && x < orcs2Ranges[b] {
		b--
	}
	for b < HistBins-1 && x >= orcs2Ranges[b+1] {
		b++
	}
	return b
}

// Histogram counts values per bin.
func (e BinEdges) Histogram(values []float64) [HistBins]int64 {
	var h [HistBins]int64
	for _, v := range values {
		h[e.Bin(v)]++
	}
	return h
}

// binEdges returns the convention a result was binned with: the one its
// Meta names, else the default.
func (r *Result) binEdges() BinEdges {
	e, err := ParseBinEdges(r.Meta.BinEdges)
	if err != nil {
		return EdgesORCS2
	}
	return e
}

// histAccBandText prints ORCS's histogram (spelling as in ORCS). The lines
// are ORCS's, whatever the convention, so that scripts reading them keep
// working; the convention is named in JSON, CSV and shard files.
func histAccBandText(w io.Writer, r *Result, _ *lft.Fabric) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "Histogramm bin width: %f\n", 1.0/HistBins)
	fmt.Fprintf(bw, "Fraction of full bandwidt | Number of occurences\n")
	h := r.binEdges().Histogram(r.Values)
	for i, c := range h {
		fmt.Fprintf(bw, "%12.8f %12.8f %5.0f\n", float64(i)/HistBins, float64(i+1)/HistBins, float64(c))
	}
	return bw.Flush()
}

package metrics

import (
	"bufio"
	"fmt"
	"io"
	"sort"

	"orcs/lft"
)

func init() {
	Register(&Metric{
		Name:      "sum_max_cong",
		Doc:       "per run, the sum over levels of the level's largest congestion",
		ValueName: "congestion_sum",
		Discrete:  true,
		Value:     func(s RunStats) float64 { return float64(s.SumLevelMax) },
		Text: func(w io.Writer, r *Result, _ *lft.Fabric) error {
			return statisticalResults(w, r.Values, [4]string{
				"Minimal Maximal Congestion:", "Maximal Maximal Congestion:",
				"Average Maximal Congestion:", "Maximal Congestion Variance:",
			}, "Congestion sum of %.0f occured %d times.\n")
		},
	})
}

// statisticalResults prints ORCS's "Statistical Results" block: minimum,
// maximum, mean and population variance of the per-run values, then how
// often every distinct value occurred.
func statisticalResults(w io.Writer, values []float64, labels [4]string, countFormat string) error {
	bw := bufio.NewWriter(w)
	s := Summarize(values)
	fmt.Fprintf(bw, "Statistical Results\n===================\n\n")
	fmt.Fprintf(bw, "%s %f\n", labels[0], s.Min)
	fmt.Fprintf(bw, "%s %f\n", labels[1], s.Max)
	fmt.Fprintf(bw, "%s %f\n", labels[2], s.Mean)
	fmt.Fprintf(bw, "%s %f\n", labels[3], populationVariance(values))
	fmt.Fprintf(bw, "===================\n\n")
	counts := map[float64]int{}
	for _, v := range values {
		counts[v]++
	}
	keys := make([]float64, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Float64s(keys)
	for _, k := range keys {
		fmt.Fprintf(bw, countFormat, k, counts[k])
	}
	return bw.Flush()
}

package metrics

import (
	"fmt"
	"io"

	"orcs/dot"
	"orcs/lft"
)

func init() {
	Register(&Metric{
		Name:          "get_cable_cong",
		Doc:           "sum of every level's link loads over all runs, scaled to [0,1]; prints the fabric as coloured dot",
		ValueName:     "max_congestion",
		Value:         func(s RunStats) float64 { return float64(s.MaxWeight) },
		NeedsLinkLoad: true,
		Text:          cableCongText,
	}, "get_cong_map")
}

// ScaledLoad returns every link's summed load divided by the largest one.
func ScaledLoad(load []int64) []float64 {
	var max int64
	for _, c := range load {
		if c > max {
			max = c
		}
	}
	out := make([]float64, len(load))
	if max == 0 {
		return out
	}
	for i, c := range load {
		out[i] = float64(c) / float64(max)
	}
	return out
}

// CongestionColor is ORCS's edge colour for a scaled load: HSV with hue
// (1 − scaled) × 0.4 (green idle, red hottest), saturation and value 0.9,
// printed as ORCS did ("%f %f %f").
func CongestionColor(scaled float64) string {
	return fmt.Sprintf("%f %f %f", (1-scaled)*0.4, 0.9, 0.9)
}

// cableCongText writes the input graph again with `congestion` and `color`
// attributes on every edge.
func cableCongText(w io.Writer, r *Result, f *lft.Fabric) error {
	if f == nil {
		return fmt.Errorf("get_cable_cong needs the fabric to print")
	}
	if len(r.LinkLoad) != len(f.Links) {
		return fmt.Errorf("get_cable_cong: %d link loads for %d links", len(r.LinkLoad), len(f.Links))
	}
	scaled := ScaledLoad(r.LinkLoad)
	return dot.Write(w, f, dot.WriteOptions{
		OriginalAttrs: true,
		Extra: func(l int32) []lft.Attr {
			return append([]lft.Attr{
				{Key: "congestion", Value: fmt.Sprintf("%f", scaled[l])},
				{Key: "color", Value: CongestionColor(scaled[l])},
			}, hotAttrs(r.Hot, l)...)
		},
	})
}

package metrics

import (
	"bufio"
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
		Discrete:      true,
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

// ORCSEdgeIDs returns, for every link, the number ORCS 2.0 gives the edge
// (its "Edge-ID"): ORCS numbers the edges from 0 going through the nodes in
// the order they first appear in the input and, for each node, through its
// out-edges in input order. The numbers differ from link ids whenever the
// out-edges of a node are not consecutive in the input.
func ORCSEdgeIDs(f *lft.Fabric) []int {
	ids := make([]int, len(f.Links))
	next := 0
	for v := range f.Nodes {
		for _, l := range f.OutLinks(int32(v)) {
			ids[l] = next
			next++
		}
	}
	return ids
}

// cableCongText writes the input graph again with `congestion` and `color`
// attributes on every edge (and --hot's attributes, its verdict as a last
// comment line); with Compat ORCS 2.0's edge list instead.
func cableCongText(w io.Writer, r *Result, f *lft.Fabric) error {
	if f == nil {
		return fmt.Errorf("get_cable_cong needs the fabric to print")
	}
	if len(r.LinkLoad) != len(f.Links) {
		return fmt.Errorf("get_cable_cong: %d link loads for %d links", len(r.LinkLoad), len(f.Links))
	}
	if r.Meta.Compat == CompatORCS2 {
		return orcs2EdgeList(w, r, f)
	}
	scaled := ScaledLoad(r.LinkLoad)
	err := dot.Write(w, f, dot.WriteOptions{
		OriginalAttrs: true,
		Extra: func(l int32) []lft.Attr {
			return append([]lft.Attr{
				{Key: "congestion", Value: fmt.Sprintf("%f", scaled[l])},
				{Key: "color", Value: CongestionColor(scaled[l])},
			}, hotAttrs(r.Hot, l)...)
		},
	})
	if err == nil && r.Hot != nil {
		// --hot's verdict as the last line, a comment dot readers skip.
		_, err = fmt.Fprintf(w, "// %s\n", HotVerdict(r.Hot, r.Meta.Runs))
	}
	return err
}

// orcs2EdgeList prints ORCS 2.0's get_cable_cong result: a blank line,
// "Cable Congestions:", a blank line, the header " Edge-ID<TAB>acc. cong",
// then "ID<TAB>SUM" for every edge some route used, by ascending Edge-ID
// (see ORCSEdgeIDs). SUM is the load accumulated by ORCS 2.0's rule (see
// analyze.Walker.PerRoute). This is what ORCS 2.0 wrote into its result file
// (-o FILE). On stdout it wrote the coloured dot instead, through a graph
// library that added its own attributes and looked up idle edges, which
// have no entry, in vain; that dot is not reproduced.
func orcs2EdgeList(w io.Writer, r *Result, f *lft.Fabric) error {
	ids := ORCSEdgeIDs(f)
	byID := make([]int64, len(ids))
	for l, id := range ids {
		byID[id] = r.LinkLoad[l]
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "\nCable Congestions:\n\n Edge-ID\tacc. cong\n")
	for id, c := range byID {
		if c != 0 {
			fmt.Fprintf(bw, "%d\t%d\n", id, c)
		}
	}
	return bw.Flush()
}

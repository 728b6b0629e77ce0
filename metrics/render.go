package metrics

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"orcs/lft"
)

// Formats lists the output formats.
var Formats = []string{"text", "json", "csv"}

// Render writes r for metric m in the given format ("text", "json", "csv").
// f is the fabric (needed by get_cable_cong).
func Render(w io.Writer, format string, m *Metric, r *Result, f *lft.Fabric) error {
	switch format {
	case "text", "":
		if r.Meta.Nodes != "" && !m.NeedsLinkLoad {
			if _, err := fmt.Fprintf(w, "nodes: %s\n", r.Meta.Nodes); err != nil {
				return err
			}
		}
		if err := m.Text(w, r, f); err != nil || r.Hot == nil || m.NeedsLinkLoad {
			return err // get_cable_cong writes the hot cables as dot attributes
		}
		return WriteHotText(w, r.Hot, r.Meta.Runs)
	case "json":
		return renderJSON(w, m, r, f)
	case "csv":
		return renderCSV(w, m, r, f)
	}
	return fmt.Errorf("unknown format %q (known: text, json, csv)", format)
}

// AnalysisVersion is the format version of AnalysisFile: a reader
// refuses a file of a newer one (infile.CheckVersion). Raise it when a
// field changes its meaning or goes away; added fields keep it.
const AnalysisVersion = 1

// AnalysisFile is the analyzer's JSON result, written by Render (orcs
// --format json, and orcs merge --format json) and read by orcs report
// (report.Load). Its fields are the contract between them; see
// doc/file-contracts.md.
type AnalysisFile struct {
	// FormatVersion is AnalysisVersion when written (0 in files written
	// before the field existed).
	FormatVersion int `json:"format_version"`
	Meta
	ValueName     string        `json:"value_name"`
	Summary       Summary       `json:"summary"`
	Values        []float64     `json:"values"`
	Connections   int64         `json:"connections"`
	MeanBandwidth float64       `json:"mean_bandwidth"`
	Weights       []WeightCount `json:"weights"`
	// Histogram holds hist_acc_band's bins (only that metric's).
	Histogram []HistBin `json:"histogram,omitempty"`
	// Links is get_cable_cong's per-link table (only that metric's).
	Links       []LinkRow  `json:"links,omitempty"`
	RouteErrors int64      `json:"route_errors"`
	Hot         []HotCable `json:"hot_cables,omitempty"`
	Topology    *Topology  `json:"topology,omitempty"`
	// Verdict answers --hot (HotVerdict); "" without it.
	Verdict string `json:"verdict,omitempty"`
}

// WeightCount is how many connections had congestion Weight.
type WeightCount struct {
	Weight int   `json:"weight"`
	Count  int64 `json:"count"`
}

// HistBin is one bin of hist_acc_band's histogram: Count runs from Low
// to High (which edge a bin holds is Meta.BinEdges' convention).
type HistBin struct {
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	Count int64   `json:"count"`
}

// LinkRow is one row of the get_cable_cong per-link table.
type LinkRow struct {
	Link     int     `json:"link"`
	From     string  `json:"from"`
	To       string  `json:"to"`
	FromPort int32   `json:"from_port"`
	ToPort   int32   `json:"to_port"`
	Load     int64   `json:"load"`
	Scaled   float64 `json:"scaled"`
	// EdgeID is ORCS 2.0's number of the edge (see ORCSEdgeIDs); set
	// with Compat only.
	EdgeID *int `json:"edge_id,omitempty"`
}

// LinkTable lists every link with its summed and scaled load.
func LinkTable(r *Result, f *lft.Fabric) []LinkRow {
	scaled := ScaledLoad(r.LinkLoad)
	var ids []int
	if r.Meta.Compat == CompatORCS2 {
		ids = ORCSEdgeIDs(f)
	}
	rows := make([]LinkRow, len(r.LinkLoad))
	for l, load := range r.LinkLoad {
		k := f.Links[l]
		rows[l] = LinkRow{Link: l, From: f.Nodes[k.From].Name, To: f.Nodes[k.To].Name,
			FromPort: k.FromPort, ToPort: k.ToPort, Load: load, Scaled: scaled[l]}
		if ids != nil {
			rows[l].EdgeID = &ids[l]
		}
	}
	return rows
}

func renderJSON(w io.Writer, m *Metric, r *Result, f *lft.Fabric) error {
	out := AnalysisFile{
		FormatVersion: AnalysisVersion,
		Meta:          r.Meta,
		ValueName:     m.ValueName,
		Summary:       Summarize(r.Values),
		Values:        r.Values,
		Connections:   r.Connections(),
		MeanBandwidth: r.MeanBandwidth(),
		RouteErrors:   r.RouteErrors,
		Hot:           r.Hot,
		Topology:      r.Topology,
	}
	if r.Hot != nil {
		out.Verdict = HotVerdict(r.Hot, r.Meta.Runs)
	}
	out.Weights = []WeightCount{}
	for wt, c := range r.Weights {
		if c > 0 {
			out.Weights = append(out.Weights, WeightCount{wt, c})
		}
	}
	if m.Name == "hist_acc_band" {
		e := r.binEdges()
		out.Meta.BinEdges = string(e)
		for i, c := range e.Histogram(r.Values) {
			out.Histogram = append(out.Histogram, HistBin{float64(i) / HistBins, float64(i+1) / HistBins, c})
		}
	}
	if m.NeedsLinkLoad && f != nil {
		out.Links = LinkTable(r, f)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// LinkCSVHeader is the header of get_cable_cong's per-link CSV (one
// LinkRow a line; with Compat a last column edge_id), which orcs regions
// --analyzer reads; see doc/file-contracts.md.
const LinkCSVHeader = "link,from,to,from_port,to_port,load,scaled"

func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// renderCSV writes one `run,<value>` row per run and nothing else, so that
// the file loads as a table whose column mean is the mean of the runs (the
// summary statistics and the bin convention are in the JSON output);
// get_cable_cong writes its per-link table instead (with Compat, a last
// column `edge_id` holds ORCS 2.0's edge numbers).
func renderCSV(w io.Writer, m *Metric, r *Result, f *lft.Fabric) error {
	bw := bufio.NewWriter(w)
	if m.NeedsLinkLoad {
		if f == nil {
			return fmt.Errorf("get_cable_cong needs the fabric for its link table")
		}
		header := LinkCSVHeader
		if r.Meta.Compat == CompatORCS2 {
			header += ",edge_id"
		}
		fmt.Fprintln(bw, header)
		for _, row := range LinkTable(r, f) {
			fmt.Fprintf(bw, "%d,%s,%s,%d,%d,%d,%s", row.Link, csvField(row.From), csvField(row.To),
				row.FromPort, row.ToPort, row.Load, ftoa(row.Scaled))
			if row.EdgeID != nil {
				fmt.Fprintf(bw, ",%d", *row.EdgeID)
			}
			fmt.Fprintln(bw)
		}
		return bw.Flush()
	}
	fmt.Fprintf(bw, "run,%s\n", m.ValueName)
	for i, v := range r.Values {
		fmt.Fprintf(bw, "%d,%s\n", i, ftoa(v))
	}
	return bw.Flush()
}

func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\n\r") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

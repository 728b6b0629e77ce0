// Package comparison holds the result of comparing OpenSM routing
// engines on one fabric (opensm.Compare, orcs compare): a row per engine,
// and its text, CSV and JSON forms and figure. It is apart from opensm so
// that a reader of the JSON (report) does not depend on the routing
// machinery.
package comparison

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"orcs/metrics"
	"orcs/plot"
)

// CurrentRow names the row of the production tables.
const CurrentRow = "current"

// EngineRow is the comparison of one engine.
type EngineRow struct {
	Requested     string           `json:"requested"`
	Used          string           `json:"used,omitempty"`
	Fallback      bool             `json:"fallback"`
	RouteSeconds  float64          `json:"route_seconds"`
	SweepSeconds  float64          `json:"sweep_seconds"`
	MeanBandwidth float64          `json:"mean_bandwidth"`
	Summary       *metrics.Summary `json:"summary,omitempty"`
	MaxCongestion int              `json:"max_congestion"`
	Unroutable    int64            `json:"unroutable_pairs"`
	Loops         int64            `json:"loop_pairs"`
	Skipped       int64            `json:"skipped_connections"`
	Notes         []string         `json:"notes,omitempty"`
	Error         string           `json:"error,omitempty"`
	Values        []float64        `json:"values,omitempty"`

	// Deadlock is the credit-loop check of the routing: "free (K VLs)",
	// "loop", or "" when unknown (a loop on one lane by an engine that
	// separates paths by SL, whose SLs were not read).
	Deadlock string `json:"deadlock"`
}

// Status names how an engine fared: "ok", "fallback" (another engine
// routed) or "failed" (see Error).
func (r *EngineRow) Status() string {
	switch {
	case r.Error != "":
		return "failed"
	case r.Fallback:
		return "fallback"
	}
	return "ok"
}

// MarshalJSON writes the row with its status; the numbers of a failed
// engine are null, not zeros that a table or a mean would take for data.
func (r EngineRow) MarshalJSON() ([]byte, error) {
	type plain EngineRow // without this method
	num := func(x float64) *float64 {
		if r.Error != "" {
			return nil
		}
		return &x
	}
	return json.Marshal(struct {
		Status string `json:"status"`
		plain
		RouteSeconds  *float64 `json:"route_seconds"`
		SweepSeconds  *float64 `json:"sweep_seconds"`
		MeanBandwidth *float64 `json:"mean_bandwidth"`
		MaxCongestion *float64 `json:"max_congestion"`
		Unroutable    *float64 `json:"unroutable_pairs"`
		Loops         *float64 `json:"loop_pairs"`
		Skipped       *float64 `json:"skipped_connections"`
	}{r.Status(), plain(r), num(r.RouteSeconds), num(r.SweepSeconds), num(r.MeanBandwidth), num(float64(r.MaxCongestion)),
		num(float64(r.Unroutable)), num(float64(r.Loops)), num(float64(r.Skipped))})
}

// Result is the comparison of routing engines that opensm.Compare
// returns and orcs compare --format json writes.
type Result struct {
	Fabric   string      `json:"fabric"`
	Hosts    int         `json:"hosts"`
	Switches int         `json:"switches"`
	Pattern  string      `json:"pattern"`
	Metric   string      `json:"metric"`
	Value    string      `json:"value"`
	Runs     int         `json:"runs"`
	Commsize int         `json:"commsize"`
	Seed     uint64      `json:"seed"`
	Seconds  float64     `json:"seconds"`
	Engines  []EngineRow `json:"engines"`
}

// Failed counts the engines that failed to route or to simulate.
func (c *Result) Failed() int {
	n := 0
	for _, r := range c.Engines {
		if r.Error != "" {
			n++
		}
	}
	return n
}

// Formats lists the output formats of a comparison.
var Formats = []string{"text", "json", "csv"}

// CheckFormat returns an error unless format is one of Formats.
func CheckFormat(format string) error {
	if slices.Contains(Formats, format) {
		return nil
	}
	return fmt.Errorf("unknown format %q (known: %s)", format, strings.Join(Formats, ", "))
}

// Write writes the comparison in format: text (WriteTable), json
// (WriteJSON) or csv (WriteCSV).
func (c *Result) Write(w io.Writer, format string) error {
	switch format {
	case "json":
		return c.WriteJSON(w)
	case "csv":
		return c.WriteCSV(w)
	}
	return c.WriteTable(w)
}

// WriteCSV writes one row per engine: its status, the summary of the
// metric's per-run values and the routing's figures; the cells of a failed
// engine's numbers are empty.
func (c *Result) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"engine", "used", "status", "route_seconds", "mean_bandwidth", "mean", "p5", "median", "p95",
		"max_congestion", "unroutable_pairs", "loop_pairs", "deadlock", "error"})
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, r := range c.Engines {
		row := []string{r.Requested, r.Used, r.Status(), "", "", "", "", "", "", "", "", "", r.Deadlock, firstLine(r.Error)}
		if r.Error == "" && r.Summary != nil {
			copy(row[3:], []string{f(r.RouteSeconds), f(r.MeanBandwidth), f(r.Summary.Mean), f(r.Summary.P5), f(r.Summary.Median),
				f(r.Summary.P95), strconv.Itoa(r.MaxCongestion), strconv.FormatInt(r.Unroutable, 10), strconv.FormatInt(r.Loops, 10)})
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// WriteJSON writes the comparison as indented JSON. Summaries of engines
// without runs (NaN) are left out: JSON has no NaN.
func (c *Result) WriteJSON(w io.Writer) error {
	safe := *c
	safe.Engines = append([]EngineRow(nil), c.Engines...)
	for i := range safe.Engines {
		if s := safe.Engines[i].Summary; s != nil && math.IsNaN(s.Mean) {
			safe.Engines[i].Summary = nil
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(safe)
}

// WriteTable prints the comparison as an aligned table, with notes on
// failures and fallbacks below it.
func (c *Result) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "fabric %s: %d hosts, %d switches; pattern %s on %d hosts, metric %s (%s), %d runs, seed %d\n\n",
		c.Fabric, c.Hosts, c.Switches, c.Pattern, c.Commsize, c.Metric, c.Value, c.Runs, c.Seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "engine\tused\troute s\tmean bw\tp5\tmedian\tp95\tmax cong\tunroutable\tdeadlock\t\n")
	var notes []string
	for _, r := range c.Engines {
		if r.Error != "" {
			fmt.Fprintf(tw, "%s\tfailed\t\t\t\t\t\t\t\t\t\n", r.Requested)
			notes = append(notes, fmt.Sprintf("%s failed: %s", r.Requested, firstLine(r.Error)))
			continue
		}
		used := r.Used
		if r.Fallback {
			used += "*"
			why := ""
			if len(r.Notes) > 0 {
				why = ": " + r.Notes[0]
			}
			notes = append(notes, fmt.Sprintf("* %s fell back to %s%s", r.Requested, r.Used, why))
		}
		dl := r.Deadlock
		switch {
		case dl == "" && r.Requested == CurrentRow:
			dl = "?"
			notes = append(notes, "? current: a credit loop on one VL; if the running engine separates paths by SL (lash, dfsssp, nue, torus-2QoS), check with orcs deadlock --sl/--sl2vl")
		case dl == "":
			dl = "?"
			notes = append(notes, fmt.Sprintf("? %s: deadlock unknown: a credit loop on one VL, but %s separates paths by SL and its SLs were not read", r.Requested, r.Used))
		}
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.4f\t%s\t%s\t%s\t%d\t%d\t%s\t\n", r.Requested, used, r.RouteSeconds,
			r.MeanBandwidth, num(r.Summary.P5), num(r.Summary.Median), num(r.Summary.P95), r.MaxCongestion,
			r.Unroutable+r.Loops, dl)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "\n%s\n", strings.Join(notes, "\n"))
	}
	_, err := fmt.Fprintf(w, "\ntotal %.1f s\n", c.Seconds)
	return err
}

// num prints an integer value without decimals, others with four.
func num(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e9 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.4f", x)
}

// shortFabric returns a fabric's file base name (a gen: spec as it is).
func shortFabric(fabric string) string {
	if strings.HasPrefix(fabric, "gen:") {
		return fabric
	}
	return filepath.Base(fabric)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Plot returns the per-engine distributions of the per-run values as a
// figure (engines with the very same values are labelled as equal): bars
// per value for a discrete metric, ECDFs for a continuous one. The title
// names the fabric by its file's base name (a directory says nothing on a
// picture and pushes the title off it).
func (c *Result) Plot() *plot.Distributions {
	d := &plot.Distributions{
		Title:  fmt.Sprintf("%s, %s: %d runs of %s on %d hosts", shortFabric(c.Fabric), c.Metric, c.Runs, c.Pattern, c.Commsize),
		XLabel: c.Value,
		Kind:   plot.Continuous,
	}
	if m, err := metrics.Lookup(c.Metric); err == nil && m.Discrete {
		d.Kind = plot.Discrete
	}
	if c.Metric == "hist_acc_band" {
		d.XLabel = "fraction of peak bandwidth"
	}
	for i, r := range c.Engines {
		label := r.Requested
		if r.Fallback {
			label += " (used " + r.Used + ")"
		}
		for _, o := range c.Engines[:i] {
			if len(o.Values) > 0 && slices.Equal(o.Values, r.Values) {
				label += " = " + o.Requested
				break
			}
		}
		d.Series = append(d.Series, plot.Series{Label: label, Values: r.Values})
	}
	return d
}

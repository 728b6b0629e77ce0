// Package schema holds the JSON file types that one orcs command writes
// and another reads whose writer package sits too high in the import
// graph for the readers to import it: orcs compare's (written by opensm,
// which imports the analyzer, the InfiniBand readers and the deadlock
// check; read by report). Every other file type lives in its writer's
// package; doc/file-contracts.md lists them all.
package schema

import (
	"encoding/json"
	"fmt"
	"orcs/internal/plural"
	"path/filepath"
	"slices"
	"strings"

	"orcs/metrics"
	"orcs/plot"
)

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

// ComparisonVersion is the format version of Comparison: a reader
// refuses a file of a newer one. Raise it when a field changes its
// meaning or goes away; added fields keep it.
const ComparisonVersion = 1

// Comparison is the file of orcs compare --format json: the simulation's
// settings and one row per routing engine. opensm.Compare computes it and
// opensm.Comparison (this type with its writers) writes it; orcs report
// reads it. See doc/file-contracts.md.
type Comparison struct {
	// FormatVersion is ComparisonVersion when written (0 in files written
	// before the field existed).
	FormatVersion int         `json:"format_version"`
	Fabric        string      `json:"fabric"`
	Hosts         int         `json:"hosts"`
	Switches      int         `json:"switches"`
	Pattern       string      `json:"pattern"`
	Metric        string      `json:"metric"`
	Value         string      `json:"value"`
	Runs          int         `json:"runs"`
	Commsize      int         `json:"commsize"`
	Seed          uint64      `json:"seed"`
	Seconds       float64     `json:"seconds"`
	Engines       []EngineRow `json:"engines"`
	// Verdict is the answer in one or two sentences (see
	// Comparison.Judge), Best the engine it names best ("" when none).
	Verdict string `json:"verdict"`
	Best    string `json:"best,omitempty"`
}

// CurrentRow names the row of the production tables (the tables given
// with --lfts, compared beside the engines).
const CurrentRow = "current"

// Plot returns the per-engine distributions of the per-run values as a
// figure (engines with the very same values are labelled as equal, the
// engine named in Best "(best)"): bars
// per value for a discrete metric, ECDFs for a continuous one. The title
// names the fabric by its file's base name (a directory says nothing on a
// picture and pushes the title off it).
func (c *Comparison) Plot() *plot.Distributions {
	d := &plot.Distributions{
		Title:  fmt.Sprintf("%s, %s: %s of %s on %s", shortFabric(c.Fabric), c.Metric, plural.N(c.Runs, "run"), c.Pattern, plural.N(c.Commsize, "host")),
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
		if c.Best != "" && r.Requested == c.Best {
			label += " (best)"
		}
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

// shortFabric returns a fabric's file base name (a gen: spec as it is).
func shortFabric(fabric string) string {
	if strings.HasPrefix(fabric, "gen:") {
		return fabric
	}
	return filepath.Base(fabric)
}

// Package metrics turns the congestion seen by simulated connections into
// ORCS's results: the five ORCS metrics, their classic printed lines, and the
// same results as JSON or CSV with summary statistics.
//
// Every accumulator is mergeable and independent of order: per-run values
// are stored by run index and integer counts are summed, so threads and
// shards (machines) combine into exactly the result of one sequential run.
package metrics

import (
	"fmt"
	"io"
	"reflect"
	"strings"

	"orcs/lft"
	"orcs/registry"
)

// RunStats is what one simulation run measured.
type RunStats struct {
	// Connections is the number of messages of the run.
	Connections int64
	// SumInvWeight is the sum of 1/w over the run's connections, summed by
	// weight class (Σ count_w / w in ascending w), so that it depends only on
	// the multiset of weights, not on the order of connections.
	SumInvWeight float64
	// SumLevelMax is the sum over levels of the level's largest w.
	SumLevelMax int64
	// MaxWeight is the largest w of the run.
	MaxWeight int64
	// Delay is the dep_max_delay chain length (when the metric needs it).
	Delay int64
	// SumLevelIdeal is the sum over levels of the level's largest
	// congestion on a non-blocking fabric, where only the hosts' own links
	// are shared: per level, the most messages one host sends or receives
	// (when the metric needs it).
	SumLevelIdeal int64
}

// Bandwidth is the run's mean fraction of peak bandwidth, the mean of 1/w.
func (s RunStats) Bandwidth() float64 {
	if s.Connections == 0 {
		return 0
	}
	return s.SumInvWeight / float64(s.Connections)
}

// Metric describes one way of reducing simulated congestion to a result.
type Metric struct {
	// Name is the ORCS name, e.g. "hist_acc_band".
	Name string
	// Doc is a one-line description.
	Doc string
	// ValueName names the per-run value in JSON and CSV.
	ValueName string
	// Value extracts the per-run value.
	Value func(RunStats) float64
	// Discrete says that the per-run values are integers (counts of
	// routes or hops), drawn as bars rather than as a continuous curve.
	Discrete bool
	// HigherIsBetter says that a larger per-run value is the better
	// outcome (a bandwidth); otherwise a smaller one is (a congestion, a
	// delay). Verdicts rank by it.
	HigherIsBetter bool
	// NeedsLinkLoad makes the simulation sum every level's link loads.
	NeedsLinkLoad bool
	// NeedsDelay makes the simulation compute dependency delays.
	NeedsDelay bool
	// NeedsIdeal makes the simulation compute RunStats.SumLevelIdeal.
	NeedsIdeal bool
	// Text writes ORCS's printed output.
	Text func(w io.Writer, r *Result, f *lft.Fabric) error
}

// known holds the metrics by name.
var known = registry.New[*Metric]("metric")

// Register adds a metric to the registry under m.Name and every alias. It
// is meant to be called from init functions and panics if a name is not a
// valid registry name (see registry.IsName) or is already registered.
func Register(m *Metric, alias ...string) {
	known.Register(m.Name, m.Doc, m)
	for _, a := range alias {
		known.Alias(a, m.Name)
	}
}

// Lookup returns the metric with the given name or alias. The error for an
// unknown name lists the known ones.
func Lookup(name string) (*Metric, error) { return known.Lookup(name) }

// Names lists the registered metric names, sorted (without aliases).
func Names() []string { return known.Names() }

// Meta records how a result was produced.
type Meta struct {
	Fabric       string `json:"fabric"`
	FabricDigest string `json:"fabric_digest"`
	Hosts        int    `json:"hosts"`
	Pattern      string `json:"pattern"`
	Commsize     int    `json:"commsize"`
	Allocation   string `json:"allocation,omitempty"`
	Subset       string `json:"subset"`
	Shuffle      bool   `json:"shuffle"`
	Level        int    `json:"level"`
	Seed         uint64 `json:"seed"`
	Runs         int    `json:"runs"`
	Metric       string `json:"metric"`
	// BinEdges is the hist_acc_band bin convention (see BinEdges); set
	// for hist_acc_band only.
	BinEdges string `json:"bin_edges,omitempty"`
	// Compat is CompatORCS2 when the simulation reproduced ORCS 2.0's
	// rules, else "".
	Compat string `json:"compat,omitempty"`
	// Nodes counts the fabric's machines by their HCAs ("140 nodes × 8
	// HCAs, 10 nodes × 1 HCA") when some machine has more than one HCA,
	// else "" (see package nodes).
	Nodes string `json:"nodes,omitempty"`
}

// Diff names the fields in which m and o differ, by their JSON names, with
// both values: "seed 1 vs 2; runs 10 vs 20". It is "" when they are equal.
func (m Meta) Diff(o Meta) string {
	var diffs []string
	a, b := reflect.ValueOf(m), reflect.ValueOf(o)
	for i := range a.NumField() {
		if x, y := a.Field(i).Interface(), b.Field(i).Interface(); x != y {
			name, _, _ := strings.Cut(a.Type().Field(i).Tag.Get("json"), ",")
			diffs = append(diffs, fmt.Sprintf("%s %v vs %v", name, x, y))
		}
	}
	return strings.Join(diffs, "; ")
}

// CompatORCS2 names the mode in which every metric follows ORCS 2.0's own
// rules where they differ from the corrected ones (see analyze.Config.Compat).
const CompatORCS2 = "orcs2"

// Result holds everything a metric needs to render, for all runs.
type Result struct {
	Meta Meta
	// Values holds the metric's per-run value, indexed by run.
	Values []float64
	// Weights[w] counts connections whose congestion was w.
	Weights []int64
	// LinkLoad[l] sums link l's load over every level of every run
	// (get_cable_cong only).
	LinkLoad []int64
	// RouteErrors counts connections skipped because their route failed
	// (only with route errors ignored).
	RouteErrors int64
	// Hot lists the most loaded cables with their flows, when asked for
	// (see analyze.Analysis.HotCables); nil otherwise.
	Hot []HotCable
	// Topology describes the fabric with every cable's load, when asked
	// for (the analyzer's --cables); nil otherwise.
	Topology *Topology
}

// AddWeight counts one connection of congestion w.
func (r *Result) AddWeight(w int32) { r.AddWeights(int(w), 1) }

// AddWeights counts n connections of congestion w.
func (r *Result) AddWeights(w int, n int64) {
	for w >= len(r.Weights) {
		r.Weights = append(r.Weights, 0)
	}
	r.Weights[w] += n
}

// Merge adds the integer accumulators of o to r and copies o's per-run
// values for the runs in owned.
func (r *Result) Merge(o *Result, owned []int) {
	for w, c := range o.Weights {
		r.AddWeights(w, c)
	}
	if o.LinkLoad != nil {
		if r.LinkLoad == nil {
			r.LinkLoad = make([]int64, len(o.LinkLoad))
		}
		for l, c := range o.LinkLoad {
			r.LinkLoad[l] += c
		}
	}
	r.RouteErrors += o.RouteErrors
	for _, i := range owned {
		r.Values[i] = o.Values[i]
	}
}

// Connections is the total number of connections counted in Weights.
func (r *Result) Connections() int64 {
	var n int64
	for _, c := range r.Weights {
		n += c
	}
	return n
}

// MeanBandwidth is the mean of 1/w over all connections of all runs,
// computed from the weight histogram (so it does not depend on order).
func (r *Result) MeanBandwidth() float64 {
	var n int64
	var s float64
	for w := len(r.Weights) - 1; w >= 1; w-- {
		c := r.Weights[w]
		n += c
		s += float64(c) / float64(w)
	}
	if n == 0 {
		return 0
	}
	return s / float64(n)
}

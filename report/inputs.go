package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"orcs/deadlock"
	"orcs/infile"
	"orcs/lft"
	"orcs/metrics"
	"orcs/regions"
	"orcs/samplingsim"
	"orcs/schema"
	"orcs/whatif/result"
)

// Kinds of input, by the command that wrote them.
const (
	KindAnalysis    = "analysis"    // orcs --format json [--hot N] [--cables]
	KindRouteCheck  = "route check" // orcs --checkinputfile --format json
	KindDeadlock    = "deadlock"    // orcs deadlock --format json
	KindCompare     = "compare"     // orcs compare --format json
	KindSamplingsim = "samplingsim" // orcs samplingsim --json FILE
	KindRegions     = "regions"     // orcs regions --format json
	KindWhatif      = "whatif"      // orcs whatif --format json (or orcs merge of its shards)
)

// The results the report reads are the file types of their writers
// (doc/file-contracts.md); a renamed field fails TestFileContracts in
// orcs/, which feeds every command's current output to Load.
type (
	// Analysis is the analyzer's JSON result.
	Analysis = metrics.AnalysisFile
	// RouteCheck is the analyzer's --checkinputfile JSON.
	RouteCheck = lft.RouteCheckFile
	// Deadlock is orcs deadlock's JSON.
	Deadlock = deadlock.File
	// Samplingsim is samplingsim's --json run.
	Samplingsim = samplingsim.RunFile
	// Regions is the congestion-region JSON of orcs regions.
	Regions = regions.File
	// Region is one congestion region of one window.
	Region = regions.FileRegion
	// Whatif is orcs whatif's JSON.
	Whatif = result.File
)

// Severities are the region severity classes, mildest first.
var Severities = []string{"negligible", "low", "medium", "high"}

// Inputs are the saved results a report is made of; each may be nil.
type Inputs struct {
	Analysis    *Analysis
	RouteCheck  *RouteCheck
	Deadlock    *Deadlock
	Compare     *schema.Comparison
	Samplingsim *Samplingsim
	Regions     *Regions
	Whatif      *Whatif
	// Files names the file of each kind given (base names).
	Files map[string]string
}

// ErrInput classifies the errors of Load (with infile.ParseError).
var ErrInput = errors.New("not a result orcs report reads")

// Load reads saved JSON results, recognising each by its fields: the
// analyzer's result (metric and per-run values), its route check (pairs),
// deadlock (verdict), compare (engines), samplingsim (jobs and diagnosis)
// and regions (windows and tracks). Each kind may be given once.
func Load(paths []string) (*Inputs, error) {
	in := &Inputs{Files: map[string]string{}}
	for _, p := range paths {
		data, err := infile.ReadAllLimit(p, infile.Limit{Bytes: maxInputBytes, Why: maxInputWhy})
		if err != nil {
			return nil, err
		}
		kind, err := in.add(p, data)
		if err != nil {
			return nil, err
		}
		in.Files[kind] = filepath.Base(p)
	}
	return in, nil
}

// maxInputBytes bounds a result the report reads: it is read whole and
// decoded twice (to tell its kind, then into its type), about three times
// its size in memory. 256 MiB is an analysis of ten million runs, or a
// --cables topology of a million cables. A variable for tests.
var maxInputBytes int64 = 256 << 20

// maxInputWhy says what the bound stands for, in its error.
const maxInputWhy = "a result orcs report reads (an analysis of about ten million runs, read whole)"

// keys are the fields that tell the kinds apart (all must be present).
var keys = []struct {
	kind   string
	fields []string
}{
	{KindWhatif, []string{"cables", "sets", "engines"}},
	{KindRegions, []string{"windows", "tracks", "transitions"}},
	{KindSamplingsim, []string{"jobs", "windows", "config"}},
	{KindCompare, []string{"engines", "metric"}},
	{KindDeadlock, []string{"verdict", "deadlock_free"}},
	{KindRouteCheck, []string{"pairs", "unroutable", "loops"}},
	{KindAnalysis, []string{"metric", "values", "summary"}},
}

// add decodes one file and stores it; it returns the kind.
func (in *Inputs) add(path string, data []byte) (string, error) {
	name := infile.Name(path)
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return "", jsonError(name, data, err)
	}
	kind := ""
	for _, k := range keys {
		if !slices.ContainsFunc(k.fields, func(f string) bool { _, ok := top[f]; return !ok }) {
			kind = k.kind
			break
		}
	}
	if kind == "" {
		var names []string
		for k := range top {
			names = append(names, k)
		}
		slices.Sort(names)
		return "", infile.Errorf(name, 0, "a JSON object with the fields %s is none of the results orcs report reads "+
			"(orcs --format json, --checkinputfile --format json, deadlock, compare, samplingsim --json, regions --format json, whatif --format json)",
			strings.Join(names, ", ")).With(ErrInput)
	}
	if prev, ok := in.Files[kind]; ok {
		return "", infile.Errorf(name, 0, "a second %s result (the first was %s): give one of each", kind, prev).With(ErrInput)
	}
	var dst any
	switch kind {
	case KindAnalysis:
		in.Analysis = &Analysis{}
		dst = in.Analysis
	case KindRouteCheck:
		in.RouteCheck = &RouteCheck{}
		dst = in.RouteCheck
	case KindDeadlock:
		in.Deadlock = &Deadlock{}
		dst = in.Deadlock
	case KindCompare:
		in.Compare = &schema.Comparison{}
		dst = in.Compare
	case KindSamplingsim:
		in.Samplingsim = &Samplingsim{}
		dst = in.Samplingsim
	case KindRegions:
		in.Regions = &Regions{}
		dst = in.Regions
	case KindWhatif:
		in.Whatif = &Whatif{}
		dst = in.Whatif
	}
	if err := json.Unmarshal(data, dst); err != nil {
		return "", jsonError(name, data, err)
	}
	if err := in.checkVersion(kind, name); err != nil {
		return "", err
	}
	if err := in.check(kind, name); err != nil {
		return "", err
	}
	return kind, nil
}

// checkVersion refuses a result of a newer format version than its
// writer's package (compiled into this orcs) knows.
func (in *Inputs) checkVersion(kind, name string) error {
	var got, known int
	switch kind {
	case KindAnalysis:
		got, known = in.Analysis.FormatVersion, metrics.AnalysisVersion
	case KindRouteCheck:
		got, known = in.RouteCheck.FormatVersion, lft.RouteCheckVersion
	case KindDeadlock:
		got, known = in.Deadlock.FormatVersion, deadlock.FileVersion
	case KindCompare:
		got, known = in.Compare.FormatVersion, schema.ComparisonVersion
	case KindSamplingsim:
		got, known = in.Samplingsim.FormatVersion, samplingsim.RunFileVersion
	case KindRegions:
		got, known = in.Regions.FormatVersion, regions.FileVersion
	case KindWhatif:
		got, known = in.Whatif.FormatVersion, result.FileVersion
	}
	if err := infile.CheckVersion(name, kind+" result", got, known); err != nil {
		var pe *infile.ParseError
		if errors.As(err, &pe) {
			return pe.With(ErrInput)
		}
		return err
	}
	return nil
}

// check validates what the report relies on.
func (in *Inputs) check(kind, name string) error {
	bad := func(format string, args ...any) error {
		return infile.Errorf(name, 0, format, args...).With(ErrInput)
	}
	switch kind {
	case KindAnalysis:
		a := in.Analysis
		if a.Metric == "" {
			return bad("the analyzer's result names no metric")
		}
		if err := checkAnalysis(a); err != nil {
			return bad("%v", err)
		}
		if t := a.Topology; t != nil {
			if err := checkTopology(t); err != nil {
				return bad("topology: %v", err)
			}
		}
	case KindRegions:
		r := in.Regions
		tr := r.Transitions
		if len(tr.Classes) != len(tr.Counts) {
			return bad("transitions: %d classes but %d rows of counts", len(tr.Classes), len(tr.Counts))
		}
		for i, row := range tr.Counts {
			if len(row) != len(tr.Classes) {
				return bad("transitions: row %d has %d counts, want %d", i, len(row), len(tr.Classes))
			}
		}
		for wi, w := range r.Windows {
			for _, reg := range w.Regions {
				if !slices.Contains(Severities, reg.Severity) {
					return bad("window %d: region %d has severity %q, want one of %s", wi, reg.ID, reg.Severity, strings.Join(Severities, ", "))
				}
			}
		}
	}
	return nil
}

// checkAnalysis checks the analyzer's result against the rules its
// writer (metrics.Render) follows: a known metric and its value name, one
// value per run and as many in the summary, every value in the metric's
// range (a bandwidth in [0, 1], a count whole and ≥ 0), hist_acc_band's
// bins counting every run, counts ≥ 0 and a mean bandwidth in [0, 1].
func checkAnalysis(a *Analysis) error {
	m, err := metrics.Lookup(a.Metric)
	if err != nil {
		return err
	}
	if a.ValueName != m.ValueName {
		return fmt.Errorf("value_name %q, but metric %s writes %q", short(a.ValueName), m.Name, m.ValueName)
	}
	if a.Runs < 1 || a.Runs != len(a.Values) || a.Summary.N != len(a.Values) {
		return fmt.Errorf("runs %d with %d values and a summary of %d: the analyzer writes one value per run", a.Runs, len(a.Values), a.Summary.N)
	}
	for i, v := range a.Values {
		switch {
		case m.ValueName == "bandwidth":
			if !(v >= 0 && v <= 1) {
				return fmt.Errorf("values[%d] = %v: a bandwidth, from 0 to 1", i, v)
			}
		case m.Discrete:
			if !(v >= 0) || v != math.Trunc(v) || v > 1<<53 {
				return fmt.Errorf("values[%d] = %v: a %s, a whole number ≥ 0", i, v, m.ValueName)
			}
		}
	}
	if !(a.MeanBandwidth >= 0 && a.MeanBandwidth <= 1) {
		return fmt.Errorf("mean_bandwidth %v: from 0 to 1", a.MeanBandwidth)
	}
	if a.RouteErrors < 0 {
		return fmt.Errorf("route_errors %d: a count, want ≥ 0", a.RouteErrors)
	}
	if len(a.Histogram) > 0 {
		if m.Name != "hist_acc_band" || len(a.Histogram) != metrics.HistBins {
			return fmt.Errorf("a histogram of %d bins: only hist_acc_band writes one, of %d bins", len(a.Histogram), metrics.HistBins)
		}
		var n int64
		for i, b := range a.Histogram {
			lo, hi := float64(i)/metrics.HistBins, float64(i+1)/metrics.HistBins
			if b.Low != lo || b.High != hi || b.Count < 0 {
				return fmt.Errorf("histogram bin %d: %v–%v of %d runs, want %v–%v and a count ≥ 0", i, b.Low, b.High, b.Count, lo, hi)
			}
			n += b.Count
		}
		if n != int64(a.Runs) {
			return fmt.Errorf("the histogram counts %d runs of %d", n, a.Runs)
		}
	}
	for i, h := range a.Hot {
		if h.Rank != i+1 || h.MaxLoad < 0 || !(h.MeanPeak >= 0 && h.MeanPeak <= float64(h.MaxLoad)) {
			return fmt.Errorf("hot cable %d: rank %d, mean peak %v, max load %d: want rank %d and 0 ≤ mean peak ≤ max load", i, h.Rank, h.MeanPeak, h.MaxLoad, i+1)
		}
	}
	return nil
}

// checkTopology checks a topology against the rules of its writer
// (metrics.NewTopology): the hosts and switches counted in its nodes, a
// host on level 0, a switch on level ≥ 1 or −1 (no host reaches it),
// levels the largest switch level, grid coordinates of the grid's
// dimensions, cables between its nodes with loads 0 ≤ mean peak ≤ max.
func checkTopology(t *metrics.Topology) error {
	hosts, switches, top := 0, 0, 0
	index := make(map[string]bool, len(t.Nodes))
	for i, n := range t.Nodes {
		index[n.Name] = true
		if n.Switch {
			switches++
			if n.Level < -1 || n.Level == 0 {
				return fmt.Errorf("node %d (%s): a switch on level %d, want ≥ 1 or −1 (no host reaches it)", i, short(n.Name), n.Level)
			}
			top = max(top, n.Level)
		} else {
			hosts++
			if n.Level != 0 {
				return fmt.Errorf("node %d (%s): a host on level %d, want 0", i, short(n.Name), n.Level)
			}
		}
		if t.Grid != nil && n.Coord != nil && len(n.Coord) != len(t.Grid.Dims) {
			return fmt.Errorf("node %d (%s): %d coordinates in a grid of %d dimensions", i, short(n.Name), len(n.Coord), len(t.Grid.Dims))
		}
	}
	if len(t.Nodes) > 0 && (hosts != t.Hosts || switches != t.Switches) {
		return fmt.Errorf("%d hosts and %d switches, but its nodes are %d hosts and %d switches", t.Hosts, t.Switches, hosts, switches)
	}
	if t.Levels != top {
		return fmt.Errorf("%d levels, but its highest switch is on level %d", t.Levels, top)
	}
	if g := t.Grid; g != nil {
		for _, d := range g.Dims {
			if d < 1 || d > len(t.Nodes) {
				return fmt.Errorf("grid dimensions %v: each from 1 to the %d nodes", g.Dims, len(t.Nodes))
			}
		}
	}
	for i, c := range t.Cables {
		if !index[c.From] || !index[c.To] {
			return fmt.Errorf("cable %d (%s -> %s) names a node that is not in its nodes", i, short(c.From), short(c.To))
		}
		if c.MaxLoad < 0 || !(c.MeanPeak >= 0 && c.MeanPeak <= float64(c.MaxLoad)) {
			return fmt.Errorf("cable %d (%s -> %s): mean peak load %v, max load %d: want 0 ≤ mean peak ≤ max load", i, short(c.From), short(c.To), c.MeanPeak, c.MaxLoad)
		}
	}
	return nil
}

// short shortens a name for a message.
func short(s string) string { return infile.ShortenTokens(s) }

// jsonError turns a decoding error into a ParseError at the line of the
// offending byte.
func jsonError(name string, data []byte, err error) error {
	var off int64 = -1
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var cab *regions.CableError
	switch {
	case errors.As(err, &cab):
		off = int64(bytes.Index(data, cab.Raw))
	case errors.As(err, &syn):
		off = syn.Offset
	case errors.As(err, &typ):
		off = typ.Offset
	}
	line := 0
	if off >= 0 {
		line = 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n"))
	}
	if strings.Contains(err.Error(), "unexpected end of JSON input") {
		line = 1 + bytes.Count(bytes.TrimRight(data, "\n"), []byte("\n"))
	}
	return infile.Errorf(name, line, "%w", err).With(ErrInput)
}

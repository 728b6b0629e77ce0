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

	"orcs/infile"
	"orcs/lft"
	"orcs/metrics"
	"orcs/opensm/comparison"
	"orcs/samplingsim"
)

// Kinds of input, by the command that wrote them.
const (
	KindAnalysis    = "analysis"    // orcs --format json [--hot N] [--cables]
	KindRouteCheck  = "route check" // orcs --checkinputfile --format json
	KindDeadlock    = "deadlock"    // orcs deadlock --format json
	KindCompare     = "compare"     // orcs compare --format json
	KindSamplingsim = "samplingsim" // orcs samplingsim --json FILE
	KindRegions     = "regions"     // orcs regions --format json
)

// Analysis is the part of the analyzer's JSON result the report reads.
type Analysis struct {
	Fabric    string          `json:"fabric"`
	Hosts     int             `json:"hosts"`
	Pattern   string          `json:"pattern"`
	Commsize  int             `json:"commsize"`
	Seed      uint64          `json:"seed"`
	Runs      int             `json:"runs"`
	Metric    string          `json:"metric"`
	ValueName string          `json:"value_name"`
	BinEdges  string          `json:"bin_edges"`
	Summary   metrics.Summary `json:"summary"`
	Values    []float64       `json:"values"`
	// Histogram holds hist_acc_band's bins as the analyzer counted them.
	Histogram []struct {
		Low   float64 `json:"low"`
		High  float64 `json:"high"`
		Count int64   `json:"count"`
	} `json:"histogram"`
	MeanBandwidth float64            `json:"mean_bandwidth"`
	RouteErrors   int64              `json:"route_errors"`
	Hot           []metrics.HotCable `json:"hot_cables"`
	Topology      *metrics.Topology  `json:"topology"`
	Links         []metrics.LinkRow  `json:"links"`
}

// RouteCheck is the analyzer's --checkinputfile JSON.
type RouteCheck struct {
	Fabric     string `json:"fabric"`
	Hosts      int    `json:"hosts"`
	Switches   int    `json:"switches"`
	Pairs      int64  `json:"pairs"`
	Unroutable int64  `json:"unroutable"`
	Loops      int64  `json:"loops"`
	OK         bool   `json:"ok"`
	Examples   []struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	} `json:"examples"`
}

// Deadlock is the part of orcs deadlock's JSON the report reads.
type Deadlock struct {
	Verdict        string `json:"verdict"`
	DeadlockFree   bool   `json:"deadlock_free"`
	Hosts          int    `json:"hosts"`
	Switches       int    `json:"switches"`
	SLs            string `json:"sls"`
	SL2VL          string `json:"sl2vl"`
	VLs            []int  `json:"vls"`
	LoopComponents int    `json:"loop_components"`
	Loop           []struct {
		From     string `json:"from"`
		FromPort int32  `json:"from_port"`
		To       string `json:"to"`
		ToPort   int32  `json:"to_port"`
		VL       int    `json:"vl"`
		Flows    []struct {
			Src string `json:"src"`
			Dst string `json:"dst"`
		} `json:"flows_to_next"`
	} `json:"loop"`
	Notes []string `json:"notes"`
}

// Samplingsim is the part of samplingsim's JSON the report reads.
type Samplingsim struct {
	Fabric    string                   `json:"fabric"`
	Hosts     int                      `json:"hosts"`
	Switches  int                      `json:"switches"`
	View      string                   `json:"view"`
	EndUs     float64                  `json:"end_us"`
	Packets   int64                    `json:"packets"`
	Jobs      []samplingsim.JobSummary `json:"jobs"`
	Diagnosis *samplingsim.Diagnosis   `json:"diagnosis"`
	Config    struct {
		BandwidthGbps float64 `json:"bandwidth_gbps"`
		Scheme        string  `json:"scheme"`
		Marking       string  `json:"marking"`
		WindowUs      float64 `json:"window_us"`
	} `json:"config"`
}

// Regions is the congestion-region JSON of orcs regions (only the fields
// the report reads).
type Regions struct {
	Fabric string `json:"fabric"`
	// Hosts and Switches are the fabric's size (0: not given).
	Hosts    int    `json:"hosts"`
	Switches int    `json:"switches"`
	Source   string `json:"source"`
	Params   struct {
		ThetaP float64 `json:"theta_p"`
		ThetaR float64 `json:"theta_r"`
		Sigma  float64 `json:"sigma"`
		Delta  float64 `json:"delta"`
	} `json:"params"`
	Windows []struct {
		Time    float64  `json:"time"`
		Regions []Region `json:"regions"`
	} `json:"windows"`
	Tracks []struct {
		ID           int64   `json:"id"`
		FirstTime    float64 `json:"first_time"`
		LastTime     float64 `json:"last_time"`
		Windows      int     `json:"windows"`
		MaxSize      int     `json:"max_size"`
		PeakSeverity string  `json:"peak_severity"`
	} `json:"tracks"`
	Transitions struct {
		Classes []string  `json:"classes"`
		Counts  [][]int64 `json:"counts"`
	} `json:"transitions"`
}

// Region is one congestion region of one window.
type Region struct {
	ID        int64    `json:"id"`
	Cables    []Cable  `json:"cables"`
	Size      int      `json:"size"`
	MeanStall float64  `json:"mean_stall"`
	MaxStall  float64  `json:"max_stall"`
	Severity  string   `json:"severity"`
	Hosts     []string `json:"hosts"`
	Switches  []string `json:"switches"`
}

// Cable is a directed cable of a region: [from, from_port, to, to_port],
// a port 0 when the JSON has null or "" (two nodes that share one cable).
type Cable struct {
	From, To         string
	FromPort, ToPort int
}

// UnmarshalJSON reads [from, from_port, to, to_port].
func (c *Cable) UnmarshalJSON(b []byte) error {
	var f []json.RawMessage
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	if len(f) != 4 {
		return &cableError{raw: b, err: fmt.Errorf("a cable of %d fields, want [from, from_port, to, to_port]", len(f))}
	}
	port := func(raw json.RawMessage) (int, error) {
		if s := string(raw); s == "null" || s == `""` {
			return 0, nil
		}
		var p int
		if err := json.Unmarshal(raw, &p); err != nil {
			return 0, fmt.Errorf("cable port %s: want a port number", raw)
		}
		return p, nil
	}
	var err error
	if err = json.Unmarshal(f[0], &c.From); err == nil {
		if err = json.Unmarshal(f[2], &c.To); err == nil {
			if c.FromPort, err = port(f[1]); err == nil {
				c.ToPort, err = port(f[3])
			}
		}
	}
	if err != nil {
		return &cableError{raw: b, err: fmt.Errorf("cable %s: %w", b, err)}
	}
	return nil
}

// cableError is a bad cable with its text, to find its line.
type cableError struct {
	raw []byte
	err error
}

// Error returns the cause.
func (e *cableError) Error() string { return e.err.Error() }

// Unwrap returns the cause.
func (e *cableError) Unwrap() error { return e.err }

// String names the cable as "S1:3 -> S2:1" (ports left out when 0).
func (c Cable) String() string { return lft.CableName(c.From, c.FromPort, c.To, c.ToPort) }

// Severities are the region severity classes, mildest first.
var Severities = []string{"negligible", "low", "medium", "high"}

// Inputs are the saved results a report is made of; each may be nil.
type Inputs struct {
	Analysis    *Analysis
	RouteCheck  *RouteCheck
	Deadlock    *Deadlock
	Compare     *comparison.Result
	Samplingsim *Samplingsim
	Regions     *Regions
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
			"(orcs --format json, --checkinputfile --format json, deadlock, compare, samplingsim --json, regions --format json)",
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
		in.Compare = &comparison.Result{}
		dst = in.Compare
	case KindSamplingsim:
		in.Samplingsim = &Samplingsim{}
		dst = in.Samplingsim
	case KindRegions:
		in.Regions = &Regions{}
		dst = in.Regions
	}
	if err := json.Unmarshal(data, dst); err != nil {
		return "", jsonError(name, data, err)
	}
	if err := in.check(kind, name); err != nil {
		return "", err
	}
	return kind, nil
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
	var cab *cableError
	switch {
	case errors.As(err, &cab):
		off = int64(bytes.Index(data, cab.raw))
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

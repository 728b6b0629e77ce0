// Package result is the file of orcs whatif (its JSON, text and CSV,
// the merge of shards, the summaries and the plot of a random sweep),
// apart from the routing so that readers such as orcs report need not
// import OpenSM's emulation.
package result

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"orcs/internal/plural"
)

// FileVersion is the format_version of the whatif JSON file.
const FileVersion = 1

// Row statuses.
const (
	// StatusOK: the engine asked for routed the failed fabric.
	StatusOK = "ok"
	// StatusFallback: OpenSM routed it only with another engine; the row's
	// numbers are those of that engine, not compared in the summary.
	StatusFallback = "fallback"
	// StatusError: the set could not be applied, emulated or routed.
	StatusError = "error"
)

// File is the result of orcs whatif (its --format json), one machine's
// or, after Merge, every shard's.
type File struct {
	FormatVersion int    `json:"format_version"`
	Fabric        string `json:"fabric"`
	Hosts         int    `json:"hosts"`
	Switches      int    `json:"switches"`
	Cables        int    `json:"cables"`
	Pattern       string `json:"pattern"`
	Metric        string `json:"metric"`
	Value         string `json:"value"`
	Runs          int    `json:"runs"`
	Commsize      int    `json:"commsize"`
	Seed          uint64 `json:"seed"`
	// Sets is the number of failure sets of the whole run (every shard).
	Sets int `json:"sets"`
	// Shard is "I/N" for one shard's file, "" for every set.
	Shard   string         `json:"shard,omitempty"`
	Engines []EngineResult `json:"engines"`
}

// EngineResult is one engine's intact routing and its failure sets.
type EngineResult struct {
	Engine string   `json:"engine"`
	Intact Baseline `json:"intact"`
	Rows   []Row    `json:"sets"`
}

// Baseline is the intact fabric routed by an engine.
type Baseline struct {
	Used          string   `json:"used"`
	Fallback      bool     `json:"fallback"`
	Notes         []string `json:"notes,omitempty"`
	MeanBandwidth float64  `json:"mean_bandwidth"`
	P5            float64  `json:"p5"`
	MeanHops      float64  `json:"mean_hops"`
	Unroutable    int64    `json:"unroutable_pairs"`
	Deadlock      string   `json:"deadlock"`
}

// Row is one failure set routed by one engine.
type Row struct {
	// Index is the set's position among every set (shards keep it).
	Index int    `json:"index"`
	Set   string `json:"set"`
	K     int    `json:"k,omitempty"`
	Trial int    `json:"trial,omitempty"`
	// Cables is the number of cables the set removes.
	Cables int `json:"cables"`
	// Status is StatusOK, StatusFallback or StatusError (with Error).
	Status string   `json:"status"`
	Used   string   `json:"used,omitempty"`
	Notes  []string `json:"notes,omitempty"`
	Error  string   `json:"error,omitempty"`
	// PairsCut counts the ordered host pairs without any physical path
	// (the set is critical when it is not 0), HostsCut the hosts cut off
	// from the largest part of the fabric.
	PairsCut int64 `json:"pairs_cut"`
	HostsCut int   `json:"hosts_cut"`
	// Islands says the fabric fell apart: OpenSM routed only the part
	// with the most hosts (its SM's), the other parts stay unrouted.
	Islands bool `json:"islands,omitempty"`
	// PairsNoSM counts the ordered host pairs still connected within the
	// other parts: unrouted because no SM runs there, not the engine's
	// doing.
	PairsNoSM int64 `json:"pairs_no_sm,omitempty"`
	// Unroutable counts the ordered host pairs the new tables do not route
	// (cut pairs included).
	Unroutable int64 `json:"unroutable_pairs"`
	// MeanBandwidth and P5 are the analysis of the new tables;
	// BandwidthKept and P5Kept their ratio to the intact fabric's.
	MeanBandwidth float64 `json:"mean_bandwidth"`
	P5            float64 `json:"p5"`
	BandwidthKept float64 `json:"bandwidth_kept"`
	P5Kept        float64 `json:"p5_kept"`
	// MeanHops is the mean route length; HopsChange its change.
	MeanHops   float64 `json:"mean_hops"`
	HopsChange float64 `json:"hops_change"`
	// Deadlock is the deadlock verdict of the new tables.
	Deadlock string `json:"deadlock"`
	// LFTChanged counts the switch forwarding entries that changed.
	LFTChanged int64 `json:"lft_changed"`
	// Losers are the hosts with the most changed or broken routes.
	Losers []HostLoss `json:"losers,omitempty"`
}

// HostLoss is a host and its ordered pairs whose route changed or broke.
type HostLoss struct {
	Host  string `json:"host"`
	Pairs int64  `json:"pairs"`
}

// Critical reports whether the set disconnects a pair of hosts.
func (r *Row) Critical() bool { return r.PairsCut > 0 }

// single reports whether the set is one failed component given alone
// (each-link, each-switch or one explicit failure).
func (r *Row) single() bool { return r.K == 0 && !strings.Contains(r.Set, "+") }

// deadlocks reports whether the new tables carry a credit loop.
func (r *Row) deadlocks() bool {
	return r.Status == StatusOK && r.Deadlock != "unknown" && !strings.HasPrefix(r.Deadlock, "free")
}

// Merge joins shard files of one run into the file of one machine: the
// same fabric, settings and engines, every set once. The result is byte
// for byte what one machine writes.
func Merge(files []*File) (*File, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("no files to merge")
	}
	out := *files[0]
	out.Shard = ""
	out.Engines = nil
	for _, e := range files[0].Engines {
		out.Engines = append(out.Engines, EngineResult{Engine: e.Engine, Intact: e.Intact})
	}
	for i, f := range files {
		same := f.Fabric == out.Fabric && f.Hosts == out.Hosts && f.Cables == out.Cables && f.Pattern == out.Pattern &&
			f.Metric == out.Metric && f.Runs == out.Runs && f.Seed == out.Seed && f.Sets == out.Sets && len(f.Engines) == len(out.Engines)
		if !same {
			return nil, fmt.Errorf("file %d is not a shard of the same run as file 1 (fabric, settings or engines differ)", i+1)
		}
		for j, e := range f.Engines {
			if e.Engine != out.Engines[j].Engine {
				return nil, fmt.Errorf("file %d has engine %s where file 1 has %s", i+1, e.Engine, out.Engines[j].Engine)
			}
			out.Engines[j].Rows = append(out.Engines[j].Rows, e.Rows...)
		}
	}
	for j := range out.Engines {
		rows := out.Engines[j].Rows
		slices.SortFunc(rows, func(a, b Row) int { return cmp.Compare(a.Index, b.Index) })
		for k := range rows {
			if rows[k].Index != k {
				return nil, fmt.Errorf("engine %s: set %d is missing or given twice (%d of %d sets)", out.Engines[j].Engine, k, len(rows), out.Sets)
			}
		}
		if len(rows) != out.Sets {
			return nil, fmt.Errorf("engine %s: %d of %d sets: a shard is missing", out.Engines[j].Engine, len(rows), out.Sets)
		}
	}
	return &out, nil
}

// ReadJSON reads a whatif file; name names it in errors.
func ReadJSON(r io.Reader, name string) (*File, error) {
	var f File
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: not a whatif file: %w", name, err)
	}
	if f.FormatVersion > FileVersion {
		return nil, fmt.Errorf("%s: format_version %d is newer than this orcs reads (%d)", name, f.FormatVersion, FileVersion)
	}
	return &f, nil
}

// WriteJSON writes the file as indented JSON.
func (f *File) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(f)
}

// WriteCSV writes one row per engine and failure set.
func (f *File) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"engine", "index", "set", "k", "trial", "cables", "status", "used", "pairs_cut", "critical",
		"unroutable_pairs", "mean_bandwidth", "bandwidth_kept", "p5", "p5_kept", "mean_hops", "hops_change",
		"deadlock", "lft_changed", "error"})
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, e := range f.Engines {
		for _, r := range e.Rows {
			cw.Write([]string{e.Engine, strconv.Itoa(r.Index), r.Set, strconv.Itoa(r.K), strconv.Itoa(r.Trial),
				strconv.Itoa(r.Cables), r.Status, r.Used, strconv.FormatInt(r.PairsCut, 10), strconv.FormatBool(r.Critical()),
				strconv.FormatInt(r.Unroutable, 10), g(r.MeanBandwidth), g(r.BandwidthKept), g(r.P5), g(r.P5Kept),
				g(r.MeanHops), g(r.HopsChange), r.Deadlock, strconv.FormatInt(r.LFTChanged, 10), firstLine(r.Error)})
		}
	}
	cw.Flush()
	return cw.Error()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// EngineSummary is the fail-in-place line of one engine.
type EngineSummary struct {
	Engine string
	// Sets, OK, Fallbacks and Errors count the failure sets by status.
	Sets, OK, Fallbacks, Errors int
	// Critical counts the sets that cut host pairs; Unroutable the sets
	// whose tables leave a physically connected pair of the SM's part
	// unrouted.
	Critical, Unroutable int
	// Deadlocks counts the sets whose tables carry a credit loop.
	Deadlocks int
	// MinKept and MeanKept are the lowest and mean bandwidth kept over the
	// non-critical single failures routed by the engine itself (NaN
	// without any).
	MinKept, MeanKept float64
	// WorstSingle is the set with MinKept.
	WorstSingle string
	// FirstCriticalK and FirstDeadlockK are the median over random
	// trials of the smallest K whose set is critical / deadlocks (0: none
	// in any trial; the median counts a trial without one as beyond the
	// largest K).
	FirstCriticalK, FirstDeadlockK float64
}

// Summarize returns the fail-in-place line of every engine.
func (f *File) Summarize() []EngineSummary {
	var out []EngineSummary
	for _, e := range f.Engines {
		s := EngineSummary{Engine: e.Engine, MinKept: math.NaN(), MeanKept: math.NaN()}
		var sum float64
		var n int
		firstCrit := map[int]int{}
		firstDead := map[int]int{}
		maxK := 0
		for _, r := range e.Rows {
			s.Sets++
			switch r.Status {
			case StatusOK:
				s.OK++
			case StatusFallback:
				s.Fallbacks++
			default:
				s.Errors++
			}
			if r.Critical() {
				s.Critical++
			}
			if r.Status == StatusOK && r.Unroutable > r.PairsCut+r.PairsNoSM {
				s.Unroutable++
			}
			if r.deadlocks() {
				s.Deadlocks++
			}
			if r.Status == StatusOK && !r.Critical() && r.single() {
				if n == 0 || r.BandwidthKept < s.MinKept {
					s.MinKept, s.WorstSingle = r.BandwidthKept, r.Set
				}
				sum += r.BandwidthKept
				n++
			}
			if r.K > 0 {
				maxK = max(maxK, r.K)
				if r.Critical() || (r.Status == StatusOK && r.Unroutable > 0) {
					if k, ok := firstCrit[r.Trial]; !ok || r.K < k {
						firstCrit[r.Trial] = r.K
					}
				}
				if r.deadlocks() {
					if k, ok := firstDead[r.Trial]; !ok || r.K < k {
						firstDead[r.Trial] = r.K
					}
				}
			}
		}
		if n > 0 {
			s.MeanKept = sum / float64(n)
		}
		trials := map[int]bool{}
		for _, r := range e.Rows {
			if r.K > 0 {
				trials[r.Trial] = true
			}
		}
		s.FirstCriticalK = medianFirst(firstCrit, trials, maxK)
		s.FirstDeadlockK = medianFirst(firstDead, trials, maxK)
		out = append(out, s)
	}
	return out
}

// medianFirst is the median over trials of first[t], a trial without one
// counting as +Inf; 0 when no trial has one.
func medianFirst(first map[int]int, trials map[int]bool, maxK int) float64 {
	if len(first) == 0 || len(trials) == 0 {
		return 0
	}
	var v []float64
	for t := range trials {
		if k, ok := first[t]; ok {
			v = append(v, float64(k))
		} else {
			v = append(v, math.Inf(1))
		}
	}
	slices.Sort(v)
	m := len(v) / 2
	if len(v)%2 == 1 {
		return v[m]
	}
	return (v[m-1] + v[m]) / 2
}

// Worst returns the n non-critical sets routed by engine e itself that
// keep the least bandwidth, least first (ties by set order).
func (e *EngineResult) Worst(n int) []Row {
	var rows []Row
	for _, r := range e.Rows {
		if r.Status == StatusOK && !r.Critical() {
			rows = append(rows, r)
		}
	}
	slices.SortStableFunc(rows, func(a, b Row) int { return cmp.Compare(a.BandwidthKept, b.BandwidthKept) })
	return rows[:min(n, len(rows))]
}

// Curve is the mean bandwidth kept of an engine's random sets per K.
type Curve struct {
	Engine string
	K      []int
	Kept   []float64 // mean over the non-critical trials routed by the engine itself (NaN: none)
	Cut    []float64 // fraction of trials that are critical
}

// Curves returns the random-sweep curve of every engine with random sets.
func (f *File) Curves() []Curve {
	var out []Curve
	for _, e := range f.Engines {
		type acc struct {
			kept    float64
			n, crit int
			trials  int
		}
		per := map[int]*acc{}
		for _, r := range e.Rows {
			if r.K == 0 {
				continue
			}
			a := per[r.K]
			if a == nil {
				a = &acc{}
				per[r.K] = a
			}
			a.trials++
			if r.Critical() {
				a.crit++
			}
			if r.Status == StatusOK && !r.Critical() {
				a.kept += r.BandwidthKept
				a.n++
			}
		}
		if len(per) == 0 {
			continue
		}
		c := Curve{Engine: e.Engine}
		for k := range per {
			c.K = append(c.K, k)
		}
		slices.Sort(c.K)
		for _, k := range c.K {
			a := per[k]
			kept := math.NaN()
			if a.n > 0 {
				kept = a.kept / float64(a.n)
			}
			c.Kept = append(c.Kept, kept)
			c.Cut = append(c.Cut, float64(a.crit)/float64(a.trials))
		}
		out = append(out, c)
	}
	return out
}

// WriteText writes the per-engine fail-in-place table, the worst sets,
// the random sweep and the verdict sentence.
func (f *File) WriteText(w io.Writer, worst int) error {
	fmt.Fprintf(w, "fabric %s: %d hosts, %d switches, %d cables; %d failure sets; pattern %s on %d hosts, metric %s, %d runs, seed %d\n",
		f.Fabric, f.Hosts, f.Switches, f.Cables, f.Sets, f.Pattern, f.Commsize, f.Metric, f.Runs, f.Seed)
	if f.Shard != "" {
		fmt.Fprintf(w, "shard %s (orcs merge joins the shards)\n", f.Shard)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "engine\tintact bw\tintact deadlock\tsets\tcritical\tunroutable\tdeadlocks\tfallbacks\terrors\tmin kept\tmean kept\t\n")
	sums := f.Summarize()
	for i, s := range sums {
		b := f.Engines[i].Intact
		fmt.Fprintf(tw, "%s\t%.4f\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t\n", s.Engine, b.MeanBandwidth, b.Deadlock, s.Sets,
			s.Critical, s.Unroutable, s.Deadlocks, s.Fallbacks, s.Errors, pct(s.MinKept), pct(s.MeanKept))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, e := range f.Engines {
		rows := e.Worst(worst)
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s: the %d non-critical failure sets that keep the least bandwidth\n", e.Engine, len(rows))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "set\tpairs cut\tunroutable\tbw kept\tp5 kept\thops +\tdeadlock\tlft changed\tlose most\t\n")
		for _, r := range rows {
			var l []string
			for _, h := range r.Losers {
				l = append(l, fmt.Sprintf("%s (%d)", h.Host, h.Pairs))
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%+.3f\t%s\t%d\t%s\t\n", r.Set, r.PairsCut, r.Unroutable, pct(r.BandwidthKept),
				pct(r.P5Kept), r.HopsChange, r.Deadlock, r.LFTChanged, strings.Join(l, ", "))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, e := range f.Engines {
		// One line per kind of outcome that is not compared: fallbacks by
		// engine used and reason, errors by message.
		type group struct {
			first string
			n     int
		}
		var keys []string
		groups := map[string]*group{}
		for _, r := range e.Rows {
			key := ""
			switch r.Status {
			case StatusFallback:
				why := firstLine(r.Error)
				if len(r.Notes) > 0 {
					why = r.Notes[0]
				}
				key = fmt.Sprintf("OpenSM fell back to %s: %s", r.Used, why)
			case StatusError:
				key = "failed: " + firstLine(r.Error)
			default:
				continue
			}
			if groups[key] == nil {
				groups[key] = &group{first: r.Set}
				keys = append(keys, key)
			}
			groups[key].n++
		}
		for _, k := range keys {
			g := groups[k]
			fmt.Fprintf(w, "%s: %s (first %s) %s (not compared)\n", e.Engine, plural.N(g.n, "set"), g.first, k)
		}
		crit, maxCut, worstCut := 0, int64(0), ""
		for _, r := range e.Rows {
			if r.Critical() {
				crit++
				if r.PairsCut > maxCut {
					maxCut, worstCut = r.PairsCut, r.Set
				}
			}
		}
		if crit > 0 {
			fmt.Fprintf(w, "%s: %s; the worst, %s, cuts %d ordered host pairs\n", e.Engine, plural.N(crit, "critical set"), worstCut, maxCut)
		}
	}
	if cs := f.Curves(); len(cs) > 0 {
		fmt.Fprintf(w, "\nrandom failures: mean bandwidth kept over the non-critical trials (share of critical trials) per K\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "engine\t")
		for _, k := range cs[0].K {
			fmt.Fprintf(tw, "K=%d\t", k)
		}
		fmt.Fprintf(tw, "first critical K\tfirst deadlock K\t\n")
		for _, c := range cs {
			fmt.Fprintf(tw, "%s\t", c.Engine)
			for i := range c.K {
				fmt.Fprintf(tw, "%s (%.0f%%)\t", pct(c.Kept[i]), 100*c.Cut[i])
			}
			s := sums[slices.IndexFunc(sums, func(s EngineSummary) bool { return s.Engine == c.Engine })]
			fmt.Fprintf(tw, "%s\t%s\t\n", firstK(s.FirstCriticalK), firstK(s.FirstDeadlockK))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "\n%s\n", f.Verdict())
	return err
}

func pct(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*x)
}

func firstK(k float64) string {
	switch {
	case k == 0:
		return "none"
	case math.IsInf(k, 1):
		return "> max K"
	}
	return strconv.FormatFloat(k, 'g', -1, 64)
}

// Verdict is the sentence a person acts on: per engine, the share of
// critical sets, the least bandwidth a non-critical set keeps, deadlocks
// and fallbacks, and how sure it is (OpenSM's real routing, the analysis'
// runs).
func (f *File) Verdict() string {
	var parts []string
	for _, s := range f.Summarize() {
		p := fmt.Sprintf("%s: %d of %d failure sets critical", s.Engine, s.Critical, s.Sets)
		if !math.IsNaN(s.MinKept) {
			p += fmt.Sprintf(", any single non-critical failure keeps ≥ %s of the intact bandwidth (worst %s)", pct(s.MinKept), s.WorstSingle)
		}
		p += fmt.Sprintf(", %d deadlock", s.Deadlocks)
		if s.Unroutable > 0 {
			p += fmt.Sprintf(", %d leave connected pairs unrouted", s.Unroutable)
		}
		if s.Fallbacks+s.Errors > 0 {
			p += fmt.Sprintf(", %d fell back and %d failed (not compared)", s.Fallbacks, s.Errors)
		}
		parts = append(parts, p)
	}
	return fmt.Sprintf("Verdict: %s. Pairs cut, tables and deadlocks are exact for the routing OpenSM computes on the emulated fabric; "+
		"the bandwidth is the mean over %d seeded mappings of %s, the same for the intact and every failed fabric, so the ratio is the routing's change, not sampling noise.",
		strings.Join(parts, "; "), f.Runs, f.Pattern)
}

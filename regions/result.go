package regions

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"orcs/gen"
	"orcs/internal/plural"
	"orcs/lft"
)

// Sources of stall values, as named in the output.
const (
	SourceSamplingsim = "samplingsim"
	SourceAnalyzer    = "analyzer"
	SourceCounters    = "counters"
	SourceCSV         = "csv"
	SourceSynthetic   = "synthetic"
)

// Series is a sequence of time windows with one stall value (percent of
// the window a cable stalled for credits, or a stall-like percentage) per
// cable of a fabric (per lft.Link).
type Series struct {
	// Source names where the values come from (Source* constants).
	Source string
	// Times gives each window's time, as the input gives it.
	Times []float64
	// Values[w][l] is the stall value of link l in window w.
	Values [][]float64
}

// FabricGraph returns the segmentation graph of a fabric's directed links:
// L1 distance on the coordinates of a generated torus or mesh (grid not
// nil), hop distance otherwise.
func FabricGraph(f *lft.Fabric, grid *gen.Grid, delta int) (*Graph, error) {
	cables := make([]Cable, len(f.Links))
	for i, l := range f.Links {
		cables[i] = Cable{From: l.From, To: l.To}
	}
	if grid != nil {
		return GridGraph(cables, grid.Coord, grid.Dims, grid.Torus, delta)
	}
	return HopGraph(len(f.Nodes), cables, delta)
}

// Result is the outcome of a region extraction over a series.
type Result struct {
	// Fabric names the fabric; Source the values' source.
	Fabric, Source string
	// Params are the segmentation's parameters; Metric the distance.
	Params Params
	Metric Metric
	// Windows are the regions of every window.
	Windows []WindowRegions
	// Tracks and Transitions are the tracker's.
	Tracks      []Track
	Transitions [4][4]int
	// MinSeverity leaves the regions of lower classes out of the windows
	// written (tracks and transitions count every region); the negligible
	// region that covers most of a fabric is large in JSON.
	MinSeverity Severity

	f *lft.Fabric
}

// Extract segments every window of s on f (graph g, built by FabricGraph
// for p.Delta) on threads goroutines (< 1: all cores) and tracks the
// regions across windows. The result does not depend on threads.
func Extract(f *lft.Fabric, name string, g *Graph, p Params, s Series, threads int) (*Result, error) {
	if len(s.Times) != len(s.Values) {
		return nil, fmt.Errorf("%d window times for %d windows", len(s.Times), len(s.Values))
	}
	if g.NumCables() != len(f.Links) {
		return nil, fmt.Errorf("graph of %d cables for a fabric of %d links", g.NumCables(), len(f.Links))
	}
	p = p.Resolve(g.NumCables())
	tr := NewTracker(g.NumCables())
	res := &Result{Fabric: name, Source: s.Source, Params: p, Metric: g.Metric, f: f}
	err := Run(g, p, len(s.Values), threads, func(w int) []float64 { return s.Values[w] }, func(w int, sg Segment) error {
		res.Windows = append(res.Windows, tr.Add(s.Times[w], sg))
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Tracks = tr.Tracks()
	res.Transitions = tr.Transitions()
	return res, nil
}

// Touched returns the names of the hosts and of the switches (and routers)
// at either end of the cables, sorted.
func Touched(f *lft.Fabric, cables []int32) (hosts, switches []string) {
	seen := map[int32]bool{}
	for _, c := range cables {
		l := f.Links[c]
		for _, v := range []int32{l.From, l.To} {
			if seen[v] {
				continue
			}
			seen[v] = true
			if f.Nodes[v].Kind == lft.Host {
				hosts = append(hosts, f.Nodes[v].Name)
			} else {
				switches = append(switches, f.Nodes[v].Name)
			}
		}
	}
	slices.Sort(hosts)
	slices.Sort(switches)
	if hosts == nil {
		hosts = []string{}
	}
	if switches == nil {
		switches = []string{}
	}
	return hosts, switches
}

// FileVersion is the format version of File: a reader refuses a file of
// a newer one. Raise it when a field changes its meaning or goes away;
// added fields keep it.
const FileVersion = 1

// File is the JSON document of orcs regions --format json, written by
// Result.WriteJSON and read by orcs report; see doc/file-contracts.md.
type File struct {
	// FormatVersion is FileVersion when written (0 in files written
	// before the field existed).
	FormatVersion int    `json:"format_version"`
	Fabric        string `json:"fabric"`
	// Hosts and Switches give the fabric's size (left out without one:
	// the synthetic benchmark), so that a report can tell results of
	// different fabrics apart.
	Hosts       int             `json:"hosts,omitempty"`
	Switches    int             `json:"switches,omitempty"`
	Source      string          `json:"source"`
	Metric      Metric          `json:"metric"`
	Params      Params          `json:"params"`
	Windows     []FileWindow    `json:"windows"`
	Tracks      []Track         `json:"tracks"`
	Transitions FileTransitions `json:"transitions"`
	// Verdict is the text's last line (Result.Verdict).
	Verdict string `json:"verdict"`
}

// FileWindow is one window of a File: its regions (those of
// Result.MinSeverity or higher) and the cables in no region.
type FileWindow struct {
	Time    float64      `json:"time"`
	Regions []FileRegion `json:"regions"`
	// Dropped counts the cables in no region, DroppedMax their largest
	// stall; IsolatedHot lists those at or above LowStall.
	Dropped     int            `json:"dropped"`
	DroppedMax  float64        `json:"dropped_max_stall"`
	IsolatedHot []FileHotCable `json:"isolated_hot"`
}

// FileRegion is one region of a FileWindow: its track's ID, its cables,
// its size and growth since the track's previous window, its mean and
// largest stall (percent, 4 decimals), its severity class and the hosts
// and switches at the ends of its cables.
type FileRegion struct {
	ID        int         `json:"id"`
	Cables    []FileCable `json:"cables"`
	Size      int         `json:"size"`
	Growth    int         `json:"growth"`
	MeanStall float64     `json:"mean_stall"`
	MaxStall  float64     `json:"max_stall"`
	Severity  string      `json:"severity"`
	Hosts     []string    `json:"hosts"`
	Switches  []string    `json:"switches"`
}

// FileTransitions counts the severity transitions of the tracks:
// Counts[from][to], the classes in the order of Classes.
type FileTransitions struct {
	Classes []string `json:"classes"`
	Counts  [][]int  `json:"counts"`
}

// FileCable is a directed cable of a File, written as the array [from,
// from_port, to, to_port]; a port reads as 0 from null or "".
type FileCable struct {
	From, To         string
	FromPort, ToPort int32
}

// String names the cable as "S1:3 -> S2:1" (ports left out when 0).
func (c FileCable) String() string {
	return lft.CableName(c.From, int(c.FromPort), c.To, int(c.ToPort))
}

// MarshalJSON writes [from, from_port, to, to_port].
func (c FileCable) MarshalJSON() ([]byte, error) {
	return json.Marshal([4]any{c.From, c.FromPort, c.To, c.ToPort})
}

// UnmarshalJSON reads [from, from_port, to, to_port]; a bad cable is a
// *CableError.
func (c *FileCable) UnmarshalJSON(b []byte) error {
	f, err := cableFields(b, 4, "[from, from_port, to, to_port]")
	if err != nil {
		return err
	}
	if err := c.set(f); err != nil {
		return &CableError{Raw: bytes.Clone(b), Err: fmt.Errorf("cable %s: %w", b, err)}
	}
	return nil
}

// set reads the four fields of a cable.
func (c *FileCable) set(f []json.RawMessage) error {
	var err error
	if err = json.Unmarshal(f[0], &c.From); err == nil {
		if err = json.Unmarshal(f[2], &c.To); err == nil {
			if c.FromPort, err = cablePort(f[1]); err == nil {
				c.ToPort, err = cablePort(f[3])
			}
		}
	}
	return err
}

// FileHotCable is a cable at or above LowStall in no region, written as
// [from, from_port, to, to_port, stall].
type FileHotCable struct {
	FileCable
	Stall float64
}

// MarshalJSON writes [from, from_port, to, to_port, stall].
func (h FileHotCable) MarshalJSON() ([]byte, error) {
	return json.Marshal([5]any{h.From, h.FromPort, h.To, h.ToPort, h.Stall})
}

// UnmarshalJSON reads [from, from_port, to, to_port, stall]; a bad one is
// a *CableError.
func (h *FileHotCable) UnmarshalJSON(b []byte) error {
	f, err := cableFields(b, 5, "[from, from_port, to, to_port, stall]")
	if err != nil {
		return err
	}
	if err = h.FileCable.set(f[:4]); err == nil {
		err = json.Unmarshal(f[4], &h.Stall)
	}
	if err != nil {
		return &CableError{Raw: bytes.Clone(b), Err: fmt.Errorf("hot cable %s: %w", b, err)}
	}
	return nil
}

// CableError is a cable of a File that does not read, with its JSON text
// (for a reader to find its line).
type CableError struct {
	Raw []byte
	Err error
}

// Error returns the cause.
func (e *CableError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *CableError) Unwrap() error { return e.Err }

// cableFields splits a JSON array of n fields.
func cableFields(b []byte, n int, want string) ([]json.RawMessage, error) {
	var f []json.RawMessage
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, &CableError{Raw: bytes.Clone(b), Err: err}
	}
	if len(f) != n {
		return nil, &CableError{Raw: bytes.Clone(b), Err: fmt.Errorf("a cable of %d fields, want %s", len(f), want)}
	}
	return f, nil
}

// cablePort reads a cable's port: a number, or 0 for null or "" (two
// nodes that share one cable).
func cablePort(raw json.RawMessage) (int32, error) {
	if s := string(raw); s == "null" || s == `""` {
		return 0, nil
	}
	var p int32
	if err := json.Unmarshal(raw, &p); err != nil {
		return 0, fmt.Errorf("port %s: want a port number", raw)
	}
	return p, nil
}

// round4 rounds to 4 decimals, so that outputs do not carry float noise.
func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// WriteJSON writes the result as one JSON document:
//
//	{"fabric", "hosts", "switches" (with a fabric), "source", "metric",
//	 "params": {theta_p, theta_r, sigma, delta},
//	 "windows": [{"time", "regions": [{"id" (track), "cables": [[from, from_port,
//	 to, to_port], …], "size", "growth", "mean_stall", "max_stall", "severity",
//	 "hosts", "switches"}]}], "tracks": [{"id", "first_time", "last_time",
//	 "windows", "first_size", "last_size", "max_size", "peak_severity"}],
//	 "transitions": {"classes", "counts": [from][to]}}
//
// The windows are encoded and written one at a time, so that the memory
// the output takes does not grow with them.
func (r *Result) WriteJSON(w io.Writer) error {
	out := File{FormatVersion: FileVersion, Fabric: r.Fabric, Source: r.Source, Metric: r.Metric, Params: r.Params,
		Windows: []FileWindow{}, Tracks: r.Tracks,
		Transitions: FileTransitions{Classes: Classes[:], Counts: make([][]int, len(r.Transitions))}, Verdict: r.Verdict()}
	for i, row := range r.Transitions {
		out.Transitions.Counts[i] = row[:]
	}
	if out.Tracks == nil {
		out.Tracks = []Track{}
	}
	if r.f != nil {
		out.Hosts, out.Switches = r.f.NumHosts(), r.f.NumSwitches()
	}
	var doc bytes.Buffer
	enc := json.NewEncoder(&doc)
	enc.SetIndent("", " ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	// The document with no windows, cut where they go.
	const mark = "\n \"windows\": []"
	head, tail, ok := bytes.Cut(doc.Bytes(), []byte(mark))
	if !ok {
		return fmt.Errorf("regions: no windows field in the JSON document")
	}
	bw := bufio.NewWriter(w)
	bw.Write(head)
	if len(r.Windows) == 0 {
		bw.WriteString(mark)
	} else {
		bw.WriteString("\n \"windows\": [")
		for i := range r.Windows {
			if i > 0 {
				bw.WriteByte(',')
			}
			b, err := json.MarshalIndent(r.fileWindow(i), "  ", " ")
			if err != nil {
				return err
			}
			bw.WriteString("\n  ")
			bw.Write(b)
		}
		bw.WriteString("\n ]")
	}
	bw.Write(tail)
	return bw.Flush()
}

// fileCable is link c of the fabric as a File names it.
func (r *Result) fileCable(c int32) FileCable {
	l := r.f.Links[c]
	return FileCable{From: r.f.Nodes[l.From].Name, FromPort: l.FromPort, To: r.f.Nodes[l.To].Name, ToPort: l.ToPort}
}

// fileWindow is window i as WriteJSON writes it.
func (r *Result) fileWindow(i int) FileWindow {
	win := r.Windows[i]
	jw := FileWindow{Time: win.Time, Regions: []FileRegion{}, Dropped: len(win.Dropped),
		DroppedMax: round4(win.droppedMax()), IsolatedHot: []FileHotCable{}}
	for _, h := range win.Hot() {
		jw.IsolatedHot = append(jw.IsolatedHot, FileHotCable{r.fileCable(h.Cable), round4(h.Stall)})
	}
	for i, reg := range win.Regions {
		if reg.Severity() < r.MinSeverity {
			continue
		}
		jr := FileRegion{ID: win.Track[i], Size: len(reg.Cables), Growth: win.Growth[i],
			MeanStall: round4(reg.Mean), MaxStall: round4(reg.Max), Severity: reg.Severity().String()}
		jr.Cables = make([]FileCable, len(reg.Cables))
		for k, c := range reg.Cables {
			jr.Cables[k] = r.fileCable(c)
		}
		jr.Hosts, jr.Switches = Touched(r.f, reg.Cables)
		jw.Regions = append(jw.Regions, jr)
	}
	return jw
}

// WriteText writes the result for a person: the parameters, per window
// its regions (track, size, growth, mean and max stall, severity, hosts
// and switches touched), the tracks and the transition matrix.
func (r *Result) WriteText(w io.Writer) error {
	b := bufio.NewWriter(w)
	p := r.Params
	fmt.Fprintf(b, "regions of %s (%s), %s distance: θp %g, θr %g, σ %d, δ %d", r.Fabric, r.Source, r.Metric, p.ThetaP, p.ThetaR, p.Sigma, p.Delta)
	if p.Smooth > 0 {
		fmt.Fprintf(b, ", smoothing %d", p.Smooth)
	}
	if p.Overlaps {
		b.WriteString(", overlap attribution")
	}
	b.WriteString("\n")
	for _, win := range r.Windows {
		if r.MinSeverity > Negligible {
			n := 0
			for _, reg := range win.Regions {
				if reg.Severity() >= r.MinSeverity {
					n++
				}
			}
			fmt.Fprintf(b, "\nwindow %g: %s, %d %s or higher\n", win.Time, plural.N(len(win.Regions), "region"), n, r.MinSeverity)
		} else {
			fmt.Fprintf(b, "\nwindow %g: %s\n", win.Time, plural.N(len(win.Regions), "region"))
		}
		for i, reg := range win.Regions {
			if reg.Severity() < r.MinSeverity {
				continue
			}
			hosts, sws := Touched(r.f, reg.Cables)
			fmt.Fprintf(b, "  track %-4d %6d %-6s (%+d)  mean %6.2f %%  max %6.2f %%  %-10s  %s, %s: %s\n",
				win.Track[i], len(reg.Cables), plural.Noun(len(reg.Cables), "cable"), win.Growth[i], reg.Mean, reg.Max, reg.Severity(),
				plural.N(len(hosts), "host"), plural.N(len(sws), "switch"), abbreviate(append(sws, hosts...), 4))
		}
		if len(win.Dropped) > 0 {
			why := fmt.Sprintf("regions smaller than σ %d", p.Sigma)
			if p.Smooth > 0 {
				why += ", outliers of the reassignment"
			}
			fmt.Fprintf(b, "  in no region: %s (%s), largest stall %.2f %%\n", plural.N(len(win.Dropped), "cable"), why, win.droppedMax())
		}
		if hot := win.Hot(); len(hot) > 0 {
			names := make([]string, len(hot))
			for i, h := range hot {
				names[i] = fmt.Sprintf("%s %.2f %%", r.f.Cable(h.Cable), h.Stall)
			}
			fmt.Fprintf(b, "  isolated hot cables (≥ %g %% in no region): %d: %s\n", LowStall, len(hot), listSome(names, 8))
		}
	}
	fmt.Fprintf(b, "\n%s\n", plural.N(len(r.Tracks), "track"))
	for _, t := range r.Tracks {
		fmt.Fprintf(b, "  track %-4d windows %d (%g–%g)  size %d → %d (max %d)  peak %s\n",
			t.ID, t.Windows, t.FirstTime, t.LastTime, t.FirstSize, t.LastSize, t.MaxSize, t.PeakSeverity)
	}
	b.WriteString("\nseverity transitions (from row to column)\n")
	fmt.Fprintf(b, "  %-10s", "")
	for _, c := range Classes {
		fmt.Fprintf(b, " %10s", c)
	}
	b.WriteString("\n")
	for i, row := range r.Transitions {
		fmt.Fprintf(b, "  %-10s", Classes[i])
		for _, v := range row {
			fmt.Fprintf(b, " %10d", v)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n" + r.Verdict() + "\n")
	return b.Flush()
}

// HotCable is a cable at or above LowStall in no region.
type HotCable struct {
	Cable int32
	Stall float64
}

// Hot returns the window's dropped cables at or above LowStall, by
// decreasing stall (then cable).
func (w *WindowRegions) Hot() []HotCable {
	var hot []HotCable
	for i, c := range w.Dropped {
		if v := w.DroppedStall[i]; v >= LowStall {
			hot = append(hot, HotCable{c, v})
		}
	}
	slices.SortFunc(hot, func(a, b HotCable) int {
		if a.Stall != b.Stall {
			if a.Stall > b.Stall {
				return -1
			}
			return 1
		}
		return int(a.Cable - b.Cable)
	})
	return hot
}

func (w *WindowRegions) droppedMax() float64 {
	m := 0.0
	for _, v := range w.DroppedStall {
		m = max(m, v)
	}
	return m
}

// Verdict sums the result up in one sentence: the most severe region (by
// mean stall) over all windows, with its size and time, where it lies (its
// switches with their levels, its hosts), when its track started, peaked
// and ended, and the cables at or above LowStall left in no region.
func (r *Result) Verdict() string {
	var worst *Region
	var when float64
	track := 0
	hot, hotMax, hotWins := 0, 0.0, 0
	for _, win := range r.Windows {
		for i := range win.Regions {
			if reg := &win.Regions[i]; worst == nil || reg.Mean > worst.Mean {
				worst, when = reg, win.Time
				if i < len(win.Track) {
					track = win.Track[i]
				}
			}
		}
		if h := win.Hot(); len(h) > 0 {
			hot += len(h)
			hotMax = max(hotMax, h[0].Stall)
			hotWins++
		}
	}
	var b strings.Builder
	b.WriteString("verdict: ")
	if worst == nil {
		b.WriteString("no region in any window")
	} else {
		fmt.Fprintf(&b, "the most congested region is %s, mean %.2f %% (max %.2f %%) over %s, in window %g", worst.Severity(), worst.Mean, worst.Max, plural.N(len(worst.Cables), "cable"), when)
		if where := r.where(worst); where != "" {
			b.WriteString(" at " + where)
		}
		for _, t := range r.Tracks {
			if t.ID == track {
				fmt.Fprintf(&b, "; its track %d started in window %g, peaked in window %g and lasted to window %g (%s, up to %s)",
					t.ID, t.FirstTime, when, t.LastTime, plural.N(t.Windows, "window"), plural.N(t.MaxSize, "cable"))
			}
		}
	}
	if hot > 0 {
		verb := plural.Verb(hot, "lies", "lie")
		fmt.Fprintf(&b, "; %s at ≥ %g %% stall (up to %.2f %%) %s in no region in %s (regions smaller than σ %d: look at them one by one)",
			plural.N(hot, "cable"), LowStall, hotMax, verb, plural.N(hotWins, "window"), r.Params.Sigma)
	} else {
		fmt.Fprintf(&b, "; every cable at ≥ %g %% stall is in a region", LowStall)
	}
	fmt.Fprintf(&b, " (exact for these stall values; the regions depend on θp %g, θr %g, σ %d, δ %d).", r.Params.ThetaP, r.Params.ThetaR, r.Params.Sigma, r.Params.Delta)
	return b.String()
}

// where names a region's place in the fabric: its switches (at most 6)
// with the levels they are on (1 = leaf switches, the hops from the
// nearest host) and its hosts (at most 6); "" without a fabric.
func (r *Result) where(reg *Region) string {
	if r.f == nil {
		return ""
	}
	hosts, switches := Touched(r.f, reg.Cables)
	var parts []string
	if len(switches) > 0 {
		levels := r.f.Levels()
		var seen []int32
		for _, name := range switches {
			if v, ok := r.f.NodeByName(name); ok && !slices.Contains(seen, levels[v]) {
				seen = append(seen, levels[v])
			}
		}
		slices.Sort(seen)
		lv := make([]string, len(seen))
		for i, l := range seen {
			lv[i] = fmt.Sprint(l)
		}
		word := "level"
		if len(lv) > 1 {
			word = "levels"
		}
		parts = append(parts, fmt.Sprintf("switches %s (%s %s)", abbreviate(switches, 6), word, strings.Join(lv, ", ")))
	}
	if len(hosts) > 0 {
		parts = append(parts, "hosts "+abbreviate(hosts, 6))
	}
	return strings.Join(parts, ", ")
}

// abbreviate joins names, at most n of them, with the count of the rest.
func abbreviate(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, " ")
	}
	return fmt.Sprintf("%s … (+%d)", strings.Join(names[:n], " "), len(names)-n)
}

// Write writes the result in format text or json.
func (r *Result) Write(w io.Writer, format string) error {
	switch format {
	case "json":
		return r.WriteJSON(w)
	case "text", "":
		return r.WriteText(w)
	}
	return fmt.Errorf("unknown format %q: want text or json", format)
}

// CheckFormat reports whether format is one of the output formats.
func CheckFormat(format string) error {
	if format != "text" && format != "json" {
		return fmt.Errorf("unknown format %q: want text or json", format)
	}
	return nil
}

// ExtractFabric builds the graph of f for p.Delta (L1 on a generated torus
// or mesh, whose network nw has a grid; hops otherwise) and extracts the
// regions of s.
func ExtractFabric(f *lft.Fabric, name string, nw *gen.Network, p Params, s Series, threads int) (*Result, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	var grid *gen.Grid
	if nw != nil {
		grid = nw.Grid
	}
	g, err := FabricGraph(f, grid, p.Delta)
	if err != nil {
		return nil, err
	}
	return Extract(f, name, g, p, s, threads)
}

// Help describes the command for orcs regions --help.
const Help = `Congestion regions after Monet (NSDI 2020): per time window, the fabric's
directed cables are segmented into regions of similar stall (percent of the
window stalled for credits) in four stages: (1) cables within δ whose values
differ by at most θp, transitively; (2) neighbouring regions whose means
differ by at most θr; (3) regions smaller than σ merged into the neighbour of
closest mean; (4) the rest smaller than σ dropped. --smooth N median-filters
the values first and reassigns every cable by its own value at the end;
--overlaps attributes overlaps: a region whose mean is the sum of two
neighbours' means (within θr) joins the smaller of them (stall from two
congestion sources adds up). Severity by mean stall:
negligible < 5 %, low 5–15 %, medium 15–25 %, high > 25 %. Regions that
overlap from one window to the next form tracks (duration, growth, severity
transitions).

Sources (one): --counters CSV (time,from,from_port,to,to_port,stall_percent),
--perfquery SNAPSHOT... (perfquery [-x] output; 100·ΔPortXmitWait /
(ΔPortXmitData + ΔPortXmitWait) per port, on a --topo fabric with LIDs),
--samplingsim RUN.json (credit stall of the simulation's ground truth),
--analyzer LOADS.csv (get_cable_cong loads, 100 · load / largest load).
--synthetic torus|fattree runs Monet's synthetic benchmark instead.

Examples:
  orcs regions -i fabric.dot --counters stalls.csv --format json
  orcs regions --topo ibnetdiscover.txt --perfquery t0.txt --perfquery t1.txt
  orcs regions --synthetic torus --samples 100 --seed 1
  orcs regions --synthetic torus --samples 100 --seed 1 --theta-p 12 --theta-r 8 --sigma 20 --delta 2 --smooth 0 --overlaps=false`

// Package report makes one self-contained HTML page from the saved JSON
// results of the other orcs commands: the fabric, the route check and the
// deadlock verdict, the distribution of the metric's per-run values, the
// hot cables with their flows, a drawing of the fabric coloured by cable
// load, the congestion regions over time, the engine comparison and
// samplingsim's diagnosis. The page holds all its SVG, CSS and script
// inline and names no URL, so it opens from disk without a network.
package report

import (
	"bytes"
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"orcs/metrics"
	"orcs/plot"
	"orcs/schema"
)

// Options controls a report.
type Options struct {
	// Title heads the page (default: "orcs report: FABRIC").
	Title string
	// Engine names the routing engine when no input records it.
	Engine string
	// MaxLines is the most lines the fabric drawing draws one per cable
	// before it aggregates host cables per leaf switch (default 1500).
	MaxLines int
}

// Section ids, in page order; every report has all of them.
var Sections = []string{"fabric", "checks", "distribution", "hot-cables", "drawing", "regions", "compare", "whatif", "diagnosis"}

//go:embed page.html
var pageHTML string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"num":  num,
	"pct":  func(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + " %" },
	"join": strings.Join,
}).Parse(pageHTML))

// view is what the template shows.
type view struct {
	Title       string
	Style       template.CSS
	Files       [][2]string
	Warnings    []string
	Fabric      [][2]string
	Route       *RouteCheck
	Deadlock    *Deadlock
	Dist        *distView
	Hot         []metrics.HotCable
	HotVerdict  string
	HotRuns     int
	HotGiven    bool
	Drawing     template.HTML
	DrawingNote string
	Regions     *regionsView
	Compare     *compareView
	Whatif      *whatifView
	Sampling    *Samplingsim
}

type whatifView struct {
	Fabric, Pattern, Metric, Verdict string
	Sets, Runs                       int
	Rows                             [][]string
	Plot                             template.HTML
}

type distView struct {
	Metric, Value, Pattern string
	Runs, Commsize         int
	Stats                  [][2]string
	Histogram, ECDF        template.HTML
}

type compareView struct {
	Verdict                 string
	Fabric, Metric, Pattern string
	Runs                    int
	Rows                    [][]string
	Plot                    template.HTML
}

// Write makes the report of in and writes it to w.
func Write(w io.Writer, in *Inputs, opt Options) error {
	if opt.MaxLines < 0 {
		return fmt.Errorf("--max-lines %d: want 0 or more cables", opt.MaxLines)
	}
	v, err := build(in, opt)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := page.Execute(&b, v); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	_, err = w.Write(b.Bytes())
	return err
}

// build computes the page.
func build(in *Inputs, opt Options) (*view, error) {
	if opt.MaxLines <= 0 {
		opt.MaxLines = 1500
	}
	v := &view{Title: opt.Title, Style: template.CSS(plot.Default.FontFamily)}
	for _, k := range []string{KindAnalysis, KindRouteCheck, KindDeadlock, KindCompare, KindSamplingsim, KindRegions, KindWhatif} {
		if f, ok := in.Files[k]; ok {
			v.Files = append(v.Files, [2]string{k, f})
		}
	}
	v.Fabric, v.Warnings = fabricRows(in, opt)
	if v.Title == "" {
		v.Title = "orcs report"
		if name := fabricName(in); name != "" {
			v.Title += ": " + name
		}
	}
	v.Route, v.Deadlock, v.Sampling = in.RouteCheck, in.Deadlock, in.Samplingsim
	var err error
	if a := in.Analysis; a != nil {
		if v.Dist, err = distribution(a); err != nil {
			return nil, err
		}
		v.Hot, v.HotRuns, v.HotGiven = a.Hot, a.Runs, a.Hot != nil
		if a.Topology != nil {
			// Switches by their descriptions where the fabric has them.
			t, label := labelled(a.Topology)
			var hot []int32 // the hot cables drawn on top of a merged drawing
			for _, h := range a.Hot {
				hot = append(hot, h.Link)
			}
			v.Drawing, v.DrawingNote = drawFabricHot(t, opt.MaxLines, hot)
			v.Hot = make([]metrics.HotCable, len(a.Hot))
			for i, h := range a.Hot {
				h.From, h.To = cmp.Or(label[h.From], h.From), cmp.Or(label[h.To], h.To)
				v.Hot[i] = h
			}
		}
		if a.Hot != nil { // with the switches' labels
			v.HotVerdict = metrics.HotVerdict(v.Hot, a.Runs)
		}
	}
	if in.Regions != nil {
		v.Regions = regionsSection(in.Regions)
	}
	if c := in.Compare; c != nil {
		if v.Compare, err = comparison(in); err != nil {
			return nil, err
		}
	}
	if w := in.Whatif; w != nil {
		v.Whatif = whatifSection(w)
	}
	return v, nil
}

// fabricName is the fabric the inputs name, the analysis's first.
func fabricName(in *Inputs) string {
	switch {
	case in.Analysis != nil:
		return in.Analysis.Fabric
	case in.Compare != nil:
		return in.Compare.Fabric
	case in.RouteCheck != nil:
		return in.RouteCheck.Fabric
	case in.Regions != nil:
		return in.Regions.Fabric
	case in.Samplingsim != nil:
		return in.Samplingsim.Fabric
	}
	return ""
}

// fabricRows describes the fabric from what the inputs say, and warns
// when they disagree on its size.
func fabricRows(in *Inputs, opt Options) ([][2]string, []string) {
	var rows [][2]string
	var warn []string
	type size struct {
		from            string
		hosts, switches int
	}
	var sizes []size
	if a := in.Analysis; a != nil {
		rows = append(rows, [2]string{"fabric", a.Fabric})
		if t := a.Topology; t != nil {
			sizes = append(sizes, size{KindAnalysis, t.Hosts, t.Switches})
		} else {
			sizes = append(sizes, size{KindAnalysis, a.Hosts, -1})
		}
	}
	if c := in.RouteCheck; c != nil {
		sizes = append(sizes, size{KindRouteCheck, c.Hosts, c.Switches})
	}
	if d := in.Deadlock; d != nil {
		sizes = append(sizes, size{KindDeadlock, d.Hosts, d.Switches})
	}
	if c := in.Compare; c != nil {
		sizes = append(sizes, size{KindCompare, c.Hosts, c.Switches})
	}
	if s := in.Samplingsim; s != nil {
		sizes = append(sizes, size{KindSamplingsim, s.Hosts, s.Switches})
	}
	if r := in.Regions; r != nil && r.Hosts > 0 {
		sizes = append(sizes, size{KindRegions, r.Hosts, r.Switches})
	}
	if len(rows) == 0 {
		if name := fabricName(in); name != "" {
			rows = append(rows, [2]string{"fabric", name})
		}
	}
	hosts, switches := -1, -1
	for _, s := range sizes {
		if hosts < 0 {
			hosts = s.hosts
		} else if s.hosts != hosts {
			warn = append(warn, fmt.Sprintf("the inputs describe different fabrics: %s has %d hosts, %s %d", sizes[0].from, hosts, s.from, s.hosts))
		}
		if s.switches >= 0 {
			if switches < 0 {
				switches = s.switches
			} else if s.switches != switches {
				warn = append(warn, fmt.Sprintf("the inputs describe different fabrics: %d switches in one, %d in %s", switches, s.switches, s.from))
			}
		}
	}
	if hosts >= 0 {
		rows = append(rows, [2]string{"hosts", strconv.Itoa(hosts)})
	}
	if switches >= 0 {
		rows = append(rows, [2]string{"switches", strconv.Itoa(switches)})
	}
	engine := opt.Engine
	if a := in.Analysis; a != nil && a.Topology != nil {
		t := a.Topology
		rows = append(rows, [2]string{"switch levels", levelsText(t)})
		if t.Grid != nil {
			shape := "mesh"
			if t.Grid.Torus {
				shape = "torus"
			}
			dims := make([]string, len(t.Grid.Dims))
			for i, d := range t.Grid.Dims {
				dims[i] = strconv.Itoa(d)
			}
			rows = append(rows, [2]string{"shape", shape + " " + strings.Join(dims, "×")})
		}
		if t.Routing != "" && engine == "" {
			engine = t.Routing + " (the generator's tables)"
		}
	}
	if engine == "" && in.Compare != nil {
		var names []string
		for _, e := range in.Compare.Engines {
			names = append(names, e.Requested)
		}
		engine = "compared: " + strings.Join(names, ", ")
	}
	if engine == "" {
		engine = "not recorded in the inputs (orcs report --routed-by NAME names it)"
	}
	rows = append(rows, [2]string{"routing engine", engine})
	return rows, warn
}

// levelsText counts the switches per level: "3 (16 + 16 + 16)".
func levelsText(t *metrics.Topology) string {
	per := make([]int, t.Levels+1)
	for _, n := range t.Nodes {
		if n.Switch && n.Level >= 1 {
			per[n.Level]++
		}
	}
	parts := make([]string, 0, t.Levels)
	for _, c := range per[1:] {
		parts = append(parts, strconv.Itoa(c))
	}
	return fmt.Sprintf("%d (%s switches from the hosts up)", t.Levels, strings.Join(parts, " + "))
}

// distribution draws the histogram and the ECDF of the per-run values.
func distribution(a *Analysis) (*distView, error) {
	d := &distView{Metric: a.Metric, Value: a.ValueName, Pattern: a.Pattern, Runs: a.Runs, Commsize: a.Commsize}
	s := a.Summary
	d.Stats = [][2]string{{"runs", strconv.Itoa(s.N)}, {"mean", num(s.Mean)}, {"std", num(s.Std)}, {"min", num(s.Min)},
		{"p5", num(s.P5)}, {"p25", num(s.P25)}, {"median (p50)", num(s.Median)}, {"p75", num(s.P75)}, {"p95", num(s.P95)},
		{"max", num(s.Max)}, {"95 % CI of the mean", num(s.CI95Low) + " … " + num(s.CI95High)}}
	if a.Metric == "hist_acc_band" || a.Metric == "hist_max_cong" {
		d.Stats = append(d.Stats, [2]string{"mean effective bandwidth", num(a.MeanBandwidth)})
	}
	if len(a.Values) == 0 {
		return d, nil
	}
	kind := plot.Continuous
	if m, err := metrics.Lookup(a.Metric); err == nil && m.Discrete {
		kind = plot.Discrete
	}
	marks := []plot.Marker{{Label: "mean " + num(s.Mean), X: s.Mean}, {Label: "p5 " + num(s.P5), X: s.P5},
		{Label: "p50 " + num(s.Median), X: s.Median}, {Label: "p95 " + num(s.P95), X: s.P95}}
	hist := &plot.Distributions{Title: "histogram of the " + strconv.Itoa(len(a.Values)) + " runs", XLabel: a.ValueName,
		Kind: kind, Histogram: true, Series: []plot.Series{{Values: a.Values}}, Markers: marks, Width: 420, Height: 260}
	if len(a.Histogram) > 0 && kind == plot.Continuous {
		// The analyzer's own bins (and bin convention) for hist_acc_band.
		hist.Edges = []float64{a.Histogram[0].Low}
		counts := make([]int64, len(a.Histogram))
		for i, b := range a.Histogram {
			hist.Edges = append(hist.Edges, b.High)
			counts[i] = b.Count
		}
		hist.Series[0].Counts = counts
		hist.Title += " (bins of the analyzer, " + a.BinEdges + " edges)"
	}
	ecdf := &plot.Distributions{Title: "empirical CDF", XLabel: a.ValueName, Kind: plot.Continuous,
		Series: []plot.Series{{Values: a.Values}}, Markers: marks, Width: 420, Height: 260}
	var err error
	if d.Histogram, err = inlinePlot(hist); err != nil {
		return nil, err
	}
	if d.ECDF, err = inlinePlot(ecdf); err != nil {
		return nil, err
	}
	return d, nil
}

// inlinePlot draws a distribution as SVG to inline in the page.
func inlinePlot(d *plot.Distributions) (template.HTML, error) {
	var b bytes.Buffer
	if err := d.Write(&b, "svg"); err != nil {
		return "", fmt.Errorf("report: %s: %w", d.Title, err)
	}
	return template.HTML(plot.InlineSVG(b.Bytes())), nil // the SVG canvas escapes its texts
}

// whatifSection is the fail-in-place table per engine and the random
// sweep's plot of a whatif result.
func whatifSection(w *Whatif) *whatifView {
	v := &whatifView{Fabric: w.Fabric, Pattern: w.Pattern, Metric: w.Metric, Sets: w.Sets, Runs: w.Runs, Verdict: w.Verdict()}
	v.Rows = append(v.Rows, []string{"engine", "intact bandwidth", "intact deadlock", "sets", "critical", "unroutable", "deadlocks",
		"fallbacks", "errors", "min kept", "mean kept", "first critical K", "first deadlock K"})
	pct := func(x float64) string {
		if math.IsNaN(x) {
			return "—"
		}
		return strconv.FormatFloat(100*x, 'f', 1, 64) + "%"
	}
	k := func(x float64) string {
		switch {
		case x == 0:
			return "none"
		case math.IsInf(x, 1):
			return "> max K"
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	for i, s := range w.Summarize() {
		b := w.Engines[i].Intact
		v.Rows = append(v.Rows, []string{s.Engine, num(b.MeanBandwidth), b.Deadlock, strconv.Itoa(s.Sets), strconv.Itoa(s.Critical),
			strconv.Itoa(s.Unroutable), strconv.Itoa(s.Deadlocks), strconv.Itoa(s.Fallbacks), strconv.Itoa(s.Errors),
			pct(s.MinKept), pct(s.MeanKept), k(s.FirstCriticalK), k(s.FirstDeadlockK)})
	}
	v.Plot = template.HTML(w.PlotSVG(false)) // plot.SVG escapes its texts
	return v
}

// comparison is the engine table and plot of a compare result.
func comparison(in *Inputs) (*compareView, error) {
	c := in.Compare
	verdict, best := c.Judge() // from the numbers, also for a file written before verdicts
	v := &compareView{Verdict: verdict, Fabric: c.Fabric, Metric: c.Metric, Pattern: c.Pattern, Runs: c.Runs}
	v.Rows = append(v.Rows, []string{"engine", "used", "status", "OpenSM s", "mean bandwidth", "p5", "median", "p95", "worst congestion", "unroutable pairs", "deadlock"})
	for i, r := range c.Engines {
		row := []string{r.Requested, r.Used, r.Status(), "", "", "", "", "", "", "", r.Deadlock}
		if i == best {
			row[0] += " (best)"
		}
		if r.Error == "" {
			row[3] = strconv.FormatFloat(r.RouteSeconds, 'f', 2, 64)
			row[4] = num(r.MeanBandwidth)
			if s := r.Summary; s != nil {
				row[5], row[6], row[7] = num(s.P5), num(s.Median), num(s.P95)
			}
			row[8], row[9] = strconv.Itoa(r.MaxCongestion), strconv.FormatInt(r.Unroutable, 10)
		} else {
			row[2] += ": " + r.Error
		}
		if row[10] == "" {
			row[10] = "?"
		}
		v.Rows = append(v.Rows, row)
	}
	has := slices.ContainsFunc(c.Engines, func(r schema.EngineRow) bool { return len(r.Values) > 0 })
	if has {
		judged := *c // the verdict's best engine is marked in the plot too
		judged.Best = ""
		if best >= 0 {
			judged.Best = c.Engines[best].Requested
		}
		p := judged.Plot()
		p.Width, p.Height = 640, 300
		var err error
		if v.Plot, err = inlinePlot(p); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// num formats a statistic with 4 significant digits ("—" for NaN).
func num(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "—"
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// Package plot draws the figures of orcs in one style (Style, Default):
// distributions of per-run values overlaid per series (as Figure 3 of the
// ORCS manual) as SVG, PNG or PDF, and a small SVG builder for the
// hand-drawn figures (samplingsim's fabric plots, the HTML report).
//
// A distribution is drawn as what it is: a discrete metric (integer
// values: congestion sums, delays) as bars at its values, or as steps when
// it takes too many values for bars; a continuous one (bandwidth) as an
// empirical CDF whose steps sit exactly at the values, or as a histogram
// with exact bin edges. Curves start at 0 on the left edge of the axes and
// end at 1 on the right edge, and the legend sits in rows below the axes,
// never on the data.
package plot

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"image/color"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Series is one distribution: a label and its values (NaN values are left
// out).
type Series struct {
	Label  string
	Values []float64
	// Counts, when not nil, are the series' histogram counts per bin of
	// Distributions.Edges, as counted elsewhere (the analyzer's
	// hist_acc_band bins); Values then only give the ECDF.
	Counts []int64
}

// Kind says whether values are discrete or continuous.
type Kind uint8

const (
	// Auto: discrete when every value is an integer.
	Auto Kind = iota
	// Discrete values are drawn as bars at each value (steps when they
	// span more than MaxBars integers).
	Discrete
	// Continuous values are drawn as an ECDF or a histogram.
	Continuous
)

// MaxBars is the widest range of integer values drawn as bars; a
// discrete distribution over more values is drawn as ECDF steps.
const MaxBars = 60

// Marker is a labelled vertical line, e.g. the mean or a percentile.
type Marker struct {
	Label string
	X     float64
}

// Distributions is a figure of several distributions on the same axes.
type Distributions struct {
	Title, XLabel string
	Series        []Series
	Kind          Kind
	// Histogram draws a continuous distribution as a histogram over Edges
	// (computed when nil: Bins bins of a round width, 20 when 0) instead
	// of an ECDF.
	Histogram bool
	Edges     []float64
	Bins      int
	Markers   []Marker
	// Width and Height are the figure's size (18 cm × 11 cm when 0).
	Width, Height vg.Length
}

// Formats lists the output formats, by file extension without the dot.
var Formats = []string{"svg", "png", "pdf"}

// CheckFormat returns an error unless format is one of Formats.
func CheckFormat(format string) error {
	for _, f := range Formats {
		if strings.EqualFold(f, format) {
			return nil
		}
	}
	return fmt.Errorf("want a .svg, .png or .pdf file, not %q", format)
}

// shape is what a figure draws, in data coordinates.
type shape struct {
	// form is "bars", "ecdf" or "histogram".
	form string
	// x and y are the axis ranges.
	xmin, xmax, ymin, ymax float64
	// rects[s] are series s's bars or histogram bins: x0, x1, height.
	rects [][][3]float64
	// lines[s] is series s's ECDF as a polyline (vertical steps explicit).
	lines [][]plotter.XY
	// ticks at integers (bars), nil for the default ticker.
	ticks  []float64
	ylabel string
}

// finite returns the values of s that are not NaN or infinite.
func finite(v []float64) []float64 {
	out := make([]float64, 0, len(v))
	for _, x := range v {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	return out
}

// discrete reports whether d is drawn as a discrete distribution; vals
// are the finite values of its series.
func (d *Distributions) discrete(vals [][]float64) bool {
	switch d.Kind {
	case Discrete:
		return true
	case Continuous:
		return false
	}
	for _, s := range vals {
		for _, v := range s {
			if v != math.Trunc(v) {
				return false
			}
		}
	}
	return true
}

// shape computes what d draws.
func (d *Distributions) shape() (*shape, error) {
	lo, hi := math.Inf(1), math.Inf(-1)
	vals := make([][]float64, len(d.Series))
	for i, s := range d.Series {
		vals[i] = finite(s.Values)
		slices.Sort(vals[i])
		if len(vals[i]) > 0 {
			lo, hi = min(lo, vals[i][0]), max(hi, vals[i][len(vals[i])-1])
		}
	}
	if math.IsInf(lo, 0) {
		return nil, errors.New("no values to plot")
	}
	sh := &shape{rects: make([][][3]float64, len(d.Series)), lines: make([][]plotter.XY, len(d.Series)), ylabel: "fraction of runs"}
	disc := d.discrete(vals)
	switch {
	case disc && math.Round(hi)-math.Round(lo) <= MaxBars:
		sh.form = "bars"
		lo, hi = math.Round(lo), math.Round(hi)
		n := float64(max(len(d.Series), 1))
		w := 0.8 / n
		for s, v := range vals {
			for i := 0; i < len(v); {
				j := i
				for j < len(v) && v[j] == v[i] {
					j++
				}
				x0 := v[i] - 0.4 + float64(s)*w
				frac := float64(j-i) / float64(len(v))
				sh.rects[s] = append(sh.rects[s], [3]float64{x0, x0 + w, frac})
				sh.ymax = max(sh.ymax, frac)
				i = j
			}
		}
		sh.xmin, sh.xmax = lo-0.6, hi+0.6
		step := math.Max(1, math.Ceil((hi-lo+1)/15))
		for t := lo; t <= hi; t += step {
			sh.ticks = append(sh.ticks, t)
		}
		sh.ymax *= 1.08
	case d.Histogram && !disc:
		sh.form = "histogram"
		edges := d.Edges
		if edges == nil {
			edges = NiceEdges(lo, hi, d.Bins)
		}
		if len(edges) < 2 {
			return nil, fmt.Errorf("histogram: %d bin edges, want 2 or more", len(edges))
		}
		sh.xmin, sh.xmax = edges[0], edges[len(edges)-1]
		for s, v := range vals {
			counts := d.Series[s].Counts
			if counts == nil {
				counts = Count(edges, v)
			}
			if len(counts) != len(edges)-1 {
				return nil, fmt.Errorf("histogram: %d counts for %d bins", len(counts), len(edges)-1)
			}
			var total int64
			for _, c := range counts {
				total += c
			}
			for b, c := range counts {
				frac := float64(c) / float64(max(total, 1))
				sh.rects[s] = append(sh.rects[s], [3]float64{edges[b], edges[b+1], frac})
				sh.ymax = max(sh.ymax, frac)
			}
		}
		sh.ymax *= 1.08
	default:
		sh.form = "ecdf"
		pad := (hi - lo) * 0.05
		if pad == 0 {
			pad = math.Max(math.Abs(lo)*0.05, 0.05)
		}
		sh.xmin, sh.xmax = lo-pad, hi+pad
		for s, v := range vals {
			sh.lines[s] = ECDF(v, sh.xmin, sh.xmax)
		}
		sh.ymax, sh.ylabel = 1.04, "fraction of runs ≤ x"
	}
	if sh.ymax <= 0 {
		sh.ymax = 1
	}
	return sh, nil
}

// ECDF returns the empirical CDF of sorted values as a polyline from
// (xmin, 0) to (xmax, 1), with a vertical step exactly at every distinct
// value (an empty sample gives nil).
func ECDF(sorted []float64, xmin, xmax float64) []plotter.XY {
	if len(sorted) == 0 {
		return nil
	}
	n := float64(len(sorted))
	pts := []plotter.XY{{X: xmin, Y: 0}}
	for i := 0; i < len(sorted); {
		j := i
		for j < len(sorted) && sorted[j] == sorted[i] {
			j++
		}
		pts = append(pts, plotter.XY{X: sorted[i], Y: float64(i) / n}, plotter.XY{X: sorted[i], Y: float64(j) / n})
		i = j
	}
	return append(pts, plotter.XY{X: xmax, Y: 1})
}

// NiceEdges returns the edges of bins of one round width (1, 2 or 5 times
// a power of ten) covering [lo, hi], about bins of them (20 when 0): the
// first edge is a multiple of the width at or below lo, the last above hi.
func NiceEdges(lo, hi float64, bins int) []float64 {
	if bins <= 0 {
		bins = 20
	}
	span := hi - lo
	if span <= 0 {
		span = math.Max(math.Abs(lo)*0.1, 1)
	}
	raw := span / float64(bins)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	w := p
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			w = m * p
			break
		}
	}
	first := math.Floor(lo/w) * w
	var edges []float64
	for k := 0; ; k++ {
		e := first + float64(k)*w
		// Round away the accumulated error of k·w (edges are shown).
		e, _ = strconv.ParseFloat(strconv.FormatFloat(e, 'g', 12, 64), 64)
		edges = append(edges, e)
		if e > hi {
			break
		}
	}
	return edges
}

// Count counts values into the bins [e_i, e_{i+1}) of edges; the last bin
// also holds its upper edge. Values outside are not counted.
func Count(edges, values []float64) []int64 {
	counts := make([]int64, max(len(edges)-1, 0))
	for _, v := range values {
		if len(counts) == 0 || v < edges[0] || v > edges[len(edges)-1] {
			continue
		}
		i, _ := slices.BinarySearch(edges, v)
		if i < len(edges) && edges[i] == v { // on an edge: the bin it opens
			i++
		}
		counts[min(i-1, len(counts)-1)]++
	}
	return counts
}

// Write draws d and writes it to w in format (svg, png or pdf).
func (d *Distributions) Write(w io.Writer, format string) error {
	if err := CheckFormat(format); err != nil {
		return err
	}
	width, height := d.size()
	c, err := draw.NewFormattedCanvas(width, height, strings.ToLower(format))
	if err != nil {
		return err
	}
	if err := d.Draw(draw.New(c)); err != nil {
		return err
	}
	if !strings.EqualFold(format, "svg") {
		_, err = c.WriteTo(w)
		return err
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return err
	}
	_, err = w.Write(fitTexts(b.Bytes()))
	return err
}

// svgText matches a text element as gonum's SVG canvas writes it: its
// font family, its size in px (= pt of the layout) and its text.
var svgText = regexp.MustCompile(`(<text [^>]*?)(\s*style="font-family:)([^;"]*)(;[^"]*font-size:)([0-9.]+)(px[^"]*">)([^<]*)(</text>)`)

// fitTexts makes the texts of a gonum SVG take the width they were laid
// out with: gonum places every text by the metrics of Default.Font, but a
// browser without that font draws it in a wider fallback, whose texts then
// leave the picture (titles, axis captions, legend entries). Each text
// gets textLength, the width gonum measured, and a font family with
// fallbacks.
func fitTexts(svg []byte) []byte {
	return svgText.ReplaceAllFunc(svg, func(m []byte) []byte {
		p := svgText.FindSubmatch(m)
		size, err := strconv.ParseFloat(string(p[5]), 64)
		if err != nil {
			return m
		}
		text := html.UnescapeString(string(p[7]))
		face := font.DefaultCache.Lookup(Default.Font, vg.Points(size))
		width := face.Width(text).Points()
		var out bytes.Buffer
		out.Write(p[1])
		fmt.Fprintf(&out, ` textLength="%.2f" lengthAdjust="spacingAndGlyphs"`, width)
		out.Write(p[2])
		out.WriteString(strings.ReplaceAll(Default.FontFamily, "'", ""))
		for _, q := range p[4:] {
			out.Write(q)
		}
		return out.Bytes()
	})
}

func (d *Distributions) size() (vg.Length, vg.Length) {
	w, h := d.Width, d.Height
	if w <= 0 {
		w = 18 * vg.Centimeter
	}
	if h <= 0 {
		h = 11 * vg.Centimeter
	}
	return w, h
}

// layout returns the plot of d and the canvases of its axes and its
// legend (empty when there is none) within c: the legend is rows of
// entries below the axes.
func (d *Distributions) layout(c draw.Canvas) (*plot.Plot, *legendRows, draw.Canvas, draw.Canvas, error) {
	// A margin all round: a browser's fallback font reaches a little
	// higher and lower than the metrics texts are placed by.
	c = draw.Crop(c, margin, -margin, margin, -margin)
	sh, err := d.shape()
	if err != nil {
		return nil, nil, c, draw.Canvas{}, err
	}
	st := Default
	p := plot.New()
	p.Title.Text = d.Title
	p.Title.TextStyle.Font = st.Font
	p.Title.TextStyle.Font.Size = vg.Points(st.TitleSize)
	p.Title.TextStyle.Color = st.Ink
	p.X.Label.Text, p.Y.Label.Text = d.XLabel, sh.ylabel
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font = st.Font
		ax.Label.TextStyle.Font.Size = vg.Points(st.LabelSize)
		ax.Label.TextStyle.Color = st.Ink
		ax.Tick.Label.Font = st.Font
		ax.Tick.Label.Font.Size = vg.Points(st.TickSize)
		ax.Tick.Label.Color = st.Ink
		ax.LineStyle.Color, ax.Tick.LineStyle.Color = st.Ink, st.Ink
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = sh.xmin, sh.xmax, 0, sh.ymax
	if sh.ticks != nil {
		var ticks []plot.Tick
		for _, t := range sh.ticks {
			ticks = append(ticks, plot.Tick{Value: t, Label: strconv.FormatFloat(t, 'f', -1, 64)})
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = st.Grid, st.Grid
	if sh.form == "bars" {
		grid.Vertical.Width = 0
	}
	p.Add(grid)
	// The legend is drawn below the axes, not by the plot (which would
	// draw it over the data): p.Legend stays empty.
	leg := &legendRows{style: draw.TextStyle{Color: st.Ink, Font: font.From(st.Font, vg.Points(st.LabelSize)),
		XAlign: draw.XLeft, YAlign: draw.YCenter, Handler: p.Title.TextStyle.Handler}}
	for i, s := range d.Series {
		col := st.Color(i)
		var thumb plot.Thumbnailer
		switch {
		case sh.rects[i] != nil:
			fill := col
			if len(d.Series) > 1 || sh.form == "histogram" {
				fill.A = 200
			}
			var rings []plotter.XYer
			for _, r := range sh.rects[i] {
				rings = append(rings, plotter.XYs{{X: r[0], Y: 0}, {X: r[1], Y: 0}, {X: r[1], Y: r[2]}, {X: r[0], Y: r[2]}})
			}
			if len(rings) == 0 {
				continue
			}
			poly, err := plotter.NewPolygon(rings...)
			if err != nil {
				return nil, nil, c, draw.Canvas{}, err
			}
			poly.Color = blend(fill)
			poly.LineStyle.Color, poly.LineStyle.Width = col, vg.Points(0.6)
			p.Add(poly)
			thumb = poly
		case sh.lines[i] != nil:
			line, err := plotter.NewLine(plotter.XYs(sh.lines[i]))
			if err != nil {
				return nil, nil, c, draw.Canvas{}, err
			}
			line.Color, line.Width, line.Dashes = col, vg.Points(st.LineWidth), st.Dashes(i)
			p.Add(line)
			thumb = line
		}
		if s.Label != "" && thumb != nil {
			leg.items = append(leg.items, legendItem{s.Label, thumb})
		}
	}
	if len(d.Markers) > 0 {
		p.Add(&markers{list: d.Markers, ymax: sh.ymax})
	}
	// Rows of legend entries under the axes, as wide as the figure: a
	// column beside the axes took a third of the width from the data.
	axes := c
	var legend draw.Canvas
	if h := leg.height(c.Max.X - c.Min.X); h > 0 {
		axes = draw.Crop(c, 0, 0, h, 0)
		legend = draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{Min: c.Min, Max: vg.Point{X: c.Max.X, Y: c.Min.Y + h}}}
	}
	return p, leg, axes, legend, nil
}

// legendItem is one legend entry: a series' swatch and label.
type legendItem struct {
	label string
	thumb plot.Thumbnailer
}

// legendRows is a legend laid out in centred rows of entries.
type legendRows struct {
	style draw.TextStyle
	items []legendItem
}

// Legend geometry: a swatch's width, the gap after it and between
// entries, and the padding above the rows.
const (
	legendThumb = vg.Length(18)
	legendGap   = vg.Length(4)
	legendSpace = vg.Length(14)
	legendPad   = vg.Length(4)
)

// rows splits the entries into rows at most width wide.
func (l *legendRows) rows(width vg.Length) [][]legendItem {
	var rows [][]legendItem
	var w vg.Length
	for _, it := range l.items {
		iw := l.itemWidth(it)
		if n := len(rows); n > 0 && w+legendSpace+iw <= width {
			rows[n-1] = append(rows[n-1], it)
			w += legendSpace + iw
			continue
		}
		rows = append(rows, []legendItem{it})
		w = iw
	}
	return rows
}

func (l *legendRows) itemWidth(it legendItem) vg.Length {
	return legendThumb + legendGap + l.style.Width(it.label)
}

func (l *legendRows) rowHeight() vg.Length { return l.style.Height("Mg") + 2 }

// height is the height the legend takes in a figure width wide (0 with
// no entries).
func (l *legendRows) height(width vg.Length) vg.Length {
	n := len(l.rows(width))
	if n == 0 {
		return 0
	}
	return legendPad + vg.Length(n)*l.rowHeight()
}

// draw draws the rows into c, top row first, each centred.
func (l *legendRows) draw(c draw.Canvas) {
	width := c.Max.X - c.Min.X
	rh := l.rowHeight()
	for r, row := range l.rows(width) {
		var w vg.Length
		for i, it := range row {
			if i > 0 {
				w += legendSpace
			}
			w += l.itemWidth(it)
		}
		x := c.Min.X + (width-w)/2
		top := c.Max.Y - legendPad - vg.Length(r)*rh
		for _, it := range row {
			box := vg.Rectangle{Min: vg.Point{X: x, Y: top - rh + 2}, Max: vg.Point{X: x + legendThumb, Y: top - 2}}
			it.thumb.Thumbnail(&draw.Canvas{Canvas: c.Canvas, Rectangle: box})
			c.FillText(l.style, vg.Point{X: x + legendThumb + legendGap, Y: top - rh/2}, it.label)
			x += l.itemWidth(it) + legendSpace
		}
	}
}

// Rectangle is the box the legend's rows take in c.
func (l *legendRows) Rectangle(c draw.Canvas) vg.Rectangle {
	h := l.height(c.Max.X - c.Min.X)
	return vg.Rectangle{Min: vg.Point{X: c.Min.X, Y: c.Max.Y - h}, Max: c.Max}
}

// margin is the blank border around a figure.
const margin = vg.Length(4)

// blend makes a translucent colour opaque over white (PDF and PNG then
// agree with SVG, and overlapping bars stay readable side by side).
func blend(c color.RGBA) color.RGBA {
	a := float64(c.A) / 255
	mix := func(v uint8) uint8 { return uint8(math.Round(float64(v)*a + 255*(1-a))) }
	return color.RGBA{mix(c.R), mix(c.G), mix(c.B), 255}
}

// Draw draws d onto c.
func (d *Distributions) Draw(c draw.Canvas) error {
	p, leg, axes, legend, err := d.layout(c)
	if err != nil {
		return err
	}
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	p.Draw(axes)
	if legend.Canvas != nil {
		leg.draw(legend)
	}
	return nil
}

// markers draws labelled vertical lines across the data area.
type markers struct {
	list []Marker
	ymax float64
}

// Plot implements plot.Plotter.
func (m *markers) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	sty := draw.TextStyle{Color: Default.Ink, Font: font.From(Default.Font, vg.Points(Default.TickSize)),
		XAlign: draw.XLeft, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
	ls := draw.LineStyle{Color: Default.Ink, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}
	for i, mk := range m.list {
		x := tx(mk.X)
		c.StrokeLine2(ls, x, ty(0), x, ty(m.ymax))
		y := ty(m.ymax) - vg.Points(2+float64(i%4)*(Default.TickSize+2))
		at, s := x+vg.Points(2), sty
		if at+sty.Width(mk.Label) > c.Max.X { // near the right edge: left of the line
			at, s.XAlign = x-vg.Points(2), draw.XRight
		}
		c.FillText(s, vg.Point{X: at, Y: y}, mk.Label)
	}
}

// DataRange implements plot.DataRanger (nothing beyond the data's range).
func (m *markers) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for _, mk := range m.list {
		xmin, xmax = min(xmin, mk.X), max(xmax, mk.X)
	}
	return xmin, xmax, 0, m.ymax
}

var (
	svgProlog = regexp.MustCompile(`(?s)^<\?xml[^>]*\?>\s*(<!--.*?-->\s*)?`)
	svgNS     = regexp.MustCompile(`\s+xmlns(:xlink)?="[^"]*"`)
)

// InlineSVG turns a standalone SVG document into an element to inline in
// HTML: without the XML prolog and without namespace declarations (the
// HTML parser supplies them), so that the page holds no URL.
func InlineSVG(svg []byte) string {
	svg = svgProlog.ReplaceAll(svg, nil)
	return string(svgNS.ReplaceAll(bytes.TrimSpace(svg), nil))
}

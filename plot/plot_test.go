package plot

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

func TestDistributionsFormats(t *testing.T) {
	d := &Distributions{Title: "t", XLabel: "x", Series: []Series{{Label: "a", Values: []float64{1, 2, 2, 3}}, {Label: "b"}}}
	for _, format := range Formats {
		var b bytes.Buffer
		if err := d.Write(&b, format); err != nil || b.Len() == 0 {
			t.Errorf("%s: %d bytes, %v", format, b.Len(), err)
		}
	}
	var b bytes.Buffer
	if err := d.Write(&b, "gif"); err == nil {
		t.Error("gif accepted")
	}
	empty := &Distributions{Series: []Series{{Label: "a"}}}
	if err := empty.Write(&b, "svg"); err == nil || !strings.Contains(err.Error(), "no values") {
		t.Errorf("no values: %v", err)
	}
}

// pathRe finds the path data of the strokes of one colour in vgsvg output.
func strokes(svg, color string) [][][2]float64 {
	re := regexp.MustCompile(`<path d="([^"]*)"\s*style="[^"]*stroke:(?i)` + color)
	var out [][][2]float64
	num := regexp.MustCompile(`[ML]\s*(-?[0-9.e+-]+)[ ,]\s*(-?[0-9.e+-]+)`)
	for _, m := range re.FindAllStringSubmatch(svg, -1) {
		var pts [][2]float64
		for _, p := range num.FindAllStringSubmatch(m[1], -1) {
			x, _ := strconv.ParseFloat(p[1], 64)
			y, _ := strconv.ParseFloat(p[2], 64)
			pts = append(pts, [2]float64{x, y})
		}
		out = append(out, pts)
	}
	return out
}

// render draws d on an SVG canvas and returns the SVG and the x transform
// of its axes.
func render(t *testing.T, d *Distributions) (string, func(float64) vg.Length) {
	t.Helper()
	c := vgsvg.New(18*vg.Centimeter, 11*vg.Centimeter)
	dc := draw.New(c)
	if err := d.Draw(dc); err != nil {
		t.Fatal(err)
	}
	p, _, axes, _, err := d.layout(dc)
	if err != nil {
		t.Fatal(err)
	}
	data := p.DataCanvas(axes)
	tx, _ := p.Transforms(&data)
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.String(), tx
}

// A single value of 1.0 (a bandwidth: continuous) is drawn at 1.0: the
// ECDF's one step is at x = 1.0 exactly, in data and in the SVG drawn.
func TestSingleValueAtItsValue(t *testing.T) {
	d := &Distributions{Kind: Continuous, Series: []Series{{Label: "ftree", Values: []float64{1, 1, 1}}}}
	sh, err := d.shape()
	if err != nil {
		t.Fatal(err)
	}
	var steps []float64
	pts := sh.lines[0]
	for i := 1; i < len(pts); i++ {
		if pts[i].X == pts[i-1].X && pts[i].Y != pts[i-1].Y {
			steps = append(steps, pts[i].X)
		}
	}
	if !slices.Equal(steps, []float64{1}) {
		t.Errorf("ECDF of {1,1,1} steps at %v, want [1]: %v", steps, pts)
	}
	svg, tx := render(t, d)
	col := strings.TrimPrefix(Hex(Default.Color(0)), "#")
	found := false
	for _, path := range strokes(svg, "#"+col) {
		for i := 1; i < len(path); i++ {
			if path[i][0] == path[i-1][0] && path[i][1] != path[i-1][1] {
				if math.Abs(path[i][0]-tx(1).Points()) > 0.02 {
					t.Errorf("the step is drawn at %.3f pt, x = 1 is at %.3f pt", path[i][0], tx(1).Points())
				}
				found = true
			}
		}
	}
	if !found {
		t.Errorf("no vertical step of colour %s in the SVG", col)
	}
}

// Integer values (dep_max_delay) are bars centred on the integers, all of
// them inside the axes (nothing clipped), not a continuous curve.
func TestDiscreteAsBars(t *testing.T) {
	for _, kind := range []Kind{Auto, Discrete} {
		d := &Distributions{Kind: kind, Series: []Series{{Label: "a", Values: []float64{3, 3, 4, 7}}, {Label: "b", Values: []float64{5, 5, 5, 5}}}}
		sh, err := d.shape()
		if err != nil {
			t.Fatal(err)
		}
		if sh.form != "bars" || sh.lines[0] != nil {
			t.Fatalf("kind %d: drawn as %s", kind, sh.form)
		}
		type bar struct{ at, h float64 }
		var got [2][]bar
		for s, rs := range sh.rects {
			for _, r := range rs {
				if r[0] < sh.xmin || r[1] > sh.xmax || r[2] > sh.ymax {
					t.Errorf("bar %v outside the axes [%g,%g]×[0,%g]", r, sh.xmin, sh.xmax, sh.ymax)
				}
				// Series s's bar of value v covers v−0.4+s·0.4 … v+s·0.4.
				got[s] = append(got[s], bar{math.Round(r[0] + 0.4 - float64(s)*0.4), r[2]})
				if w := r[1] - r[0]; math.Abs(w-0.4) > 1e-12 {
					t.Errorf("bar width %g, want 0.4", w)
				}
			}
		}
		want := [2][]bar{{{3, 0.5}, {4, 0.25}, {7, 0.25}}, {{5, 1}}}
		if !slices.Equal(got[0], want[0]) || !slices.Equal(got[1], want[1]) {
			t.Errorf("bars %v, want %v", got, want)
		}
		if !slices.Equal(sh.ticks, []float64{3, 4, 5, 6, 7}) {
			t.Errorf("ticks %v", sh.ticks)
		}
	}
	// A continuous metric whose runs happen to be integers stays a curve.
	d := &Distributions{Kind: Continuous, Series: []Series{{Values: []float64{1, 1}}}}
	if sh, _ := d.shape(); sh.form != "ecdf" {
		t.Errorf("continuous drawn as %s", sh.form)
	}
	// Too many values for bars: steps.
	wide := &Distributions{Kind: Discrete, Series: []Series{{Values: []float64{0, MaxBars + 1}}}}
	if sh, _ := wide.shape(); sh.form != "ecdf" {
		t.Errorf("values over %d integers drawn as %s", MaxBars+1, sh.form)
	}
}

// Every curve starts at 0 on the left edge of the axes and ends at 1 on
// the right edge, whatever its own range.
func TestCurvesEndOnTheEdges(t *testing.T) {
	d := &Distributions{Kind: Continuous, Series: []Series{
		{Label: "low", Values: []float64{0.1, 0.2, 0.2}},
		{Label: "high", Values: []float64{0.6, 0.9}},
	}}
	sh, err := d.shape()
	if err != nil {
		t.Fatal(err)
	}
	for s, pts := range sh.lines {
		first, last := pts[0], pts[len(pts)-1]
		if first.X != sh.xmin || first.Y != 0 || last.X != sh.xmax || last.Y != 1 {
			t.Errorf("series %d runs from %v to %v; the axes span %g … %g", s, first, last, sh.xmin, sh.xmax)
		}
		for i := 1; i < len(pts); i++ {
			if pts[i].X < pts[i-1].X || pts[i].Y < pts[i-1].Y {
				t.Errorf("series %d not monotone at %d: %v", s, i, pts)
			}
		}
	}
	// The values 0.2 of three: the step from 1/3 to 1 is at 0.2.
	want := []float64{sh.xmin, 0, 0.1, 0, 0.1, 1.0 / 3, 0.2, 1.0 / 3, 0.2, 1, sh.xmax, 1}
	var got []float64
	for _, p := range sh.lines[0] {
		got = append(got, p.X, p.Y)
	}
	if !slices.Equal(got, want) {
		t.Errorf("ECDF %v, want %v", got, want)
	}
}

// The legend is rows below the axes: its entries never overlap the data
// area, however long or many the labels, and stay inside the figure.
func TestLegendOutsideTheData(t *testing.T) {
	many := make([]Series, 12)
	for i := range many {
		many[i] = Series{Label: fmt.Sprintf("engine %d (used minhop) = ftree", i), Values: []float64{0.1 * float64(i%10), 0.9}}
	}
	for _, d := range []*Distributions{
		{Kind: Continuous, Series: []Series{{Label: "torus-2QoS (used minhop) = ftree", Values: []float64{0.1, 0.9}}, {Label: "b", Values: []float64{0.5}}}},
		{Kind: Discrete, Series: []Series{{Label: "minhop", Values: []float64{1, 2}}, {Label: "a rather long engine label", Values: []float64{2, 3}}}},
		{Kind: Continuous, Series: many},
	} {
		c := vgsvg.New(18*vg.Centimeter, 11*vg.Centimeter)
		dc := draw.New(c)
		p, leg, axes, legend, err := d.layout(dc)
		if err != nil {
			t.Fatal(err)
		}
		data := p.DataCanvas(axes).Rectangle
		box := leg.Rectangle(legend)
		if box.Max.Y > data.Min.Y || box.Min.Y < dc.Min.Y || box.Min.X < dc.Min.X || box.Max.X > dc.Max.X {
			t.Errorf("legend %v overlaps the data %v or leaves the figure %v", box, data, dc.Rectangle)
		}
		if rows, want := len(leg.rows(legend.Max.X-legend.Min.X)), (len(d.Series)+1)/2; len(d.Series) > 2 && rows < want/2 {
			t.Errorf("%d series in %d legend rows", len(d.Series), rows)
		}
	}
	// Drawn: the series' colour appears as its curve inside the data area
	// and once as a legend swatch, below it.
	d0 := &Distributions{Kind: Continuous, Series: []Series{{Label: "ftree", Values: []float64{0.2, 0.7}}}}
	svg, _ := render(t, d0)
	p, _, axes, _, _ := d0.layout(draw.New(vgsvg.New(18*vg.Centimeter, 11*vg.Centimeter)))
	data := p.DataCanvas(axes).Rectangle
	swatches, below := 0, 0
	for _, path := range strokes(svg, Hex(Default.Color(0))) {
		// A swatch: one horizontal stroke (the ECDF has many points).
		if len(path) == 2 && path[0][1] == path[1][1] {
			swatches++
			if path[0][1] < data.Min.Y.Points() {
				below++
			}
		}
	}
	if swatches != 1 || below != 1 {
		t.Errorf("%d legend swatches, %d of them below the data area; want 1, below it", swatches, below)
	}
	// Without labels there is no legend.
	d := &Distributions{Series: []Series{{Values: []float64{1, 2}}}}
	_, _, axes, legend, _ := d.layout(draw.New(vgsvg.New(10*vg.Centimeter, 5*vg.Centimeter)))
	if legend.Canvas != nil || axes.Min.Y != margin {
		t.Errorf("unlabelled series got a legend (axes start at %v, want the %v margin)", axes.Min.Y, margin)
	}
}

func TestHistogramEdges(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		bins   int
		want   []float64
	}{
		{0, 1, 20, []float64{0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1, 1.05}},
		{3, 17, 5, []float64{0, 5, 10, 15, 20}},
		{0.31, 0.49, 4, []float64{0.3, 0.35, 0.4, 0.45, 0.5}},
	} {
		if got := NiceEdges(c.lo, c.hi, c.bins); !slices.Equal(got, c.want) {
			t.Errorf("NiceEdges(%g, %g, %d) = %v, want %v", c.lo, c.hi, c.bins, got, c.want)
		}
	}
	// [e_i, e_{i+1}): a value on an edge opens the next bin; the last edge
	// belongs to the last bin; outside values are not counted.
	got := Count([]float64{0, 0.5, 1}, []float64{0, 0.25, 0.5, 0.75, 1, 1.5, -1})
	if !slices.Equal(got, []int64{2, 3}) {
		t.Errorf("Count = %v, want [2 3]", got)
	}
	d := &Distributions{Histogram: true, Kind: Continuous, Edges: []float64{0, 0.5, 1}, Series: []Series{{Values: []float64{0.1, 0.5, 0.6, 1}}}}
	sh, err := d.shape()
	if err != nil || sh.form != "histogram" {
		t.Fatalf("%v %v", sh, err)
	}
	if r := sh.rects[0]; len(r) != 2 || r[0] != [3]float64{0, 0.5, 0.25} || r[1] != [3]float64{0.5, 1, 0.75} {
		t.Errorf("bins %v", r)
	}
	// Counts given (the analyzer's own binning) are drawn as they are.
	d.Series[0].Counts = []int64{3, 1}
	if sh, _ := d.shape(); sh.rects[0][0][2] != 0.75 {
		t.Errorf("given counts not used: %v", sh.rects[0])
	}
}

func TestMarkers(t *testing.T) {
	d := &Distributions{Kind: Continuous, Series: []Series{{Values: []float64{0.2, 0.4}}}, Markers: []Marker{{"mean 0.3", 0.3}, {"p95 0.39", 0.39}}}
	var b bytes.Buffer
	if err := d.Write(&b, "svg"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"mean 0.3", "p95 0.39"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no marker %q", want)
		}
	}
}

func TestInlineSVG(t *testing.T) {
	d := &Distributions{Series: []Series{{Values: []float64{1, 2}}}}
	var b bytes.Buffer
	if err := d.Write(&b, "svg"); err != nil {
		t.Fatal(err)
	}
	in := InlineSVG(b.Bytes())
	if !strings.HasPrefix(in, "<svg") || strings.Contains(in, "http") || strings.Contains(in, "<?xml") {
		t.Errorf("inline SVG: %.200s", in)
	}
}

func TestLoadScale(t *testing.T) {
	if LoadColor(0) != loadStops[0] || LoadColor(1) != loadStops[len(loadStops)-1] || LoadColor(math.NaN()) != loadStops[0] || LoadColor(2) != LoadColor(1) {
		t.Error("load scale ends")
	}
	// Darker with load (sum of channels falls), so it reads in grey too.
	prev := 1000
	for i := 0; i <= 20; i++ {
		c := LoadColor(float64(i) / 20)
		if s := int(c.R) + int(c.G) + int(c.B); s > prev {
			t.Errorf("load %d/20 lighter than the one before", i)
		} else {
			prev = s
		}
	}
	if LoadWidth(0) >= LoadWidth(0.5) || LoadWidth(1) != 4 {
		t.Error("widths")
	}
}

// Properties on random samples: the ECDF is monotone, starts at 0 and
// ends at 1 on the axis edges, and rises at each distinct value by its
// share of the sample; Count keeps every value inside the edges.
func TestECDFAndCountProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := 1 + rng.IntN(60)
		v := make([]float64, n)
		for i := range v {
			v[i] = math.Round(rng.Float64()*20) / 4 // ties on purpose
		}
		sorted := slices.Sorted(slices.Values(v))
		pts := ECDF(sorted, -1, 6)
		if pts[0] != (plotter.XY{X: -1, Y: 0}) || pts[len(pts)-1] != (plotter.XY{X: 6, Y: 1}) {
			t.Fatalf("trial %d: ends %v %v", trial, pts[0], pts[len(pts)-1])
		}
		for i := 1; i < len(pts); i++ {
			if pts[i].X < pts[i-1].X || pts[i].Y < pts[i-1].Y {
				t.Fatalf("trial %d: not monotone at %d", trial, i)
			}
			if pts[i].X == pts[i-1].X && pts[i].Y > pts[i-1].Y {
				ties := 0
				for _, x := range v {
					if x == pts[i].X {
						ties++
					}
				}
				if math.Abs(pts[i].Y-pts[i-1].Y-float64(ties)/float64(n)) > 1e-12 {
					t.Fatalf("trial %d: step at %g of %g, want %d/%d", trial, pts[i].X, pts[i].Y-pts[i-1].Y, ties, n)
				}
			}
		}
		edges := NiceEdges(sorted[0], sorted[n-1], 1+rng.IntN(30))
		var total int64
		for _, c := range Count(edges, v) {
			total += c
		}
		if total != int64(n) || edges[0] > sorted[0] || edges[len(edges)-1] < sorted[n-1] {
			t.Fatalf("trial %d: %d of %d counted in %v", trial, total, n, edges)
		}
	}
}

// TestSVGTextsFit: every text of an SVG figure is laid out inside the
// figure by the metrics it is drawn with: textLength is the width gonum
// measured (so a browser's fallback font is squeezed to it), the title
// starts at x ≥ the margin and ends by the width less the margin, and the
// font family names fallbacks. By hand: a 510.24 pt wide figure (18 cm)
// and its 4 pt margin.
func TestSVGTextsFit(t *testing.T) {
	d := &Distributions{Title: "ft16.dot, hist_acc_band: 50 runs of bisect_fb_sym on 16 hosts", XLabel: "fraction of peak bandwidth",
		Kind: Continuous, Series: []Series{{Label: "minhop", Values: []float64{0.6, 0.8, 0.9}}, {Label: "updn = minhop", Values: []float64{0.6, 0.8, 0.9}}}}
	var b bytes.Buffer
	if err := d.Write(&b, "svg"); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`<text x="([-0-9.]+)" y="[-0-9.]+" transform="[^"]*" textLength="([0-9.]+)" lengthAdjust="spacingAndGlyphs"\s*style="font-family:Liberation Sans, Arial, Helvetica, sans-serif;[^"]*">([^<]*)</text>`)
	all := regexp.MustCompile(`<text `).FindAll(b.Bytes(), -1)
	got := re.FindAllSubmatch(b.Bytes(), -1)
	if len(got) == 0 || len(got) != len(all) {
		t.Fatalf("%d of %d texts carry textLength and the fallback fonts:\n%s", len(got), len(all), b.String())
	}
	const width = 510.24 // 18 cm in pt
	found := false
	for _, m := range got {
		if string(m[3]) != d.Title {
			continue
		}
		found = true
		x, _ := strconv.ParseFloat(string(m[1]), 64)
		w, _ := strconv.ParseFloat(string(m[2]), 64)
		if x < 4 || x+w > width-4 {
			t.Errorf("title at x %.2f … %.2f, want inside [4, %.2f]", x, x+w, width-4)
		}
	}
	if !found {
		t.Errorf("no title text in\n%s", b.String())
	}
}

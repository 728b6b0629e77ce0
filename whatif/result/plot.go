package result

import (
	"fmt"
	"math"
	"strconv"

	"orcs/plot"
)

// PlotSVG draws the random sweep: per engine, the mean bandwidth kept
// (percent of the intact fabric's, over the non-critical trials the engine routed
// itself) against the number K of failed cables, K on a log scale; a
// hollow marker is a K where some trials were critical. It returns "" when
// the file has no random sets. standalone adds the SVG namespace (a file,
// not inlined HTML).
func (f *File) PlotSVG(standalone bool) string {
	cs := f.Curves()
	if len(cs) == 0 {
		return ""
	}
	const w, h, left, right, top, bottom = 680.0, 320.0, 60.0, 170.0, 30.0, 45.0
	kmin, kmax, lo, hi := math.Inf(1), math.Inf(-1), 100.0, 100.0
	for _, c := range cs {
		for i, k := range c.K {
			kmin, kmax = math.Min(kmin, float64(k)), math.Max(kmax, float64(k))
			if !math.IsNaN(c.Kept[i]) {
				lo, hi = math.Min(lo, 100*c.Kept[i]), math.Max(hi, 100*c.Kept[i])
			}
		}
	}
	lo = math.Max(0, math.Floor(lo/10)*10-10)
	hi = math.Ceil(hi/10) * 10
	step := 10.0
	if hi-lo > 100 {
		step = 20
	}
	x := func(k float64) float64 {
		if kmax == kmin {
			return left + (w-left-right)/2
		}
		return left + (w-left-right)*(math.Log2(k)-math.Log2(kmin))/(math.Log2(kmax)-math.Log2(kmin))
	}
	y := func(p float64) float64 { return top + (h-top-bottom)*(hi-p)/(hi-lo) }
	s := plot.NewSVG(w, h, standalone)
	s.Text(w/2, 18, plot.Default.LabelSize, "middle", true,
		fmt.Sprintf("%s: %s bandwidth kept vs K random cable failures (%s)", f.Fabric, f.Pattern, f.Metric))
	ink := plot.Hex(plot.Default.Ink)
	s.Line(left, h-bottom, w-right, h-bottom, ink, 1, "")
	s.Line(left, top, left, h-bottom, ink, 1, "")
	if lo < 100 && hi > 100 {
		s.Line(left, y(100), w-right, y(100), plot.Hex(plot.Default.Grid), 1, "the intact fabric")
	}
	for p := lo; p <= hi; p += step {
		s.Line(left-4, y(p), left, y(p), ink, 1, "")
		s.Text(left-6, y(p)+4, plot.Default.LabelSize, "end", false, strconv.FormatFloat(p, 'f', 0, 64)+"%")
	}
	for _, k := range cs[0].K {
		s.Line(x(float64(k)), h-bottom, x(float64(k)), h-bottom+4, ink, 1, "")
		s.Text(x(float64(k)), h-bottom+16, plot.Default.LabelSize, "middle", false, strconv.Itoa(k))
	}
	s.Text((left+w-right)/2, h-8, plot.Default.LabelSize, "middle", false, "K failed cables (log scale)")
	for i, c := range cs {
		col := plot.Hex(plot.Default.Color(i))
		px, py := math.NaN(), math.NaN()
		for j, k := range c.K {
			if math.IsNaN(c.Kept[j]) {
				continue
			}
			cx, cy := x(float64(k)), y(100*c.Kept[j])
			if !math.IsNaN(px) {
				s.Line(px, py, cx, cy, col, 1.5, "")
			}
			fill := col
			if c.Cut[j] > 0 {
				fill = "white"
			}
			s.Circle(cx, cy, 3.5, fill, col, fmt.Sprintf("%s K=%d: %.1f%% kept, %.0f%% of trials critical", c.Engine, k, 100*c.Kept[j], 100*c.Cut[j]))
			px, py = cx, cy
		}
		ly := top + 10 + 18*float64(i)
		s.Line(w-right+10, ly, w-right+30, ly, col, 2, "")
		name := c.Engine
		if math.IsNaN(px) {
			name += " (none of its own)"
		}
		s.Text(w-right+36, ly+4, plot.Default.LabelSize, "start", false, name)
	}
	s.Text(w-right+10, top+10+18*float64(len(cs))+6, plot.Default.LabelSize-2, "start", false, "hollow: some trials critical")
	return s.String()
}

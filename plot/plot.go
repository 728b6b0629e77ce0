// Package plot draws the figures of orcs: distributions of per-run values
// overlaid per series (as Figure 3 of the ORCS manual), as SVG, PNG or PDF.
package plot

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Series is one curve: a label and its values (NaN values are left out).
type Series struct {
	Label  string
	Values []float64
}

// Distributions is a figure of several distributions over the same bins.
type Distributions struct {
	Title, XLabel string
	Series        []Series
	// Bins is the number of bins (40 when 0).
	Bins int
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

// palette tells ten series apart; further series repeat it dashed.
var palette = []color.RGBA{
	{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255}, {148, 103, 189, 255},
	{140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255}, {188, 189, 34, 255}, {23, 190, 207, 255},
}

// Write draws, for every series, the distribution of its values as a
// frequency polygon (the fraction of values per bin), all series over the
// same bins, and writes it to w in format (svg, png or pdf).
func (d *Distributions) Write(w io.Writer, format string) error {
	if err := CheckFormat(format); err != nil {
		return err
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range d.Series {
		for _, v := range s.Values {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 0) {
		return errors.New("no values to plot")
	}
	bins := d.Bins
	if bins <= 0 {
		bins = 40
	}
	if hi-lo < 1e-12 {
		lo, hi = lo-0.05, hi+0.05
	}
	width := (hi - lo) / float64(bins)
	p := plot.New()
	p.Title.Text = d.Title
	p.X.Label.Text = d.XLabel
	p.Y.Label.Text = "fraction of runs"
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	for i, s := range d.Series {
		if len(s.Values) == 0 {
			continue
		}
		counts := make([]float64, bins)
		n := 0
		for _, v := range s.Values {
			if math.IsNaN(v) {
				continue
			}
			counts[min(bins-1, max(0, int((v-lo)/width)))]++
			n++
		}
		pts := make(plotter.XYs, bins)
		for b := range pts {
			pts[b].X = lo + (float64(b)+0.5)*width
			pts[b].Y = counts[b] / float64(max(n, 1))
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		line.Color = palette[i%len(palette)]
		line.Width = vg.Points(1.5)
		line.Dashes = [][]vg.Length{{}, {vg.Points(6), vg.Points(2)}, {vg.Points(2), vg.Points(2)}}[i/len(palette)%3]
		p.Add(line)
		p.Legend.Add(s.Label, line)
	}
	// Room on the right for the legend.
	p.X.Min, p.X.Max = lo, hi+0.45*(hi-lo)
	p.Legend.ThumbnailWidth = vg.Points(20)
	p.Legend.Padding = vg.Points(2)
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	p.Title.TextStyle.Font.Size = vg.Points(10)
	wt, err := p.WriterTo(18*vg.Centimeter, 11*vg.Centimeter, strings.ToLower(format))
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}

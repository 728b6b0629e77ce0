package plot

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// Style is the one look of every orcs figure: the distribution plots of
// this package (SVG, PNG, PDF), samplingsim's fabric plots and the HTML
// report's drawings all take their fonts, sizes and colours from Default.
type Style struct {
	// Font is the typeface of gonum-drawn figures; FontFamily names the
	// same face, with fallbacks, for hand-written SVG and CSS.
	Font       font.Font
	FontFamily string
	// TitleSize, LabelSize and TickSize are font sizes in points (1 pt =
	// 1 SVG px at the sizes the SVGs are drawn).
	TitleSize, LabelSize, TickSize float64
	// Palette tells series apart (colour-blind-safe first: Okabe and Ito's
	// eight, then two more); further series repeat it dashed.
	Palette []color.RGBA
	// Ink is text and axes, Grid the grid lines, Muted secondary marks
	// (idle cables, nodes).
	Ink, Grid, Muted color.RGBA
	// LineWidth is the width of data lines in points.
	LineWidth float64
}

// Default is the style of every figure.
var Default = Style{
	Font:       font.Font{Typeface: "Liberation", Variant: "Sans"},
	FontFamily: "'Liberation Sans', Arial, Helvetica, sans-serif",
	TitleSize:  11, LabelSize: 9, TickSize: 8,
	Palette: []color.RGBA{
		{0, 114, 178, 255}, {230, 159, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255}, {86, 180, 233, 255},
		{213, 94, 0, 255}, {240, 228, 66, 255}, {0, 0, 0, 255}, {127, 127, 127, 255}, {148, 103, 189, 255},
	},
	Ink:       color.RGBA{34, 34, 34, 255},
	Grid:      color.RGBA{225, 225, 225, 255},
	Muted:     color.RGBA{160, 160, 160, 255},
	LineWidth: 1.5,
}

// Color returns the colour of series i.
func (s Style) Color(i int) color.RGBA { return s.Palette[i%len(s.Palette)] }

// Dashes returns the dash pattern of series i: solid for the first round
// of the palette, then dashed, then dotted.
func (s Style) Dashes(i int) []vg.Length {
	return [][]vg.Length{nil, {vg.Points(6), vg.Points(2)}, {vg.Points(2), vg.Points(2)}}[i/len(s.Palette)%3]
}

// Hex formats c as #rrggbb.
func Hex(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// loadStops is the sequential scale of loads: pale yellow (idle) through
// orange to dark red (the most loaded), monotone in lightness so that it
// also reads in grey.
var loadStops = []color.RGBA{{255, 245, 190, 255}, {254, 196, 79, 255}, {236, 112, 20, 255}, {204, 40, 30, 255}, {103, 0, 13, 255}}

// LoadColor maps a load fraction in [0, 1] (of the largest load) to the
// colour of the load scale; values outside are clamped, NaN is 0.
func LoadColor(fr float64) color.RGBA {
	if !(fr > 0) {
		fr = 0
	}
	fr = min(fr, 1)
	x := fr * float64(len(loadStops)-1)
	i := min(int(x), len(loadStops)-2)
	t := x - float64(i)
	a, b := loadStops[i], loadStops[i+1]
	mix := func(p, q uint8) uint8 { return uint8(math.Round(float64(p) + t*(float64(q)-float64(p)))) }
	return color.RGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 255}
}

// LoadWidth maps a load fraction in [0, 1] to a stroke width in px,
// from 0.6 (idle) to 4.
func LoadWidth(fr float64) float64 {
	if !(fr > 0) {
		fr = 0
	}
	return 0.6 + 3.4*min(fr, 1)
}

package plot

import (
	"fmt"
	"strings"
)

// SVG builds a hand-drawn SVG figure (fabric drawings, timelines) in the
// Default style: its font family and sizes, its ink and load colours.
// Coordinates are in px with the origin at the top left.
type SVG struct {
	b strings.Builder
}

// NewSVG starts a figure of w × h px on a white background. A standalone
// figure (an .svg file) declares the SVG namespace; one inlined in HTML
// must not name it (the HTML parser puts <svg> into it, and the page then
// holds no URL at all).
func NewSVG(w, h float64, standalone bool) *SVG {
	s := &SVG{}
	ns := ""
	if standalone {
		ns = ` xmlns="http://www.w3.org/2000/svg"`
	}
	fmt.Fprintf(&s.b, `<svg%s width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="%s" font-size="%g" fill="%s">`+"\n",
		ns, w, h, w, h, Escape(Default.FontFamily), Default.LabelSize, Hex(Default.Ink))
	fmt.Fprintf(&s.b, `<rect width="%.0f" height="%.0f" fill="white"/>`+"\n", w, h)
	return s
}

// Line draws a line with a tooltip (title may be empty).
func (s *SVG) Line(x1, y1, x2, y2 float64, stroke string, width float64, title string) {
	fmt.Fprintf(&s.b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%.2f"`, x1, y1, x2, y2, stroke, width)
	s.close("line", title)
}

// Rect draws a rectangle; stroke may be "" for none.
func (s *SVG) Rect(x, y, w, h float64, fill, stroke, title string) {
	fmt.Fprintf(&s.b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"`, x, y, w, h, fill)
	if stroke != "" {
		fmt.Fprintf(&s.b, ` stroke="%s" stroke-width="0.6"`, stroke)
	}
	s.close("rect", title)
}

// Circle draws a filled circle with an outline.
func (s *SVG) Circle(x, y, r float64, fill, stroke, title string) {
	fmt.Fprintf(&s.b, `<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s" stroke="%s" stroke-width="0.8"`, x, y, r, fill, stroke)
	s.close("circle", title)
}

// Text writes text at (x, y) (the baseline) in size pt; anchor is start,
// middle or end; bold makes it bold.
func (s *SVG) Text(x, y, size float64, anchor string, bold bool, text string) {
	weight := ""
	if bold {
		weight = ` font-weight="bold"`
	}
	fmt.Fprintf(&s.b, `<text x="%.1f" y="%.1f" font-size="%g" text-anchor="%s"%s>%s</text>`+"\n", x, y, size, anchor, weight, Escape(text))
}

// VLabel writes a node label reading upwards from (x, y) (anchor start:
// the text extends upwards; end: downwards), with a white halo so that it
// stays legible over lines.
func (s *SVG) VLabel(x, y, size float64, anchor, text string) {
	fmt.Fprintf(&s.b, `<text x="%.1f" y="%.1f" font-size="%g" text-anchor="%s" transform="rotate(-90 %.1f %.1f)" stroke="white" stroke-width="2" paint-order="stroke">%s</text>`+"\n",
		x, y, size, anchor, x, y, Escape(text))
}

func (s *SVG) close(elem, title string) {
	if title == "" {
		s.b.WriteString("/>\n")
		return
	}
	fmt.Fprintf(&s.b, "><title>%s</title></%s>\n", Escape(title), elem)
}

// LoadScale draws the load colour scale, w px wide, at (x, y): a bar from
// idle to the largest load with the two ends labelled lo and hi and a
// caption after it.
func (s *SVG) LoadScale(x, y, w float64, lo, hi, caption string) {
	const steps = 20
	for i := range steps {
		fr := (float64(i) + 0.5) / steps
		s.Rect(x+float64(i)*w/steps, y, w/steps+0.3, 10, Hex(LoadColor(fr)), "", "")
	}
	s.Text(x, y+21, Default.TickSize, "start", false, lo)
	s.Text(x+w, y+21, Default.TickSize, "end", false, hi)
	s.Text(x+w+8, y+9, Default.TickSize, "start", false, caption)
}

// Raw adds SVG markup as it is (the caller escapes its text).
func (s *SVG) Raw(markup string) { s.b.WriteString(markup) }

// String closes the figure and returns it.
func (s *SVG) String() string { return s.b.String() + "</svg>\n" }

var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")

// Escape escapes text for SVG and HTML.
func Escape(text string) string { return escaper.Replace(text) }

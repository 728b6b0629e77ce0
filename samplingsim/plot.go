package samplingsim

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// PlotSource says what a congested-fraction plot shows.
type PlotSource uint8

const (
	// PlotEstimate shows the receivers' estimates (the thesis's plots).
	PlotEstimate PlotSource = iota
	// PlotTruth shows the ground truth.
	PlotTruth
)

// Plot geometry in SVG pixels.
const (
	plotColumn  = 14  // width of a leaf switch's column
	plotRow     = 110 // distance between switch stages
	plotMargin  = 40
	plotHostW   = 10
	plotHostH   = 4
	plotHostGap = 1
	plotRadius  = 4
)

// WritePlotSVG draws the congested-fraction plot of one window (w = −1:
// the whole run) in the thesis's layout (§3.4): switch stages as rows with
// the core at the top, the hosts of each leaf switch in a column below it,
// numbered top to bottom and left to right, and links shaded and widened by
// their congested fraction (links without traffic are left out). The up
// view (links towards the core, and each host shaded by its link into the
// network) is drawn above the down view (links towards the hosts, each
// host shaded by its link from the network). Estimates never cover the
// links out of hosts (switches sample; NICs do not), so those hosts stay
// white in an estimate plot.
func (r *Result) WritePlotSVG(out io.Writer, view View, w int, src PlotSource) error {
	f := r.Fabric
	level := NodeLevels(f)
	top := 0
	for _, l := range level {
		top = max(top, l)
	}
	if top < 1 {
		return fmt.Errorf("plot: the fabric has no switches reachable from the hosts")
	}
	// Switches per stage, in node order; hosts per leaf switch.
	stages := make([][]int32, top+1)
	for v := range f.Nodes {
		if l := level[v]; l >= 1 {
			stages[l] = append(stages[l], int32(v))
		}
	}
	leafOf := map[int32][]int32{} // leaf node → host indices
	hostIn := make([]int32, f.NumHosts())
	hostOut := make([]int32, f.NumHosts())
	for i := range hostIn {
		hostIn[i], hostOut[i] = -1, -1
	}
	for l, lk := range f.Links {
		if h := f.HostIndex(lk.From); h >= 0 && hostOut[h] < 0 {
			hostOut[h] = int32(l)
			leafOf[lk.To] = append(leafOf[lk.To], h)
		}
		if h := f.HostIndex(lk.To); h >= 0 && hostIn[h] < 0 {
			hostIn[h] = int32(l)
		}
	}
	leaves := stages[1]
	maxHosts := 1
	for _, hs := range leafOf {
		maxHosts = max(maxHosts, len(hs))
	}
	width := float64(max(len(leaves), 1)*plotColumn + 2*plotMargin)
	// widest upper stage may need more room
	for _, st := range stages[1:] {
		width = max(width, float64(len(st)*plotColumn+2*plotMargin))
	}
	inner := width - 2*plotMargin
	width = max(width, 560)
	panelH := float64(top-1)*plotRow + 30 + float64(maxHosts*(plotHostH+plotHostGap)) + 40
	height := 2*panelH + 80

	// Per link: packets and congested packets, from the source.
	pk := make([]float64, len(f.Links))
	cg := make([]float64, len(f.Links))
	if src == PlotTruth {
		for l := range f.Links {
			t := r.TruthOf(w, int32(l))
			pk[l], cg[l] = float64(t.Packets), float64(t.Congested)
		}
	} else {
		for l, e := range r.Estimates(view, w) {
			pk[l], cg[l] = e.Packets, e.Congested
		}
	}

	pos := map[int32][2]float64{}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	what := "estimated"
	if src == PlotTruth {
		what = "true"
	}
	span := "whole run"
	if w >= 0 {
		from, to := r.WindowSpan(w)
		span = fmt.Sprintf("window %d: %s – %s", w, FormatTime(from), FormatTime(to))
	}
	fmt.Fprintf(&b, `<text x="%d" y="18">%s congested fraction, view %s, %s</text>`+"\n", plotMargin, what, escape(r.ViewName(view)), span)
	legend(&b, plotMargin, 26)

	for panel, dir := range []Direction{Up, Down} {
		y0 := 50 + float64(panel)*panelH
		fmt.Fprintf(&b, `<text x="%d" y="%.0f" font-weight="bold">%s</text>`+"\n", plotMargin, y0+10, dir)
		for l := top; l >= 1; l-- {
			st := stages[l]
			y := y0 + 20 + float64(top-l)*plotRow
			for i, v := range st {
				x := plotMargin + (float64(i)+0.5)*inner/float64(len(st))
				if l == 1 {
					x = plotMargin + float64(i)*plotColumn + plotColumn/2
				}
				pos[v] = [2]float64{x, y}
			}
		}
		// Links between switches, merged per switch pair and direction.
		type pair struct{ a, b int32 }
		sum := map[pair][2]float64{}
		var order []pair
		for l, lk := range f.Links {
			if level[lk.From] < 1 || level[lk.To] < 1 || pk[l] <= 0 {
				continue
			}
			d := linkDirection(f, level, int32(l))
			if d != dir && d != Level {
				continue
			}
			k := pair{lk.From, lk.To}
			if d == Level && k.a > k.b {
				k = pair{k.b, k.a}
			}
			if _, ok := sum[k]; !ok {
				order = append(order, k)
			}
			s := sum[k]
			sum[k] = [2]float64{s[0] + pk[l], s[1] + cg[l]}
		}
		// Draw light links first so that congested ones lie on top.
		slices.SortStableFunc(order, func(x, y pair) int {
			fx, fy := frac(sum[x]), frac(sum[y])
			switch {
			case fx < fy:
				return -1
			case fx > fy:
				return 1
			}
			return 0
		})
		for _, k := range order {
			fr := frac(sum[k])
			p, q := pos[k.a], pos[k.b]
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%.2f"><title>%s → %s: %.3f</title></line>`+"\n",
				p[0], p[1], q[0], q[1], shade(fr), 0.4+3.6*fr, escape(f.Nodes[k.a].Name), escape(f.Nodes[k.b].Name), fr)
		}
		for l := top; l >= 1; l-- {
			for _, v := range stages[l] {
				p := pos[v]
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="%d" fill="#9ecae1"><title>%s</title></circle>`+"\n", p[0], p[1], plotRadius, escape(f.Nodes[v].Name))
			}
		}
		// Hosts below their leaf, top to bottom.
		for _, leaf := range leaves {
			p := pos[leaf]
			for i, h := range leafOf[leaf] {
				l := hostIn[h]
				if dir == Up {
					l = hostOut[h]
				}
				fill := "white"
				fr := 0.0
				if l >= 0 && pk[l] > 0 && (src == PlotTruth || r.Sampled(l)) {
					fr = min(cg[l]/pk[l], 1)
					fill = shade(fr)
				}
				y := p[1] + 14 + float64(i*(plotHostH+plotHostGap))
				fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%d" height="%d" fill="%s" stroke="#9ecae1" stroke-width="0.5"><title>%s: %.3f</title></rect>`+"\n",
					p[0]-plotHostW/2, y, plotHostW, plotHostH, fill, escape(f.HostName(int(h))), fr)
			}
		}
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(out, b.String())
	return err
}

// frac returns congested/packets of a (packets, congested) sum.
func frac(s [2]float64) float64 {
	if s[0] <= 0 {
		return 0
	}
	return min(s[1]/s[0], 1)
}

// shade maps a congested fraction to a grey: light for 0, black for 1.
func shade(fr float64) string {
	g := int(215 * (1 - fr))
	return fmt.Sprintf("#%02x%02x%02x", g, g, g)
}

// legend draws the grey scale from 0 to 1.
func legend(b *strings.Builder, x, y float64) {
	for i := range 11 {
		fr := float64(i) / 10
		fmt.Fprintf(b, `<rect x="%.0f" y="%.0f" width="12" height="10" fill="%s"/>`, x+float64(i)*12, y, shade(fr))
	}
	fmt.Fprintf(b, `<text x="%.0f" y="%.0f" font-size="10">0 … 1 congested fraction (link shade and width)</text>`+"\n", x+138, y+9)
}

// escape escapes text for SVG.
func escape(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")
	return r.Replace(s)
}

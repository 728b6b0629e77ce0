package samplingsim

import (
	"fmt"
	"io"
	"slices"

	"orcs/lft"
	"orcs/plot"
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
	plotFont    = 7  // node labels, in px
	plotLabel   = 70 // room above a panel for the labels of the top switches
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
	panelH := plotLabel + float64(top-1)*plotRow + 30 + float64(maxHosts*(plotHostH+plotHostGap)) + plotLabel
	height := 2*panelH + 70

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
	sv := plot.NewSVG(width, height, true)
	what := "estimated"
	if src == PlotTruth {
		what = "true"
	}
	span := "whole run"
	if w >= 0 {
		from, to := r.WindowSpan(w)
		span = fmt.Sprintf("window %d: %s – %s", w, FormatTime(from), FormatTime(to))
	}
	sv.Text(plotMargin, 18, plot.Default.TitleSize, "start", false, fmt.Sprintf("%s congested fraction, view %s, %s", what, r.ViewName(view), span))
	sv.LoadScale(plotMargin, 26, 132, "0", "1", "congested fraction (link colour and width)")

	for panel, dir := range []Direction{Up, Down} {
		y0 := 60 + float64(panel)*panelH
		sv.Text(plotMargin, y0+10, plot.Default.LabelSize, "start", true, dir.String())
		for l := top; l >= 1; l-- {
			st := stages[l]
			y := y0 + plotLabel + 20 + float64(top-l)*plotRow
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
			sv.Line(p[0], p[1], q[0], q[1], plot.Hex(plot.LoadColor(fr)), plot.LoadWidth(fr),
				fmt.Sprintf("%s → %s: %.3f", f.Nodes[k.a].Name, f.Nodes[k.b].Name, fr))
		}
		// Switches, each labelled with its name (reading upwards, above it).
		for l := top; l >= 1; l-- {
			for _, v := range stages[l] {
				p := pos[v]
				sv.Circle(p[0], p[1], plotRadius, "#dbe9f6", plot.Hex(plot.Default.Muted), f.Nodes[v].Name)
				sv.VLabel(p[0]+2.5, p[1]-plotRadius-2, plotFont, "start", f.Nodes[v].Name)
			}
		}
		// Hosts below their leaf, top to bottom, and below them the range of
		// their names.
		for _, leaf := range leaves {
			p := pos[leaf]
			hs := leafOf[leaf]
			for i, h := range hs {
				l := hostIn[h]
				if dir == Up {
					l = hostOut[h]
				}
				fill := "white"
				fr := 0.0
				if l >= 0 && pk[l] > 0 && (src == PlotTruth || r.Sampled(l)) {
					fr = min(cg[l]/pk[l], 1)
					fill = plot.Hex(plot.LoadColor(fr))
				}
				y := p[1] + 14 + float64(i*(plotHostH+plotHostGap))
				sv.Rect(p[0]-plotHostW/2, y, plotHostW, plotHostH, fill, plot.Hex(plot.Default.Muted), fmt.Sprintf("%s: %.3f", f.HostName(int(h)), fr))
			}
			if len(hs) > 0 {
				y := p[1] + 14 + float64(len(hs)*(plotHostH+plotHostGap)) + 3
				sv.VLabel(p[0]+2.5, y, plotFont, "end", leafHosts(f, hs))
			}
		}
	}
	_, err := io.WriteString(out, sv.String())
	return err
}

// leafHosts names the hosts of a leaf: "H0" for one, "H0, H1" for two,
// "H0 … H3 (4)" for more (first and last in the leaf's order).
func leafHosts(f *lft.Fabric, hs []int32) string {
	switch len(hs) {
	case 1:
		return f.HostName(int(hs[0]))
	case 2:
		return f.HostName(int(hs[0])) + ", " + f.HostName(int(hs[1]))
	}
	return fmt.Sprintf("%s … %s (%d)", f.HostName(int(hs[0])), f.HostName(int(hs[len(hs)-1])), len(hs))
}

// frac returns congested/packets of a (packets, congested) sum.
func frac(s [2]float64) float64 {
	if s[0] <= 0 {
		return 0
	}
	return min(s[1]/s[0], 1)
}

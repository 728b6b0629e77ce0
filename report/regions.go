package report

import (
	"cmp"
	"fmt"
	"html/template"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"orcs/internal/plural"
	"orcs/plot"
)

// MaxTracks is the most region tracks the timeline draws (the largest).
const MaxTracks = 40

// regionsView is the regions section: a timeline and the transitions.
type regionsView struct {
	Verdict        string
	Source, Params string
	Windows        int
	Tracks         int
	Timeline       template.HTML
	Note           string
	// Matrix rows: the class, then per class the count and its share of
	// the row ("" when the row is empty).
	Classes []string
	Matrix  []matrixRow
}

type matrixRow struct {
	Class string
	Total int
	Cells []matrixCell
}

type matrixCell struct {
	Count int
	Share string
	Fill  template.CSS
	Ink   template.CSS
}

// severityColor places the classes on the shared load scale.
func severityColor(class string) string {
	fr := map[string]float64{"negligible": 0.05, "low": 0.35, "medium": 0.65, "high": 1}[class]
	return plot.Hex(plot.LoadColor(fr))
}

// regionsSection draws the timeline of the region tracks and the
// transition matrix of their severities.
func regionsSection(r *Regions) *regionsView {
	v := &regionsView{Verdict: sentence(strings.TrimPrefix(r.Verdict, "verdict: ")), Source: r.Source, Windows: len(r.Windows), Tracks: len(r.Tracks),
		Params: fmt.Sprintf("θp = %s, θr = %s, σ = %s, δ = %s", num(r.Params.ThetaP), num(r.Params.ThetaR), num(float64(r.Params.Sigma)), num(float64(r.Params.Delta)))}
	v.Timeline, v.Note = timeline(r)
	tr := r.Transitions
	v.Classes = tr.Classes
	for i, class := range tr.Classes {
		row := matrixRow{Class: class}
		for _, c := range tr.Counts[i] {
			row.Total += c
		}
		for _, c := range tr.Counts[i] {
			cell := matrixCell{Count: c, Fill: "#ffffff", Ink: "#222222"}
			if row.Total > 0 {
				share := float64(c) / float64(row.Total)
				cell.Share = strconv.FormatFloat(100*share, 'f', 0, 64) + " %"
				if c > 0 {
					cell.Fill = template.CSS(plot.Hex(plot.LoadColor(0.1 + 0.8*share)))
					if share > 0.55 {
						cell.Ink = "#ffffff"
					}
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		v.Matrix = append(v.Matrix, row)
	}
	return v
}

// timeline draws one row per track (the largest MaxTracks, by first
// appearance), a box per window in which the track has a region, coloured
// by its severity, with its size in the tooltip.
func timeline(r *Regions) (template.HTML, string) {
	if len(r.Windows) == 0 {
		return "", "no windows"
	}
	type cell struct {
		window int
		reg    Region
	}
	byTrack := map[int][]cell{}
	maxSize := map[int]int{}
	for wi, w := range r.Windows {
		for _, reg := range w.Regions {
			byTrack[reg.ID] = append(byTrack[reg.ID], cell{wi, reg})
			maxSize[reg.ID] = max(maxSize[reg.ID], reg.Size)
		}
	}
	ids := make([]int, 0, len(byTrack))
	for id := range byTrack {
		ids = append(ids, id)
	}
	note := ""
	if len(ids) > MaxTracks {
		slices.SortFunc(ids, func(a, b int) int { return cmp.Or(cmp.Compare(maxSize[b], maxSize[a]), cmp.Compare(a, b)) })
		note = fmt.Sprintf("the %d largest of %d tracks", MaxTracks, len(ids))
		ids = ids[:MaxTracks]
	}
	slices.SortFunc(ids, func(a, b int) int {
		return cmp.Or(cmp.Compare(byTrack[a][0].window, byTrack[b][0].window), cmp.Compare(a, b))
	})
	const left, rowH, top = 80.0, 18.0, 40.0
	n := len(r.Windows)
	cw := min(60, max(3, 900/float64(n)))
	// Where each track is: the switches and hosts of its largest region.
	where := make([]string, len(ids))
	whereW := 0.0
	for i, id := range ids {
		peak := byTrack[id][0].reg
		for _, c := range byTrack[id] {
			if c.reg.Size > peak.Size {
				peak = c.reg
			}
		}
		where[i] = location(peak)
		whereW = max(whereW, textWidth(where[i], plot.Default.TickSize))
	}
	caption := "window start time (" + timeUnit(r.Source) + "; box height: region size relative to the track's largest)"
	legendW := 0.0
	for _, class := range Severities {
		legendW += 16 + textWidth(class, plot.Default.TickSize) + 14
	}
	boxesEnd := left + cw*float64(n)
	width := max(boxesEnd+8+whereW, left+textWidth(caption, plot.Default.LabelSize), left+legendW) + 12
	height := top + rowH*float64(len(ids)) + 40
	sv := plot.NewSVG(width, height, false)
	x := 0.0
	for _, class := range Severities {
		sv.Rect(left+x, 8, 12, 12, severityColor(class), plot.Hex(plot.Default.Muted), "")
		sv.Text(left+x+16, 18, plot.Default.TickSize, "start", false, class)
		x += 16 + textWidth(class, plot.Default.TickSize) + 14
	}
	for row, id := range ids {
		y := top + float64(row)*rowH
		sv.Text(left-6, y+12, plot.Default.TickSize, "end", false, "region "+strconv.Itoa(id))
		sv.Text(boxesEnd+8, y+12, plot.Default.TickSize, "start", false, where[row])
		for _, c := range byTrack[id] {
			reg := c.reg
			h := rowH - 4
			// Box height by size relative to the track's largest: growth shows.
			bh := max(3, h*float64(reg.Size)/float64(max(maxSize[id], 1)))
			sv.Rect(left+float64(c.window)*cw+0.5, y+2+h-bh, cw-1, bh, severityColor(reg.Severity), "",
				fmt.Sprintf("region %d at %s: %s, mean stall %s %%, max %s %%, %s; %s, %s",
					id, num(r.Windows[c.window].Time), plural.N(reg.Size, "cable"), num(reg.MeanStall), num(reg.MaxStall), reg.Severity, plural.N(len(reg.Hosts), "host"), plural.N(len(reg.Switches), "switch")))
		}
	}
	// Time axis: a tick per window while they fit, else every k-th.
	yAxis := top + float64(len(ids))*rowH + 4
	sv.Line(left, yAxis, left+cw*float64(n), yAxis, plot.Hex(plot.Default.Ink), 0.6, "")
	every := max(1, int(40/cw))
	for i := 0; i < n; i += every {
		xi := left + (float64(i)+0.5)*cw
		sv.Line(xi, yAxis, xi, yAxis+4, plot.Hex(plot.Default.Ink), 0.6, "")
		sv.Text(xi, yAxis+15, plot.Default.TickSize, "middle", false, num(r.Windows[i].Time))
	}
	sv.Text(left, yAxis+30, plot.Default.LabelSize, "start", false, caption)
	return template.HTML(sv.String()), note // drawn here, texts escaped
}

// timeUnit names the unit of the window times of a regions result by its
// source (orcs regions writes the source's name first).
func timeUnit(source string) string {
	switch {
	case strings.HasPrefix(source, "samplingsim"):
		return "µs"
	case strings.HasPrefix(source, "counters"):
		return "perfquery snapshot"
	case strings.HasPrefix(source, "synthetic"):
		return "sample"
	case strings.HasPrefix(source, "analyzer"):
		return "one static window"
	default:
		return "the input's time column"
	}
}

// location says where a region is: its first two switches and its hosts,
// with how many more there are.
func location(reg Region) string {
	list := func(names []string, what string) string {
		switch len(names) {
		case 0:
			return ""
		case 1, 2:
			return strings.Join(names, ", ")
		default:
			return fmt.Sprintf("%s, %s +%d %s", names[0], names[1], len(names)-2, what)
		}
	}
	sw, h := list(reg.Switches, "switches"), list(reg.Hosts, "hosts")
	switch {
	case sw != "" && h != "":
		return sw + "; " + h
	case sw != "":
		return sw
	}
	return h
}

// textWidth is a generous estimate of the width in px of text at size
// (0.62 em a character: wider than Liberation Sans and DejaVu Sans).
func textWidth(text string, size float64) float64 {
	return 0.62 * size * float64(utf8.RuneCountInString(text))
}

// sentence returns s with its first letter in upper case.
func sentence(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

package report

import (
	"cmp"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"

	"orcs/internal/plural"
	"orcs/metrics"
	"orcs/plot"
)

// Drawing geometry in px.
const (
	drawMargin = 90  // left: row labels
	drawRow    = 95  // between switch levels
	drawTop    = 125 // above the top row: the scale and the labels
	drawWidth  = 1000
	gridStep   = 64
)

// edge is one drawn line: the cables between two nodes (both directions,
// parallel cables merged), with the largest load each way.
type edge struct {
	a, b      int // node indices; a is the lower level (or the lower index)
	ua, ub    int // the units drawn (layered drawing)
	up, down  float64
	cables    int
	links     []int // the directed cables (links) merged
	aggregate string
	loadSum   float64 // merged lines: the sum of their cables' loads
	width     float64 // when > 0, the line's width (a merged line's: by its cables)
	colour    float64 // a merged line's load for its colour (the mean of its cables')
	class     string  // the SVG class ("hot": a hot cable drawn over the merged lines)
}

func (e *edge) load() float64 { return max(e.up, e.down) }

// drawFabric draws the fabric of t with every cable coloured and widened
// by its mean peak load: a torus or mesh (up to 3 dimensions) as a grid,
// anything else in layers (hosts at the bottom, one row per switch level).
// It returns the SVG and a note on what was merged.
func drawFabric(t *metrics.Topology, maxLines int) (template.HTML, string) {
	return drawFabricHot(t, maxLines, nil)
}

// hotOnTop is how many of the most loaded cables a merged drawing draws
// on its own over the merged lines when no hot-cable list is given.
const hotOnTop = 10

// drawFabricHot is drawFabric with the hot cables (links, most loaded
// first) that a merged drawing draws one by one on top (nil: the
// hotOnTop most loaded).
func drawFabricHot(t *metrics.Topology, maxLines int, hot []int32) (template.HTML, string) {
	if len(t.Nodes) == 0 {
		return "", "the topology lists no nodes"
	}
	peak := 0.0
	for _, c := range t.Cables {
		peak = max(peak, c.MeanPeak)
	}
	if peak == 0 {
		peak = 1
	}
	if t.Grid != nil && len(t.Grid.Dims) <= 3 && gridCoords(t) {
		// Safe as HTML: drawn here, every text through plot.Escape.
		return template.HTML(drawGrid(t, peak)), ""
	}
	if hot == nil {
		hot = hottest(t, hotOnTop)
	}
	svg, note := drawLayers(t, peak, maxLines, hot)
	return template.HTML(svg), note
}

// gridCoords reports whether every switch has coordinates of the grid.
func gridCoords(t *metrics.Topology) bool {
	for _, n := range t.Nodes {
		if n.Switch && len(n.Coord) != len(t.Grid.Dims) {
			return false
		}
	}
	return true
}

// edges merges the directed cables of t into node pairs. hostLeaf maps a
// host to its switch (−1 for none).
func edges(t *metrics.Topology) (pairs []*edge, hostLeaf []int) {
	index := make(map[string]int, len(t.Nodes))
	for i, n := range t.Nodes {
		index[n.Name] = i
	}
	hostLeaf = make([]int, len(t.Nodes))
	for i := range hostLeaf {
		hostLeaf[i] = -1
	}
	byPair := map[[2]int]*edge{}
	for l, c := range t.Cables {
		from, to := index[c.From], index[c.To]
		a, b := from, to
		lf, lt := t.Nodes[from].Level, t.Nodes[to].Level
		if lf > lt || lf == lt && from > to {
			a, b = to, from
		}
		e := byPair[[2]int{a, b}]
		if e == nil {
			e = &edge{a: a, b: b}
			byPair[[2]int{a, b}] = e
			pairs = append(pairs, e)
		}
		if a == from {
			e.up = max(e.up, c.MeanPeak)
			e.cables++ // count each cable once, by its a → b direction
		} else {
			e.down = max(e.down, c.MeanPeak)
		}
		e.links = append(e.links, l)
		if !t.Nodes[from].Switch && t.Nodes[to].Switch && hostLeaf[from] < 0 {
			hostLeaf[from] = to
		}
	}
	return pairs, hostLeaf
}

// edgeSVG draws e from p to q, with a tooltip and the links it stands for
// (the hot-cable table marks them); arc draws a cable between two nodes of
// one row of the layered drawing as an arc above it.
func edgeSVG(sv *plot.SVG, t *metrics.Topology, e *edge, p, q [2]float64, peak float64, arc bool) {
	fr := e.load() / peak
	if e.colour > 0 {
		fr = e.colour / peak
	}
	width := plot.LoadWidth(fr)
	if e.width > 0 {
		width = e.width
	}
	extra := ""
	if e.class != "" {
		extra = ` class="` + e.class + `"`
	}
	title := e.aggregate
	if title == "" {
		a, b := t.Nodes[e.a].Name, t.Nodes[e.b].Name
		title = fmt.Sprintf("%s ⇄ %s: %s → %s %s, back %s (mean peak load)", a, b, a, b, num(e.up), num(e.down))
		if e.cables > 1 {
			title += fmt.Sprintf("; %s, the largest each way", plural.N(e.cables, "cable"))
		}
	}
	ids := make([]string, len(e.links))
	for i, l := range e.links {
		ids[i] = strconv.Itoa(l)
	}
	if arc && p[1] == q[1] && p[0] != q[0] {
		// Two nodes of one row: an arc above the row (a straight line
		// would run along the row, over the other nodes and cables).
		h := min(10+0.35*math.Abs(q[0]-p[0]), 2*(p[1]-arcTop))
		sv.Raw(fmt.Sprintf(`<path d="M%.1f,%.1f Q%.1f,%.1f %.1f,%.1f" fill="none" stroke="%s" stroke-width="%.2f" data-links="%s"%s><title>%s</title></path>`+"\n",
			p[0], p[1], (p[0]+q[0])/2, p[1]-h, q[0], q[1], plot.Hex(plot.LoadColor(fr)), width, strings.Join(ids, " "), extra, plot.Escape(title)))
		return
	}
	sv.Raw(fmt.Sprintf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%.2f" data-links="%s"%s><title>%s</title></line>`+"\n",
		p[0], p[1], q[0], q[1], plot.Hex(plot.LoadColor(fr)), width, strings.Join(ids, " "), extra, plot.Escape(title)))
}

// mergedWidth is the width of a merged line of cables cables when the
// most cables a merged line stands for is most: 0.6 px to 6 px, by the
// square root (the area of a bundle).
func mergedWidth(cables, most int) float64 {
	return 0.6 + 5.4*math.Sqrt(float64(cables)/float64(max(most, 1)))
}

// hottest returns the n cables (links) of t with the largest mean peak
// load, most loaded first (ties: in link order), leaving out unloaded ones.
func hottest(t *metrics.Topology, n int) []int32 {
	var ls []int32
	for l, c := range t.Cables {
		if c.MeanPeak > 0 {
			ls = append(ls, int32(l))
		}
	}
	slices.SortStableFunc(ls, func(x, y int32) int { return cmp.Compare(t.Cables[y].MeanPeak, t.Cables[x].MeanPeak) })
	return ls[:min(n, len(ls))]
}

// arcTop is the highest y an arc between two nodes of one row reaches
// (its control point; the arc itself stays halfway), below the colour
// scale.
const arcTop = 44.0

// byLoad orders edges lightest first, so that loaded ones lie on top.
func byLoad(pairs []*edge) {
	slices.SortStableFunc(pairs, func(x, y *edge) int { return cmp.Compare(x.load(), y.load()) })
}

// rowCap is the most switch groups a row of an aggregated drawing shows.
const rowCap = 32

// unit is what the layered drawing draws as one node: a node, a group of
// consecutive switches of one level, or the hosts of a leaf (group).
type unit struct {
	level   int
	members []int // node indices, in row order
}

// label names a unit: its node, or "first … last (n)".
func (u *unit) label(t *metrics.Topology) string {
	if len(u.members) == 1 {
		return t.Nodes[u.members[0]].Name
	}
	return fmt.Sprintf("%s … %s (%d)", t.Nodes[u.members[0]].Name, t.Nodes[u.members[len(u.members)-1]].Name, len(u.members))
}

// drawLayers draws hosts at the bottom and one row per switch level. When
// one line per cable would be more than maxLines, the hosts of each leaf
// switch become one block with one line; when the switches' cables are
// still too many, each level's switches are merged into at most rowCap
// groups of consecutive switches and the cables per pair of groups (every
// line then stands for the cables between two groups, coloured by the
// most loaded of them).
func drawLayers(t *metrics.Topology, peak float64, maxLines int, hot []int32) (string, string) {
	pairs, hostLeaf := edges(t)
	rows := layerRows(t, hostLeaf)
	top := len(rows) - 1
	switchPairs := 0
	for _, e := range pairs {
		if t.Nodes[e.a].Switch {
			switchPairs++
		}
	}
	mergeHosts := len(pairs) > maxLines
	group := make([]int, top+1) // switches per group, by level
	for l := 1; l <= top; l++ {
		group[l] = 1
		if switchPairs > maxLines {
			group[l] = (len(rows[l]) + rowCap - 1) / rowCap
		}
	}
	units, unitRows, unitOf := layerUnits(rows, group, mergeHosts, hostLeaf)
	drawn := mergeEdges(t, pairs, units, unitOf, peak)
	notes := layerNotes(len(pairs), switchPairs, maxLines, mergeHosts)
	// Positions: units spread evenly over each row.
	n := 1
	for _, r := range unitRows {
		n = max(n, len(r))
	}
	step := min(40, max(2, float64(drawWidth)/float64(n)))
	width := drawMargin + step*float64(n) + 30
	height := drawTop + float64(top)*drawRow + 110
	rowY := func(l int) float64 { return drawTop + float64(top-l)*drawRow }
	pos := make([][2]float64, len(units))
	for l, r := range unitRows {
		gap := (width - drawMargin - 30) / float64(max(len(r), 1))
		for i, u := range r {
			pos[u] = [2]float64{drawMargin + (float64(i)+0.5)*gap, rowY(l)}
		}
	}
	sv := plot.NewSVG(width, height, false)
	sv.LoadScale(drawMargin, 14, 160, "0", num(peak), "mean peak load (routes sharing the cable in a level, mean over runs): colour and width")
	byLoad(drawn)
	unitLoad := make([][2]float64, len(units)) // the largest load up and down of a unit's cables
	merged := false
	for _, e := range drawn {
		edgeSVG(sv, t, e, pos[e.ua], pos[e.ub], peak, true)
		for _, u := range []int{e.ua, e.ub} {
			unitLoad[u] = [2]float64{max(unitLoad[u][0], e.up), max(unitLoad[u][1], e.down)}
		}
		merged = merged || e.a < 0
	}
	if merged {
		drawHotOnTop(sv, t, hot, unitOf, pos, peak)
	}
	drawUnits(sv, t, rows, units, unitRows, pos, unitLoad, width, rowY, peak, mergeHosts)
	return sv.String(), strings.Join(notes, "; ")
}

// layerRows returns the rows of the layered drawing: hosts (row 0) in the
// order of their leaves, so that their cables do not cross, and the
// switches of every level 1 … top.
func layerRows(t *metrics.Topology, hostLeaf []int) [][]int {
	top := max(t.Levels, 1)
	rows := make([][]int, top+1)
	for i, n := range t.Nodes {
		if n.Switch && n.Level >= 1 && n.Level <= top {
			rows[n.Level] = append(rows[n.Level], i)
		}
	}
	// Hosts in the order of their leaves, so that their cables do not cross.
	leafPos := map[int]int{}
	for i, v := range rows[1] {
		leafPos[v] = i
	}
	for i, n := range t.Nodes {
		if !n.Switch && n.Level == 0 {
			rows[0] = append(rows[0], i)
		}
	}
	slices.SortStableFunc(rows[0], func(x, y int) int { return cmp.Compare(leafPos[hostLeaf[x]], leafPos[hostLeaf[y]]) })
	return rows
}

// layerUnits makes the units of the drawing, row by row: groups of
// group[l] consecutive switches of level l, and the hosts one by one or,
// with mergeHosts, one block per leaf unit. It returns the units, their
// indices per row, and every node's unit (-1: none).
func layerUnits(rows [][]int, group []int, mergeHosts bool, hostLeaf []int) (units []*unit, unitRows [][]int, unitOf []int) {
	top := len(rows) - 1
	unitOf = make([]int, len(hostLeaf))
	for i := range unitOf {
		unitOf[i] = -1
	}
	unitRows = make([][]int, top+1)
	add := func(l int, members []int) {
		u := len(units)
		units = append(units, &unit{level: l, members: members})
		unitRows[l] = append(unitRows[l], u)
		for _, v := range members {
			unitOf[v] = u
		}
	}
	for l := 1; l <= top; l++ {
		for i := 0; i < len(rows[l]); i += group[l] {
			add(l, rows[l][i:min(i+group[l], len(rows[l]))])
		}
	}
	if mergeHosts {
		byLeafUnit := map[int][]int{}
		var order []int
		for _, h := range rows[0] {
			lu := -1
			if hostLeaf[h] >= 0 {
				lu = unitOf[hostLeaf[h]]
			}
			if _, ok := byLeafUnit[lu]; !ok {
				order = append(order, lu)
			}
			byLeafUnit[lu] = append(byLeafUnit[lu], h)
		}
		for _, lu := range order {
			add(0, byLeafUnit[lu])
		}
	} else {
		for _, h := range rows[0] {
			add(0, []int{h})
		}
	}
	return units, unitRows, unitOf
}

// mergeEdges merges the cables per pair of units into the lines drawn; a
// line between groups says in its title what it stands for.
func mergeEdges(t *metrics.Topology, pairs []*edge, units []*unit, unitOf []int, peak float64) []*edge {
	byPair := map[[2]int]*edge{}
	var drawn []*edge
	for _, e := range pairs {
		ua, ub := unitOf[e.a], unitOf[e.b]
		if ua < 0 || ub < 0 || ua == ub {
			continue
		}
		m := byPair[[2]int{ua, ub}]
		if m == nil {
			m = &edge{a: e.a, b: e.b, ua: ua, ub: ub}
			if len(units[ua].members) > 1 || len(units[ub].members) > 1 {
				m.a, m.b = -1, -1
			}
			byPair[[2]int{ua, ub}] = m
			drawn = append(drawn, m)
		}
		m.up, m.down = max(m.up, e.up), max(m.down, e.down)
		m.cables += e.cables
		m.loadSum += e.load() * float64(e.cables)
		m.links = append(m.links, e.links...)
	}
	// A merged line is as wide as its cables are many (the widest: the
	// most cables between two units) and coloured by their mean load;
	// the hot cables are drawn on their own over it.
	mostCables := 1
	for _, m := range drawn {
		if m.a < 0 {
			mostCables = max(mostCables, m.cables)
		}
	}
	for k, m := range byPair {
		if m.a < 0 {
			mean := m.loadSum / float64(m.cables)
			m.colour = max(mean, 1e-9*peak)
			m.width = mergedWidth(m.cables, mostCables)
			m.aggregate = fmt.Sprintf("%s ⇄ %s: %s, mean %s, up at most %s, down at most %s (mean peak load)",
				units[k[0]].label(t), units[k[1]].label(t), plural.N(m.cables, "cable"), num(mean), num(m.up), num(m.down))
		}
	}
	return drawn
}

// drawHotOnTop draws the hot cables (links, hottest first) one by one over
// the merged lines, hottest last, so that no merged line hides them.
func drawHotOnTop(sv *plot.SVG, t *metrics.Topology, hot []int32, unitOf []int, pos [][2]float64, peak float64) {
	index := make(map[string]int, len(t.Nodes))
	for i, n := range t.Nodes {
		index[n.Name] = i
	}
	for r := len(hot) - 1; r >= 0; r-- {
		l := int(hot[r])
		if l < 0 || l >= len(t.Cables) {
			continue
		}
		c := t.Cables[l]
		from, to := index[c.From], index[c.To]
		ua, ub := unitOf[from], unitOf[to]
		if ua < 0 || ub < 0 || ua == ub {
			continue
		}
		e := &edge{a: from, b: to, ua: ua, ub: ub, up: c.MeanPeak, cables: 1, links: []int{l}, class: "hot",
			aggregate: fmt.Sprintf("hot cable %d: %s → %s, %s (mean peak load)", r+1, c.From, c.To, num(c.MeanPeak))}
		e.width = plot.LoadWidth(c.MeanPeak/peak) + 1
		edgeSVG(sv, t, e, pos[ua], pos[ub], peak, true)
	}
}

// layerNotes says what the drawing merged, for the text below it.
func layerNotes(cables, switchPairs, maxLines int, mergeHosts bool) []string {
	var notes []string
	if mergeHosts {
		notes = append(notes, fmt.Sprintf("%d cables are more than the %d lines drawn one by one: the hosts of each leaf switch (or group) are one block, their cables one line", cables, maxLines))
	}
	if switchPairs > maxLines {
		notes = append(notes, fmt.Sprintf("the %d switch-to-switch cables are merged per pair of switch groups (at most %d groups per level)", switchPairs, rowCap))
	}
	if len(notes) > 0 {
		notes = append(notes, "a merged line is as wide as its cables are many and has their mean load's colour; the hot cables are drawn on their own on top")
	}
	return notes
}

// drawUnits draws the units at their positions, labelled while there is
// room.
func drawUnits(sv *plot.SVG, t *metrics.Topology, rows [][]int, units []*unit, unitRows [][]int, pos [][2]float64, unitLoad [][2]float64,
	width float64, rowY func(int) float64, peak float64, mergeHosts bool) {
	for l, r := range unitRows {
		label := fmt.Sprintf("level %d: %d", l, len(rows[l]))
		if l == 0 {
			label = fmt.Sprintf("hosts: %d", len(rows[l]))
		}
		sv.Text(8, rowY(l)+4, plot.Default.TickSize, "start", l > 0, label)
		gap := (width - drawMargin - 30) / float64(max(len(r), 1))
		for _, ui := range r {
			u, p := units[ui], pos[ui]
			name := u.label(t)
			switch {
			case l == 0 && mergeHosts:
				w := max(gap*0.7, 2)
				fr := max(unitLoad[ui][0], unitLoad[ui][1]) / peak
				sv.Rect(p[0]-w/2, p[1], w, 14, plot.Hex(plot.LoadColor(fr)), plot.Hex(plot.Default.Muted),
					fmt.Sprintf("hosts %s: their cables up at most %s, down at most %s (mean peak load)", name, num(unitLoad[ui][0]), num(unitLoad[ui][1])))
			case l == 0:
				w := min(gap*0.35, 4)
				sv.Rect(p[0]-w, p[1], 2*w, 8, "#dbe9f6", plot.Hex(plot.Default.Muted), name)
			case len(u.members) > 1:
				w := max(gap*0.7, 2)
				sv.Rect(p[0]-w/2, p[1]-4, w, 8, "#dbe9f6", plot.Hex(plot.Default.Muted), "switches "+name)
			default:
				sv.Circle(p[0], p[1], min(4, gap*0.4), "#dbe9f6", plot.Hex(plot.Default.Muted), name)
			}
			if gap < 9 {
				continue
			}
			if l == 0 {
				sv.VLabel(p[0]+2.5, p[1]+(map[bool]float64{true: 18, false: 12})[mergeHosts], 7, "end", name)
			} else {
				sv.VLabel(p[0]+2.5, p[1]-6, 7, "start", name)
			}
		}
	}
}

// drawGrid draws a torus or mesh: switches at their coordinates (x to the
// right, y up; a third dimension as slices side by side), cables between
// neighbours as lines, wrap-around cables as stubs leaving the border, z
// cables as short diagonal stubs, and each switch filled by the load of
// its hosts' cables.
func drawGrid(t *metrics.Topology, peak float64) string {
	pairs, hostLeaf := edges(t)
	dims := append([]int(nil), t.Grid.Dims...)
	for len(dims) < 3 {
		dims = append(dims, 1)
	}
	sliceW := float64(dims[0])*gridStep + 40
	width := max(drawMargin/2+float64(dims[2])*sliceW+20, 720)
	height := drawTop + float64(dims[1])*gridStep + 40
	at := func(c []int) [2]float64 {
		x, y, z := c[0], 0, 0
		if len(c) > 1 {
			y = c[1]
		}
		if len(c) > 2 {
			z = c[2]
		}
		return [2]float64{drawMargin/2 + 30 + float64(z)*sliceW + float64(x)*gridStep, drawTop + 10 + float64(dims[1]-1-y)*gridStep}
	}
	sv := plot.NewSVG(width, height, false)
	sv.LoadScale(drawMargin/2, 14, 160, "0", num(peak), "mean peak load (routes sharing the cable in a level, mean over runs): colour and width")
	if dims[2] > 1 {
		for z := range dims[2] {
			sv.Text(drawMargin/2+30+float64(z)*sliceW, drawTop-22, plot.Default.TickSize, "start", true, fmt.Sprintf("z = %d", z))
		}
	}
	hostLoad := make([]float64, len(t.Nodes))
	hostCount := make([]int, len(t.Nodes))
	var sw []*edge
	for _, e := range pairs {
		if !t.Nodes[e.a].Switch {
			if leaf := hostLeaf[e.a]; leaf >= 0 {
				hostLoad[leaf] = max(hostLoad[leaf], e.load())
				hostCount[leaf]++
			}
			continue
		}
		sw = append(sw, e)
	}
	byLoad(sw)
	half := float64(gridStep) / 2
	for _, e := range sw {
		ca, cb := t.Nodes[e.a].Coord, t.Nodes[e.b].Coord
		dim, diff := -1, 0
		for i := range ca {
			if ca[i] != cb[i] {
				dim, diff = i, cb[i]-ca[i]
			}
		}
		p, q := at(ca), at(cb)
		switch {
		case dim == 2: // between slices: a diagonal stub at each end
			d := 7.0
			if diff < 0 {
				d = -d
			}
			edgeSVG(sv, t, e, p, [2]float64{p[0] + d, p[1] - d}, peak, false)
			edgeSVG(sv, t, e, q, [2]float64{q[0] - d, q[1] + d}, peak, false)
		case diff == 1 || diff == -1:
			edgeSVG(sv, t, e, p, q, peak, false)
		default: // wrap-around: stubs leaving each border
			dir := [2]float64{-half, 0}
			if dim == 1 {
				dir = [2]float64{0, half}
			}
			if diff < 0 {
				dir[0], dir[1] = -dir[0], -dir[1]
			}
			edgeSVG(sv, t, e, p, [2]float64{p[0] + dir[0], p[1] + dir[1]}, peak, false)
			edgeSVG(sv, t, e, q, [2]float64{q[0] - dir[0], q[1] - dir[1]}, peak, false)
		}
	}
	for i, n := range t.Nodes {
		if !n.Switch {
			continue
		}
		p := at(n.Coord)
		fill := "#dbe9f6"
		title := n.Name
		if hostCount[i] > 0 {
			fill = plot.Hex(plot.LoadColor(hostLoad[i] / peak))
			title = fmt.Sprintf("%s: %s, their cables at most %s (mean peak load)", n.Name, plural.N(hostCount[i], "host"), num(hostLoad[i]))
		}
		sv.Circle(p[0], p[1], 7, fill, plot.Hex(plot.Default.Ink), title)
		sv.Text(p[0]+8, p[1]+17, 8, "start", false, n.Name)
	}
	return sv.String()
}

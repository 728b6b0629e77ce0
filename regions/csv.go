package regions

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"orcs/infile"
	"orcs/lft"
	"orcs/metrics"
)

// CSVHeader is the header of the stall CSV (optional in the input).
const CSVHeader = "time,from,from_port,to,to_port,stall_percent"

// cableIndex finds a fabric's links by their ends and ports.
type cableIndex struct {
	f      *lft.Fabric
	byEnds map[[2]int32][]int32
}

func newCableIndex(f *lft.Fabric) *cableIndex {
	ix := &cableIndex{f: f, byEnds: map[[2]int32][]int32{}}
	for i, l := range f.Links {
		k := [2]int32{l.From, l.To}
		ix.byEnds[k] = append(ix.byEnds[k], int32(i))
	}
	return ix
}

// find returns the link from → to, on the given ports (-1: not given).
func (ix *cableIndex) find(from, to string, fromPort, toPort int64) (int32, error) {
	u, ok := ix.f.NodeByName(from)
	if !ok {
		return -1, fmt.Errorf("unknown node %q", short(from))
	}
	v, ok := ix.f.NodeByName(to)
	if !ok {
		return -1, fmt.Errorf("unknown node %q", short(to))
	}
	var hit []int32
	for _, l := range ix.byEnds[[2]int32{u, v}] {
		link := ix.f.Links[l]
		if (fromPort < 0 || int64(link.FromPort) == fromPort) && (toPort < 0 || int64(link.ToPort) == toPort) {
			hit = append(hit, l)
		}
	}
	switch len(hit) {
	case 0:
		return -1, fmt.Errorf("no cable %s[%s] -> %s[%s] in the fabric", short(from), portText(fromPort), short(to), portText(toPort))
	case 1:
		return hit[0], nil
	}
	return -1, fmt.Errorf("%d cables from %s to %s: give the ports", len(hit), short(from), short(to))
}

func portText(p int64) string {
	if p < 0 {
		return "any"
	}
	return strconv.FormatInt(p, 10)
}

// parsePort reads an optional port column.
func parsePort(s string) (int64, error) {
	if s == "" {
		return -1, nil
	}
	p, err := strconv.ParseInt(s, 10, 32)
	if err != nil || p < 0 {
		return 0, fmt.Errorf("bad port %q", short(s))
	}
	return p, nil
}

// ReadCSV reads stall values in the documented CSV: one row
// time,from,from_port,to,to_port,stall_percent per cable and window (the
// header line is optional; blank lines and lines starting with # are
// skipped). time is a number; from and to are node names of f; a port may
// be empty where only one cable joins the two nodes; stall_percent is a
// finite number. Windows are the distinct times in increasing order;
// cables without a row in a window are 0. A cable given twice for one
// time, an unknown node or cable, or a malformed row is an error naming
// the file and line.
func ReadCSV(r io.Reader, file string, f *lft.Fabric) (Series, error) {
	ix := newCableIndex(f)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	type row struct {
		t    float64
		link int32
		v    float64
		line int
	}
	var rows []row
	times := map[float64]struct{}{} // the windows so far
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if line == 1 && strings.ReplaceAll(text, " ", "") == CSVHeader {
			continue
		}
		col := strings.Split(text, ",")
		if len(col) != 6 {
			return Series{}, infile.Errorf(file, line, "%d columns, want 6: %s", len(col), CSVHeader)
		}
		for i := range col {
			col[i] = strings.TrimSpace(col[i])
		}
		t, err := strconv.ParseFloat(col[0], 64)
		if err != nil || math.IsNaN(t) || math.IsInf(t, 0) {
			return Series{}, infile.Errorf(file, line, "bad time %q", short(col[0]))
		}
		fp, err := parsePort(col[2])
		if err != nil {
			return Series{}, infile.Errorf(file, line, "from_port: %v", err)
		}
		tp, err := parsePort(col[4])
		if err != nil {
			return Series{}, infile.Errorf(file, line, "to_port: %v", err)
		}
		v, err := strconv.ParseFloat(col[5], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return Series{}, infile.Errorf(file, line, "bad stall_percent %q", short(col[5]))
		}
		if v < 0 || v > 100 {
			return Series{}, infile.Errorf(file, line, "stall_percent %s: a share of the time, from 0 to 100", short(col[5]))
		}
		l, err := ix.find(col[1], col[3], fp, tp)
		if err != nil {
			return Series{}, infile.Errorf(file, line, "%v", err)
		}
		if _, ok := times[t]; !ok {
			times[t] = struct{}{}
			if err := CheckCells("", len(times), len(f.Links)); err != nil {
				return Series{}, infile.Errorf(file, line, "time %s: %v", short(col[0]), err).With(infile.ErrTooLarge)
			}
		}
		rows = append(rows, row{t, l, v, line})
		if len(rows) > MaxCells {
			return Series{}, infile.Errorf(file, line, "more than %d rows: more stall values than one extraction holds (%d), or a cable given twice", MaxCells, MaxCells).With(infile.ErrTooLarge)
		}
	}
	if err := sc.Err(); err != nil {
		return Series{}, readErr(file, line+1, err)
	}
	if len(rows) == 0 {
		return Series{}, infile.Errorf(file, 0, "no rows (want %s)", CSVHeader)
	}
	slices.SortStableFunc(rows, func(a, b row) int {
		switch {
		case a.t < b.t:
			return -1
		case a.t > b.t:
			return 1
		}
		return 0
	})
	out := Series{Source: SourceCSV}
	seenAt := map[int32]int{} // link → line, in the current window
	for _, r := range rows {
		if n := len(out.Times); n == 0 || out.Times[n-1] != r.t {
			out.Times = append(out.Times, r.t)
			out.Values = append(out.Values, make([]float64, len(f.Links)))
			clear(seenAt)
		}
		if prev, dup := seenAt[r.link]; dup {
			return Series{}, infile.Errorf(file, r.line, "cable %s given twice for time %v (first on line %d)", f.LinkName(r.link), r.t, prev)
		}
		seenAt[r.link] = r.line
		out.Values[len(out.Values)-1][r.link] = r.v
	}
	return out, nil
}

// ReadAnalyzerCSV reads the cable loads of the analyzer, as `orcs
// --metric get_cable_cong --format csv` writes them (header
// link,from,to,from_port,to_port,load,scaled), as one window (time 0) of
// stall-like percentages: 100 · load / the largest load, the "scaled"
// column in percent. The hottest cable reads 100 %, a cable with half its
// routes 50 %: Monet's severity classes then say how a cable's load
// compares with the hottest one's. Rows are matched to f by from, to and
// ports; a link index that names another cable is an error (the loads of
// another fabric).
func ReadAnalyzerCSV(r io.Reader, file string, f *lft.Fabric) (Series, error) {
	ix := newCableIndex(f)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	loads := make([]float64, len(f.Links))
	seen := make([]int, len(f.Links))
	line := 0
	const header = metrics.LinkCSVHeader
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if line == 1 {
			if text != header {
				return Series{}, infile.Errorf(file, line, "want the get_cable_cong CSV header %q, got %q", header, short(text))
			}
			continue
		}
		if text == "" {
			continue
		}
		col := strings.Split(text, ",")
		if len(col) != 7 {
			return Series{}, infile.Errorf(file, line, "%d columns, want 7: %s", len(col), header)
		}
		fp, e1 := parsePort(col[3])
		tp, e2 := parsePort(col[4])
		if e1 != nil || e2 != nil {
			return Series{}, infile.Errorf(file, line, "bad port")
		}
		// Dot fabrics carry port 0 (unknown) in the analyzer's output.
		if fp == 0 {
			fp = -1
		}
		if tp == 0 {
			tp = -1
		}
		load, err := strconv.ParseFloat(col[5], 64)
		if err != nil || load < 0 || math.IsNaN(load) || math.IsInf(load, 0) {
			return Series{}, infile.Errorf(file, line, "bad load %q", short(col[5]))
		}
		idx, err := strconv.Atoi(col[0])
		if err != nil || idx < 0 {
			return Series{}, infile.Errorf(file, line, "bad link index %q", short(col[0]))
		}
		l := int32(-1)
		if idx < len(f.Links) {
			lk := f.Links[idx]
			if f.Nodes[lk.From].Name == col[1] && f.Nodes[lk.To].Name == col[2] {
				l = int32(idx)
			}
		}
		if l < 0 {
			l, err = ix.find(col[1], col[2], fp, tp)
			if err != nil {
				return Series{}, infile.Errorf(file, line, "%v (loads of another fabric?)", err)
			}
		}
		if seen[l] != 0 {
			return Series{}, infile.Errorf(file, line, "cable %s given twice (first on line %d)", f.LinkName(l), seen[l])
		}
		seen[l] = line
		loads[l] = load
	}
	if err := sc.Err(); err != nil {
		return Series{}, readErr(file, line+1, err)
	}
	if line <= 1 {
		return Series{}, infile.Errorf(file, 0, "no rows")
	}
	return Series{Source: SourceAnalyzer, Times: []float64{0}, Values: [][]float64{LoadPercent(loads)}}, nil
}

// LoadPercent maps cable loads to stall-like percentages: 100 · load /
// the largest load (all 0 when nothing is loaded).
func LoadPercent(loads []float64) []float64 {
	top := 0.0
	for _, l := range loads {
		top = max(top, l)
	}
	out := make([]float64, len(loads))
	if top == 0 {
		return out
	}
	for i, l := range loads {
		out[i] = 100 * l / top
	}
	return out
}

// MaxCells bounds the stall values of one extraction, windows × cables:
// the values (8 bytes each), the regions kept per window for the tracks
// and the output (about 18 bytes more) stay near 450 MiB at the bound.
// A larger input is refused before the work, with the number of windows
// that fit.
const MaxCells = 1 << 24

// CheckCells refuses windows windows of a fabric of cables cables when
// their stall values are more than MaxCells; file, when not "", names
// the input in the error.
func CheckCells(file string, windows, cables int) error {
	if cables < 1 || int64(windows)*int64(cables) <= MaxCells {
		return nil
	}
	err := fmt.Errorf("%d windows × %d cables = %d stall values, more than the %d (2²⁴, about 450 MiB of memory) one extraction holds: the first %d windows fit, split the input in time",
		windows, cables, int64(windows)*int64(cables), MaxCells, MaxCells/cables)
	if file != "" {
		return infile.Errorf(file, 0, "%w", err).With(infile.ErrTooLarge)
	}
	return err
}

// longestName is the longest node name of f, in bytes.
func longestName(f *lft.Fabric) int64 {
	n := 0
	for _, nd := range f.Nodes {
		n = max(n, len(nd.Name))
	}
	return int64(n)
}

// openFile opens an input file for a parser, refusing binary data, with
// a bound on its bytes (see infile.OpenLimit); done closes it.
func openFile(path string, lim infile.Limit) (r io.Reader, name string, done func(), err error) {
	br, done, err := infile.OpenLimit(path, lim)
	if err != nil {
		return nil, "", nil, err
	}
	name = infile.Name(path)
	if err := infile.CheckText(br, name); err != nil {
		done()
		return nil, "", nil, err
	}
	return br, name, done, nil
}

// readErr locates an error that reading stopped at: an input error (a
// bound, a gzip error that names the file) as it is, others at line.
func readErr(file string, line int, err error) error {
	var pe *infile.ParseError
	if errors.As(err, &pe) {
		return pe
	}
	return infile.Errorf(file, line, "%v", err)
}

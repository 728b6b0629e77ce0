package mapping

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"orcs/samplingsim"
)

// given is the placement the others are measured against: the
// allocation's order.
const given = "linear"

// Verdict answers orcs map's question, how much the chosen placement
// helps, in one or two sentences: its congestion against the given
// placement's (linear, the allocation's order) as a ratio with both
// numbers (the sum of squared loads first with --objective sumsq, and when
// the first numbers are equal), the simulated completion times when the
// placements were simulated, and a strategy of --compare that scores better
// than the chosen one. The objectives are exact counts over the fabric's
// routes; a simulated time is one samplingsim run.
func (r *Report) Verdict() string {
	chosen, base := r.row(r.Chosen), r.row(given)
	if chosen == nil {
		return "no placement was made"
	}
	var b strings.Builder
	name := "placement " + chosen.Name
	switch {
	case base == nil || chosen == base:
		fmt.Fprintf(&b, "%s (the allocation's order) is kept: %s", name, r.objective(chosen))
	default:
		b.WriteString(name + " " + r.against(chosen, base))
	}
	if base != nil && chosen != base && chosen.SimEnd > 0 && base.SimEnd > 0 {
		fmt.Fprintf(&b, "; simulated completion %s vs %s", samplingsim.FormatTime(chosen.SimEnd), samplingsim.FormatTime(base.SimEnd))
		switch {
		case chosen.SimEnd < base.SimEnd:
			fmt.Fprintf(&b, " (%s× faster, one samplingsim run)", ratio(float64(base.SimEnd), float64(chosen.SimEnd)))
		case chosen.SimEnd > base.SimEnd:
			fmt.Fprintf(&b, " (%s× slower, one samplingsim run)", ratio(float64(chosen.SimEnd), float64(base.SimEnd)))
		default:
			b.WriteString(" (the same, one samplingsim run)")
		}
	} else if chosen.SimEnd > 0 && (base == nil || chosen == base) {
		fmt.Fprintf(&b, "; simulated completion %s (one samplingsim run)", samplingsim.FormatTime(chosen.SimEnd))
	}
	b.WriteString(".")
	var better []string
	for i := range r.Rows {
		o := &r.Rows[i]
		if o != chosen && o != base && r.Mode.Better(o.Obj, chosen.Obj) {
			better = append(better, fmt.Sprintf("%s (%s)", o.Name, r.objective(o)))
		}
	}
	if len(better) > 0 {
		fmt.Fprintf(&b, " Scoring better than %s: %s.", chosen.Name, strings.Join(better, ", "))
	}
	s := b.String()
	return strings.ToUpper(s[:1]) + s[1:]
}

// against compares the chosen row with the given one by the mode's first
// number, and by the second when the first are equal: "congests 3.75× less
// than the given one (4 vs 15)".
func (r *Report) against(c, g *Row) string {
	type num struct {
		verb, what string
		c, g       float64
	}
	cong := num{"congests", "", float64(c.Obj.Congestion), float64(g.Obj.Congestion)}
	sq := num{"has", " sum of squared loads", c.Obj.SumSq, g.Obj.SumSq}
	first, second := cong, sq
	if r.Mode == BySumSq {
		first, second = sq, cong
	}
	say := func(n num) string {
		nums := fmtNum(n.c) + " vs " + fmtNum(n.g)
		switch {
		case n.c == n.g:
			return fmt.Sprintf("%s as much%s as the given one (%s)", n.verb, n.what, nums)
		case n.c == 0:
			return fmt.Sprintf("%s none%s against the given one's %s", n.verb, n.what, fmtNum(n.g))
		case n.c < n.g:
			return fmt.Sprintf("%s %s× less%s than the given one (%s)", n.verb, ratio(n.g, n.c), n.what, nums)
		}
		return fmt.Sprintf("%s %s× more%s than the given one (%s)", n.verb, ratio(n.c, n.g), n.what, nums)
	}
	if first.c == first.g && second.c == second.g {
		return fmt.Sprintf("scores as the given one (congestion %d, sum of squared loads %s): reordering the ranks does not help",
			c.Obj.Congestion, fmtNum(c.Obj.SumSq))
	}
	s := say(first)
	if first.c == first.g {
		s += " and " + say(second)
	}
	return s
}

// objective prints a row's first number (and congestion with sumsq).
func (r *Report) objective(row *Row) string {
	if r.Mode == BySumSq {
		return fmt.Sprintf("sum of squared loads %s, congestion %d", fmtNum(row.Obj.SumSq), row.Obj.Congestion)
	}
	return fmt.Sprintf("congestion %d", row.Obj.Congestion)
}

// row returns the row named name, nil if none.
func (r *Report) row(name string) *Row {
	for i := range r.Rows {
		if r.Rows[i].Name == name {
			return &r.Rows[i]
		}
	}
	return nil
}

// ratio prints a/b with 3 significant digits.
func ratio(a, b float64) string { return strconv.FormatFloat(a/b, 'g', 3, 64) }

// fmtNum prints a count without decimals.
func fmtNum(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// WriteJSON writes the report as JSON: every placement's numbers under the
// text table's column names, the chosen placement and the verdict.
func (r *Report) WriteJSON(w io.Writer) error {
	type placement struct {
		Name       string   `json:"placement"`
		Chosen     bool     `json:"chosen"`
		Congestion int64    `json:"congestion"`
		MaxLoad    int64    `json:"max_load"`
		LeafUp     int64    `json:"leaf_up"`
		SumSq      float64  `json:"sum_sq_load"`
		SumSqJob   float64  `json:"sum_sq_job"`
		Hops       int64    `json:"hops"`
		Seconds    *float64 `json:"seconds,omitempty"`
		SimUs      *float64 `json:"simulated_us,omitempty"`
	}
	out := struct {
		Unit       string      `json:"unit"`
		Objective  string      `json:"objective"`
		Chosen     string      `json:"chosen"`
		Placements []placement `json:"placements"`
		Verdict    string      `json:"verdict"`
	}{Unit: r.Unit, Objective: r.Mode.String(), Chosen: r.Chosen, Verdict: r.Verdict()}
	for _, row := range r.Rows {
		p := placement{Name: row.Name, Chosen: row.Name == r.Chosen, Congestion: row.Obj.Congestion, MaxLoad: row.Obj.MaxLoad,
			LeafUp: row.Obj.LeafUp, SumSq: row.Obj.SumSq, SumSqJob: row.Obj.SumSqJob, Hops: row.Obj.Hops}
		if r.Times {
			s := row.Seconds
			p.Seconds = &s
		}
		if row.SimEnd > 0 {
			us := float64(row.SimEnd) / float64(samplingsim.Microsecond)
			p.SimUs = &us
		}
		out.Placements = append(out.Placements, p)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

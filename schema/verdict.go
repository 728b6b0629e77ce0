package schema

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"orcs/metrics"
)

// Judge answers the comparison's question, which engine to route this
// pattern with, in one or two sentences: the best engine by the mean of
// the metric's per-run values, its margin over the next engine and over
// the current tables, and whether the 95 % confidence intervals of the two
// means overlap (when they do, the runs do not tell the two apart). Engines
// that fell back are named with the engine that routed for them and never
// ranked; failed engines are named. Engines with equal means tie, and no
// engine is best. best is the index in c.Engines of the best engine, -1
// when no engine routed or the first engines tie.
func (c *Comparison) Judge() (sentence string, best int) {
	higher := false
	if m, err := metrics.Lookup(c.Metric); err == nil {
		higher = m.HigherIsBetter
	}
	value := c.Value
	if value == "" {
		value = "value"
	}
	// The candidates: engines that routed as themselves, with runs.
	var ranked []int
	cur := -1
	var fellBack, failed []string
	for i, r := range c.Engines {
		switch {
		case r.Error != "":
			failed = append(failed, r.Requested)
		case r.Requested == CurrentRow:
			if hasMean(r) {
				cur = i
			}
		case r.Fallback:
			fellBack = append(fellBack, fmt.Sprintf("%s (OpenSM fell back to %s)", r.Requested, r.Used))
		case hasMean(r):
			ranked = append(ranked, i)
		}
	}
	better := func(a, b int) bool { // a's mean is better than b's
		ma, mb := c.Engines[a].Summary.Mean, c.Engines[b].Summary.Mean
		if higher {
			return ma > mb
		}
		return ma < mb
	}
	// Best first; equal means keep the order the engines were given in.
	slices.SortStableFunc(ranked, func(a, b int) int {
		switch {
		case better(a, b):
			return -1
		case better(b, a):
			return 1
		}
		return 0
	})
	var first []string
	best = -1
	if len(ranked) == 0 {
		first = append(first, "no engine routed this fabric as itself, none is ranked")
	} else {
		top := ranked[0]
		b := &c.Engines[top]
		tied := []string{b.Requested}
		same := true
		for _, i := range ranked[1:] {
			if !better(top, i) {
				tied = append(tied, c.Engines[i].Requested)
				same = same && slices.Equal(c.Engines[i].Values, b.Values)
			}
		}
		var s string
		if len(tied) > 1 {
			s = fmt.Sprintf("no single best engine for %s: %s tie at %s mean %s (%s)", c.Pattern, and(tied), short(b.Summary.Mean), value, ci(b.Summary))
			if same {
				s += ", with the same value in every run"
			}
			if len(ranked) > len(tied) {
				s += ", " + margin(b, &c.Engines[ranked[len(tied)]], higher, value)
			}
		} else {
			best = top
			s = fmt.Sprintf("best engine for %s: %s, %s mean %s (%s)", c.Pattern, b.Requested, short(b.Summary.Mean), value, ci(b.Summary))
			if len(ranked) == 1 {
				s += ", the only engine ranked"
			} else {
				s += ", " + margin(b, &c.Engines[ranked[1]], higher, value)
			}
		}
		if cur >= 0 {
			s += "; " + c.currentVersus(cur, top, higher, value)
		}
		first = append(first, s)
	}
	var second []string
	if len(fellBack) > 0 {
		second = append(second, "Not ranked: "+strings.Join(fellBack, ", "))
	}
	if len(failed) > 0 {
		second = append(second, "Failed: "+strings.Join(failed, ", "))
	}
	sentence = capital(strings.Join(first, "")) + "."
	if len(second) > 0 {
		sentence += " " + strings.Join(second, ". ") + "."
	}
	return sentence, best
}

// currentVersus compares the current tables with the best engine: equal
// values name the engine whose tables they equal.
func (c *Comparison) currentVersus(cur, top int, higher bool, value string) string {
	r := &c.Engines[cur]
	for _, o := range c.Engines {
		if o.Requested != CurrentRow && o.Error == "" && len(o.Values) > 0 && slices.Equal(o.Values, r.Values) {
			if o.Requested == c.Engines[top].Requested {
				return fmt.Sprintf("the current tables give the same values as %s", o.Requested)
			}
			return fmt.Sprintf("the current tables give the same values as %s, %s", o.Requested, margin(&c.Engines[top], r, higher, value))
		}
	}
	return "over the current tables: " + margin(&c.Engines[top], r, higher, value)
}

// margin says how much better row a is than row b ("1.4× minhop's 0.37")
// and whether their 95 % confidence intervals overlap.
func margin(a, b *EngineRow, higher bool, value string) string {
	sa, sb := a.Summary, b.Summary
	ratio := ""
	switch {
	case sa.Mean == sb.Mean:
		ratio = "equal to"
	case higher && sb.Mean > 0:
		ratio = short(sa.Mean/sb.Mean) + "×"
	case !higher && sa.Mean > 0:
		ratio = short(sb.Mean/sa.Mean) + "× less than"
	case higher:
		ratio = "above"
	default:
		ratio = "below"
	}
	name := b.Requested
	if name == CurrentRow {
		name = "current"
	}
	s := fmt.Sprintf("%s %s's %s", ratio, name, short(sb.Mean))
	lo, hi := sa, sb
	if sa.Mean > sb.Mean {
		lo, hi = sb, sa
	}
	if min(sa.N, sb.N) < 2 {
		return s + " (one run: no confidence interval; give more runs with -n)"
	}
	if lo.CI95High < hi.CI95Low {
		return s + fmt.Sprintf(" (95 %% CIs ±%s and ±%s do not overlap: the difference is real)", short(halfCI(sa)), short(halfCI(sb)))
	}
	return s + fmt.Sprintf(" (95 %% CIs ±%s and ±%s overlap: not significant with %d runs; more runs (-n) may tell)",
		short(halfCI(sa)), short(halfCI(sb)), min(sa.N, sb.N))
}

// and joins names as "a, b and c".
func and(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// hasMean says whether a row has a summary with a mean.
func hasMean(r EngineRow) bool {
	return r.Summary != nil && r.Summary.N > 0 && !math.IsNaN(r.Summary.Mean)
}

// ci describes a summary's 95 % confidence interval of the mean.
func ci(s *metrics.Summary) string {
	if s.N < 2 {
		return "1 run, no confidence interval"
	}
	return fmt.Sprintf("95 %% CI ±%s over %d runs", short(halfCI(s)), s.N)
}

// halfCI is the half-width of a summary's 95 % confidence interval.
func halfCI(s *metrics.Summary) float64 { return (s.CI95High - s.CI95Low) / 2 }

// short prints a number with 3 significant digits (integers from 100 on).
func short(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "—"
	}
	if math.Abs(x) >= 100 {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// capital returns s with its first letter in upper case.
func capital(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

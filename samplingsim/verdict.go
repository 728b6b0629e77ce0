package samplingsim

import (
	"fmt"
	"orcs/internal/plural"
	"strings"
)

// Sentence is the diagnosis's verdict in one or two sentences that agree
// with the roots it lists: the cause, how many of the congestion trees
// have it, and the largest root of that cause with its numbers (congested
// fraction, packets, sampled and line bandwidth, the Theorem 4.2 margin of
// a root inside the network: how far the verdict is from flipping). Tree
// saturation is decided by the delivery counts, which it gives, and says
// that the trees listed do not decide; mixed gives the split. With a sweep
// over seeds, their support follows.
func (d *Diagnosis) Sentence() string {
	view := fmt.Sprintf("verdict (%s view): ", d.View)
	var s string
	switch d.Cause {
	case NoCongestion:
		s = "no congestion: no congestion tree"
		if n := len(d.Unconfirmed); n > 0 {
			s += fmt.Sprintf(" (%d congested %s below the Theorem 4.2 cutoff, not saturated roots, are not counted)", n, plural.Noun(n, "link"))
		}
	case Saturation:
		dl := d.Delivery
		s = fmt.Sprintf("tree saturation: %d of %d receivers stopped receiving with traffic to them outstanding", dl.Stopped, dl.Receivers)
		if len(dl.Hot) > 0 {
			names := make([]string, 0, 3)
			for _, h := range dl.Hot[:min(3, len(dl.Hot))] {
				names = append(names, h.Name)
			}
			s += " (most owed: " + strings.Join(names, ", ") + ")"
		}
		s += fmt.Sprintf(", %d of %d messages delivered (counted, not sampled)", dl.Delivered, dl.Messages)
		if len(d.Roots) > 0 {
			s += fmt.Sprintf("; the %d congestion %s listed (%s) %s",
				len(d.Roots), plural.Noun(len(d.Roots), "tree"), causeCounts(d.Roots),
				plural.Verb(len(d.Roots), "comes from delivered packets only and does not decide", "come from delivered packets only and do not decide"))
		}
	case Mixed:
		s = fmt.Sprintf("mixed: %s", d.Why)
	default:
		n := 0
		var top *Root
		for i := range d.Roots {
			if d.Roots[i].Cause == d.Cause {
				n++
				if top == nil {
					top = &d.Roots[i]
				}
			}
		}
		if len(d.Roots) == 1 {
			s = fmt.Sprintf("%s: the only congestion tree", d.Cause)
		} else {
			s = fmt.Sprintf("%s: %d of %d congestion trees", d.Cause, n, len(d.Roots))
		}
		if n < len(d.Roots) {
			s += " (" + causeCounts(d.Roots) + ")"
		}
		if top != nil {
			which := "the largest of them rooted at"
			if len(d.Roots) == 1 {
				which = "rooted at"
			}
			s += fmt.Sprintf(", %s %s: congested fraction %.3f of %.0f packets, %.1f of %.0f Gb/s sampled",
				which, top.Name, top.Fraction, top.Packets, top.Gbps, top.LineGbps)
			if top.MarginGbps != 0 {
				s += fmt.Sprintf(", Theorem 4.2 margin %+.1f Gb/s", top.MarginGbps)
			}
		}
	}
	s = view + s
	if d.Seeds != nil {
		s += "; over seeds: " + d.Seeds.Headline()
	}
	return s + "."
}

// causeCounts says how many roots have each cause, in the order the
// causes first appear: "2 endpoint congestion, 1 internal congestion".
func causeCounts(roots []Root) string {
	var order []Cause
	count := map[Cause]int{}
	for _, rt := range roots {
		if count[rt.Cause] == 0 {
			order = append(order, rt.Cause)
		}
		count[rt.Cause]++
	}
	parts := make([]string, len(order))
	for i, c := range order {
		parts[i] = fmt.Sprintf("%d %s", count[c], c)
	}
	return strings.Join(parts, ", ")
}

package samplingsim

import (
	"fmt"
	"io"
	"text/tabwriter"

	"orcs/internal/plural"
	"orcs/lft"
)

// CCSetting is one congestion-control setting of a comparison: its name
// as given (off, a short form, a file) and the settings (nil: off).
type CCSetting struct {
	Name string
	CC   *CongestionControl
}

// CCRow is the outcome of one setting of CompareCC.
type CCRow struct {
	Setting CCSetting
	// Traffic splits the run's traffic around its hot spot; CC is what
	// congestion control did (nil when off).
	Traffic HotSpotTraffic
	CC      *CCStats
	// End is the simulated end of the run, Hops its packet-hops, Verdict
	// its CCVerdict.
	End     Time
	Hops    int64
	Verdict string
}

// CompareCC runs plan once per congestion-control setting and returns
// each run's traffic around the hot spot and what congestion control did.
func CompareCC(f *lft.Fabric, cfg Config, plan *Plan, settings []CCSetting) ([]CCRow, error) {
	var rows []CCRow
	for _, st := range settings {
		c := cfg
		c.CC = st.CC
		r, err := Run(f, c, plan)
		if err != nil {
			return nil, fmt.Errorf("congestion control %s: %w", st.Name, err)
		}
		rows = append(rows, CCRow{Setting: st, Traffic: r.HotSpot(), CC: r.CC, End: r.End, Hops: r.PacketHops, Verdict: r.CCVerdict()})
	}
	return rows, nil
}

// WriteCCTable prints rows side by side: the victims', the hot spot's
// senders' and the other flows' throughput and mean message time, the
// marks, BECNs and throttling of every setting, and a verdict that
// compares the victims of each setting with the first row's.
func WriteCCTable(w io.Writer, f *lft.Fabric, rows []CCRow) error {
	if len(rows) == 0 {
		return nil
	}
	ht := rows[0].Traffic
	if len(ht.Hot) == 0 {
		fmt.Fprintf(w, "no hot spot: no host receives more than twice the mean of the others; every flow counts as other traffic\n")
	} else {
		fmt.Fprintf(w, "hot spot %s: %s into it; victims: %s to other hosts sharing a link with them; others: %s\n",
			hostList(f, ht.Hot), plural.N(ht.HotFlows.Flows, "flow"), plural.N(ht.Victims.Flows, "flow"), plural.N(ht.Rest.Flows, "flow"))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "cc\tvictim msg µs\tvictim msg Gb/s\tvictims Gb/s\thot msg µs\thot msg Gb/s\thot Gb/s\tothers msg µs\tmarked\tBECNs\tthrottled flows\tthrottled µs\tmean CCTI\tend µs\t")
	us := func(t Time) float64 { return float64(t) / float64(Microsecond) }
	for _, r := range rows {
		t := r.Traffic
		marked, becns, nf, thr, cc := "-", "-", "-", "-", "-"
		if r.CC != nil {
			_, m := r.CC.MarkedPorts()
			n, d := r.CC.Throttled()
			marked, becns, nf, thr = fmt.Sprint(m), fmt.Sprint(r.CC.BECNs), fmt.Sprint(n), fmt.Sprintf("%.1f", us(d))
			cc = fmt.Sprintf("%.2f", r.CC.meanCCTI())
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%.3g\t%.1f\t%.2f\t%.3g\t%.1f\t%.2f\t%s\t%s\t%s\t%s\t%s\t%.1f\t\n", r.Setting.Name,
			us(t.Victims.MeanMsg), t.Victims.MsgGbps, t.Victims.Gbps, us(t.HotFlows.MeanMsg), t.HotFlows.MsgGbps, t.HotFlows.Gbps,
			us(t.Rest.MeanMsg), marked, becns, nf, thr, cc, us(r.End))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rows {
		fmt.Fprintf(w, "%s: %s\n", r.Setting.Name, r.Verdict)
	}
	_, err := fmt.Fprintln(w, CCCompareVerdict(rows))
	return err
}

// meanCCTI returns the mean index over all packets.
func (st *CCStats) meanCCTI() float64 {
	var sum float64
	var n int64
	for _, f := range st.Flows {
		sum += f.MeanCCTI * float64(f.Packets)
		n += f.Packets
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// CCCompareVerdict says which setting served the victims best against
// the first row (by the rate their messages see), and what it cost the hot
// spot's senders.
func CCCompareVerdict(rows []CCRow) string {
	if len(rows) < 2 {
		return ""
	}
	base := rows[0]
	if base.Traffic.Victims.Finished == 0 {
		return fmt.Sprintf("No victims to compare: the traffic has no hot spot with flows sharing its links (%s is the reference).", base.Setting.Name)
	}
	best := 1
	for i := 2; i < len(rows); i++ {
		if rows[i].Traffic.Victims.MsgGbps > rows[best].Traffic.Victims.MsgGbps {
			best = i
		}
	}
	b := rows[best]
	change := func(a, b float64) float64 {
		if a == 0 {
			return 0
		}
		return 100 * (b/a - 1)
	}
	bv, vv := base.Traffic.Victims, b.Traffic.Victims
	bh, vh := base.Traffic.HotFlows, b.Traffic.HotFlows
	if c := change(bv.MsgGbps, vv.MsgGbps); c < 1 {
		return fmt.Sprintf("No setting helps the victims: the best, %s, gives their messages %.3g Gb/s against %.3g with %s (%+.1f%%); one seed, one run per setting: the counts are exact, the effect holds for this traffic.",
			b.Setting.Name, vv.MsgGbps, bv.MsgGbps, base.Setting.Name, c)
	}
	return fmt.Sprintf("Best for the victims: %s, their messages %.3g instead of %.3g Gb/s (%+.0f%%, mean %s instead of %s) against %s; the hot spot's senders pay: %.3g instead of %.3g Gb/s per message (%+.0f%%) and the run ends at %s instead of %s; one seed, one run per setting: the counts are exact, the effect holds for this traffic.",
		b.Setting.Name, vv.MsgGbps, bv.MsgGbps, change(bv.MsgGbps, vv.MsgGbps), FormatTime(vv.MeanMsg), FormatTime(bv.MeanMsg), base.Setting.Name,
		vh.MsgGbps, bh.MsgGbps, change(bh.MsgGbps, vh.MsgGbps), FormatTime(b.End), FormatTime(base.End))
}

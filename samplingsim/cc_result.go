package samplingsim

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"orcs/internal/plural"
	"orcs/lft"
)

// CCStats is what congestion control did in a run (Result.CC; nil when
// it was off).
type CCStats struct {
	// Settings are the run's settings and MarkThreshold the output queue
	// length from which its ports marked (0: never).
	Settings      *CongestionControl
	MarkThreshold int
	// Flows are the sources' flows in the order of their first message.
	Flows []CCFlow
	// Marked counts the packets each link's port marked (FECN), by link.
	Marked []int64
	// CNPs counts the notifications (BECNs) the destinations sent, BECNs
	// those that reached their sources, Triggers the times a flow's index
	// reached the CA's trigger threshold.
	CNPs, BECNs, Triggers int64
}

// CCFlow is one flow's congestion control: per source and destination
// host (per queue pair), or per source (Dst −1) with SL-based control.
type CCFlow struct {
	Src, Dst int32
	// Packets counts its packets, Marked those marked on the way, BECNs
	// the notifications that raised its index.
	Packets, Marked, BECNs int64
	// Throttled is the time its NIC waited for the flow's inter-packet
	// delay; MeanCCTI is the mean index its packets were sent at and
	// MaxCCTI the highest its index reached.
	Throttled Time
	MeanCCTI  float64
	MaxCCTI   int
}

// ccStats collects the run's congestion-control counts.
func (s *network) ccStats() *CCStats {
	c := s.cc
	st := &CCStats{Settings: c.set, Marked: c.marked[:len(s.f.Links)], CNPs: c.cnps, BECNs: c.becns, Triggers: c.triggers}
	if c.thr != int32(^uint32(0)>>1) {
		st.MarkThreshold = int(c.thr)
	}
	for _, f := range c.flows {
		cf := CCFlow{Src: f.src, Dst: f.dst, Packets: f.packets, Marked: f.marked, BECNs: f.becns, Throttled: f.throttled, MaxCCTI: int(f.maxCCTI)}
		if f.packets > 0 {
			cf.MeanCCTI = float64(f.sum) / float64(f.packets)
		}
		st.Flows = append(st.Flows, cf)
	}
	return st
}

// Throttled returns the flows with throttled time and its sum.
func (st *CCStats) Throttled() (flows int, total Time) {
	for _, f := range st.Flows {
		if f.Throttled > 0 {
			flows++
			total += f.Throttled
		}
	}
	return flows, total
}

// MarkedPorts returns the number of ports that marked and all marks.
func (st *CCStats) MarkedPorts() (ports int, marks int64) {
	for _, m := range st.Marked {
		if m > 0 {
			ports++
			marks += m
		}
	}
	return ports, marks
}

// Acted reports whether congestion control changed the traffic: a flow
// was throttled.
func (st *CCStats) Acted() bool {
	n, _ := st.Throttled()
	return n > 0
}

// TrafficGroup is the delivered traffic of a group of flows.
type TrafficGroup struct {
	// Flows and Messages count the group's (source, destination) pairs
	// and messages, Finished the messages that arrived.
	Flows, Messages, Finished int
	// Bytes were delivered between the first message's start and the
	// last one's arrival (or the end of the run), Span; Gbps is their rate.
	Bytes int64
	Span  Time
	Gbps  float64
	// MeanMsg is the mean time of its finished messages from ready to
	// consumed, and MsgGbps the rate a message sees: their bytes over the
	// sum of their times.
	MeanMsg Time
	MsgGbps float64
}

// HotSpotTraffic splits a run's traffic around its hot spots: the hot
// destinations (when the host that receives the most bytes receives more
// than twice the mean of the other receivers: it and every host that
// receives at least half as much), the hot flows into them, the victims (flows to other
// hosts whose table route shares a link with a hot flow's: they share
// its input buffers and queues, and wait behind its packets) and the
// bystanders (the rest).
type HotSpotTraffic struct {
	Hot                     []int32 // the hot destinations (host indices)
	HotFlows, Victims, Rest TrafficGroup
}

// HotSpot returns r's traffic split around its hot spots (Hot empty when
// no host stands out).
func (r *Result) HotSpot() HotSpotTraffic {
	f, plan := r.Fabric, r.Plan
	recv := make([]int64, f.NumHosts())
	for _, m := range plan.Msgs {
		recv[m.Dst] += m.Bytes
	}
	var total, most int64
	receivers := 0
	for _, b := range recv {
		if b > 0 {
			total += b
			receivers++
			most = max(most, b)
		}
	}
	var ht HotSpotTraffic
	isHot := make([]bool, len(recv))
	// The hottest host must receive more than twice the mean of the others.
	if receivers > 1 && float64(most) > 2*float64(total-most)/float64(receivers-1) {
		for h, b := range recv {
			if 2*b >= most {
				isHot[h] = true
				ht.Hot = append(ht.Hot, int32(h))
			}
		}
	}
	type pair struct{ s, d int32 }
	tree := make([]bool, len(f.Links))
	var route []int32
	for _, m := range plan.Msgs {
		if isHot[m.Dst] {
			route, _ = f.AppendRoute(route[:0], m.Src, m.Dst)
			for _, l := range route {
				tree[l] = true
			}
		}
	}
	kind := map[pair]int{} // 0 hot, 1 victim, 2 rest
	for _, m := range plan.Msgs {
		k := pair{m.Src, m.Dst}
		if _, ok := kind[k]; ok {
			continue
		}
		switch {
		case isHot[m.Dst]:
			kind[k] = 0
		case sharesLink(f, tree, m.Src, m.Dst, &route):
			kind[k] = 1
		default:
			kind[k] = 2
		}
	}
	groups := [3]*TrafficGroup{&ht.HotFlows, &ht.Victims, &ht.Rest}
	first, last := [3]Time{-1, -1, -1}, [3]Time{}
	var msgSum [3]Time
	for k, g := range kind {
		_ = k
		groups[g].Flows++
	}
	for i, m := range plan.Msgs {
		g := kind[pair{m.Src, m.Dst}]
		tg := groups[g]
		tg.Messages++
		if rd := r.MsgReady[i]; rd >= 0 && (first[g] < 0 || rd < first[g]) {
			first[g] = rd
		}
		fin := r.MsgFinish[i]
		if fin < 0 {
			last[g] = r.End
			continue
		}
		tg.Finished++
		tg.Bytes += m.Bytes
		last[g] = max(last[g], fin)
		msgSum[g] += fin - r.MsgReady[i]
	}
	for g, tg := range groups {
		if first[g] >= 0 && last[g] > first[g] {
			tg.Span = last[g] - first[g]
			tg.Gbps = float64(tg.Bytes) * 8 / (float64(tg.Span) / 1e12) / 1e9
		}
		if tg.Finished > 0 {
			tg.MeanMsg = msgSum[g] / Time(tg.Finished)
			tg.MsgGbps = float64(tg.Bytes) * 8 / (float64(max(msgSum[g], 1)) / 1e12) / 1e9
		}
	}
	return ht
}

// sharesLink reports whether the route from src to dst crosses a link of tree.
func sharesLink(f *lft.Fabric, tree []bool, src, dst int32, scratch *[]int32) bool {
	*scratch, _ = f.AppendRoute((*scratch)[:0], src, dst)
	for _, l := range *scratch {
		if tree[l] {
			return true
		}
	}
	return false
}

// WriteCC writes what congestion control did: its settings, the ports
// that marked most, the flows throttled most, the hot spot's victims and
// senders, and a verdict.
func (r *Result) WriteCC(w io.Writer) {
	st := r.CC
	if st == nil {
		return
	}
	f := r.Fabric
	fmt.Fprintf(w, "congestion control: %s\n", st.Settings)
	if st.MarkThreshold > 0 {
		fmt.Fprintf(w, "  ports mark packets of at least %d bytes entering an output queue that then holds %d of its %d packets\n",
			int(st.Settings.PacketSize)*CCCreditBytes, st.MarkThreshold, r.Config.OutputQueue)
	} else {
		fmt.Fprintf(w, "  ports never mark: threshold 0 or not valid (bit 2 of the switch control map)\n")
	}
	ports, marks := st.MarkedPorts()
	nf, thr := st.Throttled()
	fmt.Fprintf(w, "  marked %s on %s; %s sent, %s applied\n", plural.N(int(marks), "packet"), plural.N(ports, "port"),
		plural.N(int(st.CNPs), "BECN"), plural.N(int(st.BECNs), "BECN"))
	type portMark struct {
		l int
		n int64
	}
	var pm []portMark
	for l, n := range st.Marked {
		if n > 0 {
			pm = append(pm, portMark{l, n})
		}
	}
	slices.SortStableFunc(pm, func(a, b portMark) int { return cmp.Compare(b.n, a.n) })
	for _, p := range pm[:min(len(pm), 5)] {
		lk := f.Links[p.l]
		fmt.Fprintf(w, "    %s → %s: %s marked\n", f.Nodes[lk.From].Name, f.Nodes[lk.To].Name, plural.N(int(p.n), "packet"))
	}
	fl := slices.Clone(st.Flows)
	slices.SortStableFunc(fl, func(a, b CCFlow) int { return cmp.Compare(b.Throttled, a.Throttled) })
	fmt.Fprintf(w, "  %d of %s throttled for %s in total\n", nf, plural.N(len(st.Flows), "flow"), FormatTime(thr))
	for _, c := range fl[:min(len(fl), 5)] {
		if c.Throttled == 0 {
			break
		}
		fmt.Fprintf(w, "    %s: throttled %s, mean CCT index %.2f (max %d), %s, %s\n", r.flowName(c),
			FormatTime(c.Throttled), c.MeanCCTI, c.MaxCCTI, plural.N(int(c.Packets), "packet"), plural.N(int(c.BECNs), "BECN"))
	}
	ht := r.HotSpot()
	if len(ht.Hot) > 0 {
		fmt.Fprintf(w, "  hot spot %s: its senders %s, victims %s, others %s\n", hostList(r.Fabric, ht.Hot),
			ht.HotFlows.describe(), ht.Victims.describe(), ht.Rest.describe())
	}
	fmt.Fprintln(w, r.CCVerdict())
}

// describe says a group's rate in a few words.
func (g TrafficGroup) describe() string {
	if g.Flows == 0 {
		return "none"
	}
	return fmt.Sprintf("%s, mean message %s (%.1f Gb/s per message), %.1f Gb/s together", plural.N(g.Flows, "flow"), FormatTime(g.MeanMsg), g.MsgGbps, g.Gbps)
}

// flowName names a flow by its hosts.
func (r *Result) flowName(c CCFlow) string {
	if c.Dst < 0 {
		return r.Fabric.HostName(int(c.Src)) + " (all destinations)"
	}
	return r.Fabric.HostName(int(c.Src)) + " → " + r.Fabric.HostName(int(c.Dst))
}

// hostList lists hosts of f by name (the first few).
func hostList(f *lft.Fabric, hs []int32) string {
	var names []string
	for _, h := range hs[:min(len(hs), 4)] {
		names = append(names, f.HostName(int(h)))
	}
	if len(hs) > 4 {
		names = append(names, fmt.Sprintf("%d more", len(hs)-4))
	}
	return strings.Join(names, ", ")
}

// CCVerdict says in one sentence whether congestion control acted, with
// its numbers.
func (r *Result) CCVerdict() string {
	st := r.CC
	if st == nil {
		return "Congestion control was off."
	}
	ports, marks := st.MarkedPorts()
	nf, thr := st.Throttled()
	var why string
	switch {
	case st.MarkThreshold == 0:
		why = "its ports never mark (threshold 0 or not in the control map)"
	case marks == 0:
		why = fmt.Sprintf("no port's output queue reached %d packets", st.MarkThreshold)
	case st.Settings.CAControlMap&1 == 0:
		why = fmt.Sprintf("%s were marked but the hosts ignore BECNs (SL 0 not in the CA control map)", plural.N(int(marks), "packet"))
	case st.Settings.Limit() == 0 || slices.IndexFunc(st.Settings.CCT, func(e CCTEntry) bool { return e.Multiplier > 0 }) < 0:
		why = fmt.Sprintf("%s were marked but the table has no delay (an empty or all-zero CCT)", plural.N(int(marks), "packet"))
	}
	if nf == 0 {
		if why == "" {
			why = fmt.Sprintf("%s on %s were marked, yet no flow's delay held its NIC back", plural.N(int(marks), "packet"), plural.N(ports, "port"))
		}
		return "Congestion control did not act: " + why + "."
	}
	per := thr / Time(nf)
	return fmt.Sprintf("Congestion control acted: %s on %s were marked, %s came back and throttled %d of %s, %s each on average (%.1f%% of the run's %s); certain: these are the run's own counts.",
		plural.N(int(marks), "packet"), plural.N(ports, "port"), plural.N(int(st.BECNs), "BECN"), nf, plural.N(len(st.Flows), "flow"),
		FormatTime(per), 100*float64(per)/float64(max(r.End, 1)), FormatTime(r.End))
}

// RunFileCC is what congestion control did in a RunFile's run: its
// settings, the ports that marked and every flow.
type RunFileCC struct {
	Settings      string          `json:"settings"`
	MarkThreshold int             `json:"mark_threshold"`
	CNPs          int64           `json:"becns_sent"`
	BECNs         int64           `json:"becns_applied"`
	Triggers      int64           `json:"triggers"`
	Verdict       string          `json:"verdict"`
	Ports         []RunFileCCPort `json:"ports"`
	Flows         []RunFileCCFlow `json:"flows"`
}

// RunFileCCPort is a port that marked packets: the link it sends on.
type RunFileCCPort struct {
	Link   int32  `json:"link"`
	From   string `json:"from"`
	To     string `json:"to"`
	Marked int64  `json:"marked"`
}

// RunFileCCFlow is one flow (Dst "" for a per-SL flow of every destination).
type RunFileCCFlow struct {
	Src         string  `json:"src"`
	Dst         string  `json:"dst"`
	Packets     int64   `json:"packets"`
	Marked      int64   `json:"marked"`
	BECNs       int64   `json:"becns"`
	ThrottledUs float64 `json:"throttled_us"`
	MeanCCTI    float64 `json:"mean_ccti"`
	MaxCCTI     int     `json:"max_ccti"`
}

// ccFile returns the RunFile section of congestion control (nil when off).
func (r *Result) ccFile() *RunFileCC {
	st := r.CC
	if st == nil {
		return nil
	}
	f := r.Fabric
	out := &RunFileCC{Settings: st.Settings.String(), MarkThreshold: st.MarkThreshold, CNPs: st.CNPs, BECNs: st.BECNs,
		Triggers: st.Triggers, Verdict: r.CCVerdict(), Ports: []RunFileCCPort{}, Flows: make([]RunFileCCFlow, 0, len(st.Flows))}
	for l, n := range st.Marked {
		if n > 0 {
			lk := f.Links[l]
			out.Ports = append(out.Ports, RunFileCCPort{Link: int32(l), From: f.Nodes[lk.From].Name, To: f.Nodes[lk.To].Name, Marked: n})
		}
	}
	for _, c := range st.Flows {
		fl := RunFileCCFlow{Src: f.HostName(int(c.Src)), Packets: c.Packets, Marked: c.Marked, BECNs: c.BECNs,
			ThrottledUs: float64(c.Throttled) / 1e6, MeanCCTI: c.MeanCCTI, MaxCCTI: c.MaxCCTI}
		if c.Dst >= 0 {
			fl.Dst = f.HostName(int(c.Dst))
		}
		out.Flows = append(out.Flows, fl)
	}
	return out
}

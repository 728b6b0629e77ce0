package samplingsim

import (
	"fmt"
	"io"
	"math"
	"slices"
)

// runStats holds the per-message latency and stall sums of a run and the
// state of the routing modes per job and NIC (route_app.go).
type runStats struct {
	// jobMode is the routing mode of job 0 and of the other jobs.
	jobMode   []RouteMode
	bgRouting Routing
	// Per message: latency and NIC stall summed over its packets, and the
	// mode it was sent with.
	msgLat, msgStall []Time
	msgMode          []RouteMode
	msgDetour        []int32 // packets that took an alternative port (Packet.detour)
	// lat0 is the latency of every delivered packet of job 0, kept
	// (keepLat) when the plan has iterations (the noise workloads).
	lat0    []PacketLatency
	keepLat bool
	// on says whether latencies and stalls are measured: with adaptive
	// routing or iterated workloads.
	on  bool
	app []appNIC // per host, for ModeApp
	// backlog is the number of packets of the messages in each NIC's
	// injection queue not yet started (with ModeApp).
	backlog []int64
}

func (s *network) setupStats() {
	n := len(s.plan.Msgs)
	s.stats.msgLat = make([]Time, n)
	s.stats.msgStall = make([]Time, n)
	s.stats.msgMode = make([]RouteMode, n)
	s.stats.msgDetour = make([]int32, n)
	s.stats.keepLat = len(s.plan.Iters) > 0
	s.stats.on = s.stats.keepLat || s.ad != nil || s.cfg.measure
	if s.ad != nil {
		s.stats.app = make([]appNIC, s.f.NumHosts())
		if s.routing.Mode == ModeApp || s.stats.bgRouting.Mode == ModeApp {
			s.stats.backlog = make([]int64, s.f.NumHosts())
		}
	}
}

// injected records that packet pid starts leaving its NIC now; the link
// was busy until prevBusy, so the time after max(formed, prevBusy) was
// spent waiting for credits.
func (s *network) injected(pid int32, prevBusy Time) {
	pk := &s.packets[pid]
	if pk.msg < 0 {
		return // a congestion notification
	}
	stall := s.now - max(pk.sent, prevBusy)
	pk.sent = s.now
	s.stats.msgStall[pk.msg] += stall
	if s.stats.app != nil && s.jobMode(pk.msg) == ModeApp {
		appStall(&s.stats.app[pk.src], pk.mode, stall)
	}
}

// delivered records the latency (NIC departure to arrival) and stall of
// packet pid, which has just arrived at its destination.
func (s *network) delivered(pid int32) {
	pk := &s.packets[pid]
	lat := s.now - pk.sent
	s.stats.msgLat[pk.msg] += lat
	if pk.detour {
		s.stats.msgDetour[pk.msg]++
	}
	if s.stats.keepLat && s.plan.Msgs[pk.msg].Job == 0 {
		s.stats.lat0 = append(s.stats.lat0, PacketLatency{Src: pk.src, Dst: pk.dst, Latency: lat})
	}
	if s.stats.app != nil && s.jobMode(pk.msg) == ModeApp {
		appCount(&s.stats.app[pk.src], pk.mode, lat)
	}
}

func (s *network) fillStats(r *Result) {
	r.MsgLatency, r.MsgStall, r.MsgMode, r.MsgDetour = s.stats.msgLat, s.stats.msgStall, s.stats.msgMode, s.stats.msgDetour
	r.PacketLatency = s.stats.lat0
}

// Quartiles returns the first quartile, the median and the third quartile
// of xs (linear interpolation between order statistics: the quantile q
// of n sorted values is x[h] + (h−⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋]) with h = q(n−1),
// numpy's default). xs is not changed; NaNs for no values.
func Quartiles(xs []float64) (q1, median, q3 float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	v := slices.Clone(xs)
	slices.Sort(v)
	at := func(q float64) float64 {
		h := q * float64(len(v)-1)
		i := int(h)
		if i+1 >= len(v) {
			return v[len(v)-1]
		}
		return v[i] + (h-float64(i))*(v[i+1]-v[i])
	}
	return at(0.25), at(0.5), at(0.75)
}

// QCD returns the quartile coefficient of dispersion (Q3−Q1)/(Q3+Q1) of
// xs (De Sensi §3.3); 0 when Q3+Q1 = 0.
func QCD(xs []float64) float64 {
	q1, _, q3 := Quartiles(xs)
	if q1+q3 == 0 {
		return 0
	}
	return (q3 - q1) / (q3 + q1)
}

// NoiseStats summarises a job of a run as De Sensi et al. measure network
// noise: iteration times, their median and QCD, packet latency and stalls.
type NoiseStats struct {
	// Iterations are the iteration times (the last message finished minus
	// the first message ready), in order.
	Iterations []Time
	// Q1, Median, Q3 and QCD describe the iteration times (ps).
	Q1, Median, Q3, QCD float64
	// Mean is the mean iteration time.
	Mean float64
	// Latency is the mean latency of the job's packets (NIC departure to
	// arrival). LatencyQCD is the variability of the latency of the same
	// communication over time: for job 0 the mean over its host pairs with
	// at least 4 packets of the QCD of the pair's packet latencies; for
	// other jobs (or without such pairs) the QCD of the messages' mean
	// packet latencies.
	Latency, LatencyQCD float64
	// Stall is the mean time a packet waited at its NIC for credits.
	Stall float64
	// Packets is the number of the job's packets; AdaptiveShare the
	// fraction of them sent with an adaptive mode other than High bias.
	Packets       int64
	AdaptiveShare float64
	// Detour is the fraction of the packets that left their preferred
	// ports at least once: a Valiant path on a Dragonfly, a port other
	// than the forwarding table's on a fat tree.
	Detour float64
	// Unfinished counts iterations that did not finish.
	Unfinished int
	// Quiet counts the finished iterations that started after the last
	// message of every other job had been delivered: they ran without a
	// noisy neighbour. De Sensi et al. measure against the steady traffic
	// of a production system (§3.1, §6 "System state"); a background that
	// ends before the measured job (e.g. a burst of random messages all
	// ready at once) leaves these iterations noise-free in every mode.
	Quiet int
}

// Noise returns the noise statistics of job j. Without iteration spans
// the whole job is one iteration.
func (r *Result) Noise(j int) NoiseStats {
	var st NoiseStats
	spans := []IterSpan{}
	for _, sp := range r.Plan.Iters {
		if int(sp.Job) == j {
			spans = append(spans, sp)
		}
	}
	if len(spans) == 0 {
		first, end := int32(-1), int32(0)
		for i, m := range r.Plan.Msgs {
			if int(m.Job) == j {
				if first < 0 {
					first = int32(i)
				}
				end = int32(i + 1)
			}
		}
		if first >= 0 {
			spans = append(spans, IterSpan{Job: int32(j), First: first, End: end})
		}
	}
	var its, lats []float64
	var latSum, stallSum float64
	var adaptive, detour int64
	others, othersEnd := false, Time(-1) // the other jobs' last delivery
	for m, msg := range r.Plan.Msgs {
		if int(msg.Job) != j {
			others = true
			if r.MsgFinish[m] < 0 { // never delivered: busy to the end
				othersEnd = Time(math.MaxInt64)
			}
			othersEnd = max(othersEnd, r.MsgFinish[m])
		}
	}
	for _, sp := range spans {
		start, end, done := Time(math.MaxInt64), Time(0), true
		for m := sp.First; m < sp.End; m++ {
			if r.MsgFinish[m] < 0 {
				done = false
				continue
			}
			start, end = min(start, r.MsgReady[m]), max(end, r.MsgFinish[m])
		}
		if !done {
			st.Unfinished++
			continue
		}
		st.Iterations = append(st.Iterations, end-start)
		its = append(its, float64(end-start))
		if others && start >= othersEnd {
			st.Quiet++
		}
	}
	for m, msg := range r.Plan.Msgs {
		if int(msg.Job) != j || r.MsgFinish[m] < 0 {
			continue
		}
		p := (msg.Bytes + int64(r.Config.MTU) - 1) / int64(r.Config.MTU)
		st.Packets += p
		latSum += float64(r.MsgLatency[m])
		stallSum += float64(r.MsgStall[m])
		lats = append(lats, float64(r.MsgLatency[m])/float64(p))
		detour += int64(r.MsgDetour[m])
		if mo := r.MsgMode[m]; mo != ModeHigh && mo != ModeStatic {
			adaptive += p
		}
	}
	st.Q1, st.Median, st.Q3 = Quartiles(its)
	st.QCD = QCD(its)
	for _, x := range its {
		st.Mean += x / float64(len(its))
	}
	if st.Packets > 0 {
		st.Latency = latSum / float64(st.Packets)
		st.Stall = stallSum / float64(st.Packets)
		st.AdaptiveShare = float64(adaptive) / float64(st.Packets)
		st.Detour = float64(detour) / float64(st.Packets)
	}
	st.LatencyQCD = QCD(lats)
	if j == 0 {
		if q, ok := pairQCD(r.PacketLatency); ok {
			st.LatencyQCD = q
		}
	}
	return st
}

// PacketLatency is the latency of one delivered packet.
type PacketLatency struct {
	// Src and Dst are the packet's hosts (host indices).
	Src, Dst int32
	// Latency is the time from leaving the source NIC to arriving.
	Latency Time
}

// pairQCD returns the mean over host pairs with at least 4 packets of the
// QCD of each pair's packet latencies; ok is false without such pairs.
func pairQCD(ps []PacketLatency) (float64, bool) {
	v := slices.Clone(ps)
	slices.SortStableFunc(v, func(a, b PacketLatency) int {
		if a.Src != b.Src {
			return int(a.Src - b.Src)
		}
		return int(a.Dst - b.Dst)
	})
	var sum float64
	var n int
	xs := []float64{}
	for i := 0; i < len(v); {
		j := i
		xs = xs[:0]
		for j < len(v) && v[j].Src == v[i].Src && v[j].Dst == v[i].Dst {
			xs = append(xs, float64(v[j].Latency))
			j++
		}
		if len(xs) >= 4 {
			sum += QCD(xs)
			n++
		}
		i = j
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}

// writeNoise prints, for a job whose workload has iterations, its routing
// and noise statistics (one indented line each); nothing for others.
func (r *Result) writeNoise(w io.Writer, name string) {
	j := slices.IndexFunc(r.Plan.Jobs, func(x Job) bool { return x.Name == name })
	if j < 0 || !slices.ContainsFunc(r.Plan.Iters, func(sp IterSpan) bool { return int(sp.Job) == j }) {
		return
	}
	rt := r.Config.Routing
	if j > 0 && r.Config.BackgroundRouting != "" {
		rt = r.Config.BackgroundRouting
	}
	if rt == "" {
		rt = "static"
	}
	st := r.Noise(j)
	fmt.Fprintf(w, "  routing %s: %d iterations, median %s (Q1 %s, Q3 %s, QCD %.4f)",
		rt, len(st.Iterations), FormatTime(Time(st.Median)), FormatTime(Time(st.Q1)), FormatTime(Time(st.Q3)), st.QCD)
	if st.Unfinished > 0 {
		fmt.Fprintf(w, ", %d unfinished", st.Unfinished)
	}
	if st.Quiet > 0 {
		fmt.Fprintf(w, ", %d after the other jobs ended", st.Quiet)
	}
	fmt.Fprintf(w, "\n  packets: latency %s (QCD %.4f), stall %s per packet, %.1f %% detoured\n",
		FormatTime(Time(st.Latency)), st.LatencyQCD, FormatTime(Time(st.Stall)), 100*st.Detour)
}

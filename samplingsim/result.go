package samplingsim

import (
	"math"
	"time"

	"orcs/lft"
)

// Result is the outcome of a run: ground truth and estimates per link
// direction and window, message times and run statistics.
type Result struct {
	// Fabric, Config and Plan are the inputs of the run.
	Fabric *lft.Fabric
	// FabricName names the fabric in the JSON when it has no graph name
	// (a fabric built from an InfiniBand topology: the topology file's
	// base name); the caller sets it.
	FabricName string
	Config     Config
	Plan       *Plan
	// End is the simulated time of the last event.
	End Time
	// MsgReady is when each message entered its sender's injection queue
	// and MsgFinish when its last packet was consumed (−1 = never).
	MsgReady, MsgFinish []Time
	// MsgLatency and MsgStall are the sums over each message's packets of
	// the latency (NIC departure to arrival) and of the time waited at the
	// NIC for credits; MsgMode is the routing mode it was sent with.
	MsgLatency, MsgStall []Time
	MsgMode              []RouteMode
	// MsgDetour counts each message's packets that left their preferred
	// ports (a Valiant path on a Dragonfly, another port than the table's
	// on a fat tree).
	MsgDetour []int32
	// PacketLatency is the latency of every delivered packet of the
	// primary job (job 0), in delivery order, when the plan has
	// iterations (Plan.Iters); else nil.
	PacketLatency []PacketLatency
	// Truth is the ground truth, Truth[window][link].
	Truth [][]LinkTruth
	// Events is the number of events processed, PacketHops the number of
	// packets sent over a link, Packets the number of packets delivered.
	Events, PacketHops, Packets int64
	// Wall is the wall-clock time of the event loop and CPU the CPU time of
	// its thread (0 where it cannot be measured).
	Wall, CPU time.Duration
	// Buffers measures the hot spots of a plan with stopped hosts (nil
	// without).
	Buffers *BufferStats
	// CC is what congestion control did (nil when it was off).
	CC *CCStats

	tallies [][]*tally // [job][window], nil entries = nothing received
	z       float64    // false-positive threshold factor, 0 = none
	// ad is the adaptive routing's view of the fabric (nil: static), for
	// the route sets of the diagnosis.
	ad *adaptive
}

func (s *network) result(wall time.Duration) *Result {
	r := &Result{
		Fabric: s.f, Config: s.cfg, Plan: s.plan, End: s.now,
		MsgReady: make([]Time, len(s.msgs)), MsgFinish: make([]Time, len(s.msgs)),
		Truth: s.truth, Events: s.eventCount, PacketHops: s.hopCount, Packets: s.packetCount,
		Wall: wall, tallies: s.tallies, ad: s.ad,
	}
	for i, m := range s.msgs {
		r.MsgReady[i], r.MsgFinish[i] = m.ready, m.finish
	}
	// The threshold hides links that no packet crossed but receivers had to
	// update. With the route restriction and static routing every updated
	// link was crossed, so it would only hide true traffic. With adaptive
	// routing the route restriction is the adaptive route set (§5.2's
	// "links the packet might have passed through"), most of which a packet
	// did not cross: the thesis's Figs. 5.4–5.5 apply the threshold there.
	if s.scheme.probabilistic && s.cfg.FalsePositiveConfidence > 0 && (s.restrict != restrictRoute || s.ad != nil) {
		r.z = normalQuantile(s.cfg.FalsePositiveConfidence)
	}
	// Close the open intervals (queues, buffers, stalls) at the end.
	for l := range s.ch {
		s.occupancy(int32(l), queueArea, s.ch[l].queue.len(), &s.ch[l].qSince)
		s.occupancy(int32(l), bufferArea, s.ch[l].buf.len(), &s.ch[l].since)
		if s.ch[l].stalled {
			s.spread(int32(l), s.stallSince[l], s.now, addStalled)
		}
	}
	s.flushWindow()
	s.foldLanes()
	r.Truth = s.truth
	r.Buffers = s.bufferStats()
	if s.cc != nil {
		r.CC = s.ccStats()
	}
	s.fillStats(r)
	return r
}

// Windows returns the number of time windows.
func (r *Result) Windows() int {
	n := len(r.Truth)
	for _, ts := range r.tallies {
		n = max(n, len(ts))
	}
	return max(n, 1)
}

// WindowSpan returns the start and end of window w (the whole run for a
// single window).
func (r *Result) WindowSpan(w int) (from, to Time) {
	if r.Config.Window <= 0 {
		return 0, r.End
	}
	return Time(w) * r.Config.Window, min(Time(w+1)*r.Config.Window, max(r.End, Time(w)*r.Config.Window+1))
}

// TruthOf returns the ground truth of link l in window w; w = −1 sums all
// windows.
func (r *Result) TruthOf(w int, l int32) LinkTruth {
	if w >= 0 {
		if w < len(r.Truth) {
			return r.Truth[w][l]
		}
		return LinkTruth{}
	}
	var t LinkTruth
	for i := range r.Truth {
		t.add(&r.Truth[i][l])
	}
	return t
}

// View selects whose samples make an estimate: a job index, or AllJobs.
type View = int

// AllJobs is the view of every receiver (a network administrator's view).
const AllJobs View = -1

// tallyOf returns the merged tally of a view and window (w = −1: all).
func (r *Result) tallyOf(view View, w int) *tally {
	t := newTally(len(r.Fabric.Links))
	for j, ts := range r.tallies {
		if view >= 0 && j != view {
			continue
		}
		for i, x := range ts {
			if x != nil && (w < 0 || i == w) {
				t.merge(x)
			}
		}
	}
	return t
}

// Estimates returns the estimates of every link for a view and window
// (w = −1: all windows together), indexed by link id. Links that leave a
// host are never sampled and estimate zero.
func (r *Result) Estimates(view View, w int) []LinkEstimate {
	t := r.tallyOf(view, w)
	out := make([]LinkEstimate, len(r.Fabric.Links))
	for l := range out {
		out[l] = t.estimate(int32(l), r.Config.TagFraction, r.z)
	}
	return out
}

// Sampled reports whether link l is seen by the sampling headers: only
// links that leave a switch are (the thesis's blind spot: congestion as a
// packet leaves a NIC is not observed).
func (r *Result) Sampled(l int32) bool {
	return r.Fabric.HostIndex(r.Fabric.Links[l].From) < 0
}

// JobFinish returns when the last message of job j finished (−1 if one
// never did) and when its first message became ready.
func (r *Result) JobFinish(j int) (start, end Time) {
	start, end = Time(math.MaxInt64), 0
	for i, m := range r.Plan.Msgs {
		if int(m.Job) != j {
			continue
		}
		if r.MsgFinish[i] < 0 {
			return start, -1
		}
		start = min(start, r.MsgReady[i])
		end = max(end, r.MsgFinish[i])
	}
	if start == math.MaxInt64 {
		start = 0
	}
	return start, end
}

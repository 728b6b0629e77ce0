package samplingsim

// Application-Aware routing (De Sensi et al., SC'19, §4.2, Algorithm 1).
//
// Every NIC keeps a cumulative count of the bytes of the messages it
// starts. While the count is below the threshold (4 KiB) a message goes
// with High bias; once it reaches it, the NIC reads its counters — the
// mean latency L and the mean stall s of its packets delivered since the
// last read, kept apart for the packets of each mode — and sends the
// message with the mode whose cost model predicts the shorter time. The
// paper's model (its Eq. 2) is T = (p+512)/1024·L + f·(s+1) for an Aries
// NIC with at most 1024 outstanding packets; a samplingsim NIC has no such
// window, so its time for a message of p packets is T = L + p·(t + s) (the
// first packet's latency, then p packets each taking a packet time t plus
// its stall), and the rule "High bias if T_bs < T_ad" becomes
// L_bs + p·s_bs < L_ad + p·s_ad, the paper's Eq. 4 with p for f and
// without the window factor. A mode whose measurements are older than
// MaxAge decisions (or missing) is estimated from the other's with the
// scaling factors: L_bs = λ·L_ad, s_bs = σ·s_ad (and back). The NIC starts
// in Adaptive (an alltoall job in Increasingly Minimal Bias, the Aries
// default for MPI_Alltoall).

// appNIC is the Application-Aware state of one NIC.
type appNIC struct {
	started bool
	cur     RouteMode
	cum     int64
	// Counters since the last read, for packets sent with High bias (0)
	// and with the adaptive mode (1): latency sums and packets (counted at
	// delivery), stall sums (counted as packets leave the NIC).
	lat, stall [2]Time
	pkts       [2]int64
	// Last measured (or derived) means and the decisions since each mode
	// was measured.
	l, s [2]float64
	age  [2]int
}

// appDecide is Algorithm 1 for one message of bytes in packets packets
// at a NIC; ad is the job's adaptive mode (Adaptive, or Increasingly
// Minimal Bias for alltoall). It returns the message's mode.
func appDecide(st *appNIC, par *AppParams, ad RouteMode, bytes int64, packets int) RouteMode {
	if !st.started {
		st.started, st.cur = true, ad
		st.age = [2]int{par.MaxAge, par.MaxAge}
	}
	st.cum += bytes
	if st.cum < par.Threshold {
		return ModeHigh
	}
	st.cum = 0
	for i := range 2 {
		if st.pkts[i] > 0 {
			st.l[i] = float64(st.lat[i]) / float64(st.pkts[i])
			st.s[i] = float64(st.stall[i]) / float64(st.pkts[i])
			st.age[i] = 0
			st.lat[i], st.stall[i], st.pkts[i] = 0, 0, 0
		}
	}
	const bs, adp = 0, 1
	switch {
	case st.age[adp] >= par.MaxAge && st.age[bs] >= par.MaxAge:
		// Nothing measured recently: stay.
		return st.cur
	case st.age[bs] >= par.MaxAge:
		st.l[bs], st.s[bs] = st.l[adp]*par.Lambda, st.s[adp]*par.Sigma
	case st.age[adp] >= par.MaxAge:
		st.l[adp], st.s[adp] = st.l[bs]/par.Lambda, st.s[bs]/par.Sigma
	}
	st.age[bs]++
	st.age[adp]++
	p := float64(packets)
	if st.l[bs]+p*st.s[bs] < st.l[adp]+p*st.s[adp] {
		st.cur = ModeHigh
	} else {
		st.cur = ad
	}
	return st.cur
}

// appCount adds the latency of a delivered packet of mode to its NIC's
// counters.
func appCount(st *appNIC, mode RouteMode, lat Time) {
	i := modeIndex(mode)
	st.lat[i] += lat
	st.pkts[i]++
}

// appStall adds the stall of a packet of mode leaving the NIC.
func appStall(st *appNIC, mode RouteMode, stall Time) { st.stall[modeIndex(mode)] += stall }

// modeIndex is 0 for High bias and 1 for the adaptive mode.
func modeIndex(mode RouteMode) int {
	if mode == ModeHigh {
		return 0
	}
	return 1
}

// jobMode returns the configured routing mode of message m's job.
func (s *network) jobMode(m int32) RouteMode {
	return s.stats.jobMode[min(int(s.plan.Msgs[m].Job), 1)]
}

// msgMode returns the routing mode of the packet that host h forms next
// of message m, choosing it as the message's first packet is formed.
func (s *network) msgMode(h, m, formed int32) RouteMode {
	if formed > 0 {
		return s.stats.msgMode[m]
	}
	mode := s.jobMode(m)
	if mode == ModeApp {
		rt := &s.routing
		if s.plan.Msgs[m].Job != 0 {
			rt = &s.stats.bgRouting
		}
		ad := ModeAdaptive
		if j := s.plan.Msgs[m].Job; int(j) < len(s.plan.Jobs) && s.plan.Jobs[j].Alltoall {
			ad = ModeIMB
		}
		p := int64(s.msgs[m].packets)
		if rt.App.Backlog {
			p = s.stats.backlog[h]
		}
		mode = appDecide(&s.stats.app[h], &rt.App, ad, s.plan.Msgs[m].Bytes, int(p))
	}
	if s.stats.backlog != nil {
		s.stats.backlog[h] -= int64(s.msgs[m].packets)
	}
	s.stats.msgMode[m] = mode
	return mode
}

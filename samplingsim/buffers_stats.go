package samplingsim

import (
	"fmt"
	"io"
)

// BufferStats measures a run with hot spots (hosts that stopped
// receiving): the throughput of the other traffic and, at the end, how
// many destinations the switches' input ports block.
type BufferStats struct {
	// Policy is the buffer policy and Slots the buffers per input port, B.
	Policy string `json:"policy"`
	Slots  int    `json:"slots"`
	// Hot is the number of hosts that stopped receiving.
	Hot int `json:"hot"`
	// FromUs and ToUs bound the measurement window, the second half of the
	// run (the first half fills the trees).
	FromUs float64 `json:"from_us"`
	ToUs   float64 `json:"to_us"`
	// OfferedGbps is the load that the messages to other hosts starting in
	// the window offer, and DeliveredGbps what messages to other hosts
	// finishing in the window deliver, per sending host.
	OfferedGbps   float64 `json:"offered_gbps"`
	DeliveredGbps float64 `json:"delivered_gbps"`
	// Ports is the number of switch input ports that block at least one hot
	// destination at the end, HotPerPort the mean number of hot
	// destinations they block and BlockedFraction the mean fraction of the
	// other destinations they block too (the quantity of Theorem 1).
	Ports           int     `json:"ports"`
	HotPerPort      float64 `json:"hot_per_port"`
	BlockedFraction float64 `json:"blocked_fraction"`
	// ByRouted groups the switch input ports at the end by the number h ≥
	// 1 of hot destinations that the forwarding tables route through them:
	// how many ports, their mean free buffers (in the sender's view) and
	// the mean fraction of the other destinations they block. For the
	// hashed dampener, once each of the h hot spots holds its j buffers,
	// Theorem 1 predicts B(1 − j/B)^h free buffers (O(1) at h = (B/j)·ln B)
	// and a blocked fraction of about (1 − (1 − j/B)^h)^j.
	ByRouted []RoutedRow `json:"by_routed,omitempty"`
	// Stuck is the number of packets still in the network at the end and
	// Unfinished the number of messages to other hosts not delivered.
	Stuck      int `json:"stuck"`
	Unfinished int `json:"unfinished"`
}

// RoutedRow is one group of BufferStats.ByRouted.
type RoutedRow struct {
	Hot     int     `json:"hot"`
	Ports   int     `json:"ports"`
	Free    float64 `json:"free"`
	Blocked float64 `json:"blocked"`
}

// bufferStats measures the run's hot spots, or returns nil without any.
func (s *network) bufferStats() *BufferStats {
	if s.stopped == nil {
		return nil
	}
	st := &BufferStats{Policy: s.cfg.Buffers, Slots: int(s.bufferCap), Hot: len(s.plan.Stopped), Stuck: len(s.packets) - len(s.freeSlots)}
	from, to := s.now/2, s.now
	st.FromUs, st.ToUs = float64(from)/1e6, float64(to)/1e6
	var offered, delivered int64
	senders := make(map[int32]bool)
	for i, m := range s.plan.Msgs {
		if s.stopped[m.Dst] {
			continue
		}
		senders[m.Src] = true
		if m.Start >= from && m.Start < to {
			offered += m.Bytes
		}
		if f := s.msgs[i].finish; f >= from && f <= to && f >= 0 {
			delivered += m.Bytes
		}
		if s.msgs[i].finish < 0 {
			st.Unfinished++
		}
	}
	if span := float64(to - from); span > 0 && len(senders) > 0 {
		per := 8e3 / span / float64(len(senders)) // bytes → Gb/s per sender
		st.OfferedGbps, st.DeliveredGbps = float64(offered)*per, float64(delivered)*per
	}
	var cool []int32
	for h := range s.stopped {
		if !s.stopped[h] {
			cool = append(cool, int32(h))
		}
	}
	var hotSum, fracSum float64
	routed := make([]int, len(s.f.Links)) // hot destinations whose routes cross each link
	stamp := make([]int32, len(s.f.Links))
	var route []int32
	for i, d := range s.plan.Stopped {
		for src := range int32(len(s.stopped)) {
			if src == d {
				continue
			}
			route, _ = s.f.AppendRoute(route[:0], src, d)
			for _, l := range route {
				if stamp[l] != int32(i)+1 {
					stamp[l] = int32(i) + 1
					routed[l]++
				}
			}
		}
	}
	for l := range s.f.Links {
		if s.ch[l].toHost >= 0 {
			continue // a NIC's receive port
		}
		o := int32(l)
		free := s.availCredits(o)
		full := free == 0
		blocked := func(d int32) bool { return full || (s.bufRule != nil && !s.admits(o, d)) }
		held := routed[o]
		hot := 0
		for _, d := range s.plan.Stopped {
			if blocked(d) {
				hot++
			}
		}
		if hot == 0 && held == 0 {
			continue
		}
		n := 0
		for _, d := range cool {
			if blocked(d) {
				n++
			}
		}
		frac := float64(n) / float64(len(cool))
		if held > 0 {
			for len(st.ByRouted) <= held {
				st.ByRouted = append(st.ByRouted, RoutedRow{Hot: len(st.ByRouted)})
			}
			row := &st.ByRouted[held]
			row.Ports++
			row.Free += float64(free)
			row.Blocked += frac
		}
		if hot == 0 {
			continue
		}
		st.Ports++
		hotSum += float64(hot)
		fracSum += frac
	}
	if st.Ports > 0 {
		st.HotPerPort, st.BlockedFraction = hotSum/float64(st.Ports), fracSum/float64(st.Ports)
	}
	for i := range st.ByRouted {
		if r := &st.ByRouted[i]; r.Ports > 0 {
			r.Free /= float64(r.Ports)
			r.Blocked /= float64(r.Ports)
		}
	}
	if len(st.ByRouted) > 0 {
		st.ByRouted = st.ByRouted[1:]
	}
	return st
}

// Write prints the measurement in one line.
func (st *BufferStats) Write(w io.Writer) {
	ratio := 0.0
	if st.OfferedGbps > 0 {
		ratio = st.DeliveredGbps / st.OfferedGbps
	}
	fmt.Fprintf(w, "buffers %s, B = %d per port, %d hosts stopped receiving: the other traffic offered %.2f Gb/s per sender, delivered %.2f (%.3f) from %s to %s; "+
		"%d switch ports block a hot spot (%.2f on average) and %.4f of the other destinations; %d packets in the network, %d messages to other hosts undelivered at the end\n",
		st.Policy, st.Slots, st.Hot, st.OfferedGbps, st.DeliveredGbps, ratio, FormatTime(Time(st.FromUs*1e6)), FormatTime(Time(st.ToUs*1e6)),
		st.Ports, st.HotPerPort, st.BlockedFraction, st.Stuck, st.Unfinished)
	for _, r := range st.ByRouted {
		if r.Ports > 0 {
			fmt.Fprintf(w, "  ports routing %d hot spots: %d, %.2f buffers free, %.4f of the other destinations blocked\n", r.Hot, r.Ports, r.Free, r.Blocked)
		}
	}
}

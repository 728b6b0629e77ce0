package samplingsim

import (
	"fmt"

	"orcs/rng"
)

// Random stream of adaptive routing's choices (tie breaks, intermediate
// groups).
const streamRoute = 4

// parseRoutingOrStatic is ParseRouting with "" meaning static.
func parseRoutingOrStatic(text string) (Routing, error) {
	if text == "" {
		return Routing{Mode: ModeStatic}, nil
	}
	return ParseRouting(text)
}

// setupRouting sets up the routings of the jobs (job 0's, the others')
// and, if any job routes adaptively, analyses the fabric for it. Static
// routing leaves s.ad nil: the event loop then runs exactly as without
// adaptive routing.
func (s *network) setupRouting(primary, bg Routing) error {
	s.physLinks, s.lanes = int32(len(s.f.Links)), 1
	s.routing = primary
	var err error
	s.stats.jobMode = []RouteMode{s.routing.Mode, bg.Mode}
	s.stats.bgRouting = bg
	if s.routing.Mode == ModeStatic && bg.Mode == ModeStatic {
		return nil
	}
	if s.ad, err = newAdaptive(s.f, s.cfg.Groups, rng.New(s.cfg.Seed, streamRoute)); err != nil {
		return err
	}
	s.lanes = int32(s.ad.lanes)
	s.ad.queueOnly = [2]bool{s.routing.QueueOnly, bg.QueueOnly}
	s.ad.anyQueueOnly = s.routing.QueueOnly || bg.QueueOnly
	s.adLinks, s.adMinimal = make([]int32, 0, 256), make([]int32, 0, 256)
	return nil
}

// channels returns the number of channels: links × lanes.
func (s *network) channels() int { return int(s.physLinks * s.lanes) }

// phys returns the physical link of channel c.
func (s *network) phys(c int32) int32 {
	for c >= s.physLinks {
		c -= s.physLinks
	}
	return c
}

// setupLanes gives the channels of every lane above 0 the properties of
// their physical link.
func (s *network) setupLanes() {
	if s.lanes == 1 {
		return
	}
	s.laneFirst = make([]uint8, s.physLinks)
	for c := s.physLinks; c < int32(len(s.ch)); c++ {
		l := s.phys(c)
		s.ch[c].fromHost, s.ch[c].toHost, s.linkCodes[c] = s.ch[l].fromHost, s.ch[l].toHost, s.linkCodes[l]
	}
}

// laneTurn returns the channel of l's physical link that sends next when
// the link is idle: lanes take turns (round robin from the lane after the
// last sender) among those with a queued packet and a credit; l itself
// when no lane can send.
func (s *network) laneTurn(l int32) int32 {
	p := s.phys(l)
	first := int32(s.laneFirst[p])
	if l == p+first*s.physLinks && s.availCredits(l) > 0 {
		return l // its turn, and it can send
	}
	c, end := p+first*s.physLinks, p+s.lanes*s.physLinks
	for range s.lanes {
		if s.ch[c].queue.len() > 0 && s.availCredits(c) > 0 {
			return c
		}
		if c += s.physLinks; c == end {
			c = p
		}
	}
	return l
}

// laneBusy marks every channel of l's physical link busy until l's
// transmission ends, passes the turn to the next lane and makes the other
// lanes with queued packets try again then.
func (s *network) laneBusy(l int32) {
	p, lane := l, int32(0)
	for p >= s.physLinks {
		p -= s.physLinks
		lane++
	}
	until := s.ch[l].busyUntil
	if lane++; lane == s.lanes {
		lane = 0
	}
	s.laneFirst[p] = uint8(lane)
	for c := p; c < p+s.lanes*s.physLinks; c += s.physLinks {
		if c == l {
			continue
		}
		s.ch[c].busyUntil = until
		if s.ch[c].queue.len() > 0 {
			s.wakeForNext(c)
		}
	}
}

// foldLanes adds the truth of every lane's channel into its physical link
// and drops the channels, so that the result has one truth per link.
func (s *network) foldLanes() {
	if s.lanes == 1 {
		return
	}
	for w, t := range s.truth {
		for c := s.physLinks; c < int32(len(t)); c++ {
			t[s.phys(c)].add(&t[c])
		}
		s.truth[w] = t[:s.physLinks]
	}
}

// setupGlobalLatency gives the links between Dragonfly groups the latency
// GlobalLatency, for packets and for returning credits.
func (s *network) setupGlobalLatency() error {
	g := s.cfg.Groups
	if s.cfg.GlobalLatency <= 0 || g == nil {
		return nil
	}
	if len(g) != s.f.NumSwitches() {
		return fmt.Errorf("global latency: %d group numbers for %d switches", len(g), s.f.NumSwitches())
	}
	s.creditLatency = make([]Time, len(s.ch))
	for c := range s.creditLatency {
		s.creditLatency[c] = s.cfg.Latency
		lk := s.f.Links[s.phys(int32(c))]
		a, b := s.f.SwitchIndex(lk.From), s.f.SwitchIndex(lk.To)
		if a >= 0 && b >= 0 && g[a] != g[b] {
			s.creditLatency[c] = s.cfg.GlobalLatency // and the packets' (arrLat)
		}
	}
	s.events.addClass(s.mtuTime + s.cfg.GlobalLatency + s.cfg.RouterDelay)
	return nil
}

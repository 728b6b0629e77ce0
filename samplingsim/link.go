package samplingsim

import "math"

// availCredits collects the credits that have arrived by now and returns
// the number in hand.
func (s *network) availCredits(l int32) int32 {
	p := &s.ch[l]
	if p.returns.n > 0 {
		s.collectCredits(p, l)
	}
	return p.credits
}

// collectCredits takes the credits that have come back over channel l (p =
// &s.ch[l]) by now into its port's hand. Kept out of line, so that
// availCredits inlines.
//
//go:noinline
func (s *network) collectCredits(p *channel, l int32) {
	for p.returns.n > 0 && s.retFront(p, l) <= s.now {
		s.returns.drop(&p.returns)
		p.credits++
	}
}

// returnCredit frees the slot of packet pid in the input buffer at the end
// of link l: the credit reaches the sender Latency later. A sender that
// waits for credits has a wake-up at its earliest return already, so only
// the first return on the way needs one. Under a dampening policy the
// credit carries the packet's tag, and its return wakes the sender even
// with an empty queue: packets or messages may wait for it.
func (s *network) returnCredit(l int32, pid int32) {
	p := &s.ch[l]
	t := s.now + s.cfg.Latency
	if s.creditLatency != nil {
		t = s.now + s.creditLatency[l]
	}
	s.retPush(p, l, t)
	if s.bufRule != nil {
		s.returnTag(l, pid, t)
		return
	}
	if p.returns.n == 1 && p.queue.len() > 0 {
		s.wake(l, max(t, p.busyUntil))
	}
}

// wake makes sure the port of link l tries to send at time t.
func (s *network) wake(l int32, t Time) {
	p := &s.ch[l]
	if p.wakeAt >= 0 && p.wakeAt <= t {
		return
	}
	p.wakeAt = t
	s.events.after(s.now, t-s.now, evWake, l, 0)
}

// wakeForNext wakes the busy port of link l when its next packet can go:
// when the link is idle again, or later when a credit comes back. With no
// credit on the way there is no wake-up: returnCredit wakes the port.
func (s *network) wakeForNext(l int32) {
	p := &s.ch[l]
	if s.bufRule != nil {
		s.wake(l, p.busyUntil) // its packets hold their credits
		return
	}
	switch {
	case p.credits > 0:
		s.wake(l, p.busyUntil)
	case p.returns.n > 0:
		s.wake(l, max(p.busyUntil, s.retFront(p, l)))
	}
}

// onWake handles a wake event of link l at time t; stale events (replaced
// by an earlier wake) are ignored.
func (s *network) onWake(l int32) {
	p := &s.ch[l]
	if p.wakeAt != s.now {
		return
	}
	p.wakeAt = -1
	s.trySend(l)
}

// pushOut appends packet pk to the output queue of link l. The queue
// holds a full-size packet as its id and a shorter one as ^id, so that
// the port sends a full-size packet without reading it (its cache line is
// cold by then; the next hop reads it).
func (s *network) pushOut(l int32, pk, bytes int32) {
	p := &s.ch[l]
	s.occupancy(l, queueArea, p.queue.len(), &p.qSince)
	e := pk
	if bytes != int32(s.cfg.MTU) {
		e = ^pk
	}
	s.queues.push(&p.queue, l, e)
	s.tick()
	if n := p.queue.len(); n > int32(p.qMax) {
		if n <= math.MaxUint8 {
			p.qMax = uint8(n)
		} else if t := &s.curTruth[l]; n > t.QueueMax {
			t.QueueMax = n
		}
	}
}

// popOut removes the head of the output queue of link l and returns it
// with its size.
func (s *network) popOut(l int32) (pid, bytes int32) {
	p := &s.ch[l]
	s.occupancy(l, queueArea, p.queue.len(), &p.qSince)
	return s.unpack(s.queues.pop(&p.queue, l))
}

// headOut returns the head of the output queue of link l.
func (s *network) headOut(l int32) int32 {
	e := s.queues.front(&s.ch[l].queue, l)
	if e < 0 {
		return ^e
	}
	return e
}

// trySend starts sending the head of the output queue of link l if the link
// is idle and a credit is in hand; otherwise it arranges to try again.
func (s *network) trySend(l int32) {
	p := &s.ch[l]
	if p.queue.len() == 0 {
		return
	}
	if s.now < p.busyUntil {
		s.availCredits(l)
		s.wakeForNext(l)
		return
	}
	if s.lanes > 1 {
		if o := s.laneTurn(l); o != l {
			l, p = o, &s.ch[o]
		}
	}
	if s.bufRule == nil && s.availCredits(l) == 0 {
		if !p.stalled {
			p.stalled = true
			s.stallSince[l] = s.now
		}
		if p.returns.n > 0 {
			s.wake(l, s.retFront(p, l))
		}
		return
	}
	if s.markAt == MarkDeparture && p.fromHost < 0 {
		s.mark(s.headOut(l), l, p.queue.len())
	}
	pid, bytes := s.popOut(l)
	s.transmit(l, pid, bytes)
}

// sendNow sends packet pid on link l at once if the port's queue is empty,
// the link idle and a credit in hand (the packet never waits in the queue),
// and reports whether it did. Marking sees a queue of one packet.
func (s *network) sendNow(l int32, pid, bytes int32) bool {
	p := &s.ch[l]
	if p.queue.len() > 0 || s.now < p.busyUntil || (s.bufRule == nil && s.availCredits(l) == 0) {
		return false
	}
	s.tick()
	if p.qMax < 1 {
		p.qMax = 1
	}
	if p.fromHost >= 0 || s.markAt != MarkArrival {
		s.mark(pid, l, 1)
	}
	if s.cc != nil {
		s.ccMark(l, pid, 1)
	}
	s.transmit(l, pid, bytes)
	return true
}

// transmit starts sending packet pid (no longer queued) of the given size
// on link l, which is idle and has a credit.
func (s *network) transmit(l int32, pid, bytes int32) {
	p := &s.ch[l]
	if p.stalled {
		s.spread(l, s.stallSince[l], s.now, addStalled)
		p.stalled = false
	}
	if s.bufRule == nil {
		p.credits-- // under a dampening policy the packet reserved it
	}
	ser := s.ser(l, bytes)
	if s.stats.on && p.fromHost >= 0 {
		s.injected(pid, p.busyUntil)
	}
	p.busyUntil = s.now + ser
	if s.lanes > 1 {
		s.laneBusy(l)
	}
	s.tick()
	if int(bytes) == s.cfg.MTU && p.busyUntil <= s.curEnd && p.sent < math.MaxUint32 {
		p.sent++ // the window's truth gains a packet, its bytes and ser at the flush
	} else {
		t := &s.curTruth[l]
		t.Packets++
		t.Bytes += int64(bytes)
		if p.busyUntil <= s.curEnd {
			t.Busy += ser
		} else {
			s.spread(l, s.now, p.busyUntil, addBusy)
		}
	}
	s.hopCount++
	s.events.after(s.now, ser+s.arrLat(p, l), evArrive, l, pid)
	if p.queue.len() > 0 {
		s.wakeForNext(l)
	}
	// The queue has room again.
	if h := p.fromHost; h >= 0 {
		s.pump(h)
	} else {
		s.serveWaiters(l)
	}
}

// ser returns the serialization time of a packet of the given size on
// channel l.
func (s *network) ser(l, bytes int32) Time {
	if int(bytes) == s.cfg.MTU {
		return s.linkMTUTime[l]
	}
	return serTime(int64(bytes), s.linkBps[l])
}

package samplingsim

// nic is the network interface of a host. Its injection queue holds the
// messages that may start, in the order they became ready; it cuts the
// current message into packets one at a time, so its injection port holds
// at most one packet and sends at line rate as credits allow. Its consumer
// drains the receive buffer at line rate, or slower for a slow host.
type nic struct {
	// ready is the injection queue (message ids); ready[rhead:] are waiting.
	ready []int32
	rhead int
	// cur is the message being cut into packets (−1 = none) and formed the
	// number of its packets formed so far.
	cur, formed int32
	// link is the injection link of the current message.
	link int32
	// consuming says whether the consumer is busy.
	consuming bool
	// rr is the receive port the consumer looks at first (round robin).
	rr int
}

// pump forms packets of host h's injection queue while its injection port
// has room.
func (s *network) pump(h int32) {
	if s.bufRule != nil {
		s.pumpDamp(h)
		return
	}
	if s.cc != nil {
		s.pumpCC(h)
		return
	}
	n := &s.nics[h]
	for {
		if n.cur < 0 {
			if n.rhead == len(n.ready) {
				n.ready, n.rhead = n.ready[:0], 0
				return
			}
			n.cur, n.formed = n.ready[n.rhead], 0
			n.rhead++
			n.link = s.f.NextHop(h, s.f.HostNode(int(h)), s.msgs[n.cur].dst)
		}
		l := n.link
		if s.ch[l].queue.len() > 0 {
			return
		}
		pid := s.formPacket(h, n.cur, n.formed, l)
		if s.ad != nil {
			s.packets[pid].mode = s.msgMode(h, n.cur, n.formed)
		}
		n.formed++
		if n.formed == s.msgs[n.cur].packets {
			n.cur = -1
		}
		if bytes := s.packets[pid].bytes; !s.sendNow(l, pid, bytes) {
			s.pushOut(l, pid, bytes)
			s.mark(pid, l, 1)
			s.trySend(l)
		}
	}
}

// formPacket forms packet formed (counted from 0) of message mid at host
// h, to leave on link l, and draws whether it is tagged; it returns the
// packet's id.
func (s *network) formPacket(h, mid, formed, l int32) int32 {
	m := &s.msgs[mid]
	bytes := int32(s.cfg.MTU)
	if formed == m.packets-1 {
		bytes = m.last
	}
	pid := s.newPacket()
	pk := &s.packets[pid]
	*pk = packet{msg: mid, src: h, dst: m.dst, out: l, sent: s.now, bytes: bytes}
	if s.routes.of != nil {
		s.setRoute(pk, mid)
	}
	if !s.sampling {
		return pid
	}
	tg := &s.headers[pid]
	tg.id = s.nextPacketID(mid)
	tg.hdr.clear()
	if s.cfg.TagFraction >= 1 {
		pk.tagged = true
	} else {
		pk.tagged = s.tagRand.Float64() < s.cfg.TagFraction
	}
	return pid
}

// arriveHost handles packet pid arriving at host h over link l: the
// receiver reads its header and the packet waits for the consumer.
func (s *network) arriveHost(l int32, h int32, pid int32) {
	s.pushIn(l, pid)
	if s.cc != nil && s.cc.pk[pid].cnp {
		s.ccBECN(pid) // a notification: no message, no header
	} else {
		if s.stats.on {
			s.delivered(pid)
		}
		s.receive(pid)
		if s.cc != nil && s.cc.pk[pid].fecn {
			s.ccNotify(h, pid)
		}
	}
	if !s.nics[h].consuming {
		s.startConsume(h)
	}
}

// startConsume starts consuming the next received packet of host h, if any.
func (s *network) startConsume(h int32) {
	if s.stopped != nil && s.stopped[h] {
		return // a host that stopped receiving (a hot spot of Kuszmaul and Kuszmaul)
	}
	n := &s.nics[h]
	ins := s.hostIn[s.hostInStart[h]:s.hostInStart[h+1]]
	for i := range ins {
		l := ins[(n.rr+i)%len(ins)]
		if s.ch[l].buf.len() == 0 {
			continue
		}
		n.rr = (n.rr + i + 1) % len(ins)
		n.consuming = true
		pid := s.headIn(l)
		pk := &s.packets[pid]
		d := s.ser(l, pk.bytes)
		if s.slow[h] {
			d = serTime(int64(pk.bytes), s.linkBps[l]*s.cfg.SlowFactor)
		}
		s.events.after(s.now, d, evConsumed, l, pid)
		return
	}
}

// onConsumed finishes consuming packet pid, the head packet of link l
// into a host.
func (s *network) onConsumed(l, pid int32) {
	h := s.ch[l].toHost
	s.popIn(l)
	m := s.packets[pid].msg
	s.freePacket(pid)
	if m >= 0 { // not a congestion notification
		ms := &s.msgs[m]
		ms.recvLeft--
		if ms.recvLeft == 0 {
			s.finish(m)
		}
	}
	s.nics[h].consuming = false
	s.startConsume(h)
}

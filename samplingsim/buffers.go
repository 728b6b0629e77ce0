package samplingsim

// The mechanics of the dampening switches in the event loop: the senders'
// mirrors of the downstream buffers, the credits that carry tags back, the
// output queues that serve the first admissible packet and the NICs that
// send the first admissible message. The rules per destination are the
// buffer policies of package buffer (buffer.Rule); see its doc for the
// model.

// admissible reports whether packet pid may enter the output queue of link
// o now: room in the queue, a credit for the downstream buffer and the
// policy's consent for its destination.
func (s *network) admissible(o, pid int32) bool {
	return s.ch[o].queue.len() < s.queueCap && s.availCredits(o) > 0 && s.admits(o, s.packets[pid].dst)
}

// admits brings the mirror of link o up to date and asks the policy about
// destination dst.
func (s *network) admits(o, dst int32) bool {
	s.syncMirror(o)
	return s.bufRule.Admit(o, dst)
}

// returnTag sends the tag of packet pid back with its credit on link l,
// arriving at t; the first tag on its way wakes the sender then, even with
// an empty queue, since packets or messages may wait for the link.
func (s *network) returnTag(l, pid int32, t Time) {
	r := &s.tagRings[l]
	s.creditTags.push(&ring{head: r.head, n: r.n}, l, s.dampStates[pid].tag)
	s.creditTagTimes.push(r, l, t)
	if r.n == 1 {
		s.wake(l, max(t, s.ch[l].busyUntil))
	}
}

// syncMirror releases in the mirror of link l the buffers whose credits
// have come back by now (they run beside the credits of availCredits).
func (s *network) syncMirror(l int32) {
	r := &s.tagRings[l]
	for r.n > 0 && s.creditTagTimes.front(r, l) <= s.now {
		s.bufRule.Release(l, s.creditTags.front(r, l))
		s.creditTagTimes.drop(r) // the tags share the ring state r
	}
}

// reserve takes the downstream slot of link o for packet pid: its credit
// and its place in the policy's mirror.
func (s *network) reserve(o, pid int32) {
	s.ch[o].credits--
	s.dampStates[pid].tag = s.bufRule.Claim(o, s.packets[pid].dst)
}

// arriveDamp handles packet pid, routed to link o, arriving at the switch
// over link l under a dampening policy: it moves on at once if o admits
// it, and otherwise waits in the input buffer, queued for o.
func (s *network) arriveDamp(l, pid, o int32) {
	pd := &s.dampStates[pid]
	pd.at = l
	if s.admissible(o, pid) {
		if s.ch[l].buf.len() == 0 {
			s.ch[l].since = s.now // as in the FIFO's fast path: the buffer stays empty
		}
		s.returnCredit(l, pid)
		s.reserve(o, pid)
		s.enqueue(o, pid, s.packets[pid].bytes)
		return
	}
	s.pushIn(l, pid)
	pd.nextWait = -1
	op := &s.ch[o]
	if op.waitHead < 0 {
		op.waitHead = pid
	} else {
		s.dampStates[op.waitTail].nextWait = pid
	}
	op.waitTail = pid
}

// serveDamp moves the packets waiting for link o that it admits, oldest
// first, while the queue has room and credits last. Packets for blocked
// destinations keep their place and are passed over.
func (s *network) serveDamp(o int32) {
	if s.serving == o {
		return // re-entered through enqueue → transmit: the loop below goes on
	}
	outer := s.serving
	s.serving = o
	op := &s.ch[o]
	prev, p := int32(-1), op.waitHead
	for p >= 0 && op.queue.len() < s.queueCap && s.availCredits(o) > 0 {
		next := s.dampStates[p].nextWait
		if !s.admits(o, s.packets[p].dst) {
			prev, p = p, next
			continue
		}
		if prev < 0 {
			op.waitHead = next
		} else {
			s.dampStates[prev].nextWait = next
		}
		if op.waitTail == p {
			op.waitTail = prev
		}
		s.removeIn(s.dampStates[p].at, p)
		s.reserve(o, p)
		s.enqueue(o, p, s.packets[p].bytes)
		p = next
	}
	s.serving = outer
}

// removeIn takes packet pid out of the input buffer of link l, wherever it
// is, and sends its credit back.
func (s *network) removeIn(l, pid int32) {
	in := &s.ch[l]
	s.occupancy(l, bufferArea, in.buf.len(), &in.since)
	removeFromRing(&s.buffers, &in.buf, l, s.entry(pid))
	s.returnCredit(l, pid)
}

// pumpDamp forms packets of host h while its injection port has room,
// taking the first ready message whose destination the first switch
// admits; a message leaves the injection queue when its last packet is
// formed.
func (s *network) pumpDamp(h int32) {
	n := &s.nics[h]
	node := s.f.HostNode(int(h))
	for {
		pick, l := -1, int32(-1)
		for i := n.rhead; i < len(n.ready); i++ {
			m := n.ready[i]
			out := s.f.NextHop(h, node, s.msgs[m].dst)
			if s.ch[out].queue.len() > 0 || s.availCredits(out) == 0 {
				continue // busy or out of credits (another port may serve others)
			}
			if s.admits(out, s.msgs[m].dst) {
				pick, l = i, out
				break
			}
		}
		if pick < 0 {
			return
		}
		mid := n.ready[pick]
		pid := s.formPacket(h, mid, s.formed[mid], l)
		if s.ad != nil {
			s.packets[pid].mode = s.msgMode(h, mid, s.formed[mid])
		}
		s.formed[mid]++
		if s.formed[mid] == s.msgs[mid].packets {
			copy(n.ready[pick:], n.ready[pick+1:])
			n.ready = n.ready[:len(n.ready)-1]
		}
		s.reserve(l, pid)
		if bytes := s.packets[pid].bytes; !s.sendNow(l, pid, bytes) {
			s.pushOut(l, pid, bytes)
			s.mark(pid, l, 1)
			s.trySend(l)
		}
	}
}

// wakeDamp handles a wake of link l under a dampening policy: returned
// credits update the mirror, the port sends, and the packets (or the NIC's
// messages) waiting for the link try again; while some still wait and
// credits are on their way, the next return wakes the port again.
func (s *network) wakeDamp(l int32) {
	p := &s.ch[l]
	if p.wakeAt != s.now {
		return // replaced by an earlier wake
	}
	p.wakeAt = -1
	s.availCredits(l)
	s.trySend(l)
	waiting := p.waitHead >= 0
	if h := s.ch[l].fromHost; h >= 0 {
		s.pump(h)
		waiting = s.nics[h].rhead < len(s.nics[h].ready)
	} else {
		s.serveDamp(l)
	}
	if r := &s.tagRings[l]; waiting && r.n > 0 {
		s.wake(l, max(s.creditTagTimes.front(r, l), p.busyUntil))
	}
}

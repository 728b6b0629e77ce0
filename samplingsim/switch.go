package samplingsim

// pushIn appends packet pk to the buffer of link l. Like an output queue
// (pushOut), the buffer holds a short packet as ^pk.
func (s *network) pushIn(l int32, pk int32) {
	in := &s.ch[l]
	s.occupancy(l, bufferArea, in.buf.len(), &in.since)
	s.buffers.push(&in.buf, l, s.entry(pk))
}

// entry returns how a queue or buffer holds packet pk: its id, or ^id for
// a packet shorter than the MTU.
func (s *network) entry(pk int32) int32 {
	if s.packets[pk].bytes != int32(s.cfg.MTU) {
		return ^pk
	}
	return pk
}

// unpack returns the packet and its size from a queue or buffer entry e.
func (s *network) unpack(e int32) (pid, bytes int32) {
	if e < 0 {
		return ^e, s.packets[^e].bytes
	}
	return e, int32(s.cfg.MTU)
}

// headIn returns the head packet of the buffer of link l.
func (s *network) headIn(l int32) int32 {
	e := s.buffers.front(&s.ch[l].buf, l)
	if e < 0 {
		return ^e
	}
	return e
}

// popIn removes the head packet of the buffer of link l, sends its credit
// back and returns the packet and its size.
func (s *network) popIn(l int32) (pid, bytes int32) {
	in := &s.ch[l]
	s.occupancy(l, bufferArea, in.buf.len(), &in.since)
	pid, bytes = s.unpack(s.buffers.pop(&in.buf, l))
	s.returnCredit(l, pid)
	return pid, bytes
}

// arriveSwitch handles packet pid arriving at the switch at the end of link
// l: it is routed by the forwarding table and joins the input buffer.
func (s *network) arriveSwitch(l int32, pid int32) {
	pk := &s.packets[pid]
	var out int32
	if s.ad == nil {
		out = s.nextLink(l, pid)
	} else {
		out = s.routeAdaptive(s.f.Links[s.phys(l)].To, pid)
	}
	if out < 0 {
		// Plan.check routes every pair first, so this is a broken fabric.
		panic("samplingsim: no route at " + s.f.Nodes[s.f.Links[s.phys(l)].To].Name + " to " + s.f.HostName(int(pk.dst)))
	}
	pk.out = out
	if s.markAt == MarkArrival {
		s.mark(pid, out, s.ch[out].queue.len()+1)
	}
	if s.bufRule != nil {
		s.arriveDamp(l, pid, out)
		return
	}
	// Fast path: nothing ahead in the input buffer and room in the output
	// queue: the packet moves on at once and its slot frees right away.
	if op := &s.ch[out]; s.ch[l].buf.len() == 0 && op.queue.len() < s.queueCap && op.waitHead < 0 {
		s.ch[l].since = s.now
		s.returnCredit(l, pid)
		s.enqueue(out, pid, pk.bytes)
		return
	}
	s.pushIn(l, pid)
	if s.ch[l].buf.len() == 1 {
		s.advance(l)
	}
}

// advance moves head packets of the input buffer of link l into their
// output queues while there is room; a head that finds its queue full (or
// others already waiting for it) joins the queue's waiting list.
func (s *network) advance(l int32) {
	for s.ch[l].buf.len() > 0 {
		pid := s.headIn(l)
		pk := &s.packets[pid]
		o := pk.out
		op := &s.ch[o]
		if op.queue.len() >= s.queueCap || op.waitHead >= 0 {
			s.ch[l].nextWait = -1
			if op.waitHead < 0 {
				op.waitHead = l
			} else {
				s.ch[op.waitTail].nextWait = l
			}
			op.waitTail = l
			return
		}
		s.popIn(l)
		s.enqueue(o, pid, pk.bytes)
	}
}

// serveWaiters is the arbiter of output queue o: while there is room, the
// input port that has waited longest moves its head packet in.
func (s *network) serveWaiters(o int32) {
	if s.bufRule != nil {
		s.serveDamp(o)
		return
	}
	op := &s.ch[o]
	for op.waitHead >= 0 && op.queue.len() < s.queueCap {
		l := op.waitHead
		op.waitHead = s.ch[l].nextWait
		pid, bytes := s.popIn(l)
		s.enqueue(o, pid, bytes)
		s.advance(l)
	}
}

// enqueue adds packet pid of the given size to the output queue of link o.
func (s *network) enqueue(o int32, pid, bytes int32) {
	if s.sendNow(o, pid, bytes) {
		return
	}
	s.pushOut(o, pid, bytes)
	if s.markAt == MarkEnqueue {
		s.mark(pid, o, s.ch[o].queue.len())
	}
	if s.cc != nil {
		s.ccMark(o, pid, s.ch[o].queue.len())
	}
	s.trySend(o)
}

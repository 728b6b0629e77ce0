package samplingsim

// channel is the state of one link direction (on one lane: a channel) that
// the event loop keeps: both of its ends side by side, because a packet
// that arrives over a link touches its input buffer and, returning the
// credit, its sending port, in one 128-byte block (the pair of cache lines
// a core fetches together).
//
// The sending end is the output port of a switch or the injection port of
// a NIC. It owns the link's credits: one per free packet slot of the
// downstream input buffer. A credit is spent when a packet starts crossing
// the link and comes back Latency after the downstream buffer frees the
// slot.
//
// The receiving end is a switch input port or a NIC receive port, with a
// FIFO buffer of InputBuffer packets. In a switch only the head packet can
// move on: when its output queue is full, the packets behind it wait too,
// even if their outputs are free (head-of-line blocking).
type channel struct {
	// busyUntil is the end of the current transmission.
	busyUntil Time
	// wakeAt is the time of the pending wake event, or −1.
	wakeAt Time
	// qSince is the time of the last change of the queue length.
	qSince Time
	// since is the time of the last change of the input buffer's length.
	since Time
	// bufArea and qArea are the integrals of the input buffer's and the
	// output queue's occupancy in the current window (packets·ps) not yet
	// added to the window's truth (LinkTruth.BufferArea, QueueArea): they
	// change when a packet arrives, queues or moves on, and the link's
	// truth line is not touched then.
	bufArea, qArea int64

	// queue is the output queue, a ring in network.queues.
	queue ring
	// returns are the credits on their way back (arrival times, ascending),
	// a ring in ret when the input buffer holds at most retInline packets,
	// else in network.returns; credits is the number in hand.
	returns ring
	credits int32
	// waitHead and waitTail are the FIFO of input ports (link ids) whose
	// head packet waits for space in this queue: the arbiter serves them
	// first come, first served. Under a dampening buffer policy they are
	// the packets (ids, linked by dampState.nextWait) waiting for this
	// queue.
	waitHead, waitTail int32

	// buf is the input buffer at the link's far end, a ring in network.buffers.
	buf ring
	// nextWait links the input ports waiting for the same output queue.
	nextWait int32

	// fromHost and toHost are the host indices of the link's ends, or −1
	// for a switch.
	fromHost, toHost int32

	// What the truth of the current window gains at this port, held here
	// and added to the window's LinkTruth when the window changes (and at
	// the end), so that a hop does not read the link's truth line: sent
	// counts the full-size packets whose transmission started and ends in
	// the window (each adds one packet, the MTU's bytes and its packet
	// time), qMax is the longest queue seen (while the queue holds at most
	// 255 packets, else the truth keeps it) and cong the packets marked
	// congested (added to the truth before it wraps).
	sent uint32
	qMax uint8
	cong uint8
	// stalled says whether the port waits for credits, since
	// network.stallSince[link].
	stalled bool

	// ret holds the returns of a small input buffer.
	ret [retInline]Time
}

// arrLat returns the time from the end of a transmission on channel l (p
// = &s.ch[l]) to the packet's arrival: the link's latency, plus the router
// delay into a switch.
func (s *network) arrLat(p *channel, l int32) Time {
	lat := s.cfg.Latency
	if s.creditLatency != nil {
		lat = s.creditLatency[l]
	}
	if p.toHost < 0 {
		lat += s.cfg.RouterDelay
	}
	return lat
}

// retInline is the largest input buffer whose credits on their way back
// fit in the channel's block: 4 packets, the default.
const retInline = 4

// retFront returns the arrival time of the first credit on its way back
// over channel l (p = &s.ch[l]), which must have one.
func (s *network) retFront(p *channel, l int32) Time {
	if s.bufferCap > retInline {
		return s.returns.front(&p.returns, l)
	}
	return p.ret[p.returns.head&(retInline-1)]
}

// retPush adds a credit arriving at t to those on their way back over
// channel l (p = &s.ch[l]). The ring in ret has retInline slots whatever
// the buffer (at most bufferCap credits are on their way).
func (s *network) retPush(p *channel, l int32, t Time) {
	if s.bufferCap > retInline {
		s.returns.push(&p.returns, l, t)
		return
	}
	p.ret[(p.returns.head+p.returns.n)&(retInline-1)] = t
	p.returns.n++
}

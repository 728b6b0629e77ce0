package samplingsim

import (
	"unsafe"

	"orcs/internal/prefetch"
)

// Reading ahead. On a large fabric nearly every line an event touches is
// cold: a hop reads its packet, the channel it arrived on and the channel
// it leaves on, each a cache miss that the processor waits for. The events
// to come are known, though: most wait in the event queue's FIFOs in the
// order they will run. So after taking an event from a FIFO the loop asks
// (prefetch, without waiting) for the lines that the events a few places
// behind it in the same FIFO will read, and the misses overlap the work in
// between.
//
// Some lines are named only by other lines: the link a packet leaves its
// switch on is in its route, the input port waiting for an output queue in
// that queue's channel. They are asked for in stages: an event's own lines
// readAheadFar events ahead, the lines those name readAheadMid and
// readAheadNear events ahead, when the first have had time to arrive.
// Reading ahead only chooses addresses; what the events do is unchanged.
const (
	readAheadFar  = 5
	readAheadMid  = 2
	readAheadNear = 1
)

// readAheadBytes is the size of the channels (one lane's) from which on a
// run reads ahead: below it the lines mostly stay in a core's cache, and
// asking for them only costs instructions (a tenth more per event). A
// variable for tests.
var readAheadBytes = 1 << 20

// maxLinesAhead bounds the lines linesAhead names for one event (a power
// of two).
const maxLinesAhead = 16

// readAheadOf asks for the lines of the events behind the head of event
// source src.
func (s *network) readAheadOf(src int) {
	if n := s.linesAhead(src, &s.ahead); n > 0 {
		prefetch.Lines(s.ahead[:n])
	}
}

// linesAhead puts into lines the addresses of the lines that the events
// behind the head of event source src will read and returns their number
// (none for the heap). Addresses that are only asked for are computed
// without bounds checks (asking for any address is safe); the values read
// to find others are indexed as usual.
func (s *network) linesAhead(src int, lines *[maxLinesAhead]uintptr) int {
	if src >= s.events.nf {
		return 0
	}
	n := 0
	put := func(a uintptr) {
		lines[n&(maxLinesAhead-1)] = a
		n++
	}
	chBase := uintptr(unsafe.Pointer(unsafe.SliceData(s.ch)))
	pkBase := uintptr(unsafe.Pointer(unsafe.SliceData(s.packets)))
	channel := func(c int32) {
		a := chBase + uintptr(c)*unsafe.Sizeof(channel{})
		put(a)
		put(a + 64) // the block's second line
	}
	packet := func(p int32) { put(pkBase + uintptr(p)*unsafe.Sizeof(packet{})) }
	slot := func(r *ringSlab[int32], c int32) {
		put(uintptr(unsafe.Pointer(unsafe.SliceData(r.buf))) + uintptr(c*r.size)*4)
	}
	f := &s.events.fifos[src]
	mask := len(f.buf) - 1
	if f.n > readAheadFar {
		e := &f.buf[(f.head+readAheadFar)&mask]
		switch e.kind() {
		case evArrive: // arriveSwitch, arriveHost
			channel(e.a)
			packet(e.b)
		case evWake: // trySend: the channel and its output queue
			channel(e.a)
			slot(&s.queues, e.a)
		case evConsumed: // onConsumed: the receive buffer and its head
			channel(e.a)
			packet(e.b)
			slot(&s.buffers, e.a)
		}
	}
	// Under a dampening policy the waiting list holds packets, not ports.
	if f.n > readAheadMid && s.bufRule == nil {
		e := &f.buf[(f.head+readAheadMid)&mask]
		if e.kind() == evWake {
			// serveWaiters: the input port waiting longest for the queue.
			if w := s.ch[e.a].waitHead; w >= 0 {
				channel(w)
				slot(&s.buffers, w)
			}
		}
	}
	if f.n > readAheadNear {
		e := &f.buf[(f.head+readAheadNear)&mask]
		switch e.kind() {
		case evArrive:
			// The link the packet leaves its switch on (nextLink).
			if pk := &s.packets[e.b]; pk.rt == routeInline && pk.hops < inlineHops && s.ch[e.a].toHost < 0 {
				channel(pk.route[pk.hops])
			}
		case evConsumed:
			// The message's progress and the receiving NIC.
			if m := s.packets[e.b].msg; m >= 0 { // not a congestion notification
				put(uintptr(unsafe.Pointer(&s.msgs[m])))
			}
			put(uintptr(unsafe.Pointer(&s.nics[s.ch[e.a].toHost])))
		case evWake:
			// The waiting port's head packet, which moves on, and the one
			// behind it, whose output advance reads next.
			if s.bufRule != nil {
				break
			}
			if w := s.ch[e.a].waitHead; w >= 0 {
				in := &s.ch[w]
				for i := range min(in.buf.len(), 2) {
					j := int32(in.buf.head) + i
					if j >= s.bufferCap {
						j -= s.bufferCap
					}
					pid := s.buffers.buf[w*s.bufferCap+j]
					if pid < 0 {
						pid = ^pid
					}
					packet(pid)
				}
			}
		}
	}
	return n
}

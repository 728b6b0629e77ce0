package samplingsim

import (
	"math"

	"orcs/samplingsim/plan"
)

// Time is simulated time in picoseconds.
type Time = plan.Time

// Units of Time.
const (
	Picosecond  = plan.Picosecond
	Nanosecond  = plan.Nanosecond
	Microsecond = plan.Microsecond
	Millisecond = plan.Millisecond
	Second      = plan.Second
)

// eventKind says what an event does.
type eventKind uint8

const (
	// evArrive: packet b has fully arrived over link a (store and forward).
	evArrive eventKind = iota
	// evWake: output port of link a may be able to send (link idle again or
	// credits returned).
	evWake
	// evConsumed: the consumer of the host at the end of link a has
	// finished packet b, the head of that link's receive buffer.
	evConsumed
	// evReady: message a may start (its start time has come); a < 0: the
	// NIC of host ^a, throttled by congestion control, may send again.
	evReady
)

// event is one scheduled event. Events with equal times run in the order
// they were scheduled (seq), which makes a run deterministic.
type event struct {
	t    Time
	seq  uint64 // scheduling order << 2 | kind
	a, b int32
}

func (e *event) kind() eventKind { return eventKind(e.seq & 3) }

// before reports whether e runs before o.
func (e *event) before(o *event) bool {
	return e.t < o.t || e.t == o.t && e.seq < o.seq
}

// eventQueue orders events by (time, seq). Most events of a run are
// scheduled a fixed delay after the current time (a packet time, a packet
// time plus a link latency), and since the current time never decreases the
// events of one delay are scheduled in time order: each such delay gets a
// FIFO, and only the other events go to a 4-ary heap. The next event is the
// earliest of the sources' first events (the FIFOs' heads and the heap's
// top). The queue keeps the sources sorted by the key of their first event
// (order), so that pop takes the first source's event and moves that
// source down past the sources whose first events now come before its new
// one: usually none or one.
type eventQueue struct {
	h      []event
	fifos  [maxFIFOs]fifo
	delays [maxFIFOs]Time
	nf     int // FIFOs in use; source nf is the heap
	// key[src] is the key of source src's first event (noKey: empty);
	// order holds the sources 0..nf, earliest key first.
	key   [maxFIFOs + 1]eventKey
	order [maxFIFOs + 1]uint8
	n     int
	seq   uint64
	// last is the source of the event pop returned last (nf: the heap).
	last int
}

// eventKey is what orders events: time, then scheduling order.
type eventKey struct {
	t   Time
	seq uint64
}

// less reports whether k comes before o.
func (k *eventKey) less(o *eventKey) bool {
	return k.t < o.t || k.t == o.t && k.seq < o.seq
}

// noKey is the key of an empty source: after every event.
var noKey = eventKey{t: math.MaxInt64, seq: math.MaxUint64}

// maxFIFOs bounds the number of delay classes; further delays use the heap.
const maxFIFOs = 8

// fifo is a ring of events scheduled with the same delay. Unlike the
// fixed-size per-link rings of a ringSlab it has no bound on its length, so
// it grows by doubling and indexes with a power-of-two mask.
type fifo struct {
	buf     []event
	head, n int
}

func (f *fifo) push(e event) {
	if f.n == len(f.buf) {
		nb := make([]event, max(64, 2*len(f.buf)))
		for i := range f.n {
			nb[i] = f.buf[(f.head+i)&(len(f.buf)-1)]
		}
		f.buf, f.head = nb, 0
	}
	f.buf[(f.head+f.n)&(len(f.buf)-1)] = e
	f.n++
}

// len returns the number of scheduled events.
func (q *eventQueue) len() int { return q.n }

// init makes the heap the only source; the queue must be empty.
func (q *eventQueue) init() {
	q.nf = 0
	q.key[0], q.order[0] = noKey, 0
}

// after schedules an event delay after now.
func (q *eventQueue) after(now, delay Time, k eventKind, a, b int32) {
	q.seq += 4
	e := event{t: now + delay, seq: q.seq | uint64(k), a: a, b: b}
	q.n++
	for i := range q.nf {
		if q.delays[i] == delay {
			f := &q.fifos[i]
			f.push(e)
			if f.n == 1 {
				q.key[i] = eventKey{e.t, e.seq}
				q.rise(uint8(i))
			}
			return
		}
	}
	q.heapPush(e)
}

// addClass gives events scheduled delay after now a FIFO of their own
// (up to maxFIFOs classes; the heap takes the others). Classes are added
// before any event is scheduled.
func (q *eventQueue) addClass(delay Time) {
	if q.nf == 0 {
		q.init()
	}
	for i := range q.nf {
		if q.delays[i] == delay {
			return
		}
	}
	if q.nf < maxFIFOs {
		// The new FIFO takes source number nf; the heap moves to nf+1.
		q.delays[q.nf] = delay
		q.nf++
		for i := range q.nf + 1 {
			q.key[i], q.order[i] = noKey, uint8(i)
		}
	}
}

// push schedules an event at time t.
func (q *eventQueue) push(t Time, k eventKind, a, b int32) {
	q.seq += 4
	q.n++
	q.heapPush(event{t: t, seq: q.seq | uint64(k), a: a, b: b})
}

// rise moves source src, whose key has come earlier, up the order.
func (q *eventQueue) rise(src uint8) {
	i := 0
	for q.order[i] != src {
		i++
	}
	k := &q.key[src]
	for ; i > 0 && k.less(&q.key[q.order[i-1]]); i-- {
		q.order[i] = q.order[i-1]
	}
	q.order[i] = src
}

// sink moves the first source, whose key has come later, down the order.
func (q *eventQueue) sink() {
	src := q.order[0]
	k := &q.key[src]
	i := 0
	for ; i < q.nf && q.key[q.order[i+1]].less(k); i++ {
		q.order[i] = q.order[i+1]
	}
	q.order[i] = src
}

func (q *eventQueue) heapPush(e event) {
	if q.nf == 0 && len(q.h) == 0 {
		q.init() // a queue without classes
	}
	h := append(q.h, e)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !e.before(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
	q.h = h
	if i == 0 {
		q.key[q.nf] = eventKey{e.t, e.seq}
		q.rise(uint8(q.nf))
	}
}

// pop removes and returns the earliest event. The queue must not be empty.
func (q *eventQueue) pop() event {
	q.n--
	src := int(q.order[0])
	q.last = src
	var e event
	if src == q.nf {
		e = q.heapPop()
		if len(q.h) > 0 {
			q.key[src] = eventKey{q.h[0].t, q.h[0].seq}
		} else {
			q.key[src] = noKey
		}
	} else {
		f := &q.fifos[src]
		e = f.buf[f.head]
		f.head = (f.head + 1) & (len(f.buf) - 1)
		f.n--
		if f.n > 0 {
			next := &f.buf[f.head]
			q.key[src] = eventKey{next.t, next.seq}
		} else {
			q.key[src] = noKey
		}
	}
	q.sink()
	return e
}

func (q *eventQueue) heapPop() event {
	h := q.h
	top := h[0]
	n := len(h) - 1
	last := h[n]
	h = h[:n]
	q.h = h
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		end := min(c+4, n)
		for j := c + 1; j < end; j++ {
			if h[j].before(&h[m]) {
				m = j
			}
		}
		if !h[m].before(&last) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = last
	return top
}

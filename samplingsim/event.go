package samplingsim

// Time is simulated time in picoseconds.
type Time = int64

// Units of Time.
const (
	Picosecond  Time = 1
	Nanosecond  Time = 1000
	Microsecond Time = 1000 * Nanosecond
	Millisecond Time = 1000 * Microsecond
)

// eventKind says what an event does.
type eventKind uint8

const (
	// evArrive: packet b has fully arrived over link a (store and forward).
	evArrive eventKind = iota
	// evWake: output port of link a may be able to send (link idle again or
	// credits returned).
	evWake
	// evConsumed: the consumer of host a has finished the head packet of its
	// receive buffer.
	evConsumed
	// evReady: message a may start (its start time has come).
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
// earliest of the heap's top and the FIFOs' heads.
type eventQueue struct {
	h     []event
	fifos []fifo
	n     int
	seq   uint64
}

// maxFIFOs bounds the number of delay classes; further delays use the heap.
const maxFIFOs = 8

// fifo is a ring of events scheduled with the same delay. Unlike the
// fixed-size per-link rings of a ringSlab it has no bound on its length, so
// it grows by doubling and indexes with a power-of-two mask.
type fifo struct {
	delay   Time
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

// after schedules an event delay after now.
func (q *eventQueue) after(now, delay Time, k eventKind, a, b int32) {
	q.seq += 4
	e := event{t: now + delay, seq: q.seq | uint64(k), a: a, b: b}
	q.n++
	for i := range q.fifos {
		if q.fifos[i].delay == delay {
			q.fifos[i].push(e)
			return
		}
	}
	q.heapPush(e)
}

// addClass gives events scheduled delay after now a FIFO of their own
// (up to maxFIFOs classes; the heap takes the others).
func (q *eventQueue) addClass(delay Time) {
	for _, f := range q.fifos {
		if f.delay == delay {
			return
		}
	}
	if len(q.fifos) < maxFIFOs {
		q.fifos = append(q.fifos, fifo{delay: delay})
	}
}

// push schedules an event at time t.
func (q *eventQueue) push(t Time, k eventKind, a, b int32) {
	q.seq += 4
	q.n++
	q.heapPush(event{t: t, seq: q.seq | uint64(k), a: a, b: b})
}

func (q *eventQueue) heapPush(e event) {
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
}

// pop removes and returns the earliest event. The queue must not be empty.
func (q *eventQueue) pop() event {
	q.n--
	best := -1
	var top *event
	if len(q.h) > 0 {
		top = &q.h[0]
	}
	for i := range q.fifos {
		f := &q.fifos[i]
		if f.n == 0 {
			continue
		}
		if e := &f.buf[f.head]; top == nil || e.before(top) {
			top, best = e, i
		}
	}
	if best >= 0 {
		f := &q.fifos[best]
		e := *top
		f.head = (f.head + 1) & (len(f.buf) - 1)
		f.n--
		return e
	}
	return q.heapPop()
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

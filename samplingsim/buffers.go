package samplingsim

import (
	"fmt"
	"strings"

	"orcs/registry"
)

// A buffer policy says which packets an input port may hold (Kuszmaul and
// Kuszmaul, "Few buffers, many hot spots, and no tree saturation", SPAA
// 2014). The default, "fifo", is the switch of switch.go: one FIFO per input
// port whose head alone can move (head-of-line blocking) and no rule per
// destination. Every other policy turns the input buffers into the
// dampening switch of the paper:
//
//   - per-destination flow control: the sender of a link keeps a mirror of
//     the downstream input buffer (which destinations hold which slots) and
//     sends a packet for destination d only when the policy admits d there.
//     The mirror is updated as credits are: a slot is claimed when the
//     sender reserves it and released when the credit, which carries the
//     destination or slot that freed, comes back Latency after the slot
//     frees. So the sender's view is conservative and a rule is never
//     broken by packets in flight;
//   - a packet reserves its downstream slot (its credit) as it enters the
//     output queue, so an output queue holds only packets that can go, and
//     a packet whose destination is blocked waits in its input buffer;
//   - any packet of an input buffer whose output admits it moves on (no
//     head-of-line blocking): each output queue keeps the packets waiting
//     for it in arrival order and serves the first admissible one;
//   - a NIC sends the first of its ready messages whose destination the
//     first switch admits, so a message to a blocked hot spot does not hold
//     up the others.
//
// Policies are registered by name, one file each (buf_*.go); their rules
// are plain function values chosen once, over flat per-link state.
type bufferPolicy struct {
	name   string
	doc    string
	params []registry.Param
	// build reads the parameters and returns the rule for the fabric of env
	// (nil for the FIFO); it returns r.Err() when that is not nil.
	build func(r *registry.Reader, env bufferEnv) (*dampener, error)
}

// bufferEnv is what a buffer policy is built for: the links and hosts of
// the fabric (0 when only the parameters are checked), the buffers per
// input port and the run's seed.
type bufferEnv struct {
	links, hosts int
	slots        int32
	seed         uint64
}

func (p *bufferPolicy) parameters() []registry.Param { return p.params }

// dampener is a configured per-destination rule over the senders' mirrors
// of the downstream input buffers.
type dampener struct {
	// admit reports whether the input buffer at the end of link l accepts
	// one more packet for destination dst (given a free slot).
	admit func(l, dst int32) bool
	// claim records a packet for dst entering that buffer and returns its
	// tag (the slot it takes, or dst), which comes back with its credit.
	claim func(l, dst int32) int32
	// release records the packet with tag leaving that buffer.
	release func(l, tag int32)
}

// bufferPolicies holds the buffer policies by name.
var bufferPolicies = registry.New[*bufferPolicy]("buffer policy")

// registerBuffers adds a policy; called from init functions. It panics on
// a duplicate or invalid name.
func registerBuffers(p *bufferPolicy) { bufferPolicies.Register(p.name, p.doc, p) }

// BufferNames lists the registered buffer policies with their parameters
// and descriptions, sorted by name, for help texts.
func BufferNames() []string {
	var out []string
	for _, p := range bufferPolicies.All() {
		out = append(out, describe(p.name, p.doc, p.params))
	}
	return out
}

// parseBuffers parses a buffer policy spec such as "hashed:j=3" and builds
// its rule for env.
func parseBuffers(text string, env bufferEnv) (*dampener, error) {
	p, r, err := lookupSpec(bufferPolicies, text)
	if err != nil {
		return nil, err
	}
	d, err := p.build(r, env)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", bufferPolicies.Kind(), strings.TrimSpace(text), err)
	}
	return d, nil
}

// bufferName returns the policy name of a buffer spec ("" if it does not
// parse).
func bufferName(text string) string {
	sp, err := registry.Parse(text)
	if err != nil {
		return ""
	}
	return sp.Name
}

// admissible reports whether packet pid may enter the output queue of link
// o now: room in the queue, a credit for the downstream buffer and the
// policy's consent for its destination.
func (s *sim) admissible(o, pid int32) bool {
	return s.ch[o].queue.len() < s.qcap && s.availCredits(o) > 0 && s.admits(o, s.pk[pid].dst)
}

// admits brings the mirror of link o up to date and asks the policy about
// destination dst.
func (s *sim) admits(o, dst int32) bool {
	s.syncMirror(o)
	return s.damp.admit(o, dst)
}

// returnTag sends the tag of packet pid back with its credit on link l,
// arriving at t; the first tag on its way wakes the sender then, even with
// an empty queue, since packets or messages may wait for the link.
func (s *sim) returnTag(l, pid int32, t Time) {
	r := &s.dret[l]
	s.retTag.push(&ring{head: r.head, n: r.n}, l, s.pkd[pid].tag)
	s.retTime.push(r, l, t)
	if r.n == 1 {
		s.wake(l, max(t, s.ch[l].busyUntil))
	}
}

// syncMirror releases in the mirror of link l the buffers whose credits
// have come back by now (they run beside the credits of availCredits).
func (s *sim) syncMirror(l int32) {
	r := &s.dret[l]
	for r.n > 0 && s.retTime.front(r, l) <= s.now {
		s.damp.release(l, s.retTag.front(r, l))
		s.retTime.drop(r) // the tags share the ring state r
	}
}

// reserve takes the downstream slot of link o for packet pid: its credit
// and its place in the policy's mirror.
func (s *sim) reserve(o, pid int32) {
	s.ch[o].credits--
	s.pkd[pid].tag = s.damp.claim(o, s.pk[pid].dst)
}

// arriveDamp handles packet pid, routed to link o, arriving at the switch
// over link l under a dampening policy: it moves on at once if o admits
// it, and otherwise waits in the input buffer, queued for o.
func (s *sim) arriveDamp(l, pid, o int32) {
	pd := &s.pkd[pid]
	pd.at = l
	if s.admissible(o, pid) {
		if s.ch[l].buf.len() == 0 {
			s.ch[l].since = s.now // as in the FIFO's fast path: the buffer stays empty
		}
		s.returnCredit(l, pid)
		s.reserve(o, pid)
		s.enqueue(o, pid, s.pk[pid].bytes)
		return
	}
	s.pushIn(l, pid)
	pd.nextWait = -1
	op := &s.ch[o]
	if op.waitHead < 0 {
		op.waitHead = pid
	} else {
		s.pkd[op.waitTail].nextWait = pid
	}
	op.waitTail = pid
}

// serveDamp moves the packets waiting for link o that it admits, oldest
// first, while the queue has room and credits last. Packets for blocked
// destinations keep their place and are passed over.
func (s *sim) serveDamp(o int32) {
	if s.serving == o {
		return // re-entered through enqueue → transmit: the loop below goes on
	}
	outer := s.serving
	s.serving = o
	op := &s.ch[o]
	prev, p := int32(-1), op.waitHead
	for p >= 0 && op.queue.len() < s.qcap && s.availCredits(o) > 0 {
		next := s.pkd[p].nextWait
		if !s.admits(o, s.pk[p].dst) {
			prev, p = p, next
			continue
		}
		if prev < 0 {
			op.waitHead = next
		} else {
			s.pkd[prev].nextWait = next
		}
		if op.waitTail == p {
			op.waitTail = prev
		}
		s.removeIn(s.pkd[p].at, p)
		s.reserve(o, p)
		s.enqueue(o, p, s.pk[p].bytes)
		p = next
	}
	s.serving = outer
}

// removeIn takes packet pid out of the input buffer of link l, wherever it
// is, and sends its credit back.
func (s *sim) removeIn(l, pid int32) {
	in := &s.ch[l]
	s.occupancy(l, bufferArea, in.buf.len(), &in.since)
	removeFromRing(&s.buffers, &in.buf, l, s.entry(pid))
	s.returnCredit(l, pid)
}

// pumpDamp forms packets of host h while its injection port has room,
// taking the first ready message whose destination the first switch
// admits; a message leaves the injection queue when its last packet is
// formed.
func (s *sim) pumpDamp(h int32) {
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
			s.pk[pid].mode = s.msgMode(h, mid, s.formed[mid])
		}
		s.formed[mid]++
		if s.formed[mid] == s.msgs[mid].packets {
			copy(n.ready[pick:], n.ready[pick+1:])
			n.ready = n.ready[:len(n.ready)-1]
		}
		s.reserve(l, pid)
		if bytes := s.pk[pid].bytes; !s.sendNow(l, pid, bytes) {
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
func (s *sim) wakeDamp(l int32) {
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
	if r := &s.dret[l]; waiting && r.n > 0 {
		s.wake(l, max(s.retTime.front(r, l), p.busyUntil))
	}
}

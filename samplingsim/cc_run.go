package samplingsim

import (
	"fmt"
	"math"

	"orcs/lft"
)

// ccState is InfiniBand congestion control in the event loop (cc.go has
// the settings): the switch ports' marking, the destinations' BECNs and
// the sources' flows with their CCT index and next allowed injection.
type ccState struct {
	set *CongestionControl
	// thr is the output queue length from which a port marks
	// (math.MaxInt32: never), minBytes the smallest packet it marks and
	// rate the packets it leaves unmarked between two marked ones.
	thr, minBytes int32
	rate          uint16
	victim        []bool   // by channel: the port marks as a victim too
	skip          []uint16 // by channel: packets still to leave unmarked
	marked        []int64  // by channel: packets marked (FECN)
	pk            []ccPacket
	flowOf        []int32 // by message: its flow
	left          []int32 // by message: packets still to form
	flows         []ccFlow
	// seen stamps the flows a NIC's look-ahead has met (pumpCC), with
	// stamp the current stamp.
	seen  []uint32
	stamp uint32
	// caOn says whether the hosts react to BECNs (SL 0 valid in the CA
	// control map); period is CCTI_Timer (0: the index never drops).
	caOn                     bool
	period                   Time
	inc, min, limit, trigger int32
	cct                      []CCTEntry // by CCT index, up to the limit
	// notes holds the BECNs each host still has to send (notes[h][noteHead[h]:]).
	notes    [][]ccNote
	noteHead []int32
	wakeAt   []Time  // by host: the pending wake-up of its throttled NIC (−1: none)
	scanned  []int32 // by host: its injection queue's length when it last found every flow waiting
	hostLink []int32 // by host: its one link into the fabric (−1: several, ask the tables)
	// cnps counts the notifications sent, becns those applied, triggers
	// the times a flow's index reached the trigger threshold.
	cnps, becns, triggers int64
}

// ccPacket is what congestion control keeps of a packet in flight: its
// flow, its FECN bit and whether it is a notification (a BECN to flow's
// source).
type ccPacket struct {
	flow      int32
	fecn, cnp bool
}

// ccNote is a BECN waiting at a destination's NIC: to host dst for flow.
type ccNote struct{ dst, flow int32 }

// ccFlow is a source's congestion-control state of one flow.
type ccFlow struct {
	src, dst int32 // dst −1: a per-SL flow of every destination
	ccti     int32 // the CCT index
	// start is when the flow's timer started (its index left CCTI_Min)
	// and ticks the expiries since then applied to the index.
	start Time
	ticks int64
	next  Time // the earliest time its next packet may be formed
	free  Time // when its last packet's time on the link ended
	// throttled is the time the NIC waited for the flow's delay; sum is
	// the sum of the indexes its packets were sent at.
	throttled           Time
	packets, sum, becns int64
	marked              int64
	maxCCTI             int32
}

// setupCC sets up congestion control when the configuration asks for it.
func (s *network) setupCC() error {
	set := s.cfg.CC
	if !set.active() {
		return nil
	}
	if err := set.check(); err != nil {
		return fmt.Errorf("congestion control: %w", err)
	}
	if s.ad != nil {
		return fmt.Errorf("congestion control with adaptive routing: the notifications (BECNs) follow the forwarding tables back, and adaptive routing has no rate limiter per flow to slow; run it with --routing static")
	}
	if s.bufRule != nil {
		return fmt.Errorf("congestion control with --buffers %s: the dampening switches already hold packets per destination and their NICs interleave messages, so no flow has one injection to throttle; run it with --buffers fifo", s.cfg.Buffers)
	}
	L, H := s.channels(), s.f.NumHosts()
	c := &ccState{set: set, thr: math.MaxInt32, minBytes: int32(set.PacketSize) * CCCreditBytes,
		victim: make([]bool, L), skip: make([]uint16, L), marked: make([]int64, L),
		notes: make([][]ccNote, H), noteHead: make([]int32, H), wakeAt: make([]Time, H)}
	if t := set.MarkThreshold(int(s.queueCap)); t > 0 {
		c.thr = int32(t)
	}
	if set.SwitchControlMap&(1<<2) == 0 {
		c.minBytes = 0
	}
	if set.SwitchControlMap&(1<<4) != 0 {
		c.rate = set.MarkingRate
	}
	for l, lk := range s.f.Links {
		if s.f.SwitchIndex(lk.From) < 0 {
			continue
		}
		port := int(lk.FromPort)
		if port <= 0 {
			for i, o := range s.f.OutLinks(lk.From) {
				if o == int32(l) {
					port = i + 1
				}
			}
		}
		c.victim[l] = set.victim(port) || set.VictimHostPorts && s.ch[l].toHost >= 0
	}
	c.hostLink, c.scanned = make([]int32, H), make([]int32, H)
	for h := range c.wakeAt {
		c.wakeAt[h] = -1
		c.hostLink[h] = -1
		if out := s.f.OutLinks(s.f.HostNode(h)); len(out) == 1 {
			c.hostLink[h] = out[0]
		}
	}
	ca := set.CA[0]
	c.caOn = set.CAControlMap&1 != 0
	c.period = Time(ca.Timer) * CCTIPeriod
	c.inc, c.min, c.limit, c.trigger = int32(ca.Increase), int32(ca.Min), int32(set.Limit()), int32(ca.TriggerThreshold)
	c.min = min(c.min, c.limit)
	c.cct = make([]CCTEntry, c.limit+1)
	copy(c.cct, set.CCT)
	if err := s.setupCCFlows(c); err != nil {
		return err
	}
	c.seen = make([]uint32, len(c.flows))
	c.left = make([]int32, len(s.msgs))
	for m := range s.msgs {
		c.left[m] = s.msgs[m].packets
	}
	s.cc = c
	return nil
}

// setupCCFlows numbers the plan's flows (per source and destination, or
// per source when the hosts keep one flow per service level) and checks
// that every destination can route its BECNs back.
func (s *network) setupCCFlows(c *ccState) error {
	c.flowOf = make([]int32, len(s.plan.Msgs))
	ids := map[[2]int32]int32{}  // by flow: its id
	pairs := map[[2]int32]bool{} // per SL: the pairs whose way back is checked
	var keys [][2]int32          // by id: the flow
	var route []int32
	for i, m := range s.plan.Msgs {
		pair := [2]int32{m.Src, m.Dst}
		k := pair
		if c.set.SLBased() {
			k[1] = -1
		}
		id, ok := ids[k]
		if !ok {
			id = int32(len(keys))
			ids[k] = id
			keys = append(keys, k)
		}
		c.flowOf[i] = id
		if c.set.SLBased() {
			if ok = pairs[pair]; !ok {
				pairs[pair] = true
			}
		}
		if !ok {
			var st lft.RouteStatus
			if route, st = s.f.AppendRoute(route[:0], m.Dst, m.Src); st != lft.RouteOK {
				return fmt.Errorf("congestion control: %s cannot return BECNs to %s: no route back", s.f.HostName(int(m.Dst)), s.f.HostName(int(m.Src)))
			}
		}
	}
	c.flows = make([]ccFlow, len(keys))
	for id, k := range keys {
		c.flows[id] = ccFlow{src: k[0], dst: k[1], ccti: c.min}
	}
	return nil
}

// ccIndex brings flow f's index up to date with its timer and returns
// it. The timer runs while the index is above CCTI_Min: it starts with the
// BECN that raises the index from there and lowers the index by one every
// period after.
func (c *ccState) ccIndex(f *ccFlow, now Time) int32 {
	if c.period > 0 && f.ccti > c.min {
		k := int64((now - f.start) / c.period)
		f.ccti = int32(max(int64(c.min), int64(f.ccti)-(k-f.ticks)))
		f.ticks = k
	}
	return f.ccti
}

// ccMark runs a switch port's marking for packet pid entering the output
// queue of link l, which then holds q packets: a port at or above the
// threshold marks when it is the root of the congestion (it has credits:
// its own link is the bottleneck) or a victim port of the mask, and the
// packet is large enough; the marking rate leaves packets unmarked
// between two marked ones.
func (s *network) ccMark(l, pid, q int32) {
	c := s.cc
	if q < c.thr || s.ch[l].fromHost >= 0 {
		return
	}
	p := &c.pk[pid]
	if p.cnp || s.packets[pid].bytes < c.minBytes || p.fecn {
		return
	}
	if !c.victim[l] && s.availCredits(l) == 0 {
		return // a victim of congestion further on
	}
	if c.skip[l] > 0 {
		c.skip[l]--
		return
	}
	c.skip[l] = c.rate
	p.fecn = true
	c.marked[l]++
	c.flows[p.flow].marked++
}

// ccBECN applies notification pid at its destination, the flow's
// source: the flow's index rises by CCTI_Increase up to the limit.
func (s *network) ccBECN(pid int32) {
	c := s.cc
	c.becns++
	if !c.caOn {
		return
	}
	f := &c.flows[c.pk[pid].flow]
	i := c.ccIndex(f, s.now)
	if i == c.min { // the timer starts
		f.start, f.ticks = s.now, 0
	}
	f.ccti = min(i+c.inc, c.limit)
	f.becns++
	f.maxCCTI = max(f.maxCCTI, f.ccti)
	if c.trigger > 0 && i < c.trigger && f.ccti >= c.trigger {
		c.triggers++
	}
}

// ccNotify makes host h, which has received the marked packet pid, send a
// BECN to the packet's source.
func (s *network) ccNotify(h, pid int32) {
	c := s.cc
	c.notes[h] = append(c.notes[h], ccNote{dst: s.packets[pid].src, flow: c.pk[pid].flow})
	s.pump(h)
}

// ccSendNotes sends the BECNs waiting at host h's NIC, ahead of its data,
// while its injection port has room; it reports whether the port is full.
func (s *network) ccSendNotes(h int32) bool {
	c := s.cc
	for c.noteHead[h] < int32(len(c.notes[h])) {
		nt := c.notes[h][c.noteHead[h]]
		l := s.ccInjection(h, nt.dst)
		if s.ch[l].queue.len() > 0 {
			return true
		}
		c.noteHead[h]++
		pid := s.newPacket()
		s.packets[pid] = packet{msg: -1, src: h, dst: nt.dst, out: l, sent: s.now, bytes: CNPBytes, rt: routeUncached}
		c.pk[pid] = ccPacket{flow: nt.flow, cnp: true}
		if s.sampling {
			s.headers[pid] = packetTag{}
		}
		c.cnps++
		if !s.sendNow(l, pid, CNPBytes) {
			s.pushOut(l, pid, CNPBytes)
			s.mark(pid, l, 1)
			s.trySend(l)
		}
	}
	c.notes[h], c.noteHead[h] = c.notes[h][:0], 0
	return false
}

// ccLookAhead bounds how far into its injection queue a NIC looks for a
// flow whose delay has passed.
const ccLookAhead = 64

// pumpCC forms packets of host h while its injection port has room, as
// pump does, with congestion control: BECNs go first, and the NIC serves
// the first flow (of the first ccLookAhead messages, each flow's messages
// in order) whose inter-packet delay has passed, as an HCA's queue pairs
// are served apart; when every such flow waits, it wakes at the earliest.
func (s *network) pumpCC(h int32) {
	c, n := s.cc, &s.nics[h]
	for {
		if s.ccSendNotes(h) {
			return
		}
		if l := c.hostLink[h]; l >= 0 && s.ch[l].queue.len() > 0 {
			return // the port is full
		}
		if c.wakeAt[h] > s.now && int32(len(n.ready)) == c.scanned[h] {
			return // every flow the last look found still waits, and no message came
		}
		for n.rhead < len(n.ready) && c.left[n.ready[n.rhead]] == 0 {
			n.rhead++
		}
		if n.rhead == len(n.ready) {
			n.ready, n.rhead = n.ready[:0], 0
			return
		}
		c.stamp++
		pick, wake := int32(-1), Time(-1)
		for i := n.rhead; i < len(n.ready) && i < n.rhead+ccLookAhead; i++ {
			m := n.ready[i]
			fl := c.flowOf[m]
			if c.left[m] == 0 || c.seen[fl] == c.stamp {
				continue
			}
			c.seen[fl] = c.stamp
			if nx := c.flows[fl].next; nx > s.now {
				if wake < 0 || nx < wake {
					wake = nx
				}
				continue
			}
			pick = m
			break
		}
		if pick < 0 {
			c.scanned[h] = int32(len(n.ready))
			if wake >= 0 && c.wakeAt[h] != wake {
				c.wakeAt[h] = wake
				s.events.push(wake, evReady, ^h, 0)
			}
			return
		}
		l := s.ccInjection(h, s.msgs[pick].dst)
		if s.ch[l].queue.len() > 0 {
			return
		}
		pid := s.formPacket(h, pick, s.msgs[pick].packets-c.left[pick], l)
		c.left[pick]--
		s.ccFormed(pid, pick, l)
		if bytes := s.packets[pid].bytes; !s.sendNow(l, pid, bytes) {
			s.pushOut(l, pid, bytes)
			s.mark(pid, l, 1)
			s.trySend(l)
		}
	}
}

// ccInjection returns the link host h sends a packet to dst on.
func (s *network) ccInjection(h, dst int32) int32 {
	if l := s.cc.hostLink[h]; l >= 0 {
		return l
	}
	return s.f.NextHop(h, s.f.HostNode(int(h)), dst)
}

// ccWake handles the wake-up of host h's throttled NIC.
func (s *network) ccWake(h int32) {
	if s.cc.wakeAt[h] != s.now {
		return
	}
	s.cc.wakeAt[h] = -1
	s.pump(h)
}

// ccFormed records data packet pid of message m formed at its source to
// leave on link l: its flow, the index it is sent at and the delay its
// flow's next packet waits (the table's entry in packet times of this
// packet).
func (s *network) ccFormed(pid, m, l int32) {
	c := s.cc
	fl := c.flowOf[m]
	c.pk[pid] = ccPacket{flow: fl}
	f := &c.flows[fl]
	i := c.ccIndex(f, s.now)
	f.packets++
	f.sum += int64(i)
	if want := max(f.free, s.msgs[m].ready); f.next > want {
		f.throttled += f.next - want // the time the last delay held this packet back (pumpCC forms it once f.next has come)
	}
	ser := s.ser(l, s.packets[pid].bytes)
	f.free = s.now + ser
	if d := c.cct[i].Delay(ser); d > 0 {
		f.next = s.now + ser + d
	}
}

package samplingsim

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"
	"unsafe"

	"orcs/internal/hugemem"
	"orcs/lft"
	"orcs/rng"
	"orcs/samplingsim/buffer"
)

// Random stream indices of a run (rng.New(Config.Seed, index)).
const (
	streamSwitch = 1 // reservoir draws of the switches
	streamTag    = 2 // which packets carry a header
	streamMark   = 3 // probabilistic marking
	streamIDs    = 4 // the connections' starting packet sequence numbers
)

// msgState is the progress of one message.
type msgState struct {
	packets  int32 // number of packets
	recvLeft int32 // packets not yet consumed at the receiver
	ready    Time  // when the message entered its NIC's injection queue (−1 = not yet)
	finish   Time  // when its last packet was consumed (−1 = not yet)
	// dst is the destination host and last the size of the last packet
	// (the plan's message, here so that forming a packet reads one line).
	dst, last int32
}

// sim is the state of one run. Everything the event loop touches is held in
// slices indexed by link, host, packet or message id.
type sim struct {
	// maxWindow is the last window the run may store (see
	// MaxWindowCells); windowErr is set when the run goes past it.
	maxWindow int
	windowErr error

	cfg  Config
	f    *lft.Fabric
	plan *Plan
	now  Time
	q    eventQueue

	// mem holds the large arrays the event loop reads at random (the
	// channels, rings and packets) on huge pages: a run of 10 648 hosts
	// touches megabytes of them, more than 4 KiB pages' TLB entries cover.
	mem *hugemem.Arena

	ch         []channel // by link (channel) id: both ends of the link
	stallSince []Time    // by channel: the start of its port's stall for credits (channel.stalled)
	qcap, bcap int32
	queues     ringSlab[int32] // output queues, qcap per link
	buffers    ringSlab[int32] // input buffers, bcap per link
	returns    ringSlab[Time]  // credit returns on their way, bcap per link (unless in the channels)
	// serMTU is the time of a full packet at the most common link rate;
	// linkSer and linkBps give every channel's own (Config.LinkBandwidth).
	serMTU  Time
	linkSer []Time
	linkBps []float64

	nics        []nic
	slow        []bool
	stopped     []bool  // hosts that stopped receiving (nil = none)
	hostIn      []int32 // in-links of host h: hostIn[hostInStart[h]:hostInStart[h+1]]
	hostInStart []int32

	// damp is the per-destination rule of a dampening buffer policy (nil
	// = the FIFO switch); retTag holds the tags that the credits on their
	// way carry, beside returns; serving is the output whose waiting
	// packets are being served (−1 = none).
	damp    *buffer.Rule
	retTag  ringSlab[int32] // the tags of the credits on their way, by link
	retTime ringSlab[Time]  // their arrival times
	dret    []ring          // the ring state of both, by link
	pkd     []dampState     // by packet slot, beside pk
	formed  []int32         // packets formed per message (dampening NICs interleave messages)
	serving int32

	msgs []msgState
	// routes holds the messages' routes (routecache.go; static routing
	// only).
	routes    routeCache
	done      int
	gateLeft  []int32
	gateWait  []int32 // messages waiting for gate g: gateWait[gateStart[g]:gateStart[g+1]]
	gateStart []int32

	pk     []packet
	pkt    []packetTag // beside pk when the run samples
	free   []int32
	nextID uint32 // the last id of the global counter (idsGlobal)

	ids     idKind
	hashIDs bool     // whether packets need ids (the one-bit hash reads them)
	msgConn []int32  // connection of each message (idsConnection)
	connPSN []uint32 // next packet id of each connection

	marker   marker
	markAt   MarkPoint
	scheme   *scheme
	sampling bool
	hash     hashKind
	restrict restrictKind
	maxCount uint16
	codes    []uint32 // link code d of every link leaving a switch
	swLinks  []int32  // every link leaving a switch
	cands    []int32  // scratch: candidate links of a received packet
	candCode []uint32
	// candSeenLink and candSeenState are the stamps of the links and
	// search states adaptiveCandidates has seen, candStamp its current
	// stamp.
	candSeenLink, candSeenState []uint32
	candStamp                   uint32
	rSw                         *rng.Stream
	rTag                        *rng.Stream
	rMark                       *rng.Stream

	truth   [][]LinkTruth // [window][link]
	tallies [][]*tally    // [job][window]

	// Reused arguments of the scheme functions (passing fresh ones through
	// a function value would allocate them on every hop).
	hopArgs  hopEnv
	recvArgs recvEnv
	// curTruth is the truth of the window containing now, which ends at
	// curEnd.
	curTruth []LinkTruth
	curEnd   Time

	events, hops, packets int64
	// readAhead says whether the loop asks for the lines of coming events
	// ahead of them (ahead.go): on fabrics whose channels outgrow a core's
	// cache.
	readAhead bool
	ahead     [maxLinesAhead]uintptr // the lines readAheadOf asks for

	// Adaptive routing and virtual lanes (route_adaptive.go, lanes.go):
	// with lanes > 1 every per-link slice is per channel c = lane·nl + link.
	ad      *adaptive
	routing Routing
	nl      int32 // physical links
	lanes   int32
	laneRR  []uint8 // per physical link: the lane to serve first
	retLat  []Time  // per channel: credit return latency (nil: Latency)
	adCand  []int32 // scratch
	adCand2 []int32 // scratch
	stats   runStats
}

// restrictKind says which links a receiver updates for a probabilistic
// header.
type restrictKind uint8

const (
	restrictRoute restrictKind = iota
	restrictHostRule
	restrictAll
)

func parseRestrict(s string) (restrictKind, error) {
	switch s {
	case "route":
		return restrictRoute, nil
	case "hostrule":
		return restrictHostRule, nil
	case "all":
		return restrictAll, nil
	}
	return 0, fmt.Errorf("unknown receiver restriction %q (known: route, hostrule, all)", s)
}

// Run simulates plan on fabric f with configuration cfg.
func Run(f *lft.Fabric, cfg Config, plan *Plan) (*Result, error) {
	pl, err := cfg.parse()
	if err != nil {
		return nil, err
	}
	s, err := newSim(f, cfg, plan, pl)
	if err != nil {
		return nil, err
	}
	// The event loop runs on one locked OS thread so that its CPU time can
	// be measured apart from other work on the machine.
	runtime.LockOSThread()
	cpu0 := threadCPU()
	start := time.Now()
	runErr := s.run()
	wall := time.Since(start)
	cpu := threadCPU() - cpu0
	runtime.UnlockOSThread()
	r := s.result(wall)
	r.CPU = cpu
	s.mem.Release()
	return r, runErr
}

// newSim checks plan against f and sets up a run with the plug-ins pl
// (cfg's, parsed by Config.parse), step by step. A statically routed run
// keeps the routes the check walks (the messages' routes, routecache.go).
func newSim(f *lft.Fabric, cfg Config, plan *Plan, pl plugins) (*sim, error) {
	s := &sim{cfg: cfg, f: f, plan: plan, markAt: cfg.MarkAt, mem: new(hugemem.Arena)}
	hugemem.ReleaseWith(s.mem, s)
	packets, err := s.setupTraffic(pl.routing, pl.background)
	if err != nil {
		return nil, err
	}
	s.setupSampling(pl)
	if err := s.setupRates(); err != nil {
		return nil, err
	}
	if err := s.setupChannels(packets); err != nil {
		return nil, err
	}
	if err := s.setupHosts(pl.buffers); err != nil {
		return nil, err
	}
	s.setupStats()
	s.setupMessages()
	s.setupIDs(pl.ids)
	s.tallies = make([][]*tally, max(len(plan.Jobs), 1))
	return s, nil
}

// setupTraffic checks the plan (keeping its routes when every job routes
// statically), sets up the routings and returns the number of packets,
// refusing a plan whose packets could outlast the clock.
func (s *sim) setupTraffic(primary, background Routing) (int64, error) {
	cfg := &s.cfg
	var rc *routeCache
	if primary.Mode == ModeStatic && background.Mode == ModeStatic {
		rc = &s.routes
	}
	if err := checkPlan(s.plan, s.f, rc); err != nil {
		return 0, err
	}
	if err := s.setupRouting(primary, background); err != nil {
		return 0, err
	}
	s.maxWindow = MaxWindowCells/max(s.channels(), 1) - 1
	packets, err := checkPackets(s.plan, cfg.MTU)
	if err != nil {
		return 0, err
	}
	// Every packet crossing one link after the other, each at the slowest
	// rate, bounds the simulated time (with the delays and starts): it
	// must stay well inside the picosecond clock.
	slowest := float64(serTime(int64(cfg.MTU), cfg.Bandwidth)) / cfg.SlowFactor
	if span := float64(packets)*(slowest+float64(cfg.Latency+cfg.RouterDelay+cfg.GlobalLatency)) + float64(cfg.Latency+cfg.RouterDelay); span > float64(LongestTime)/4 {
		return 0, fmt.Errorf("%d packets of %s each (at %g Gb/s, slow factor %g, MTU %d) could take %.3g s of simulated time, beyond a quarter of the picosecond clock (%.3g s): use faster links or fewer packets",
			packets, FormatTime(Time(slowest)), cfg.Bandwidth/1e9, cfg.SlowFactor, cfg.MTU, span/1e12, float64(LongestTime)/4e12)
	}
	return packets, nil
}

// setupSampling sets up the marking and the sampling headers with their
// random streams.
func (s *sim) setupSampling(pl plugins) {
	cfg := &s.cfg
	s.marker, s.scheme, s.hash, s.restrict = pl.marker, pl.scheme, pl.hash, pl.restrict
	s.sampling = cfg.Scheme != "none" && cfg.TagFraction > 0
	s.maxCount = uint16(1<<cfg.HopBits - 1)
	s.rSw = rng.New(cfg.Seed, streamSwitch)
	s.rTag = rng.New(cfg.Seed, streamTag)
	s.rMark = rng.New(cfg.Seed, streamMark)
	s.hopArgs = hopEnv{maxCount: s.maxCount, hash: s.hash, r: s.rSw}
	s.recvArgs = recvEnv{hash: s.hash}
}

// setupRates sets the buffer sizes and every channel's rate, and gives
// the event queue FIFOs for the common delays at the most common rate.
func (s *sim) setupRates() error {
	cfg, f, L := &s.cfg, s.f, s.channels()
	s.qcap, s.bcap = int32(cfg.OutputQueue), int32(cfg.InputBuffer)
	if int64(L)*int64(max(s.qcap, s.bcap)) > math.MaxInt32 {
		return fmt.Errorf("fabric too large: %d links × %d buffer slots", L, max(s.qcap, s.bcap))
	}
	if cfg.LinkBandwidth != nil && len(cfg.LinkBandwidth) != len(f.Links) {
		return fmt.Errorf("%d link rates for a fabric of %d links", len(cfg.LinkBandwidth), len(f.Links))
	}
	s.linkBps = make([]float64, L)
	s.linkSer = make([]Time, L)
	common := map[float64]int{}
	for c := range L {
		s.linkBps[c] = cfg.linkBps(int32(c % len(f.Links)))
		s.linkSer[c] = serTime(int64(cfg.MTU), s.linkBps[c])
		common[s.linkBps[c]]++
	}
	bps := cfg.Bandwidth
	for b, n := range common {
		if n > common[bps] || n == common[bps] && b > bps {
			bps = b
		}
	}
	s.serMTU = serTime(int64(cfg.MTU), bps)
	// The common delays get FIFOs in the event queue: a packet time (link
	// idle again, consumer done), a packet time plus a link's latency (a
	// packet arrives), a slow consumer's packet time and a latency (a
	// credit comes back to a port that waits for it), at the most common
	// link rate (the heap takes the others).
	s.q.addClass(s.serMTU)
	s.q.addClass(s.serMTU + cfg.Latency + cfg.RouterDelay)
	s.q.addClass(s.serMTU + cfg.Latency)
	s.q.addClass(serTime(int64(cfg.MTU), bps*cfg.SlowFactor))
	s.q.addClass(cfg.Latency)
	return nil
}

// setupChannels allocates the channels, rings and the packet slab for a
// run of at most packets packets, and gives every link its ends, its link
// code and the lanes' and global links' properties.
func (s *sim) setupChannels(packets int64) error {
	f, L := s.f, s.channels()
	s.ch = hugemem.Make[channel](s.mem, L, L)
	// Lanes beyond the first carry little traffic: the links count.
	s.readAhead = len(f.Links)*int(unsafe.Sizeof(channel{})) >= readAheadBytes
	s.stallSince = make([]Time, L)
	s.queues = newRingSlab[int32](s.mem, L, s.qcap)
	s.buffers = newRingSlab[int32](s.mem, L, s.bcap)
	s.returns = ringSlab[Time]{size: retInline} // rings in the channels: drops wrap there
	if s.bcap > retInline {
		s.returns = newRingSlab[Time](s.mem, L, s.bcap)
	}
	// The packet slab grows as packets are formed, up to the most in
	// flight at once: its whole possible size is reserved (address space
	// only), so that it grows in place on huge pages.
	s.pk = hugemem.Make[packet](s.mem, 0, int(min(packets, maxReservedPackets)))
	s.codes = make([]uint32, L)
	for l := range s.ch { // every channel: with lanes, L > len(f.Links)
		p := &s.ch[l]
		p.credits, p.wakeAt, p.waitHead, p.nextWait = s.bcap, -1, -1, -1
	}
	portBits := s.portBits()
	for l, lk := range f.Links {
		s.ch[l].fromHost = f.HostIndex(lk.From)
		s.ch[l].toHost = f.HostIndex(lk.To)
		if sw := f.SwitchIndex(lk.From); sw >= 0 {
			port := lk.FromPort
			if port <= 0 {
				for i, o := range f.OutLinks(lk.From) {
					if o == int32(l) {
						port = int32(i + 1)
					}
				}
			}
			s.codes[l] = LinkCode(uint32(sw), uint32(port), portBits)
			s.swLinks = append(s.swLinks, int32(l))
		}
	}
	if s.qcap < 1 {
		return fmt.Errorf("output queue must hold a packet")
	}
	s.setupLanes()
	if err := s.setupGlobalLatency(); err != nil {
		return err
	}
	s.setupHostIn()
	return nil
}

// portBits returns the width of the port field of the link codes:
// Config.PortBits, or when that is 0 the width for the largest port of a
// switch.
func (s *sim) portBits() int {
	if s.cfg.PortBits != 0 {
		return s.cfg.PortBits
	}
	f := s.f
	maxPort := 0
	for v := range f.Nodes {
		if f.SwitchIndex(int32(v)) >= 0 {
			maxPort = max(maxPort, len(f.OutLinks(int32(v))))
			for _, l := range f.OutLinks(int32(v)) {
				maxPort = max(maxPort, int(f.Links[l].FromPort))
			}
		}
	}
	return portBitsFor(maxPort)
}

// setupHostIn lists the links into every host (hostIn, hostInStart).
func (s *sim) setupHostIn() {
	f, H := s.f, s.f.NumHosts()
	s.hostInStart = make([]int32, H+1)
	for l := range f.Links {
		if h := s.ch[l].toHost; h >= 0 {
			s.hostInStart[h+1]++
		}
	}
	for h := range H {
		s.hostInStart[h+1] += s.hostInStart[h]
	}
	s.hostIn = make([]int32, s.hostInStart[H])
	fill := append([]int32(nil), s.hostInStart[:H]...)
	for l := range f.Links {
		if h := s.ch[l].toHost; h >= 0 {
			s.hostIn[fill[h]] = int32(l)
			fill[h]++
		}
	}
}

// setupHosts sets up the NICs, the hosts that stopped receiving or
// consume slowly, and the buffer policy bp with its mirrors.
func (s *sim) setupHosts(bp buffer.Spec) error {
	cfg, plan, H, L := &s.cfg, s.plan, s.f.NumHosts(), s.channels()
	s.nics = make([]nic, H)
	for h := range s.nics {
		s.nics[h].cur = -1
	}
	if len(plan.Stopped) > 0 {
		s.stopped = make([]bool, H)
		for _, h := range plan.Stopped {
			if h < 0 || int(h) >= H {
				return fmt.Errorf("stopped host %d out of range (the fabric has %d hosts)", h, H)
			}
			s.stopped[h] = true
		}
	}
	s.damp = bp.Rule(buffer.Env{Links: L, Hosts: H, Slots: s.bcap, Seed: cfg.Seed})
	s.serving = -1
	// Adaptive routing chooses a packet's output at its arrival, before the
	// buffer policy sees it; the per-destination rules of the dampening
	// policies would then block ports the routing did not weigh, and lanes
	// would need a buffer per lane. Bypass has no rule: with one lane it
	// runs adaptively (an input buffer without head-of-line blocking, as
	// the thesis's CODES switch has).
	if s.damp != nil && s.ad != nil && (s.lanes > 1 || bp.Name != "bypass") {
		return fmt.Errorf("--buffers %s: the dampening policies forward by the tables (static routing) with one buffer per port; adaptive routing (%d virtual lanes per link on this fabric) runs with --buffers fifo, or bypass on a fabric with one lane", cfg.Buffers, s.lanes)
	}
	if s.damp != nil {
		s.retTag = newRingSlab[int32](s.mem, L, s.bcap)
		s.retTime = newRingSlab[Time](s.mem, L, s.bcap)
		s.dret = make([]ring, L)
		s.formed = make([]int32, len(plan.Msgs))
	}
	s.slow = make([]bool, H)
	for _, h := range cfg.SlowHosts {
		if h < 0 || int(h) >= H {
			return fmt.Errorf("slow host %d out of range (the fabric has %d hosts)", h, H)
		}
		s.slow[h] = true
	}
	return nil
}

// setupMessages sets up the messages' progress and the gates: how many
// messages signal each gate and which messages wait for it.
func (s *sim) setupMessages() {
	plan, mtu := s.plan, int64(s.cfg.MTU)
	s.msgs = make([]msgState, len(plan.Msgs))
	for i, m := range plan.Msgs {
		n := int32((m.Bytes + mtu - 1) / mtu)
		s.msgs[i] = msgState{packets: n, recvLeft: n, ready: -1, finish: -1,
			dst: m.Dst, last: int32(m.Bytes - int64(n-1)*mtu)}
	}
	G := plan.NumGates()
	s.gateLeft = make([]int32, G)
	for i := range plan.Msgs {
		for _, g := range plan.Signals(int32(i)) {
			s.gateLeft[g]++
		}
	}
	s.gateStart = make([]int32, G+1)
	for _, m := range plan.Msgs {
		if m.Wait >= 0 {
			s.gateStart[m.Wait+1]++
		}
	}
	for g := range G {
		s.gateStart[g+1] += s.gateStart[g]
	}
	s.gateWait = make([]int32, s.gateStart[G])
	gfill := append([]int32(nil), s.gateStart[:G]...)
	for i, m := range plan.Msgs {
		if m.Wait >= 0 {
			s.gateWait[gfill[m.Wait]] = int32(i)
			gfill[m.Wait]++
		}
	}
}

// maxReservedPackets bounds the packet slab's reserved size (1 GiB of
// address space); a run with more packets in flight at once grows it on
// the Go heap.
const maxReservedPackets = 1 << 24

// MaxPackets bounds the packets of one run: at a million or two packets
// per second of wall time, a run at the limit takes about half an hour.
const MaxPackets = 1 << 31

// checkPackets refuses a plan of more than MaxPackets packets at the given
// MTU before the run starts, naming the largest message size that fits.
func checkPackets(plan *Plan, mtu int) (int64, error) {
	var packets int64
	for _, m := range plan.Msgs {
		packets += m.Bytes/int64(mtu) + min(m.Bytes%int64(mtu), 1)
		if packets > MaxPackets || packets < 0 {
			fit := int64(MaxPackets) / int64(max(len(plan.Msgs), 1)) * int64(mtu)
			return 0, fmt.Errorf("the workload sends more than %d packets of at most %d bytes (MTU), the limit of a run (about half an hour); with its %d messages, a message size of at most %d bytes fits",
				int64(MaxPackets), mtu, len(plan.Msgs), fit)
		}
	}
	return packets, nil
}

// run is the event loop.
func (s *sim) run() error {
	s.start()
	for s.q.len() > 0 {
		e := s.q.pop()
		if s.cfg.MaxTime > 0 && e.t > s.cfg.MaxTime {
			s.now = s.cfg.MaxTime
			if s.stopped != nil {
				return nil // traffic to hosts that stopped receiving never ends: the limit is the end
			}
			return fmt.Errorf("stopped at the time limit %s with %d of %d messages unfinished",
				FormatTime(s.cfg.MaxTime), len(s.msgs)-s.done, len(s.msgs))
		}
		s.now = e.t
		s.events++
		if s.readAhead {
			s.readAheadOf(s.q.last)
		}
		if s.windowErr != nil {
			return s.windowErr
		}
		s.handle(&e)
	}
	if s.done < len(s.msgs) {
		return s.stuck()
	}
	return nil
}

// start makes the messages ready that wait for nothing.
func (s *sim) start() {
	for i, m := range s.plan.Msgs {
		if m.Wait < 0 || s.gateLeft[m.Wait] == 0 {
			s.ready(int32(i))
		}
	}
}

// handle runs event e.
func (s *sim) handle(e *event) {
	switch e.kind() {
	case evArrive:
		if h := s.ch[e.a].toHost; h >= 0 {
			s.arriveHost(e.a, h, e.b)
		} else {
			s.arriveSwitch(e.a, e.b)
		}
	case evWake:
		if s.damp != nil {
			s.wakeDamp(e.a)
		} else {
			s.onWake(e.a)
		}
	case evConsumed:
		s.onConsumed(e.a, e.b)
	case evReady:
		s.enterNIC(e.a)
	}
}

// stuck explains why messages did not finish when the event queue ran dry.
func (s *sim) stuck() error {
	if s.stopped != nil {
		// Hosts that stopped receiving hold their traffic for ever; what
		// it blocks is the measurement (BufferStats), not a failure.
		return nil
	}
	inFlight := len(s.pk) - len(s.free)
	waiting := 0
	for i := range s.msgs {
		if s.msgs[i].ready < 0 {
			waiting++
		}
	}
	if inFlight > 0 {
		e := &DeadlockError{Time: s.now, Stuck: inFlight, Unfinished: len(s.msgs) - s.done, Messages: len(s.msgs)}
		e.Loop = s.creditLoop()
		for _, l := range e.Loop {
			e.Nodes = append(e.Nodes, s.f.Nodes[s.f.Links[l].From].Name)
		}
		if len(e.Loop) > 0 {
			e.Nodes = append(e.Nodes, e.Nodes[0])
		}
		return e
	}
	return fmt.Errorf("%d of %d messages never started: their gates never opened (a dependency cycle in the plan)",
		waiting, len(s.msgs))
}

// creditLoop finds a cycle of waits among the stuck packets: the head
// packet of the buffer at the end of link l waits for the output queue of
// its next link, whose sender waits for a slot of the buffer at that link's
// end, and so on. It returns the links of the first cycle found, rotated to
// start at the smallest link id, or nil.
func (s *sim) creditLoop() []int32 {
	// next returns the link the head packet of the buffer at the end of l
	// waits for, or −1 when that buffer is empty or a host's.
	next := func(l int32) int32 {
		if s.ch[l].buf.len() == 0 || s.ch[l].toHost >= 0 {
			return -1
		}
		return s.pk[s.headIn(l)].out
	}
	// seen[l] is 1 + the start of the walk that reached l first, or 0.
	seen := make([]int32, len(s.ch))
	for start := range int32(len(s.ch)) {
		var walk []int32
		l := start
		for l >= 0 && seen[l] == 0 {
			seen[l] = start + 1
			walk = append(walk, l)
			l = next(l)
		}
		if l < 0 || seen[l] != start+1 {
			continue // a dead end, or a walk already explored
		}
		loop := walk[slices.Index(walk, l):]
		first := slices.Index(loop, slices.Min(loop))
		loop = slices.Concat(loop[first:], loop[:first])
		for i, c := range loop {
			loop[i] = s.phys(c)
		}
		return loop
	}
	return nil
}

// ready makes message m ready at its start time: not before Start, and
// Delay after now (its gate has just opened, or the run starts).
func (s *sim) ready(m int32) {
	if st := max(s.plan.Msgs[m].Start, s.now+s.plan.Msgs[m].Delay); st > s.now {
		s.q.push(st, evReady, m, 0)
		return
	}
	s.enterNIC(m)
}

// enterNIC appends message m to its sender's injection queue.
func (s *sim) enterNIC(m int32) {
	s.msgs[m].ready = s.now
	src := s.plan.Msgs[m].Src
	n := &s.nics[src]
	n.ready = append(n.ready, m)
	if s.stats.backlog != nil {
		s.stats.backlog[src] += int64(s.msgs[m].packets)
	}
	s.pump(src)
}

// finish records the completion of message m and opens its gates.
func (s *sim) finish(m int32) {
	s.msgs[m].finish = s.now
	s.done++
	for _, g := range s.plan.Signals(m) {
		s.gateLeft[g]--
		if s.gateLeft[g] == 0 {
			for _, w := range s.gateWait[s.gateStart[g]:s.gateStart[g+1]] {
				s.ready(w)
			}
		}
	}
}

// mark decides whether the output port of link l is congested for packet
// pid (queue length q) and runs the switch side of the sampling scheme.
func (s *sim) mark(pid int32, l int32, q int32) {
	capacity := s.qcap
	if s.ch[l].fromHost >= 0 {
		capacity = 1
	}
	cong := s.marker.congested(&s.marker, q, s.availCredits(l), capacity, s.rMark)
	if cong {
		s.tick()
		if c := &s.ch[l]; c.cong < math.MaxUint8-1 {
			c.cong++
		} else {
			s.curTruth[l].Congested += int64(c.cong) + 1
			c.cong = 0
		}
	}
	if s.sampling && s.pk[pid].tagged && s.ch[l].fromHost < 0 {
		tg := &s.pkt[pid]
		env := &s.hopArgs
		env.id, env.pid, env.link, env.code, env.congested = tg.id, pid, s.phys(l), s.codes[l], cong
		s.scheme.hop(&tg.hdr, env)
	}
}

// receive runs the receiver side of the sampling scheme for packet pid.
func (s *sim) receive(pid int32) {
	s.packets++
	if !s.sampling {
		return // no packet is tagged
	}
	pk := &s.pk[pid]
	if !pk.tagged {
		return
	}
	job := s.plan.Msgs[pk.msg].Job
	w := s.window(s.now)
	ts := s.tallies[job]
	if w >= len(ts) || ts[w] == nil {
		for len(ts) <= w {
			ts = append(ts, nil)
		}
		ts[w] = newTally(len(s.f.Links))
		s.tallies[job] = ts
	}
	env := &s.recvArgs
	tg := &s.pkt[pid]
	env.id, env.pid, env.t, env.bytes, env.now = tg.id, pid, ts[w], int64(pk.bytes), s.now
	if s.scheme.probabilistic {
		if s.ad != nil && s.restrict == restrictRoute {
			env.cands, env.codes = s.adaptiveCandidates(pk.src, pk.dst)
		} else {
			env.cands, env.codes = s.candidates(pk.src, pk.dst, pk.msg)
		}
	}
	s.scheme.receive(&tg.hdr, env)
}

// candidates returns the links a packet of message msg from src to dst
// may have crossed (§5.2), with their codes, in scratch space. Under the
// route restriction they are the message's route: kept in the route
// cache, else walked again.
func (s *sim) candidates(src, dst, msg int32) ([]int32, []uint32) {
	s.cands, s.candCode = s.cands[:0], s.candCode[:0]
	switch s.restrict {
	case restrictRoute:
		var all []int32
		if at := s.routeOf(msg); at >= 0 {
			all = s.routes.links[at+1 : at+1+s.routes.links[at]] // the route the packet took
		} else {
			all, _ = s.f.AppendRoute(s.cands, src, dst)
			s.cands = all[:0]
		}
		for _, l := range all {
			if s.ch[l].fromHost < 0 {
				s.cands = append(s.cands, l)
			}
		}
	case restrictHostRule:
		for _, l := range s.swLinks {
			if h := s.ch[l].toHost; h < 0 || h == dst {
				s.cands = append(s.cands, l)
			}
		}
	default:
		s.cands = append(s.cands, s.swLinks...)
	}
	for _, l := range s.cands {
		s.candCode = append(s.candCode, s.codes[l])
	}
	return s.cands, s.candCode
}

// FormatTime formats t with a unit: "12.5 µs".
func FormatTime(t Time) string {
	switch a := max(t, -t); {
	case a >= Millisecond:
		return fmt.Sprintf("%.4g ms", float64(t)/float64(Millisecond))
	case a >= Microsecond:
		return fmt.Sprintf("%.4g µs", float64(t)/float64(Microsecond))
	case a >= Nanosecond:
		return fmt.Sprintf("%.4g ns", float64(t)/float64(Nanosecond))
	}
	return fmt.Sprintf("%d ps", t)
}

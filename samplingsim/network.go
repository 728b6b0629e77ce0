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

// network is the simulated network of one run: its channels, buffers,
// NICs and packets in flight, the plan's messages and the sampling state.
// Everything the event loop touches is held in slices indexed by channel,
// host, packet slot or message id.
type network struct {
	// maxWindow is the last window the run may store (see
	// MaxWindowCells); windowErr is set when the run goes past it.
	maxWindow int
	windowErr error

	cfg    Config      // the run's configuration
	f      *lft.Fabric // the fabric and its forwarding tables
	plan   *Plan       // the traffic
	now    Time        // the time of the event being run
	events eventQueue  // the events to come

	// mem holds the large arrays the event loop reads at random (the
	// channels, rings and packets) on huge pages: a run of 10 648 hosts
	// touches megabytes of them, more than 4 KiB pages' TLB entries cover.
	mem *hugemem.Arena

	ch         []channel       // by link (channel) id: both ends of the link
	stallSince []Time          // by channel: the start of its port's stall for credits (channel.stalled)
	queueCap   int32           // packets an output queue holds (Config.OutputQueue)
	bufferCap  int32           // packets an input buffer holds, the credits of its link (Config.InputBuffer)
	queues     ringSlab[int32] // output queues, queueCap per channel
	buffers    ringSlab[int32] // input buffers, bufferCap per channel
	returns    ringSlab[Time]  // credit returns on their way, bufferCap per channel (unless in the channels)
	// mtuTime is the time of a full packet at the most common link rate;
	// linkMTUTime and linkBps give every channel's own (Config.LinkBandwidth).
	mtuTime     Time
	linkMTUTime []Time
	linkBps     []float64

	nics        []nic   // by host
	slow        []bool  // by host: whether its consumer is slow (Config.SlowHosts)
	stopped     []bool  // hosts that stopped receiving (nil = none)
	hostIn      []int32 // in-links of host h: hostIn[hostInStart[h]:hostInStart[h+1]]
	hostInStart []int32 // by host: where its in-links start in hostIn

	// bufRule is the per-destination rule of a dampening buffer policy
	// (nil = the FIFO switch, buffers.go); creditTags and creditTagTimes
	// hold the tags that the credits on their way carry and their arrival
	// times, beside returns, with the ring state of both in tagRings.
	bufRule        *buffer.Rule
	creditTags     ringSlab[int32] // by channel
	creditTagTimes ringSlab[Time]  // by channel
	tagRings       []ring          // by channel
	dampStates     []dampState     // by packet slot, beside packets: where it waits, its tag
	formed         []int32         // packets formed per message (dampening NICs interleave messages)
	serving        int32           // the output whose waiting packets are being served (−1 = none)

	msgs []msgState // by message: its progress
	// routes holds the messages' routes (routecache.go; static routing
	// only).
	routes    routeCache
	msgsDone  int     // messages received completely
	gateLeft  []int32 // by gate: messages that must still arrive before it opens
	gateWait  []int32 // messages waiting for gate g: gateWait[gateStart[g]:gateStart[g+1]]
	gateStart []int32 // by gate: where its waiting messages start in gateWait

	packets   []packet    // the packets in flight, by packet slot
	headers   []packetTag // by packet slot, beside packets when the run samples: id and sampling header
	freeSlots []int32     // packet slots free for reuse
	nextID    uint32      // the last id of the global counter (idsGlobal)

	ids     idKind   // how packets are numbered (Config.PacketIDs)
	hashIDs bool     // whether packets need ids (the one-bit hash reads them)
	msgConn []int32  // connection of each message (idsConnection)
	connPSN []uint32 // next packet id of each connection

	marker   marker       // when a port counts as congested (Config.Marking)
	markAt   MarkPoint    // when the marker is asked (Config.MarkAt)
	scheme   *scheme      // the sampling header (Config.Scheme)
	sampling bool         // whether packets carry headers (a scheme and a tag fraction > 0)
	hash     hashKind     // the one-bit hash (Config.Hash)
	restrict restrictKind // which links a receiver updates (Config.Restrict)
	maxCount uint16       // the largest hop count, 2^HopBits − 1
	// linkCodes holds the link code d of every channel leaving a switch,
	// swLinks every link leaving a switch.
	linkCodes []uint32
	swLinks   []int32
	candLinks []int32  // scratch: candidate links of a received packet
	candCodes []uint32 // scratch: their link codes
	// candSeenLink and candSeenState are the stamps of the links and
	// search states adaptiveCandidates has seen, candStamp its current
	// stamp.
	candSeenLink, candSeenState []uint32
	candStamp                   uint32
	switchRand                  *rng.Stream // the switches' reservoir draws (streamSwitch)
	tagRand                     *rng.Stream // which packets carry a header (streamTag)
	markRand                    *rng.Stream // probabilistic marking (streamMark)

	truth   [][]LinkTruth // [window][link]
	tallies [][]*tally    // [job][window]

	// hopArgs and recvArgs are the reused arguments of the scheme functions
	// (passing fresh ones through a function value would allocate them on
	// every hop).
	hopArgs  hopEnv
	recvArgs recvEnv
	// curTruth is the truth of the window containing now, which ends at
	// curEnd.
	curTruth []LinkTruth
	curEnd   Time

	// eventCount, hopCount and packetCount count the events run, the
	// packet-hops and the packets formed.
	eventCount, hopCount, packetCount int64
	// readAhead says whether the loop asks for the lines of coming events
	// ahead of them (ahead.go): on fabrics whose channels outgrow a core's
	// cache.
	readAhead bool
	ahead     [maxLinesAhead]uintptr // the lines readAheadOf asks for

	// Adaptive routing and virtual lanes (route_adaptive.go, lanes.go):
	// with lanes > 1 every per-link slice is per channel c = lane·physLinks + link.
	ad            *adaptive // the fabric's analysis for adaptive routing (nil = static)
	routing       Routing   // job 0's routing
	physLinks     int32     // physical links
	lanes         int32     // virtual lanes per link
	laneFirst     []uint8   // per physical link: the lane to serve first
	creditLatency []Time    // per channel: credit return latency (nil: Latency)
	adLinks       []int32   // scratch: candidate output links of adaptive routing
	adMinimal     []int32   // scratch: the minimal links among them
	stats         runStats  // latency, stall and routing-mode statistics (noise.go)
	// cc is InfiniBand congestion control (cc_run.go; nil: off).
	cc *ccState
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
func newSim(f *lft.Fabric, cfg Config, plan *Plan, pl plugins) (*network, error) {
	s := &network{cfg: cfg, f: f, plan: plan, markAt: cfg.MarkAt, mem: new(hugemem.Arena)}
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
	if err := s.setupCC(); err != nil {
		return nil, err
	}
	s.setupIDs(pl.ids)
	s.tallies = make([][]*tally, max(len(plan.Jobs), 1))
	return s, nil
}

// setupTraffic checks the plan (keeping its routes when every job routes
// statically), sets up the routings and returns the number of packets,
// refusing a plan whose packets could outlast the clock.
func (s *network) setupTraffic(primary, background Routing) (int64, error) {
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
func (s *network) setupSampling(pl plugins) {
	cfg := &s.cfg
	s.marker, s.scheme, s.hash, s.restrict = pl.marker, pl.scheme, pl.hash, pl.restrict
	s.sampling = cfg.Scheme != "none" && cfg.TagFraction > 0
	s.maxCount = uint16(1<<cfg.HopBits - 1)
	s.switchRand = rng.New(cfg.Seed, streamSwitch)
	s.tagRand = rng.New(cfg.Seed, streamTag)
	s.markRand = rng.New(cfg.Seed, streamMark)
	s.hopArgs = hopEnv{maxCount: s.maxCount, hash: s.hash, r: s.switchRand}
	s.recvArgs = recvEnv{hash: s.hash}
}

// setupRates sets the buffer sizes and every channel's rate, and gives
// the event queue FIFOs for the common delays at the most common rate.
func (s *network) setupRates() error {
	cfg, f, L := &s.cfg, s.f, s.channels()
	s.queueCap, s.bufferCap = int32(cfg.OutputQueue), int32(cfg.InputBuffer)
	if int64(L)*int64(max(s.queueCap, s.bufferCap)) > math.MaxInt32 {
		return fmt.Errorf("fabric too large: %d links × %d buffer slots", L, max(s.queueCap, s.bufferCap))
	}
	if cfg.LinkBandwidth != nil && len(cfg.LinkBandwidth) != len(f.Links) {
		return fmt.Errorf("%d link rates for a fabric of %d links", len(cfg.LinkBandwidth), len(f.Links))
	}
	s.linkBps = make([]float64, L)
	s.linkMTUTime = make([]Time, L)
	common := map[float64]int{}
	for c := range L {
		s.linkBps[c] = cfg.linkBps(int32(c % len(f.Links)))
		s.linkMTUTime[c] = serTime(int64(cfg.MTU), s.linkBps[c])
		common[s.linkBps[c]]++
	}
	bps := cfg.Bandwidth
	for b, n := range common {
		if n > common[bps] || n == common[bps] && b > bps {
			bps = b
		}
	}
	s.mtuTime = serTime(int64(cfg.MTU), bps)
	// The common delays get FIFOs in the event queue: a packet time (link
	// idle again, consumer done), a packet time plus a link's latency (a
	// packet arrives), a slow consumer's packet time and a latency (a
	// credit comes back to a port that waits for it), at the most common
	// link rate (the heap takes the others).
	s.events.addClass(s.mtuTime)
	s.events.addClass(s.mtuTime + cfg.Latency + cfg.RouterDelay)
	s.events.addClass(s.mtuTime + cfg.Latency)
	s.events.addClass(serTime(int64(cfg.MTU), bps*cfg.SlowFactor))
	s.events.addClass(cfg.Latency)
	return nil
}

// setupChannels allocates the channels, rings and the packet slab for a
// run of at most packets packets, and gives every link its ends, its link
// code and the lanes' and global links' properties.
func (s *network) setupChannels(packets int64) error {
	f, L := s.f, s.channels()
	s.ch = hugemem.Make[channel](s.mem, L, L)
	// Lanes beyond the first carry little traffic: the links count.
	s.readAhead = len(f.Links)*int(unsafe.Sizeof(channel{})) >= readAheadBytes
	s.stallSince = make([]Time, L)
	s.queues = newRingSlab[int32](s.mem, L, s.queueCap)
	s.buffers = newRingSlab[int32](s.mem, L, s.bufferCap)
	s.returns = ringSlab[Time]{size: retInline} // rings in the channels: drops wrap there
	if s.bufferCap > retInline {
		s.returns = newRingSlab[Time](s.mem, L, s.bufferCap)
	}
	// The packet slab grows as packets are formed, up to the most in
	// flight at once: its whole possible size is reserved (address space
	// only), so that it grows in place on huge pages.
	s.packets = hugemem.Make[packet](s.mem, 0, int(min(packets, maxReservedPackets)))
	s.linkCodes = make([]uint32, L)
	for l := range s.ch { // every channel: with lanes, L > len(f.Links)
		p := &s.ch[l]
		p.credits, p.wakeAt, p.waitHead, p.nextWait = s.bufferCap, -1, -1, -1
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
			s.linkCodes[l] = LinkCode(uint32(sw), uint32(port), portBits)
			s.swLinks = append(s.swLinks, int32(l))
		}
	}
	if s.queueCap < 1 {
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
func (s *network) portBits() int {
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
func (s *network) setupHostIn() {
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
func (s *network) setupHosts(bp buffer.Spec) error {
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
	s.bufRule = bp.Rule(buffer.Env{Links: L, Hosts: H, Slots: s.bufferCap, Seed: cfg.Seed})
	s.serving = -1
	// Adaptive routing chooses a packet's output at its arrival, before the
	// buffer policy sees it; the per-destination rules of the dampening
	// policies would then block ports the routing did not weigh, and lanes
	// would need a buffer per lane. Bypass has no rule: with one lane it
	// runs adaptively (an input buffer without head-of-line blocking, as
	// the thesis's CODES switch has).
	if s.bufRule != nil && s.ad != nil && (s.lanes > 1 || bp.Name != "bypass") {
		return fmt.Errorf("--buffers %s: the dampening policies forward by the tables (static routing) with one buffer per port; adaptive routing (%d virtual lanes per link on this fabric) runs with --buffers fifo, or bypass on a fabric with one lane", cfg.Buffers, s.lanes)
	}
	if s.bufRule != nil {
		s.creditTags = newRingSlab[int32](s.mem, L, s.bufferCap)
		s.creditTagTimes = newRingSlab[Time](s.mem, L, s.bufferCap)
		s.tagRings = make([]ring, L)
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
func (s *network) setupMessages() {
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
func (s *network) run() error {
	s.start()
	for s.events.len() > 0 {
		e := s.events.pop()
		if s.cfg.MaxTime > 0 && e.t > s.cfg.MaxTime {
			s.now = s.cfg.MaxTime
			if s.stopped != nil {
				return nil // traffic to hosts that stopped receiving never ends: the limit is the end
			}
			return fmt.Errorf("stopped at the time limit %s with %d of %d messages unfinished",
				FormatTime(s.cfg.MaxTime), len(s.msgs)-s.msgsDone, len(s.msgs))
		}
		s.now = e.t
		s.eventCount++
		if s.eventCount&0xffff == 0 && s.cfg.Progress != nil {
			s.cfg.Progress(s.now, s.msgsDone, len(s.msgs))
		}
		if s.readAhead {
			s.readAheadOf(s.events.last)
		}
		if s.windowErr != nil {
			return s.windowErr
		}
		s.handle(&e)
	}
	if s.msgsDone < len(s.msgs) {
		return s.stuck()
	}
	return nil
}

// start makes the messages ready that wait for nothing.
func (s *network) start() {
	for i, m := range s.plan.Msgs {
		if m.Wait < 0 || s.gateLeft[m.Wait] == 0 {
			s.ready(int32(i))
		}
	}
}

// handle runs event e.
func (s *network) handle(e *event) {
	switch e.kind() {
	case evArrive:
		if h := s.ch[e.a].toHost; h >= 0 {
			s.arriveHost(e.a, h, e.b)
		} else {
			s.arriveSwitch(e.a, e.b)
		}
	case evWake:
		if s.bufRule != nil {
			s.wakeDamp(e.a)
		} else {
			s.onWake(e.a)
		}
	case evConsumed:
		s.onConsumed(e.a, e.b)
	case evReady:
		if e.a < 0 {
			s.ccWake(^e.a) // a NIC throttled by congestion control
			break
		}
		s.enterNIC(e.a)
	}
}

// stuck explains why messages did not finish when the event queue ran dry.
func (s *network) stuck() error {
	if s.stopped != nil {
		// Hosts that stopped receiving hold their traffic for ever; what
		// it blocks is the measurement (BufferStats), not a failure.
		return nil
	}
	inFlight := len(s.packets) - len(s.freeSlots)
	waiting := 0
	for i := range s.msgs {
		if s.msgs[i].ready < 0 {
			waiting++
		}
	}
	if inFlight > 0 {
		e := &DeadlockError{Time: s.now, Stuck: inFlight, Unfinished: len(s.msgs) - s.msgsDone, Messages: len(s.msgs)}
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
func (s *network) creditLoop() []int32 {
	// next returns the link the head packet of the buffer at the end of l
	// waits for, or −1 when that buffer is empty or a host's.
	next := func(l int32) int32 {
		if s.ch[l].buf.len() == 0 || s.ch[l].toHost >= 0 {
			return -1
		}
		return s.packets[s.headIn(l)].out
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
func (s *network) ready(m int32) {
	if st := max(s.plan.Msgs[m].Start, s.now+s.plan.Msgs[m].Delay); st > s.now {
		s.events.push(st, evReady, m, 0)
		return
	}
	s.enterNIC(m)
}

// enterNIC appends message m to its sender's injection queue.
func (s *network) enterNIC(m int32) {
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
func (s *network) finish(m int32) {
	s.msgs[m].finish = s.now
	s.msgsDone++
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
func (s *network) mark(pid int32, l int32, q int32) {
	capacity := s.queueCap
	if s.ch[l].fromHost >= 0 {
		capacity = 1
	}
	cong := s.marker.congested(&s.marker, q, s.availCredits(l), capacity, s.markRand)
	if cong {
		s.tick()
		if c := &s.ch[l]; c.cong < math.MaxUint8-1 {
			c.cong++
		} else {
			s.curTruth[l].Congested += int64(c.cong) + 1
			c.cong = 0
		}
	}
	if s.sampling && s.packets[pid].tagged && s.ch[l].fromHost < 0 {
		tg := &s.headers[pid]
		env := &s.hopArgs
		env.id, env.pid, env.link, env.code, env.congested = tg.id, pid, s.phys(l), s.linkCodes[l], cong
		s.scheme.hop(&tg.hdr, env)
	}
}

// receive runs the receiver side of the sampling scheme for packet pid.
func (s *network) receive(pid int32) {
	s.packetCount++
	if !s.sampling {
		return // no packet is tagged
	}
	pk := &s.packets[pid]
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
	tg := &s.headers[pid]
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
func (s *network) candidates(src, dst, msg int32) ([]int32, []uint32) {
	s.candLinks, s.candCodes = s.candLinks[:0], s.candCodes[:0]
	switch s.restrict {
	case restrictRoute:
		var all []int32
		if at := s.routeOf(msg); at >= 0 {
			all = s.routes.links[at+1 : at+1+s.routes.links[at]] // the route the packet took
		} else {
			all, _ = s.f.AppendRoute(s.candLinks, src, dst)
			s.candLinks = all[:0]
		}
		for _, l := range all {
			if s.ch[l].fromHost < 0 {
				s.candLinks = append(s.candLinks, l)
			}
		}
	case restrictHostRule:
		for _, l := range s.swLinks {
			if h := s.ch[l].toHost; h < 0 || h == dst {
				s.candLinks = append(s.candLinks, l)
			}
		}
	default:
		s.candLinks = append(s.candLinks, s.swLinks...)
	}
	for _, l := range s.candLinks {
		s.candCodes = append(s.candCodes, s.linkCodes[l])
	}
	return s.candLinks, s.candCodes
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

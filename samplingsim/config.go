package samplingsim

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"orcs/samplingsim/buffer"
)

// MarkPoint says when a switch decides whether a packet's output port is
// congested (thesis §5.10).
type MarkPoint uint8

const (
	// MarkEnqueue decides as the packet is added to the output queue (the
	// thesis's choice, §3.2).
	MarkEnqueue MarkPoint = iota
	// MarkArrival decides as the packet arrives in the switch's input buffer.
	MarkArrival
	// MarkDeparture decides as the packet leaves the output queue.
	MarkDeparture
)

// markPointNames are the command-line names of the mark points.
var markPointNames = []string{MarkEnqueue: "enqueue", MarkArrival: "arrival", MarkDeparture: "departure"}

// String returns the mark point's name.
func (m MarkPoint) String() string {
	if int(m) < len(markPointNames) {
		return markPointNames[m]
	}
	return fmt.Sprintf("MarkPoint(%d)", uint8(m))
}

// ParseMarkPoint parses "enqueue", "arrival" or "departure".
func ParseMarkPoint(s string) (MarkPoint, error) {
	for i, n := range markPointNames {
		if s == n {
			return MarkPoint(i), nil
		}
	}
	return 0, fmt.Errorf("unknown mark point %q (known: %s)", s, strings.Join(markPointNames, ", "))
}

// Config describes the simulated network and the sampling. Start from
// DefaultConfig: a zero field is an error, not a request for the default.
type Config struct {
	// Bandwidth is the rate of every link direction in bits per second
	// (of every link that LinkBandwidth gives no rate).
	Bandwidth float64
	// LinkBandwidth, when not nil, holds each link's own rate in bits per
	// second, by link id of the fabric (a topology's 4xFDR10 host links
	// and 4xHDR spine links differ); 0 takes Bandwidth. A host's NIC sends
	// and consumes at the rate of its link. LinkRateNames, beside it,
	// names each rate as the topology gives it ("4xFDR10"), "" where it
	// gives none (the summary groups the links by it).
	LinkBandwidth []float64
	LinkRateNames []string
	// Latency is the propagation delay of a link; credits travel back with
	// the same delay.
	Latency Time
	// RouterDelay is added to the latency of links into a switch (routing
	// and crossbar traversal).
	RouterDelay Time
	// MTU is the largest packet payload in bytes; messages are cut into
	// packets of MTU bytes and a last, shorter one.
	MTU int
	// InputBuffer is the buffer of every switch input port and every NIC
	// receive port, in packets; it is the number of credits of the link
	// that feeds it.
	InputBuffer int
	// OutputQueue is the capacity of every switch output queue, in packets.
	OutputQueue int

	// Buffers names the buffer policy of the input ports with its
	// parameters: "fifo" (the default: one FIFO per port, head-of-line
	// blocking), "dias-kumar", "counting:alpha=…", "hashed:j=…" (dampening
	// switches with per-destination flow control, buffers.go) or "bypass"
	// (their mechanics without a rule per destination). InputBuffer is B,
	// the buffers per input port.
	Buffers string

	// Marking names the congestion-marking policy with its parameters, e.g.
	// "credits" (the thesis's rule), "queue:threshold=2",
	// "credit-threshold:threshold=1", "probabilistic:min=1,max=4".
	Marking string
	// MarkAt says when the policy is evaluated.
	MarkAt MarkPoint

	// Scheme names the sampling header: "reservoir" (Algorithms 2–4),
	// "onebit" (5–7), "onereservoir" (8–9) or "none".
	Scheme string
	// HopBits is the width b of the hop counters; counts saturate at 2^b−1
	// (thesis §5.6). 1 ≤ HopBits ≤ 16.
	HopBits int
	// TagFraction is the fraction of packets that carry a sampling header,
	// in [0, 1]. Estimates are divided by it.
	TagFraction float64
	// Hash names the one-bit hash H of the probabilistic schemes: "mult"
	// (H_mult' of §5.4) or "crc".
	Hash string
	// Restrict says which links a receiver updates for a probabilistic
	// header (§5.2): "route" (the packet's table route, exact with static
	// routing), "hostrule" (every switch link except those into other
	// hosts) or "all".
	Restrict string
	// FalsePositiveConfidence sets the false-positive threshold of §5.5 for
	// the probabilistic schemes: an estimate W_d is shown as 0 unless
	// W_d ≥ L·√Q_d·Φ⁻¹(confidence). 0 disables the threshold. It applies
	// with the hostrule and all restrictions, and with the route
	// restriction under adaptive routing, whose route set holds links a
	// packet did not cross (the thesis's Figs. 5.4–5.5); with the route
	// restriction and static routing every link a receiver updates was
	// crossed, so there it is not applied (it would only hide traffic).
	FalsePositiveConfidence float64
	// PacketIDs says how packets are numbered, the record ids of the
	// one-bit hash: "connection" (per source–destination pair, sequence
	// numbers modulo 2^24 from a random starting PSN drawn from the seed, as
	// InfiniBand queue pairs number their packets) or "global" (one counter
	// from 1 for the whole run).
	PacketIDs string
	// PortBits is the number of bits of the port field in the link code
	// d = switch·2^(9+PortBits) + port·2^9 + 509; the thesis uses 6 (ports up
	// to 63). 0 means "6, or more if some switch has more ports".
	PortBits int

	// Window is the length of a time window: counters are stored and reset
	// every Window (thesis §3.2). 0 keeps one window for the whole run.
	Window Time
	// SlowHosts lists hosts (host indices) whose consumer drains packets at
	// SlowFactor times the line rate.
	SlowHosts []int32
	// SlowFactor is the consumer rate of SlowHosts relative to the line
	// rate, in (0, 1].
	SlowFactor float64
	// Routing is the routing of the primary job (job 0): "static" (the
	// forwarding tables) or "adaptive[:mode=…,bias=…]" (see ParseRouting).
	Routing string
	// BackgroundRouting is the routing of the other jobs; "" = Routing.
	BackgroundRouting string
	// Groups gives the Dragonfly group of every switch (by switch index)
	// for adaptive routing's non-minimal paths; nil for other fabrics.
	Groups []int32
	// GlobalLatency, if positive, is the latency of the links between
	// Dragonfly groups (long optical cables; needs Groups); credits travel
	// back with it too. 0 = Latency.
	GlobalLatency Time

	// Seed selects the random streams (sampling draws, tagging, marking).
	Seed uint64
	// MaxTime stops the run at this simulated time; 0 = no limit.
	MaxTime Time
	// Progress, when not nil, is called from the event loop every 65 536
	// events with the simulated time and the number of messages finished
	// of all (for a progress line; it must be quick). It changes nothing
	// in the run.
	Progress func(now Time, done, total int)
	// CC is InfiniBand congestion control (IBA annex A10, cc.go); nil or
	// not enabled is none, and the run is the same as without the field.
	CC *CongestionControl
	// measure makes a run keep latency and stall statistics whatever its
	// routing and workload (CompareRouting: every row measured alike).
	measure bool
}

// The bounds of the link rate (bits per second) and of the slow
// consumers' factor: a packet time must fit the picosecond clock many times
// over, and be at least a picosecond.
const (
	MinBandwidth  = 1e6
	MaxBandwidth  = 1e15
	MinSlowFactor = 1e-6
)

// MaxMTU is the largest MTU: a packet's size is a 32-bit number of bytes.
const MaxMTU = 1 << 30

// DefaultConfig returns the defaults, close to the networks of Taffet's
// thesis: 100 Gb/s links, 4 KiB packets, 4 packets of buffer per input
// port, the credits marking rule at enqueue, reservoir headers with 8-bit
// counters on every packet.
func DefaultConfig() Config {
	return Config{
		Bandwidth:               100e9,
		Latency:                 50 * Nanosecond,
		RouterDelay:             100 * Nanosecond,
		MTU:                     4096,
		InputBuffer:             4,
		OutputQueue:             4,
		Buffers:                 "fifo",
		Marking:                 "credits",
		MarkAt:                  MarkEnqueue,
		Scheme:                  "reservoir",
		HopBits:                 8,
		TagFraction:             1,
		Hash:                    "mult",
		Restrict:                "route",
		FalsePositiveConfidence: 0.99,
		PacketIDs:               "connection",
		SlowFactor:              1,
		Routing:                 "static",
		Seed:                    1,
	}
}

// Validate checks c and returns an error naming every bad setting.
func (c *Config) Validate() error {
	_, err := c.parse()
	return err
}

// plugins are the plug-in specs of a Config parsed once into typed values
// (Config.parse); newSim sets a run up from them.
type plugins struct {
	// buffers is the buffer policy of the input ports (Config.Buffers).
	buffers buffer.Spec
	// marker is the congestion-marking policy (Config.Marking).
	marker marker
	// scheme is the sampling header (Config.Scheme).
	scheme *scheme
	// hash is the one-bit hash of the probabilistic schemes (Config.Hash).
	hash hashKind
	// restrict says which links a receiver updates (Config.Restrict).
	restrict restrictKind
	// ids says how packets are numbered (Config.PacketIDs).
	ids idKind
	// routing and background are the routings of job 0 and of the other
	// jobs (Config.Routing, Config.BackgroundRouting: that of job 0 when
	// empty).
	routing, background Routing
}

// parse checks c and parses its plug-in specs; the error names every bad
// setting.
func (c *Config) parse() (plugins, error) {
	var pl plugins
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if !(c.Bandwidth >= MinBandwidth && c.Bandwidth <= MaxBandwidth) {
		bad("bandwidth %g Gb/s: must be between %g and %g Gb/s (slower links overflow the picosecond clock, faster ones send a packet in less than a picosecond)", c.Bandwidth/1e9, MinBandwidth/1e9, MaxBandwidth/1e9)
	}
	for l, bps := range c.LinkBandwidth {
		if !(bps >= 0) || math.IsInf(bps, 0) {
			bad("bandwidth %g b/s of link %d: must be a positive number (or 0 for the default)", bps, l)
			break
		}
	}
	if c.LinkRateNames != nil && len(c.LinkRateNames) != len(c.LinkBandwidth) {
		bad("%d link rate names for %d link rates", len(c.LinkRateNames), len(c.LinkBandwidth))
	}
	if c.Latency < 0 {
		bad("latency %d ps: must not be negative", c.Latency)
	}
	if c.RouterDelay < 0 {
		bad("router delay %d ps: must not be negative", c.RouterDelay)
	}
	if c.MTU < 1 || c.MTU > MaxMTU {
		bad("MTU %d bytes: must be between 1 and %d (packet sizes are 32-bit numbers)", c.MTU, MaxMTU)
	}
	if c.InputBuffer < 1 {
		bad("input buffer %d packets: must be at least 1 (a port without buffer can never receive)", c.InputBuffer)
	}
	if c.OutputQueue < 1 {
		bad("output queue %d packets: must be at least 1", c.OutputQueue)
	}
	if c.InputBuffer > maxRing {
		bad("input buffer %d packets: at most %d", c.InputBuffer, maxRing)
	}
	if c.OutputQueue > maxRing {
		bad("output queue %d packets: at most %d", c.OutputQueue, maxRing)
	}
	if c.InputBuffer >= 1 {
		var err error
		if pl.buffers, err = buffer.Parse(c.Buffers, int32(c.InputBuffer)); err != nil {
			bad("%v", err)
		}
	}
	var err error
	if pl.marker, err = parseMarking(c.Marking); err != nil {
		bad("%v", err)
	}
	if c.MarkAt > MarkDeparture {
		bad("mark point %d: unknown", c.MarkAt)
	}
	if pl.scheme, err = lookupScheme(c.Scheme); err != nil {
		bad("%v", err)
	}
	if c.HopBits < 1 || c.HopBits > 16 {
		bad("hop bits b=%d: must be between 1 and 16 (a 0-bit counter cannot count a hop)", c.HopBits)
	}
	if !(c.TagFraction >= 0 && c.TagFraction <= 1) {
		bad("tagging fraction %g: must be in [0, 1]", c.TagFraction)
	}
	if pl.hash, err = lookupHash(c.Hash); err != nil {
		bad("%v", err)
	}
	if pl.restrict, err = parseRestrict(c.Restrict); err != nil {
		bad("%v", err)
	}
	if !(c.FalsePositiveConfidence >= 0 && c.FalsePositiveConfidence < 1) {
		bad("false-positive confidence %g: must be in [0, 1)", c.FalsePositiveConfidence)
	}
	if pl.ids, err = parseIDs(c.PacketIDs); err != nil {
		bad("%v", err)
	}
	if c.PortBits < 0 || c.PortBits > 16 {
		bad("port bits %d: must be between 0 (automatic) and 16", c.PortBits)
	}
	if c.Window < 0 {
		bad("window %d ps: must not be negative", c.Window)
	}
	if !(c.SlowFactor >= MinSlowFactor && c.SlowFactor <= 1) {
		bad("slow factor %g: must be in [%g, 1] (a slower consumer overflows the picosecond clock)", c.SlowFactor, MinSlowFactor)
	}
	if pl.routing, err = parseRoutingOrStatic(c.Routing); err != nil {
		bad("--routing %q: %v", c.Routing, err)
	}
	pl.background = pl.routing
	if c.BackgroundRouting != "" {
		if pl.background, err = ParseRouting(c.BackgroundRouting); err != nil {
			bad("background routing %q: %v", c.BackgroundRouting, err)
		}
	}
	if c.GlobalLatency < 0 {
		bad("global latency %d ps: must not be negative", c.GlobalLatency)
	}
	if c.GlobalLatency > 0 && c.Groups == nil {
		bad("global latency: only a Dragonfly (a fabric with groups) has global links")
	}
	if c.MaxTime < 0 {
		bad("max time %d ps: must not be negative", c.MaxTime)
	}
	if err := c.CC.check(); err != nil {
		bad("congestion control: %v", err)
	}
	if err := errors.Join(errs...); err != nil {
		return plugins{}, err
	}
	return pl, nil
}

// linkBps returns the rate of link l in bits per second.
func (c *Config) linkBps(l int32) float64 {
	if int(l) < len(c.LinkBandwidth) && c.LinkBandwidth[l] > 0 {
		return c.LinkBandwidth[l]
	}
	return c.Bandwidth
}

// serTime returns the time to send bytes at bandwidth bps, rounded up to
// whole picoseconds.
func serTime(bytes int64, bps float64) Time {
	return Time(math.Ceil(float64(bytes) * 8e12 / bps))
}

// LinkRateGroup is the number of links that run at one rate.
type LinkRateGroup struct {
	// Rate names the rate as the topology gives it ("4xFDR10"), "" for
	// links it gives none (they run at Config.Bandwidth).
	Rate  string  `json:"rate,omitempty"`
	Gbps  float64 `json:"gbps"`
	Links int     `json:"links"`
}

// LinkRateGroups groups the links by rate, most links first (then by
// rate name and speed), or returns nil when the links carry no rates of
// their own (LinkRateNames is nil).
func (c *Config) LinkRateGroups() []LinkRateGroup {
	if c.LinkRateNames == nil {
		return nil
	}
	var groups []LinkRateGroup
	index := map[LinkRateGroup]int{}
	for l, name := range c.LinkRateNames {
		k := LinkRateGroup{Rate: name, Gbps: c.linkBps(int32(l)) / 1e9}
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, k)
		}
		groups[i].Links++
	}
	slices.SortFunc(groups, func(a, b LinkRateGroup) int {
		return cmp.Or(cmp.Compare(b.Links, a.Links), cmp.Compare(a.Rate, b.Rate), cmp.Compare(a.Gbps, b.Gbps))
	})
	return groups
}

// LinkRatesLine says at which rates the links run, for the summary:
// "links: 24 × 4xFDR10 40 Gb/s, 8 × 4xHDR 206.25 Gb/s", with the links
// whose topology gives no speed at the default rate said so; "" when the
// links carry no rates of their own.
func (c *Config) LinkRatesLine() string {
	groups := c.LinkRateGroups()
	if groups == nil {
		return ""
	}
	parts := make([]string, len(groups))
	unknown := 0
	for i, g := range groups {
		gbps := strconv.FormatFloat(math.Round(g.Gbps*100)/100, 'f', -1, 64)
		if g.Rate == "" {
			parts[i] = fmt.Sprintf("%d × %s Gb/s (no speed in the topology: the default, --gbps)", g.Links, gbps)
			unknown += g.Links
			continue
		}
		parts[i] = fmt.Sprintf("%d × %s %s Gb/s", g.Links, g.Rate, gbps)
	}
	line := "links: " + strings.Join(parts, ", ")
	if unknown == len(c.LinkRateNames) {
		line = fmt.Sprintf("links: %s (the topology gives no link speeds: every link at the default, --gbps)",
			strings.TrimSuffix(parts[0], " (no speed in the topology: the default, --gbps)"))
	}
	return line
}

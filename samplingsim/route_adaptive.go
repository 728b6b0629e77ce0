package samplingsim

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"orcs/lft"
	"orcs/registry"
	"orcs/rng"
)

// RouteMode is how a packet chooses its output ports.
type RouteMode uint8

// The routing modes. The adaptive ones are the four of Cray Aries that De
// Sensi et al. (SC'19, §2.2) compare, plus their Application-Aware
// selection (Algorithm 1), which picks Adaptive or High bias per message.
const (
	// ModeStatic follows the forwarding tables.
	ModeStatic RouteMode = iota
	// ModeAdaptive adds no bias (Aries ADAPTIVE_0).
	ModeAdaptive
	// ModeIMB is Increasingly Minimal Bias (ADAPTIVE_1): the bias grows
	// with the hops a packet has taken.
	ModeIMB
	// ModeLow adds a low bias (ADAPTIVE_2).
	ModeLow
	// ModeHigh adds a high bias (ADAPTIVE_3).
	ModeHigh
	// ModeApp is Application-Aware routing: every NIC chooses Adaptive
	// (Increasingly Minimal Bias for an alltoall job) or High bias per
	// message from its latency and stall counters.
	ModeApp
)

// routeModeNames are the names of the modes in --routing specs.
var routeModeNames = []string{ModeStatic: "static", ModeAdaptive: "adaptive", ModeIMB: "imb", ModeLow: "low",
	ModeHigh: "high", ModeApp: "app"}

// String returns the mode's name.
func (m RouteMode) String() string {
	if int(m) < len(routeModeNames) {
		return routeModeNames[m]
	}
	return fmt.Sprintf("RouteMode(%d)", uint8(m))
}

// Routing is a parsed --routing spec.
type Routing struct {
	// Mode is the routing mode.
	Mode RouteMode
	// Bias is the bias of Low and High (added to the estimate of the
	// alternative ports, in packets) and the per-hop step of Increasingly
	// Minimal Bias.
	Bias int32
	// App holds the parameters of Application-Aware routing.
	App AppParams
	// QueueOnly estimates a port's congestion from its output queue alone,
	// without the credits in use: the job's packets then see no phantom
	// congestion (De Sensi §2.2: credits come back late over long links,
	// so a port whose packets are merely in flight looks congested). Not
	// what switches do: a mechanism check ("estimate=queue").
	QueueOnly bool
}

// AppParams are the parameters of Application-Aware routing (De Sensi
// Algorithm 1).
type AppParams struct {
	// Threshold is the cumulative message size in bytes from which a NIC
	// reads its counters and decides; smaller sums go with High bias.
	Threshold int64
	// Lambda and Sigma scale the latency and stall ratio measured under
	// Adaptive into estimates under High bias (and back) when the other
	// mode's measurements are older than MaxAge decisions.
	Lambda, Sigma float64
	// MaxAge is the number of decisions after which a mode's measurements
	// are discarded.
	MaxAge int
	// Backlog makes p, the packets of the cost model, every packet in the
	// NIC's injection queue from this message on (the work the choice
	// affects while the NIC streams messages back to back); false: the
	// message's own packets, as in the paper.
	Backlog bool
}

// Default biases, in packets of estimated occupancy (a port's estimate is
// at most OutputQueue + InputBuffer, 8 by default).
const (
	defaultLowBias  = 2
	defaultHighBias = 6
	defaultIMBStep  = 2
)

// DefaultAppParams are the defaults of Application-Aware routing: the
// paper's 4 KiB threshold; Lambda and Sigma are the medians of the ratios
// High bias / Adaptive of the mean packet latency (0.61–0.90) and of the
// stall per packet (1.27–5.15) that --compare-routing printed for the
// Dragonfly noise experiments of samplingsim's README with seeds 1–3 (the
// runs with stalls under both modes).
var DefaultAppParams = AppParams{Threshold: 4096, Lambda: 0.77, Sigma: 2.62, MaxAge: 8}

// routingKind is a registered routing: static or adaptive.
type routingKind struct {
	params []registry.Param
	build  func(r *registry.Reader) (Routing, error)
}

func (k *routingKind) Params() []registry.Param { return k.params }

var routings = registry.New[*routingKind]("routing")

func init() {
	routings.Register("static", "the forwarding tables", &routingKind{
		build: func(r *registry.Reader) (Routing, error) { return Routing{Mode: ModeStatic}, r.Err() },
	})
	routings.Register("adaptive", "per packet and switch, the allowed port with the least queue + credits in use; fat trees: every minimal up-port, the table's port preferred by the bias; Dragonflies: minimal or Valiant (UGAL), the bias added to the non-minimal estimate",
		&routingKind{
			params: []registry.Param{
				{Key: "mode", Default: "adaptive", Doc: "adaptive (no bias), imb (increasingly minimal bias), low, high, app (Application-Aware)"},
				{Key: "bias", Default: "-1", Doc: "bias in packets (low 2, high 6) or the imb step per hop (2); -1 = the mode's"},
				{Key: "threshold", Default: strconv.FormatInt(DefaultAppParams.Threshold, 10), Doc: "app: cumulative message bytes between decisions"},
				{Key: "lambda", Default: strconv.FormatFloat(DefaultAppParams.Lambda, 'g', -1, 64), Doc: "app: latency under high bias / under adaptive, for stale measurements"},
				{Key: "sigma", Default: strconv.FormatFloat(DefaultAppParams.Sigma, 'g', -1, 64), Doc: "app: stalls under high bias / under adaptive, for stale measurements"},
				{Key: "age", Default: strconv.Itoa(DefaultAppParams.MaxAge), Doc: "app: decisions after which a mode's measurements are stale"},
				{Key: "p", Default: "backlog", Doc: "app: packets of the cost model: message (the paper's) or backlog (the message and those queued behind it)"},
				{Key: "estimate", Default: "credits", Doc: "a port's congestion estimate for this job's packets: credits (output queue + credits in use, as switches do: phantom congestion on long links) or queue (the output queue only, a check without phantom congestion)"},
			},
			build: buildAdaptiveRouting,
		})
}

func buildAdaptiveRouting(r *registry.Reader) (Routing, error) {
	rt := Routing{Mode: ModeAdaptive}
	mode := r.String("mode")
	bias := r.Int("bias")
	rt.App = AppParams{Threshold: int64(r.Int("threshold")), Lambda: r.Float("lambda"), Sigma: r.Float("sigma"), MaxAge: r.Int("age")}
	switch pm := r.String("p"); pm {
	case "backlog":
		rt.App.Backlog = true
	case "message":
	default:
		r.Failf("p=%q: want message or backlog", pm)
	}
	switch est := r.String("estimate"); est {
	case "queue":
		rt.QueueOnly = true
	case "credits":
	default:
		r.Failf("estimate=%q: want credits or queue", est)
	}
	if err := r.Err(); err != nil {
		return rt, err
	}
	found := false
	for i, n := range routeModeNames {
		if n == mode && RouteMode(i) != ModeStatic {
			rt.Mode, found = RouteMode(i), true
		}
	}
	if !found {
		return rt, fmt.Errorf("mode=%q: known modes are %s", mode, strings.Join(routeModeNames[1:], ", "))
	}
	switch {
	case bias < -1:
		return rt, fmt.Errorf("bias=%d: must be ≥ 0 (or -1 for the mode's default)", bias)
	case rt.App.Threshold < 0:
		return rt, fmt.Errorf("threshold=%d: must be ≥ 0", rt.App.Threshold)
	case !(rt.App.Lambda > 0) || !(rt.App.Sigma > 0):
		return rt, fmt.Errorf("lambda=%g, sigma=%g: must be positive", rt.App.Lambda, rt.App.Sigma)
	case rt.App.MaxAge < 1:
		return rt, fmt.Errorf("age=%d: must be ≥ 1", rt.App.MaxAge)
	}
	rt.Bias = int32(bias)
	if bias < 0 {
		switch rt.Mode {
		case ModeLow:
			rt.Bias = defaultLowBias
		case ModeHigh, ModeApp:
			rt.Bias = defaultHighBias
		case ModeIMB:
			rt.Bias = defaultIMBStep
		default:
			rt.Bias = 0
		}
	}
	return rt, nil
}

// ParseRouting parses a --routing spec: "static" or
// "adaptive[:mode=adaptive|imb|low|high|app,bias=N,...]".
func ParseRouting(text string) (Routing, error) {
	k, r, err := registry.LookupSpec(routings, text)
	if err != nil {
		return Routing{}, err
	}
	return k.build(r)
}

// RoutingNames describes the routings for help texts.
func RoutingNames() []string {
	var out []string
	for name, k := range routings.All() {
		doc, _ := routings.Doc(name)
		out = append(out, registry.Describe(name, doc, k.params))
	}
	return out
}

// Route phases of an adaptively routed packet. A packet is minimal until
// it takes a non-minimal (Valiant) port; then it heads for its
// intermediate group (phaseValiant, lane 0) and from there minimally to
// its destination (phaseFinal, lane 1).
const (
	phaseMin uint8 = iota
	phaseValiant
	phaseFinal
)

// adaptive holds what adaptive routing knows of the fabric: hop distances
// between switches, the switches' switch-to-switch links and, on a
// Dragonfly, the groups. Everything is flat and indexed by switch.
type adaptive struct {
	nsw int
	// dist[a*nsw+b] is the hop distance from switch a to switch b (255 =
	// unreachable).
	dist []uint8
	// leaf[h] is the switch index of host h's switch (its first link).
	leaf []int32
	// Switch-to-switch links of switch a: links[start[a]:start[a+1]],
	// leading to switch to[i].
	start, links, to []int32
	// groups[a] is the Dragonfly group of switch a (nil: no groups); ng
	// the number of groups and gdist[a*ng+g] the distance from a to the
	// nearest switch of group g.
	groups []int32
	ng     int
	gdist  []uint8
	// global[l] says whether link l joins two groups.
	global []bool
	// Precomputed allowed links (when the tables fit maxAllowedTable):
	// minimal links from a towards b are minL[minS[a*nsw+b]:minS[a*nsw+b+1]],
	// links from a towards group g grpL[grpS[a*ng+g]:grpS[a*ng+g+1]].
	minS, minL, grpS, grpL []int32
	// On a Dragonfly, where most of these sets have one link, min1 and
	// grp1 hold that link (−1: none or several), so that a hop reads one
	// table entry.
	min1, grp1 []int32
	// lanes is the number of virtual lanes: 3 with groups (a lane per
	// global hop taken: Valiant paths have two), else 1.
	lanes int
	r     *rng.Stream
	// queueOnly[j] says whether the packets of job j (0, or 1 for every
	// other job) estimate from output queues alone (Routing.QueueOnly);
	// anyQueueOnly whether any job does, and cur whether the packet being
	// routed does.
	queueOnly         [2]bool
	anyQueueOnly, cur bool
}

// maxAdaptiveSwitches bounds the switches of a fabric routed adaptively
// (the distance table has switches² bytes).
const maxAdaptiveSwitches = 16384

// newAdaptive analyses f for adaptive routing. groups, if not nil, gives
// the Dragonfly group of every switch (by switch index).
func newAdaptive(f *lft.Fabric, groups []int32, r *rng.Stream) (*adaptive, error) {
	S := f.NumSwitches()
	if S > maxAdaptiveSwitches {
		return nil, fmt.Errorf("adaptive routing: %d switches, at most %d are supported", S, maxAdaptiveSwitches)
	}
	if groups != nil && len(groups) != S {
		return nil, fmt.Errorf("adaptive routing: %d group numbers for %d switches", len(groups), S)
	}
	a := &adaptive{nsw: S, r: r, lanes: 1}
	a.start = make([]int32, S+1)
	for sw := range S {
		for _, l := range f.OutLinks(f.SwitchNode(sw)) {
			if u := f.SwitchIndex(f.Links[l].To); u >= 0 {
				a.links = append(a.links, l)
				a.to = append(a.to, u)
			}
		}
		a.start[sw+1] = int32(len(a.links))
	}
	a.dist = make([]uint8, S*S)
	queue := make([]int32, 0, S)
	for src := range S {
		d := a.dist[src*S : (src+1)*S]
		for i := range d {
			d[i] = 255
		}
		d[src] = 0
		queue = append(queue[:0], int32(src))
		for i := 0; i < len(queue); i++ {
			v := queue[i]
			for j := a.start[v]; j < a.start[v+1]; j++ {
				if u := a.to[j]; d[u] == 255 && d[v] < 254 {
					d[u] = d[v] + 1
					queue = append(queue, u)
				}
			}
		}
	}
	H := f.NumHosts()
	a.leaf = make([]int32, H)
	for h := range H {
		a.leaf[h] = -1
		for _, l := range f.OutLinks(f.HostNode(h)) {
			if sw := f.SwitchIndex(f.Links[l].To); sw >= 0 {
				a.leaf[h] = sw
				break
			}
		}
		if a.leaf[h] < 0 {
			return nil, fmt.Errorf("adaptive routing: host %s has no link to a switch", f.HostName(h))
		}
	}
	if groups != nil {
		a.groups = groups
		for _, g := range groups {
			a.ng = max(a.ng, int(g)+1)
		}
		if a.ng > math.MaxInt16 {
			return nil, fmt.Errorf("adaptive routing: %d groups, at most %d are supported", a.ng, math.MaxInt16)
		}
		a.dragonflyDistances()
		a.global = make([]bool, len(f.Links))
		for j, l := range a.links {
			a.global[l] = groups[a.to[j]] != groups[f.SwitchIndex(f.Links[l].From)]
		}
		a.gdist = make([]uint8, S*a.ng)
		for i := range a.gdist {
			a.gdist[i] = 255
		}
		for x := range S {
			for y := range S {
				g := int(groups[y])
				a.gdist[x*a.ng+g] = min(a.gdist[x*a.ng+g], a.dist[x*S+y])
			}
		}
		a.lanes = 3
	}
	a.precompute()
	return a, nil
}

// maxAllowedTable bounds the switch pairs for which the allowed links are
// tabulated; larger fabrics compute them per hop.
const maxAllowedTable = 1 << 22

// precompute tabulates the allowed links of every switch towards every
// switch and group, so that a hop looks them up instead of scanning the
// switch's links.
func (a *adaptive) precompute() {
	if a.nsw*a.nsw > maxAllowedTable {
		return
	}
	minS := make([]int32, 1, a.nsw*a.nsw+1)
	var minL []int32
	for x := range int32(a.nsw) {
		for y := range int32(a.nsw) {
			minL = a.minimal(minL, x, y)
			minS = append(minS, int32(len(minL)))
		}
	}
	var grpS, grpL []int32
	if a.groups != nil {
		grpS = make([]int32, 1, a.nsw*a.ng+1)
		for x := range int32(a.nsw) {
			for g := range int32(a.ng) {
				grpL = a.towardGroup(grpL, x, g)
				grpS = append(grpS, int32(len(grpL)))
			}
		}
	}
	a.minS, a.minL, a.grpS, a.grpL = minS, minL, grpS, grpL
	if a.groups != nil {
		a.min1, a.grp1 = single(minS, minL), single(grpS, grpL)
	}
}

// single returns, for every set i of the table start, links, its only
// link, or −1 when it has none or several.
func single(start, links []int32) []int32 {
	one := make([]int32, len(start)-1)
	for i := range one {
		one[i] = -1
		if start[i+1]-start[i] == 1 {
			one[i] = links[start[i]]
		}
	}
	return one
}

// leastMinimal is least over the minimal links from switch sw towards
// switch target.
func (s *network) leastMinimal(sw, target, lane int32) (int32, int32) {
	a := s.ad
	if a.min1 != nil {
		if l := a.min1[int(sw)*a.nsw+int(target)]; l >= 0 {
			c := l + lane*s.physLinks
			return c, s.estimate(c)
		}
	}
	return s.least(a.minimalOf(s.adLinks, sw, target), lane)
}

// leastToward is least over the links from switch sw towards group g.
func (s *network) leastToward(sw, g, lane int32) (int32, int32) {
	a := s.ad
	if a.grp1 != nil {
		if l := a.grp1[int(sw)*a.ng+int(g)]; l >= 0 {
			c := l + lane*s.physLinks
			return c, s.estimate(c)
		}
	}
	return s.least(a.towardGroupOf(s.adLinks, sw, g), lane)
}

// minimalOf returns the minimal links from sw towards target, from the
// table or computed into scratch.
func (a *adaptive) minimalOf(scratch []int32, sw, target int32) []int32 {
	if a.minS != nil {
		i := int(sw)*a.nsw + int(target)
		return a.minL[a.minS[i]:a.minS[i+1]]
	}
	return a.minimal(scratch[:0], sw, target)
}

// towardGroupOf returns the links from sw towards group g, from the table
// or computed into scratch.
func (a *adaptive) towardGroupOf(scratch []int32, sw, g int32) []int32 {
	if a.grpS != nil {
		i := int(sw)*a.ng + int(g)
		return a.grpL[a.grpS[i]:a.grpS[i+1]]
	}
	return a.towardGroup(scratch[:0], sw, g)
}

// dragonflyDistances replaces the hop distances by those of Dragonfly
// minimal paths (Kim et al.): local hops in the source group, at most one
// global hop, local hops in the destination group. (A shortest path in
// hops may cross a third group with two global hops; such paths are not
// minimal routes and would close credit loops on one lane.)
func (a *adaptive) dragonflyDistances() {
	S := a.nsw
	intra := make([]uint8, S*S)
	for i := range intra {
		intra[i] = 255
	}
	queue := make([]int32, 0, S)
	for src := range S {
		d := intra[src*S : (src+1)*S]
		d[src] = 0
		queue = append(queue[:0], int32(src))
		for i := 0; i < len(queue); i++ {
			v := queue[i]
			for j := a.start[v]; j < a.start[v+1]; j++ {
				if u := a.to[j]; a.groups[u] == a.groups[v] && d[u] == 255 && d[v] < 254 {
					d[u] = d[v] + 1
					queue = append(queue, u)
				}
			}
		}
	}
	copy(a.dist, intra)
	for x := range S {
		gx := a.groups[x]
		for u := range S {
			du := intra[x*S+u]
			if a.groups[u] != gx || du == 255 {
				continue
			}
			for j := a.start[u]; j < a.start[u+1]; j++ {
				v := a.to[j]
				if a.groups[v] == gx {
					continue
				}
				for t := range S {
					if a.groups[t] == a.groups[v] && intra[int(v)*S+t] < 255 {
						if d := int(du) + 1 + int(intra[int(v)*S+t]); d < int(a.dist[x*S+t]) {
							a.dist[x*S+t] = uint8(min(d, 254))
						}
					}
				}
			}
		}
	}
}

// step reports whether a route may go from switch sw to switch w on the
// way to group g: on a Dragonfly only within sw's group or into g (a
// minimal route has one global hop); anywhere on other fabrics.
func (a *adaptive) step(sw, w, g int32) bool {
	return a.groups == nil || a.groups[w] == a.groups[sw] || a.groups[w] == g
}

// minimal appends to dst the links from switch sw that lie on a minimal
// path to switch target.
func (a *adaptive) minimal(dst []int32, sw, target int32) []int32 {
	d := a.dist[int(sw)*a.nsw+int(target)]
	g := int32(-1)
	if a.groups != nil {
		g = a.groups[target]
	}
	for j := a.start[sw]; j < a.start[sw+1]; j++ {
		if w := a.to[j]; a.dist[int(w)*a.nsw+int(target)]+1 == d && a.step(sw, w, g) {
			dst = append(dst, a.links[j])
		}
	}
	return dst
}

// towardGroup appends to dst the links from switch sw that lie on a
// minimal path to the nearest switch of group g.
func (a *adaptive) towardGroup(dst []int32, sw int32, g int32) []int32 {
	d := a.gdist[int(sw)*a.ng+int(g)]
	for j := a.start[sw]; j < a.start[sw+1]; j++ {
		if w := a.to[j]; a.gdist[int(w)*a.ng+int(g)]+1 == d && a.step(sw, w, g) {
			dst = append(dst, a.links[j])
		}
	}
	return dst
}

// switchAt returns the switch index of the node link l leads to.
func (a *adaptive) switchAt(l int32, f *lft.Fabric) int32 { return f.SwitchIndex(f.Links[l].To) }

// bias returns the bias of mode for a packet that has crossed hops
// switches.
func biasOf(rt *Routing, mode RouteMode, hops uint8) int32 {
	switch mode {
	case ModeAdaptive:
		return 0
	case ModeIMB:
		return rt.Bias * int32(hops)
	case ModeLow:
		if rt.Mode == ModeLow {
			return rt.Bias
		}
		return defaultLowBias
	case ModeHigh:
		if rt.Mode == ModeHigh || rt.Mode == ModeApp {
			return rt.Bias
		}
		return defaultHighBias
	}
	return 0
}

// estimate is the congestion estimate of output channel c from the
// switch's local state: packets in its output queue plus credits in use
// (packets sent that the next input buffer has not yet released, as far as
// the returned credits tell: a credit comes back a link latency after the
// slot frees, so far congestion is seen late).
func (s *network) estimate(c int32) int32 {
	if s.ad.cur {
		return s.ch[c].queue.len()
	}
	return s.ch[c].queue.len() + s.bufferCap - s.availCredits(c)
}

// least returns the channel among links (on lane) with the smallest
// estimate, scanning from a random start so that ties are broken
// uniformly, and its estimate; (−1, max) for no links.
func (s *network) least(links []int32, lane int32) (int32, int32) {
	best, bestEst := int32(-1), int32(1<<30)
	n := len(links)
	switch n {
	case 0:
		return best, bestEst
	case 1:
		c := links[0] + lane*s.physLinks
		return c, s.estimate(c)
	}
	off := 0
	if n > 1 {
		off = s.ad.r.IntN(n)
	}
	for i := off; i < n; i++ {
		c := links[i] + lane*s.physLinks
		if e := s.estimate(c); e < bestEst {
			best, bestEst = c, e
		}
	}
	for i := range off {
		c := links[i] + lane*s.physLinks
		if e := s.estimate(c); e < bestEst {
			best, bestEst = c, e
		}
	}
	return best, bestEst
}

// routeAdaptive chooses the output channel of packet pid at switch node
// (De Sensi §2.2, UGAL-L style): the minimal ports (on a fat tree the
// table's port) are compared with the alternatives (on a fat tree the
// other minimal up-ports; on a Dragonfly, while the packet is still in
// its source group, the ports towards two random intermediate groups),
// the mode's bias added to the alternatives' estimate; ties go minimal.
//
// Lanes: a hop's lane is the number of global (inter-group) links the
// packet crossed before it, so within a lane a packet never goes from a
// global link to a local one, and lanes only grow: Dragonfly routes
// (minimal l-g-l, Valiant l-g-l-g-l) are free of credit loops on three
// lanes. The link into the destination host is on lane 0 (hosts always
// consume). Fat trees route up*/down* on one lane.
func (s *network) routeAdaptive(node int32, pid int32) int32 {
	a := s.ad
	pk := &s.packets[pid]
	sw := s.f.SwitchIndex(node)
	target := a.leaf[pk.dst]
	if sw == target {
		return s.f.NextHop(pk.src, node, pk.dst)
	}
	var l int32
	if pk.mode == ModeStatic {
		l = s.f.NextHop(pk.src, node, pk.dst)
	} else {
		l = s.chooseAdaptive(sw, node, target, pk)
	}
	c := l + int32(pk.lane)*s.physLinks
	if a.global != nil && a.global[l] {
		pk.lane++
	}
	pk.hops++
	return c
}

// chooseAdaptive returns the physical link packet pk leaves switch sw
// (node) on, towards the switch target of its destination.
func (s *network) chooseAdaptive(sw, node, target int32, pk *packet) int32 {
	a := s.ad
	if a.anyQueueOnly {
		a.cur = a.queueOnly[min(s.plan.Msgs[pk.msg].Job, 1)]
	}
	lane := int32(pk.lane)
	if pk.phase == phaseValiant {
		if a.groups[sw] != int32(pk.via) {
			c, _ := s.leastToward(sw, int32(pk.via), lane)
			return c - lane*s.physLinks
		}
		pk.phase = phaseFinal
	}
	bias := biasOf(&s.routing, pk.mode, pk.hops)
	if a.groups == nil {
		def := s.f.NextHop(pk.src, node, pk.dst)
		defEst := s.estimate(def)
		if defEst <= bias {
			return def // no estimate is below 0: no alternative can win
		}
		alt := s.adLinks[:0]
		for _, l := range a.minimalOf(s.adMinimal, sw, target) {
			if l != def {
				alt = append(alt, l)
			}
		}
		s.adLinks = alt
		if c, e := s.least(alt, 0); c >= 0 && e+bias < defEst {
			pk.detour = true
			return c
		}
		return def
	}
	best, bestEst := s.leastMinimal(sw, target, lane)
	best -= lane * s.physLinks
	srcG, dstG := a.groups[a.leaf[pk.src]], a.groups[target]
	if pk.phase != phaseMin || a.groups[sw] != srcG || a.ng < 3 || bestEst <= bias {
		return best
	}
	// Two random intermediate groups, neither the source's nor the
	// destination's. Past the first switch only a global link of this
	// switch may start the detour (a second local hop could close a loop
	// of local links on lane 0).
	for range 2 {
		g := int32(a.r.IntN(a.ng))
		for g == srcG || g == dstG {
			g = int32(a.r.IntN(a.ng))
		}
		if pk.hops > 0 && a.gdist[int(sw)*a.ng+int(g)] != 1 {
			continue
		}
		if c, e := s.leastToward(sw, g, lane); c >= 0 && e+bias < bestEst {
			best, bestEst = c-lane*s.physLinks, e+bias
			pk.via = int16(g)
			pk.phase = phaseValiant
			pk.detour = true
		}
	}
	return best
}

// adaptiveCandidates returns the links a packet from src to dst may have
// crossed under adaptive routing (the one-bit receivers' route
// restriction, §5.2): every switch link on an allowed path — minimal
// paths, and on a Dragonfly the Valiant paths through every other group.
func (s *network) adaptiveCandidates(src, dst int32) ([]int32, []uint32) {
	a := s.ad
	s.candLinks, s.candCodes = s.candLinks[:0], s.candCodes[:0]
	if s.candSeenLink == nil {
		s.candSeenLink = make([]uint32, s.physLinks)
		s.candSeenState = make([]uint32, a.nsw*(a.ng+2))
	}
	s.candStamp++
	stamp := s.candStamp
	target := a.leaf[dst]
	srcSw := a.leaf[src]
	// States: (switch, k) with k = 0 minimal, 1 final phase, 2+g towards
	// group g.
	type state struct{ sw, k int32 }
	var work []state
	visit := func(sw, k int32) {
		i := int(sw)*(a.ng+2) + int(k)
		if s.candSeenState[i] != stamp {
			s.candSeenState[i] = stamp
			work = append(work, state{sw, k})
		}
	}
	addLink := func(l int32) {
		if s.candSeenLink[l] != stamp {
			s.candSeenLink[l] = stamp
			s.candLinks = append(s.candLinks, l)
		}
	}
	visit(srcSw, 0)
	for len(work) > 0 {
		st := work[len(work)-1]
		work = work[:len(work)-1]
		sw := st.sw
		if sw == target && st.k < 2 {
			addLink(s.f.NextHop(src, s.f.SwitchNode(int(sw)), dst))
			continue
		}
		var next []int32
		switch {
		case st.k >= 2:
			g := st.k - 2
			if a.groups[sw] == g {
				visit(sw, 1)
				continue
			}
			next = a.towardGroup(s.adLinks[:0], sw, g)
		case st.k == 0 && a.groups == nil:
			next = a.minimal(s.adLinks[:0], sw, target)
			if def := s.f.NextHop(src, s.f.SwitchNode(int(sw)), dst); !slices.Contains(next, def) {
				next = append(next, def)
			}
		default:
			next = a.minimal(s.adLinks[:0], sw, target)
			if st.k == 0 && a.lanes > 1 && a.groups[sw] == a.groups[srcSw] {
				for g := range int32(a.ng) {
					if g != a.groups[srcSw] && g != a.groups[target] {
						for _, l := range a.towardGroup(nil, sw, g) {
							addLink(l)
							visit(a.switchAt(l, s.f), 2+g)
						}
					}
				}
			}
		}
		s.adLinks = next
		for _, l := range next {
			addLink(l)
			visit(a.switchAt(l, s.f), st.k)
		}
	}
	for _, l := range s.candLinks {
		s.candCodes = append(s.candCodes, s.linkCodes[l])
	}
	return s.candLinks, s.candCodes
}

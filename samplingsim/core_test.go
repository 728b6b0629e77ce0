package samplingsim

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"orcs/gen"
	"orcs/lft"
	"orcs/rng"
)

// fabric generates a topology for tests.
func fabric(t testing.TB, spec string) *lft.Fabric {
	t.Helper()
	f, err := gen.Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// linkInto returns the link into node v of f (the last, if several).
func linkInto(f *lft.Fabric, v int32) int32 {
	into := int32(-1)
	for l, lk := range f.Links {
		if lk.To == v {
			into = int32(l)
		}
	}
	return into
}

// planOf builds a one-job plan of independent messages.
func planOf(f *lft.Fabric, msgs ...Message) *Plan {
	p := &Plan{Jobs: []Job{{Name: "job"}}}
	for h := range f.NumHosts() {
		p.Jobs[0].Hosts = append(p.Jobs[0].Hosts, int32(h))
	}
	for _, m := range msgs {
		if m.Wait == 0 {
			m.Wait = -1
		}
		p.Add(m)
	}
	return p
}

func mustRun(t testing.TB, f *lft.Fabric, cfg Config, p *Plan) *Result {
	t.Helper()
	r, err := Run(f, cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSinglePacketLatency checks the store-and-forward timing of one
// packet over two links, and of a pipelined message at line rate.
func TestSinglePacketLatency(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	cfg := DefaultConfig()
	ser := serTime(int64(cfg.MTU), cfg.Bandwidth)
	if ser != 327680 {
		t.Fatalf("4 KiB at 100 Gb/s = %d ps, want 327680", ser)
	}
	// H0 → H1 share a leaf: host→switch link, switch→host link, consumer.
	want := (ser + cfg.Latency + cfg.RouterDelay) + (ser + cfg.Latency) + ser
	r := mustRun(t, f, cfg, planOf(f, Message{Src: 0, Dst: 1, Bytes: 4096}))
	if got := r.MsgFinish[0]; got != want {
		t.Errorf("one packet finished at %d ps, want %d", got, want)
	}
	// 100 packets stream at line rate: the last one is 99 packet times later.
	r = mustRun(t, f, cfg, planOf(f, Message{Src: 0, Dst: 1, Bytes: 100 * 4096}))
	if got := r.MsgFinish[0]; got != want+99*ser {
		t.Errorf("100 packets finished at %d ps, want %d", got, want+99*ser)
	}
	// A short last packet.
	r = mustRun(t, f, cfg, planOf(f, Message{Src: 0, Dst: 1, Bytes: 4096 + 100}))
	short := serTime(100, cfg.Bandwidth)
	if got := r.MsgFinish[0]; got != want+short {
		t.Errorf("4196 bytes finished at %d ps, want %d", got, want+short)
	}
}

// TestConservation checks that every packet crosses exactly the links of
// its table route, for random traffic with tiny buffers.
func TestConservation(t *testing.T) {
	for _, spec := range []string{"kary:k=4,n=3", "fattree2:leaves=4,hosts=4,up=2,spines=2", "mesh:dims=3x3,hosts=1"} {
		f := fabric(t, spec)
		r := rng.New(7, 0)
		H := f.NumHosts()
		var msgs []Message
		for range 300 {
			s, d := r.IntN(H), r.IntN(H-1)
			if d >= s {
				d++
			}
			msgs = append(msgs, Message{Src: int32(s), Dst: int32(d), Bytes: int64(1 + r.IntN(5*4096))})
		}
		want := make([]int64, len(f.Links))
		var route []int32
		var packets int64
		for _, m := range msgs {
			n := (m.Bytes + 4095) / 4096
			packets += n
			route, _ = f.AppendRoute(route[:0], m.Src, m.Dst)
			for _, l := range route {
				want[l] += n
			}
		}
		for _, buf := range []int{1, 4} {
			cfg := DefaultConfig()
			cfg.InputBuffer, cfg.OutputQueue = buf, buf
			cfg.Window = 2 * Microsecond
			res := mustRun(t, f, cfg, planOf(f, msgs...))
			if res.Packets != packets {
				t.Errorf("%s buf %d: %d packets delivered, want %d", spec, buf, res.Packets, packets)
			}
			for l := range f.Links {
				tr := res.TruthOf(-1, int32(l))
				if tr.Packets != want[l] {
					t.Errorf("%s buf %d: link %s carried %d packets, want %d", spec, buf, f.LinkName(int32(l)), tr.Packets, want[l])
				}
				if tr.QueueMax > int32(buf) {
					t.Errorf("%s: queue of %d packets exceeds capacity %d", spec, tr.QueueMax, buf)
				}
				if tr.Busy != serTime(tr.Bytes, cfg.Bandwidth) && tr.Packets > 0 && tr.Bytes%4096 == 0 {
					t.Errorf("%s: link busy %d ps for %d bytes", spec, tr.Busy, tr.Bytes)
				}
			}
			for i, fin := range res.MsgFinish {
				if fin < 0 {
					t.Fatalf("%s: message %d did not finish", spec, i)
				}
			}
		}
	}
}

// TestHotSpotShare checks that N senders to one host share its link: the
// last message finishes after N·P packet times (the ejection link is the
// bottleneck) but not much later.
func TestHotSpotShare(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	cfg := DefaultConfig()
	var msgs []Message
	const P = 20
	for s := 1; s < 64; s++ {
		msgs = append(msgs, Message{Src: int32(s), Dst: 0, Bytes: P * 4096})
	}
	r := mustRun(t, f, cfg, planOf(f, msgs...))
	ser := serTime(4096, cfg.Bandwidth)
	lower := Time(63*P) * ser
	if r.End < lower || r.End > lower+lower/50+10*Microsecond {
		t.Errorf("hot spot ended at %s, want just above %s", FormatTime(r.End), FormatTime(lower))
	}
	// The link into H0 is busy nearly all the time.
	into := f.NextHop(0, f.SwitchNode(0), 0)
	tr := r.TruthOf(-1, into)
	if u := float64(tr.Busy) / float64(r.End); u < 0.97 {
		t.Errorf("utilisation of the hot link %.3f, want ≥ 0.97", u)
	}
}

// TestHeadOfLineBlocking shows that a flow to an idle host is slowed by a
// flow to a slow host when both share an input buffer.
func TestHeadOfLineBlocking(t *testing.T) {
	// Two leaves, one spine: H0,H1 on leaf 0; H2,H3 on leaf 1.
	f := fabric(t, "fattree2:leaves=2,hosts=2,up=1")
	cfg := DefaultConfig()
	victim := Message{Src: 1, Dst: 3, Bytes: 200 * 4096}
	alone := mustRun(t, f, cfg, planOf(f, victim))
	cfg.SlowHosts, cfg.SlowFactor = []int32{2}, 0.1
	both := mustRun(t, f, cfg, planOf(f, victim, Message{Src: 0, Dst: 2, Bytes: 400 * 4096}))
	if both.MsgFinish[0] < 3*alone.MsgFinish[0] {
		t.Errorf("victim took %s with the slow flow, %s alone; want head-of-line blocking to slow it ≥ 3×",
			FormatTime(both.MsgFinish[0]), FormatTime(alone.MsgFinish[0]))
	}
	// The spine→leaf 1 link is stalled for credits part of the time.
	var stalled Time
	for l := range f.Links {
		stalled += both.TruthOf(-1, int32(l)).Stalled
	}
	if stalled == 0 {
		t.Error("no link ever stalled for credits")
	}
}

// TestDeterministic checks that a seed fixes the run and another seed
// changes the samples but not the traffic.
func TestDeterministic(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	var msgs []Message
	for s := 1; s < 64; s++ {
		if d := (s * 7) % 64; d != s {
			msgs = append(msgs, Message{Src: int32(s), Dst: int32(d), Bytes: 10 * 4096})
		}
	}
	cfg := DefaultConfig()
	cfg.TagFraction = 0.5
	a := mustRun(t, f, cfg, planOf(f, msgs...))
	b := mustRun(t, f, cfg, planOf(f, msgs...))
	cfg.Seed = 2
	c := mustRun(t, f, cfg, planOf(f, msgs...))
	ea, eb, ec := a.Estimates(AllJobs, -1), b.Estimates(AllJobs, -1), c.Estimates(AllJobs, -1)
	sameAB, sameAC := true, true
	for l := range ea {
		sameAB = sameAB && ea[l] == eb[l]
		sameAC = sameAC && ea[l] == ec[l]
	}
	if !sameAB || a.End != b.End || a.Events != b.Events {
		t.Error("two runs with the same seed differ")
	}
	if sameAC {
		t.Error("runs with seeds 1 and 2 have identical estimates")
	}
	if a.End != c.End {
		t.Error("the seed changed the traffic (only sampling is random here)")
	}
}

// ringFabric builds n switches S0 … S(n−1) in a ring, each with one host
// H0 … H(n−1) and links both ways to its neighbours, routed clockwise only:
// S(i) sends to its own host directly and everything else to S(i+1).
// Without virtual channels the clockwise links form a credit loop.
func ringFabric(t testing.TB, n int) *lft.Fabric {
	t.Helper()
	b := lft.NewBuilder()
	sw := make([]int32, n)
	for i := range n {
		sw[i] = b.Node(fmt.Sprintf("S%d", i), lft.Switch)
	}
	for i := range n {
		h := b.Node(fmt.Sprintf("H%d", i), lft.Host)
		b.Route(b.Link(h, sw[i], 1, 1), lft.AnyDest)
		b.Route(b.Link(sw[i], h, 1, 1), b.Dest(fmt.Sprintf("H%d", i)))
	}
	for i := range n {
		cw := b.Link(sw[i], sw[(i+1)%n], 2, 3)
		b.Link(sw[(i+1)%n], sw[i], 3, 2) // counter-clockwise: unused
		b.Route(cw, lft.AnyDest)
	}
	f, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestDeadlockReported sends every host of a 4-switch ring to the host
// two switches ahead, clockwise, with buffers of one packet. Each flow
// crosses two ring links and the four flows together close the credit
// loop: the buffers at S1, S2, S3, S0 fill with packets that wait for the
// next ring link, whose buffer is full too. The run must end with a
// DeadlockError naming that loop. Two of the flows alone (the loop stays
// open) finish.
func TestDeadlockReported(t *testing.T) {
	f := ringFabric(t, 4)
	var msgs []Message
	for s := range int32(4) {
		msgs = append(msgs, Message{Src: s, Dst: (s + 2) % 4, Bytes: 50 * 4096})
	}
	cfg := DefaultConfig()
	cfg.InputBuffer, cfg.OutputQueue = 1, 1
	if r, err := Run(f, cfg, planOf(f, msgs[:2]...)); err != nil || r.Packets != 100 {
		t.Fatalf("two flows of the ring: %v", err)
	}
	_, err := Run(f, cfg, planOf(f, msgs...))
	var dl *DeadlockError
	if !errors.As(err, &dl) {
		t.Fatalf("error %v, want a DeadlockError", err)
	}
	wantNodes := []string{"S0", "S1", "S2", "S3", "S0"}
	if !slices.Equal(dl.Nodes, wantNodes) || len(dl.Loop) != 4 {
		t.Errorf("loop %v over links %v, want %v", dl.Nodes, dl.Loop, wantNodes)
	}
	for i, l := range dl.Loop {
		if k := f.Links[l]; f.Nodes[k.From].Name != wantNodes[i] || f.Nodes[k.To].Name != wantNodes[i+1] {
			t.Errorf("loop link %d is %s, want %q -> %q", i, f.LinkName(l), wantNodes[i], wantNodes[i+1])
		}
	}
	if dl.Unfinished != 4 || dl.Messages != 4 || dl.Stuck < 4 {
		t.Errorf("%d of %d messages unfinished, %d packets stuck; want all 4 unfinished and ≥ 4 stuck", dl.Unfinished, dl.Messages, dl.Stuck)
	}
	const loop = `credit loop of 4 links: "S0" -> "S1" -> "S2" -> "S3" -> "S0"`
	if msg := err.Error(); !strings.HasPrefix(msg, "deadlock at ") || !strings.Contains(msg, loop) {
		t.Errorf("error %q, want a deadlock naming the %s", msg, loop)
	}
	t.Log(err)
}

// TestBadConfig checks the errors of bad settings.
func TestBadConfig(t *testing.T) {
	f := fabric(t, "kary:k=2,n=2")
	p := planOf(f, Message{Src: 0, Dst: 1, Bytes: 1})
	cases := []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.InputBuffer = 0 }, "input buffer 0"},
		{func(c *Config) { c.OutputQueue = 0 }, "output queue 0"},
		{func(c *Config) { c.InputBuffer = 65536 }, "input buffer 65536 packets: at most 65535"},
		{func(c *Config) { c.OutputQueue = 65536 }, "output queue 65536 packets: at most 65535"},
		{func(c *Config) { c.Bandwidth = 0 }, "bandwidth 0"},
		{func(c *Config) { c.HopBits = 0 }, "hop bits b=0"},
		{func(c *Config) { c.TagFraction = 1.5 }, "tagging fraction 1.5"},
		{func(c *Config) { c.TagFraction = -0.1 }, "tagging fraction -0.1"},
		{func(c *Config) { c.MTU = 0 }, "MTU 0"},
		{func(c *Config) { c.Scheme = "nope" }, `unknown sampling scheme "nope"`},
		{func(c *Config) { c.Marking = "queue:threshold=x" }, "not an integer"},
		{func(c *Config) { c.Marking = "queue:depth=2" }, `unknown parameter "depth"`},
		{func(c *Config) { c.Hash = "md5" }, `unknown hash "md5"`},
		{func(c *Config) { c.Restrict = "some" }, "unknown receiver restriction"},
		{func(c *Config) { c.SlowFactor = 0 }, "slow factor 0"},
	}
	for _, c := range cases {
		cfg := DefaultConfig()
		c.edit(&cfg)
		_, err := Run(f, cfg, p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
	bad := []struct {
		m    Message
		want string
	}{
		{Message{Src: 0, Dst: 0, Bytes: 1}, "sends to itself"},
		{Message{Src: 0, Dst: 9, Bytes: 1}, "out of range"},
		{Message{Src: 0, Dst: 1, Bytes: 0}, "at least 1"},
	}
	for _, b := range bad {
		_, err := Run(f, DefaultConfig(), planOf(f, b.m))
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("error %v, want one containing %q", err, b.want)
		}
	}
}

// TestUnroutable checks that a pair without a route is refused before the
// run, naming the pair.
func TestUnroutable(t *testing.T) {
	b := lft.NewBuilder()
	h0 := b.Node("H0", lft.Host)
	h1 := b.Node("H1", lft.Host)
	h2 := b.Node("H2", lft.Host)
	s := b.Node("S", lft.Switch)
	for i, h := range []int32{h0, h1, h2} {
		up := b.Link(h, s, 1, i+1)
		b.Link(s, h, i+1, 1)
		b.Route(up, lft.AnyDest)
	}
	b.Route(1, b.Dest("H0")) // S → H0 only: H1 and H2 are unreachable
	f, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(f, DefaultConfig(), planOf(f, Message{Src: 0, Dst: 2, Bytes: 1}))
	if err == nil || !strings.Contains(err.Error(), "no route from H0 to H2") {
		t.Errorf("error %v, want an unroutable pair H0 → H2", err)
	}
}

// setUp parses the plug-ins of cfg and sets up a run of p on f, as Run
// does before its event loop.
func setUp(f *lft.Fabric, cfg Config, p *Plan) (*network, error) {
	pl, err := cfg.parse()
	if err != nil {
		return nil, err
	}
	return newSim(f, cfg, p, pl)
}

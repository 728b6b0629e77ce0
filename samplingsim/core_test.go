package samplingsim

import (
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

// TestDeadlockReported runs a ring of hosts on a torus without virtual
// channels until the credit loop deadlocks, and checks the error.
func TestDeadlockReported(t *testing.T) {
	f := fabric(t, "torus:dims=4,hosts=1")
	var msgs []Message
	for s := range 4 {
		msgs = append(msgs, Message{Src: int32(s), Dst: int32((s + 2) % 4), Bytes: 1000 * 4096})
	}
	cfg := DefaultConfig()
	cfg.InputBuffer, cfg.OutputQueue = 1, 1
	_, err := Run(f, cfg, planOf(f, msgs...))
	if err == nil {
		t.Fatal("no deadlock reported: the ring's credit loop must block with one buffer per port")
	}
	if !strings.Contains(err.Error(), "deadlock") {
		t.Errorf("error %q does not mention the deadlock", err)
	}
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

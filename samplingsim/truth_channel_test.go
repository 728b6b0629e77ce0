package samplingsim

import (
	"slices"
	"testing"

	"orcs/internal/hugemem"
)

// TestChannelTruthLineRate: the truth a port accumulates in its channel
// (channel.sent, qMax, cong) reaches the windows whole. H0 sends N = 300
// full-size packets to H1 over one switch S; with s the packet time, λ the
// latency and B = 4 credits, a credit comes back 2s + 2λ after its packet
// left, before the B-th next packet needs it, so both links H0 → S and S →
// H1 carry the N packets back to back: N packets, N MTUs, busy N·s, no
// stall. The NIC's port holds the packet being formed while the one
// before it is sent (its queue's longest is 1, its area (N − 1)·s), the
// switch port sends each packet at once (also 1, area 0; S's buffer stays
// empty), H1's buffer holds each packet for the s its consumer takes (area
// N·s on S → H1), and with queue marking at threshold 0 every
// packet is marked congested at both ports: N = 300 marks, more than the
// 255 a channel counts before it adds them to the truth. With windows, the
// windows add up to these totals and no window is busier than it is long.
func TestChannelTruthLineRate(t *testing.T) {
	f := fabric(t, "kary:k=2,n=1")
	const n = 300
	var route []int32
	route, _ = f.AppendRoute(route, 0, 1)
	if len(route) != 2 {
		t.Fatalf("route H0 → H1: %d links", len(route))
	}
	for _, w := range []Time{0, Microsecond, 777 * Nanosecond} {
		cfg := DefaultConfig()
		cfg.Scheme, cfg.Marking, cfg.Window = "none", "queue:threshold=0", w
		s := serTime(int64(cfg.MTU), cfg.Bandwidth)
		if 2*s+2*cfg.Latency >= Time(cfg.InputBuffer)*s {
			t.Fatal("the credits below assume 2s + 2λ < B·s")
		}
		r := mustRun(t, f, cfg, planOf(f, Message{Src: 0, Dst: 1, Bytes: n * int64(cfg.MTU)}))
		want := LinkTruth{Packets: n, Bytes: n * int64(cfg.MTU), Congested: n, Busy: n * s, QueueMax: 1}
		for i, l := range route {
			want.QueueArea, want.BufferArea = (n-1)*s, 0 // H0 → S
			if i == 1 {
				want.QueueArea, want.BufferArea = 0, n*s // S → H1
			}
			if got := r.TruthOf(-1, l); got != want {
				t.Errorf("window %s, link %s: truth %+v, want %+v", FormatTime(w), f.LinkName(l), got, want)
			}
			for i := range r.Windows() {
				if from, to := r.WindowSpan(i); r.TruthOf(i, l).Busy > to-from {
					t.Errorf("window %s, link %s: busy %d ps in window %d of %d ps", FormatTime(w), f.LinkName(l), r.TruthOf(i, l).Busy, i, to-from)
				}
			}
		}
		if w > 0 && r.Windows() < 50 {
			t.Errorf("window %s: %d windows in %s", FormatTime(w), r.Windows(), FormatTime(r.End))
		}
	}
}

// TestChannelTruthLongQueue: a queue longer than a channel's 255 counts
// in the truth. H0, H1 and H3 send 200 packets each to H2 on one switch,
// with output queues and input buffers of 300 packets: three senders at
// line rate fill the queue to S → H2 at twice the rate it drains, so it
// reaches its capacity, 300 (the 600 packets outrun its 200 departures by
// more). Windows partition the run: their truth adds up (QueueMax: their
// largest) to the truth of the run in one window.
func TestChannelTruthLongQueue(t *testing.T) {
	f := fabric(t, "kary:k=4,n=1")
	toH2 := linkInto(f, f.HostNode(2))
	cfg := DefaultConfig()
	cfg.Scheme, cfg.OutputQueue, cfg.InputBuffer = "none", 300, 300
	size := 200 * int64(cfg.MTU)
	p := planOf(f, Message{Src: 0, Dst: 2, Bytes: size}, Message{Src: 1, Dst: 2, Bytes: size}, Message{Src: 3, Dst: 2, Bytes: size})
	one := mustRun(t, f, cfg, p)
	if got := one.TruthOf(-1, toH2).QueueMax; got != 300 {
		t.Errorf("longest queue to H2: %d packets, want 300", got)
	}
	cfg.Window = 3 * Microsecond
	many := mustRun(t, f, cfg, p)
	for l := range f.Links {
		if a, b := one.TruthOf(-1, int32(l)), many.TruthOf(-1, int32(l)); a != b {
			t.Errorf("link %s: truth %+v in one window, %+v over the windows", f.LinkName(int32(l)), a, b)
		}
	}
	var maxes []int32
	for i := range many.Windows() {
		maxes = append(maxes, many.TruthOf(i, toH2).QueueMax)
	}
	if slices.Max(maxes) != 300 || maxes[0] >= 300 {
		t.Errorf("longest queue to H2 by window: %v (the first window too short to fill it)", maxes)
	}
}

// TestRoutesFromCheck: a statically routed run keeps the routes the plan's
// check walks: every message has its pair's route (the links AppendRoute
// walks), the messages of one pair share it, and the event loop has
// nothing left to walk; on a fat tree and on a fabric read with LMC spread
// (source-aware routes). An adaptive run keeps none.
func TestRoutesFromCheck(t *testing.T) {
	for _, spread := range []bool{false, true} {
		f := fabric(t, "kary:k=4,n=3")
		if spread {
			f = readLMCFabric(t, true)
		}
		var msgs []Message
		for i := range 3 * f.NumHosts() {
			s, d := int32(i%f.NumHosts()), int32((7*i+3)%f.NumHosts())
			if s != d {
				msgs = append(msgs, Message{Src: s, Dst: d, Bytes: 1})
			}
		}
		p := planOf(f, msgs...)
		s, err := setUp(f, DefaultConfig(), p)
		if err != nil {
			t.Fatal(err)
		}
		first := map[[2]int32]int32{}
		for m, msg := range p.Msgs {
			at := s.routes.of[m]
			if at < 0 {
				t.Fatalf("message %d: no route kept (%d)", m, at)
			}
			want, _ := f.AppendRoute(nil, msg.Src, msg.Dst)
			got := s.routes.links[at+1 : at+1+s.routes.links[at]]
			if !slices.Equal(got, want) {
				t.Errorf("message %d (%d → %d): route %v, want %v", m, msg.Src, msg.Dst, got, want)
			}
			k := [2]int32{msg.Src, msg.Dst}
			if a, ok := first[k]; ok && a != at {
				t.Errorf("message %d: pair %v has two routes (at %d and %d)", m, k, a, at)
			}
			first[k] = at
		}
		if len(first) == len(p.Msgs) {
			t.Fatal("no pair repeats: the sharing is not tested")
		}
		cfg := DefaultConfig()
		cfg.Routing = "adaptive"
		if s, err := setUp(f, cfg, p); err != nil || s.routes.of != nil {
			t.Errorf("adaptive run: routes kept %v, err %v", s.routes.of != nil, err)
		}
	}
}

// TestRingLargest: a ring of the largest size (maxRing) wraps around its
// end, its 16-bit head and length notwithstanding.
func TestRingLargest(t *testing.T) {
	var mem hugemem.Arena
	defer mem.Release()
	sl := newRingSlab[int32](&mem, 2, maxRing)
	var r ring
	for i := range int32(maxRing - 3) { // move the head near the end
		sl.push(&r, 1, i)
		if got := sl.pop(&r, 1); got != i {
			t.Fatalf("pop %d: %d", i, got)
		}
	}
	for i := range int32(maxRing) { // fill it: the items wrap around
		sl.push(&r, 1, i)
	}
	if r.len() != maxRing || sl.buf[maxRing] != 3 || sl.buf[2*maxRing-1] != 2 {
		t.Fatalf("full ring: length %d, first slot %d, last slot %d", r.len(), sl.buf[maxRing], sl.buf[2*maxRing-1])
	}
	for i := range int32(maxRing) {
		if got := sl.pop(&r, 1); got != i {
			t.Fatalf("pop %d of the full ring: %d", i, got)
		}
	}
	if r.len() != 0 || sl.buf[0] != 0 {
		t.Errorf("emptied ring: length %d; the ring of link 0 was written (%d)", r.len(), sl.buf[0])
	}
}

// TestStallTime: the stall of a port waiting for credits is timed from its
// start (kept beside the channels). H0 sends two packets to H1 over S,
// with input buffers of one packet and H1's consumer at half the line rate
// (a packet takes 2s to consume; s the packet time, λ the latency, ρ the
// router delay). Packet 1 reaches S at s + λ + ρ and goes on at once; its
// credit lets packet 2 leave H0 at s + 2λ + ρ. Packet 1 reaches H1 at 2s +
// 2λ + ρ; packet 2 reaches S at 2s + 3λ + 2ρ, where the idle port to H1
// has no credit: it stalls until the consumer frees H1's buffer (4s + 2λ +
// ρ) and the credit is back (4s + 3λ + ρ): 2s − ρ. H0's port never
// stalls: its credit is back before its link is idle.
func TestStallTime(t *testing.T) {
	f := fabric(t, "kary:k=2,n=1")
	cfg := DefaultConfig()
	cfg.Scheme, cfg.InputBuffer, cfg.SlowHosts, cfg.SlowFactor = "none", 1, []int32{1}, 0.5
	r := mustRun(t, f, cfg, planOf(f, Message{Src: 0, Dst: 1, Bytes: 2 * int64(cfg.MTU)}))
	s, rho := serTime(int64(cfg.MTU), cfg.Bandwidth), cfg.RouterDelay
	route, _ := f.AppendRoute(nil, 0, 1)
	for i, want := range []Time{0, 2*s - rho} {
		if got := r.TruthOf(-1, route[i]).Stalled; got != want {
			t.Errorf("link %s stalled %d ps, want %d ps", f.LinkName(route[i]), got, want)
		}
	}
}

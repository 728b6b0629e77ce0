package samplingsim

import (
	"slices"
	"testing"
)

// TestCreditRoundTrip pins the credit loop on one switch (H0 → S → H1)
// with input buffers of B packets, in the channel's own ring (B ≤ 4) and
// in the slab (B > 4). With s the packet time, λ = 1 µs the latency and ρ
// the router delay: the NIC sends packets 1..B back to back; packet i
// reaches S at i·s + λ + ρ and moves on at once, and reaches H1 at
// (i+1)·s + 2λ + ρ, whose consumer is done with it s later: B packets
// finish at (B+2)·s + 2λ + ρ. Packet B+1 waits at the NIC for the credit
// of packet 1 (back at s + 2λ + ρ, later than B·s for B ≤ 8), reaches S at
// 2s + 3λ + 2ρ and waits there for the credit of H1's buffer, freed when
// packet 1 is consumed (3s + 2λ + ρ) and back λ later; it reaches H1 at
// 4s + 4λ + ρ and is consumed at 5s + 4λ + ρ.
func TestCreditRoundTrip(t *testing.T) {
	f := fabric(t, "kary:k=2,n=1")
	for b := 1; b <= 8; b++ {
		cfg := DefaultConfig()
		cfg.Scheme, cfg.InputBuffer, cfg.Latency = "none", b, Microsecond
		s, lat, rd := serTime(int64(cfg.MTU), cfg.Bandwidth), cfg.Latency, cfg.RouterDelay
		for _, c := range []struct {
			packets int
			want    Time
		}{
			{b, Time(b+2)*s + 2*lat + rd},
			{b + 1, 5*s + 4*lat + rd},
		} {
			r := mustRun(t, f, cfg, planOf(f, Message{Src: 0, Dst: 1, Bytes: int64(c.packets * cfg.MTU)}))
			if got := r.MsgFinish[0]; got != c.want {
				t.Errorf("buffer %d, %d packets: finished at %d ps, want %d ps", b, c.packets, got, c.want)
			}
		}
	}
}

// TestShortPacketQueued: a packet shorter than the MTU that waits in an
// output queue leaves with its own packet time. H0 and H1 send b = 1000
// bytes each to H2 on one switch S; with s the packet time of b bytes, λ
// the latency and ρ the router delay, both reach S at a = s + λ + ρ. H0's
// goes on at once and reaches H2 at a + s + λ, consumed s later; H1's
// waits in the queue until a + s, reaches H2 at a + 2s + λ, when the
// consumer is free, and is consumed at a + 3s + λ. On the link S → H2 the
// queue held one packet for s and H2's buffer one for 2s: the truth's
// integrals, summed over the windows, whatever their length.
func TestShortPacketQueued(t *testing.T) {
	f := fabric(t, "kary:k=4,n=1")
	const b = 1000
	toH2 := int(linkInto(f, f.HostNode(2)))
	for _, w := range []Time{0, 50 * Nanosecond, 123456} {
		cfg := DefaultConfig()
		cfg.Scheme, cfg.Window = "none", w
		r := mustRun(t, f, cfg, planOf(f, Message{Src: 0, Dst: 2, Bytes: b}, Message{Src: 1, Dst: 2, Bytes: b}))
		s, lat, rd := serTime(b, cfg.Bandwidth), cfg.Latency, cfg.RouterDelay
		a := s + lat + rd
		for i, want := range []Time{a + 2*s + lat, a + 3*s + lat} {
			if got := r.MsgFinish[i]; got != want {
				t.Errorf("window %d: message %d finished at %d ps, want %d ps", w, i, got, want)
			}
		}
		var queue, buffer int64
		for _, tw := range r.Truth {
			queue += tw[toH2].QueueArea
			buffer += tw[toH2].BufferArea
		}
		if queue != s || buffer != 2*s {
			t.Errorf("window %d: link S → H2: queue area %d, buffer area %d packets·ps, want %d and %d", w, queue, buffer, s, 2*s)
		}
	}
}

// TestBufferAreaWindows: the buffer area of a window is the window's own.
// In TestShortPacketQueued's run, H2's buffer holds a packet during
// [360, 440) and [440, 520) ns; with windows of 450 ns and a later
// message (H3 → H0 at 600 ns) that opens the second window, the link
// S → H2 has 80 + 10 = 90 ns·packets of buffer area in window 0, 70 in
// window 1 and none in window 2, where the last message ends (at 990 ns).
func TestBufferAreaWindows(t *testing.T) {
	f := fabric(t, "kary:k=4,n=1")
	const b = 1000
	toH2 := int(linkInto(f, f.HostNode(2)))
	cfg := DefaultConfig()
	cfg.Scheme, cfg.Window = "none", 450*Nanosecond
	if serTime(b, cfg.Bandwidth) != 80*Nanosecond || cfg.Latency != 50*Nanosecond || cfg.RouterDelay != 100*Nanosecond {
		t.Fatal("the times below assume 80 ns packets, 50 ns latency and 100 ns router delay")
	}
	r := mustRun(t, f, cfg, planOf(f, Message{Src: 0, Dst: 2, Bytes: b}, Message{Src: 1, Dst: 2, Bytes: b},
		Message{Src: 3, Dst: 0, Bytes: b, Start: 600 * Nanosecond}))
	var got []int64
	for _, tw := range r.Truth {
		got = append(got, tw[toH2].BufferArea)
	}
	if want := []int64{90 * Nanosecond, 70 * Nanosecond, 0}; !slices.Equal(got, want) {
		t.Errorf("buffer area of S → H2 by window: %v packets·ps, want %v", got, want)
	}
}

// TestShortPacketWaits: a short packet that waits in an input buffer for
// a full output queue keeps its size. Output queues of one packet; H0,
// H1 and H3 send b = 1000 bytes each to H2 on one switch, all reaching it
// at a = s + λ + ρ (s the packet time of b bytes): H0's leaves at once,
// H1's takes the queue, H3's waits in its input buffer until H1's leaves
// at a + s and then in the queue until a + 2s. They reach H2 at a + s + λ,
// a + 2s + λ and a + 3s + λ, one packet time apart, and are consumed at
// a + 2s + λ, a + 3s + λ and a + 4s + λ.
func TestShortPacketWaits(t *testing.T) {
	f := fabric(t, "kary:k=4,n=1")
	cfg := DefaultConfig()
	cfg.Scheme, cfg.OutputQueue = "none", 1
	const b = 1000
	r := mustRun(t, f, cfg, planOf(f, Message{Src: 0, Dst: 2, Bytes: b}, Message{Src: 1, Dst: 2, Bytes: b},
		Message{Src: 3, Dst: 2, Bytes: b}))
	s, lat, rd := serTime(b, cfg.Bandwidth), cfg.Latency, cfg.RouterDelay
	a := s + lat + rd
	for i, want := range []Time{a + 2*s + lat, a + 3*s + lat, a + 4*s + lat} {
		if got := r.MsgFinish[i]; got != want {
			t.Errorf("message %d finished at %d ps, want %d ps", i, got, want)
		}
	}
}

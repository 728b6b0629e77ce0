package samplingsim

import (
	"slices"
	"strings"
	"testing"

	"orcs/samplingsim/buffer"
)

// runHotSpot runs one hot spot (H0 stops receiving, 5 % of the traffic
// goes to it, 40 Gb/s offered per host) on kary:k=4,n=3 with a buffer
// policy and B buffers per port, for 100 µs, and returns the network and its
// result.
func runHotSpot(t *testing.T, policy string, b int) (*network, *Result) {
	t.Helper()
	f := fabric(t, "kary:k=4,n=3")
	cfg := DefaultConfig()
	cfg.Scheme, cfg.Buffers, cfg.InputBuffer, cfg.MaxTime = "none", policy, b, 100*Microsecond
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	jobs, err := Jobs(f, JobsOptions{Workload: "saturation:hot=1,msgs=200,gbps=40,frac=0.05"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := BuildPlan(f, jobs, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	s, err := setUp(f, cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.run(); err != nil {
		t.Fatal(err)
	}
	return s, s.result(0)
}

// TestHotSpotThroughput: a host that stops receiving saturates the tree
// of a FIFO switch network, and the other traffic collapses; shared
// buffers without a rule per destination (bypass) collapse too, so it is
// the rule that helps: Dias–Kumar, the counting dampener and the hashed
// dampener with enough buffers (B = 16, j = 8: C(16, 8) = 12 870 tuples
// for 64 destinations, Theorem 2) deliver the offered load.
func TestHotSpotThroughput(t *testing.T) {
	for _, c := range []struct {
		policy   string
		b        int
		lo, hi   float64 // delivered/offered
		maxBlock float64 // other destinations blocked at ports that block the hot spot
	}{
		{"fifo", 8, 0, 0.1, 1},
		{"bypass", 8, 0, 0.3, 1},
		{"dias-kumar", 8, 0.97, 1.03, 0.05},
		{"counting", 8, 0.97, 1.03, 0.05},
		{"hashed:j=8", 16, 0.97, 1.03, 0.05},
	} {
		_, r := runHotSpot(t, c.policy, c.b)
		st := r.Buffers
		if st == nil || st.OfferedGbps < 35 {
			t.Fatalf("%s: stats %+v", c.policy, st)
		}
		ratio := st.DeliveredGbps / st.OfferedGbps
		t.Logf("%s, B = %d: delivered %.2f of %.2f Gb/s (%.3f), %d ports block the hot spot, %.4f of the others blocked",
			c.policy, c.b, st.DeliveredGbps, st.OfferedGbps, ratio, st.Ports, st.BlockedFraction)
		if ratio < c.lo || ratio > c.hi || st.BlockedFraction > c.maxBlock || st.Ports == 0 {
			t.Errorf("%s, B = %d: delivered/offered %.3f (want %.2f–%.2f), %d ports, blocked fraction %.4f (want ≤ %.2f)",
				c.policy, c.b, ratio, c.lo, c.hi, st.Ports, st.BlockedFraction, c.maxBlock)
		}
	}
}

// TestBufferInvariants checks, after a run that saturated a hot spot's
// tree, what every switch input buffer really holds against each policy's
// rule: Dias–Kumar at most one packet per destination; the hashed
// dampener every packet in one of its destination's j buffers, one packet
// per buffer; every policy no more than B packets per buffer.
func TestBufferInvariants(t *testing.T) {
	for _, policy := range []string{"dias-kumar", "hashed:j=3", "counting:alpha=0.5"} {
		s, _ := runHotSpot(t, policy, 6)
		checked := 0
		for l := range s.ch {
			if s.ch[l].toHost >= 0 {
				continue
			}
			in := s.ch[l].buf
			var pids []int32
			for i := range in.len() {
				pid, _ := s.unpack(s.buffers.buf[int32(l)*s.buffers.size+(int32(in.head)+i)%s.buffers.size])
				pids = append(pids, pid)
			}
			checked += len(pids)
			if len(pids) > 6 {
				t.Fatalf("%s: link %d holds %d packets, B = 6", policy, l, len(pids))
			}
			count := map[int32]int{}
			slots := map[int32]bool{}
			for _, p := range pids {
				pk := &s.packets[p]
				count[pk.dst]++
				switch policy {
				case "dias-kumar":
					if count[pk.dst] > 1 {
						t.Errorf("dias-kumar: link %d holds %d packets for host %d", l, count[pk.dst], pk.dst)
					}
				case "hashed:j=3":
					tp := make([]int32, 3)
					buffer.HashedTuple(tp, s.cfg.Seed, int32(l), pk.dst, 6)
					tag := s.dampStates[p].tag
					if !slices.Contains(tp, tag) || slots[tag] {
						t.Errorf("hashed: link %d: packet for %d in buffer %d (its buffers %v; taken twice: %v)", l, pk.dst, tag, tp, slots[tag])
					}
					slots[tag] = true
				}
			}
		}
		if checked < 50 {
			t.Errorf("%s: only %d packets in switch buffers at the end; the hot spot's tree did not fill", policy, checked)
		}
	}
}

// TestDampFlowControlDelay times per-destination flow control on one
// switch (H0 → S → H1, a message of 2 packets, Dias–Kumar): each port may
// hold one packet for H1, and a freed buffer reaches the sender with its
// credit, Latency after it frees. With s the packet time, λ the latency
// and ρ the router delay: packet 1 reaches S at a = s + λ + ρ and moves
// on at once (its buffer at S frees then, the NIC learns it at a + λ and
// sends packet 2); it reaches H1 at a + s + λ, whose consumer frees its
// buffer at a + 2s + λ; S learns that at a + 2s + 2λ and sends packet 2
// (waiting since a + s + 2λ + ρ), which H1 has consumed at a + 4s + 3λ =
// 5s + 4λ + ρ. The FIFO pipelines the two packets: 4s + 2λ + ρ.
func TestDampFlowControlDelay(t *testing.T) {
	f := fabric(t, "kary:k=2,n=1")
	for _, c := range []struct {
		policy string
		want   func(s, lat, rd Time) Time
	}{
		{"dias-kumar", func(s, lat, rd Time) Time { return 5*s + 4*lat + rd }},
		{"fifo", func(s, lat, rd Time) Time { return 4*s + 2*lat + rd }},
	} {
		cfg := DefaultConfig()
		cfg.Scheme, cfg.Buffers = "none", c.policy
		r := mustRun(t, f, cfg, planOf(f, Message{Src: 0, Dst: 1, Bytes: 2 * 4096}))
		want := c.want(serTime(4096, cfg.Bandwidth), cfg.Latency, cfg.RouterDelay)
		if got := r.MsgFinish[0]; got != want {
			t.Errorf("%s: message finished at %s, want %s", c.policy, FormatTime(got), FormatTime(want))
		}
	}
}

// TestDampeningRefusesAdaptive: the dampening policies forward by the
// tables with one buffer per port; with adaptive routing — on a Dragonfly
// (a virtual lane per phase) and on a fat tree (one lane) — a run is
// refused with the reason instead of routing statically in silence. Bypass,
// which has no per-destination rule, runs adaptively on the one-lane fat
// tree (TestBypassAdaptive) and is refused on the Dragonfly.
func TestDampeningRefusesAdaptive(t *testing.T) {
	for _, spec := range []string{"dragonfly:a=3,h=1,p=1", "kary:k=4,n=2"} {
		n := genNetwork(t, spec)
		p, err := BuildPlan(n.Fabric, []JobSpec{{Workload: "random:msgs=2,size=8192", Hosts: allHosts(n.Fabric.NumHosts())}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		cfg := DefaultConfig()
		cfg.Scheme, cfg.Routing, cfg.Groups = "none", "adaptive", n.Groups
		for _, buffers := range []string{"fifo", "hashed:j=2", "bypass"} {
			cfg.Buffers = buffers
			_, err := Run(n.Fabric, cfg, p)
			if buffers == "fifo" && err != nil {
				t.Errorf("%s: fifo with adaptive routing: %v", spec, err)
			}
			if buffers == "bypass" && spec == "kary:k=4,n=2" {
				if err != nil {
					t.Errorf("%s: bypass with adaptive routing on a one-lane fat tree: %v", spec, err)
				}
				continue
			}
			if buffers != "fifo" && (err == nil || !strings.Contains(err.Error(), "adaptive routing")) {
				t.Errorf("%s: %s with adaptive routing: err = %v, want a refusal", spec, buffers, err)
			}
		}
	}
}

// TestBypassAdaptive: with --buffers bypass (input buffers without
// head-of-line blocking) adaptive routing still routes adaptively, from the
// NIC on: a flow H0 → H63 of kary:k=4,n=3 spreads over the up-links of
// H0's leaf (all 4), while the same run with static routing uses one.
func TestBypassAdaptive(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	p := planOf(f, Message{Src: 0, Dst: 63, Bytes: 200 * 4096})
	leaf := f.Links[f.NextHop(0, f.HostNode(0), 63)].To
	for _, routing := range []string{"adaptive", "static"} {
		cfg := DefaultConfig()
		cfg.Scheme, cfg.Routing, cfg.Buffers = "none", routing, "bypass"
		r := mustRun(t, f, cfg, p)
		used := 0
		for l, ln := range f.Links {
			if ln.From == leaf && f.HostIndex(ln.To) < 0 && r.TruthOf(-1, int32(l)).Packets > 0 {
				used++
			}
		}
		if (routing == "adaptive") != (used > 1) || used < 1 {
			t.Errorf("%s routing with bypass buffers: %d up-links of H0's leaf used, want %s", routing, used,
				map[string]string{"adaptive": "several", "static": "one"}[routing])
		}
	}
}

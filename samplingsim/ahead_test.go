package samplingsim

import (
	"reflect"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"orcs/internal/hugemem"
)

// lineOf returns the address of the cache line holding p.
func lineOf[T any](p *T) uintptr { return uintptr(unsafe.Pointer(p)) &^ 63 }

// TestReadAheadCoverage runs a busy 4096-host run event by event and checks
// that the lines each event reads were asked for (linesAhead) at most 64
// events before it ran: the channel it concerns (both lines), its packet
// and the buffer or queue slots it takes from; for a switch arrival the
// channel the packet leaves on; for a wake the input port waiting for the
// queue, its buffer and head packet; for a consumed packet its message and
// NIC.
func TestReadAheadCoverage(t *testing.T) {
	f := fabric(t, "kary:k=16,n=3")
	p, err := BuildPlan(f, []JobSpec{{Workload: "random:msgs=2,size=65536", Hosts: allHosts(f.NumHosts())}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Scheme = "none"
	s, err := setUp(f, cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.mem.Release()
	if !s.readAhead {
		t.Fatalf("%d channels of %d bytes: no reading ahead", len(s.ch), unsafe.Sizeof(channel{}))
	}
	asked := map[uintptr]int64{} // line → the event after which it was last asked for
	type tally struct{ asked, all int }
	got := map[string]*tally{}
	check := func(what string, line uintptr) {
		c := got[what]
		if c == nil {
			c = &tally{}
			got[what] = c
		}
		c.all++
		if at, ok := asked[line]; ok && s.eventCount-at <= 64 {
			c.asked++
		}
	}
	channel := func(what string, c int32) {
		check(what, lineOf(&s.ch[c]))
		check(what+" (2nd line)", lineOf(&s.ch[c])+64)
	}
	var lines [maxLinesAhead]uintptr
	s.start()
	for s.events.len() > 0 {
		e := s.events.pop()
		s.now = e.t
		s.eventCount++
		for _, l := range lines[:s.linesAhead(s.events.last, &lines)] {
			asked[l&^63] = s.eventCount
		}
		if s.events.last == s.events.nf {
			s.handle(&e)
			continue // from the heap: not read ahead
		}
		switch e.kind() {
		case evArrive:
			channel("arrival's channel", e.a)
			check("arrival's packet", lineOf(&s.packets[e.b]))
			if pk := &s.packets[e.b]; s.ch[e.a].toHost < 0 && pk.rt == routeInline {
				channel("arrival's next channel", pk.route[pk.hops])
			}
		case evWake:
			channel("woken channel", e.a)
			check("woken queue", lineOf(&s.queues.buf[e.a*s.queueCap]))
			if w := s.ch[e.a].waitHead; w >= 0 && s.ch[e.a].queue.len() > 0 {
				channel("waiting port", w)
				check("waiting buffer", lineOf(&s.buffers.buf[w*s.bufferCap]))
				check("waiting head packet", lineOf(&s.packets[s.headIn(w)]))
			}
		case evConsumed:
			channel("consumed channel", e.a)
			check("consumed packet", lineOf(&s.packets[e.b]))
			check("consumed buffer", lineOf(&s.buffers.buf[e.a*s.bufferCap]))
			check("consumed message", lineOf(&s.msgs[s.packets[e.b].msg]))
			check("consumed NIC", lineOf(&s.nics[s.ch[e.a].toHost]))
		}
		s.handle(&e)
	}
	if s.msgsDone != len(s.msgs) {
		t.Fatalf("%d of %d messages done", s.msgsDone, len(s.msgs))
	}
	for _, what := range []string{
		"arrival's channel", "arrival's channel (2nd line)", "arrival's packet", "arrival's next channel", "arrival's next channel (2nd line)",
		"woken channel", "woken channel (2nd line)", "woken queue", "waiting port", "waiting port (2nd line)", "waiting buffer", "waiting head packet",
		"consumed channel", "consumed channel (2nd line)", "consumed packet", "consumed buffer", "consumed message", "consumed NIC",
	} {
		c := got[what]
		if c == nil || c.all < 1000 {
			t.Errorf("%s: too few events to judge (%v)", what, c)
			continue
		}
		if frac := float64(c.asked) / float64(c.all); frac < 0.9 {
			t.Errorf("%s: asked for ahead in %d of %d events (%.2f), want ≥ 0.9", what, c.asked, c.all, frac)
		}
	}
}

// TestReadAheadChangesNothing: runs that read ahead (forced on small
// fabrics) give the results of runs that do not, with every buffer
// policy, adaptive routing with lanes, sampling and a hot spot.
func TestReadAheadChangesNothing(t *testing.T) {
	cases := []struct {
		name, topo, wl string
		cfg            func(*Config)
	}{
		{"fifo", "kary:k=4,n=3", "random:msgs=8,size=20000", func(c *Config) {}},
		{"none", "kary:k=4,n=3", "random:msgs=8,size=65536", func(c *Config) { c.Scheme = "none" }},
		{"onebit", "kary:k=4,n=3", "naive-reduce:arrays=4", func(c *Config) { c.Scheme = "onebit"; c.TagFraction = 0.5 }},
		{"big buffers", "kary:k=4,n=3", "random:msgs=8,size=9000", func(c *Config) { c.InputBuffer, c.OutputQueue = 9, 2 }},
		{"hashed", "kary:k=4,n=3", "saturation:hot=1,msgs=40,gbps=40", func(c *Config) {
			c.Buffers, c.InputBuffer, c.MaxTime, c.Scheme = "hashed:j=2", 8, 40*Microsecond, "none"
		}},
		{"bypass", "kary:k=4,n=3", "random:msgs=8,size=65536", func(c *Config) { c.Buffers = "bypass" }},
		{"adaptive", "kary:k=4,n=3", "random:msgs=8,size=65536", func(c *Config) { c.Routing = "adaptive" }},
		{"dragonfly lanes", "dragonfly:a=4,h=2,p=2", "random:msgs=8,size=65536", func(c *Config) { c.Routing = "adaptive" }},
		{"slow host", "kary:k=4,n=3", "random:msgs=8,size=65536", func(c *Config) { c.SlowHosts, c.SlowFactor = []int32{3}, 0.25 }},
	}
	defer func(b int) { readAheadBytes = b }(readAheadBytes)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := genNetwork(t, c.topo)
			f := n.Fabric
			p, err := BuildPlan(f, []JobSpec{{Workload: c.wl, Hosts: allHosts(f.NumHosts())}}, 1)
			if err != nil {
				t.Fatal(err)
			}
			cfg := DefaultConfig()
			cfg.Groups = n.Groups
			if n.Groups != nil {
				cfg.GlobalLatency = 300 * Nanosecond
			}
			c.cfg(&cfg)
			var res [2]*Result
			for i, bytes := range []int{1 << 62, 0} {
				readAheadBytes = bytes
				r, err := Run(f, cfg, p)
				if err != nil && cfg.MaxTime == 0 {
					t.Fatal(err)
				}
				r.Wall, r.CPU = 0, 0
				res[i] = r
			}
			if !reflect.DeepEqual(res[0], res[1]) {
				t.Errorf("reading ahead changed the result")
			}
		})
	}
}

// TestRunArenas: a large run keeps its channels on huge pages (mapped
// apart, aligned) and reads ahead; a small one does neither.
func TestRunArenas(t *testing.T) {
	for _, c := range []struct {
		topo  string
		large bool
	}{{"kary:k=4,n=3", false}, {"kary:k=16,n=3", true}} {
		f := fabric(t, c.topo)
		p, err := BuildPlan(f, []JobSpec{{Workload: "random:msgs=1,size=4096", Hosts: allHosts(f.NumHosts())}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		s, err := setUp(f, DefaultConfig(), p)
		if err != nil {
			t.Fatal(err)
		}
		if s.readAhead != c.large {
			t.Errorf("%s: reads ahead %v, want %v", c.topo, s.readAhead, c.large)
		}
		if runtime.GOOS == "linux" && c.large {
			if a := uintptr(unsafe.Pointer(&s.ch[0])); a%(2<<20) != 0 {
				t.Errorf("%s: channels at %#x, not on a huge page", c.topo, a)
			}
			if cap(s.packets) < len(p.Msgs) {
				t.Errorf("%s: packet slab of %d, want room for every packet reserved", c.topo, cap(s.packets))
			}
		}
		s.mem.Release()
	}
}

// TestRunReleasesArena: Run gives its arrays back when it returns (the
// garbage collector does not see their size, so they must not wait for
// it), and the result does not refer to them.
func TestRunReleasesArena(t *testing.T) {
	f := fabric(t, "kary:k=16,n=3")
	p, err := BuildPlan(f, []JobSpec{{Workload: "random:msgs=1,size=4096", Hosts: allHosts(f.NumHosts())}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	before := hugemem.Mapped()
	r := mustRun(t, f, DefaultConfig(), p)
	// (Fewer is possible: an earlier test's arena may be collected meanwhile.)
	if after := hugemem.Mapped(); after > before {
		t.Errorf("%d bytes mapped after Run, %d before", after, before)
	}
	if r.PacketHops == 0 || len(r.Truth) == 0 {
		t.Fatal("empty result")
	}
}

// TestThreadCPUPrecise: the loop's CPU time is read to well under a
// millisecond, not in scheduler ticks (which a thread that makes no system
// call sees in steps of milliseconds, or not at all): a fixed piece of
// work of about 0.4 ms reads as 50 µs–2 ms in most of 40 tries, however
// the machine's load interrupts it (the CPU time counts running only).
func TestThreadCPUPrecise(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("thread CPU time is read on Linux only")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	x, good := uint64(1), 0
	var got []time.Duration
	for range 40 {
		c0 := threadCPU()
		for range 300_000 { // dependent multiplications: no call, no system call
			x = x*6364136223846793005 + 1442695040888963407
		}
		d := threadCPU() - c0
		got = append(got, d)
		if d >= 50*time.Microsecond && d <= 2*time.Millisecond {
			good++
		}
	}
	if good < 30 || x == 0 {
		t.Errorf("thread CPU time of a 0.4 ms piece of work: %d of 40 readings in 50 µs–2 ms: %v", good, got)
	}
}

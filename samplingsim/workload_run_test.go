package samplingsim

import (
	"math"
	"math/bits"
	"strings"
	"testing"
)

func allHosts(n int) []int32 {
	h := make([]int32, n)
	for i := range h {
		h[i] = int32(i)
	}
	return h
}

// TestWorkloadsRun runs every workload to completion on a small fat tree.
func TestWorkloadsRun(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	for _, spec := range []string{
		"naive-reduce:arrays=5", "binomial-reduce:arrays=5", "stencil:x=8,y=8,size=8192,iters=2",
		"ring:iters=3", "random:msgs=3,size=20000", "pattern:name=recdbl,size=10000",
		"pattern:name=rand,size=10000", "flow:src=3,dst=60,msgs=4",
	} {
		p, err := BuildPlan(f, []JobSpec{{Workload: spec, Hosts: allHosts(64)}}, 1)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		r, err := Run(f, DefaultConfig(), p)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		_, end := r.JobFinish(0)
		if end <= 0 {
			t.Errorf("%s did not finish", spec)
		}
	}
}

// TestStencilOrder checks the per-rank order of the stencil phases: a
// rank's +y message starts only after its −x message has been delivered.
func TestStencilOrder(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	p, err := BuildPlan(f, []JobSpec{{Workload: "stencil:x=8,y=8,size=40000", Hosts: allHosts(64)}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, f, DefaultConfig(), p)
	minusX := map[int32]Time{}
	for i, m := range p.Msgs {
		if m.Dst == m.Src-1 {
			minusX[m.Src] = r.MsgFinish[i]
		}
	}
	for i, m := range p.Msgs {
		if m.Dst == m.Src+8 {
			if fin, ok := minusX[m.Src]; ok && r.MsgReady[i] < fin {
				t.Fatalf("rank %d started +y at %d before its −x finished at %d", m.Src, r.MsgReady[i], fin)
			}
		}
	}
}

func TestAllocate(t *testing.T) {
	hosts := allHosts(4608)
	a, err := Allocate("parity", hosts, 2)
	if err != nil {
		t.Fatal(err)
	}
	// Thesis §4.4: on 4608 nodes the rule gives 2172 primary nodes and
	// 2436 background nodes.
	if len(a[0]) != 2172 || len(a[1]) != 2436 {
		t.Errorf("parity: %d + %d hosts, want 2172 + 2436", len(a[0]), len(a[1]))
	}
	for _, h := range a[0][:20] {
		if n := uint64(h + 1); bits.OnesCount64(n*n)%2 != 0 {
			t.Errorf("host %d is primary but (i+1)² has an odd number of 1 bits", h)
		}
	}
	a, _ = Allocate("contiguous", allHosts(10), 2)
	if len(a[0]) != 5 || a[1][0] != 5 {
		t.Errorf("contiguous: %v", a)
	}
	a, _ = Allocate("interleaved", allHosts(10), 2)
	if a[1][0] != 1 || a[0][1] != 2 {
		t.Errorf("interleaved: %v", a)
	}
	if _, err := Allocate("random", hosts, 2); err == nil {
		t.Error("unknown allocation accepted")
	}
}

func TestReadMapping(t *testing.T) {
	f := fabric(t, "kary:k=2,n=2")
	h, err := ReadMapping(strings.NewReader("# map\nH3\nH1\n\nH0\n"), "m", f)
	if err != nil || len(h) != 3 || h[0] != 3 || h[1] != 1 || h[2] != 0 {
		t.Errorf("plain mapping: %v %v", h, err)
	}
	h, err = ReadMapping(strings.NewReader("1 H2\n0 H3\n"), "m", f)
	if err != nil || len(h) != 2 || h[0] != 3 || h[1] != 2 {
		t.Errorf("ranked mapping: %v %v", h, err)
	}
	for _, bad := range []struct{ text, want string }{
		{"H0\nH9\n", `m:2: unknown host "H9"`},
		{"H0\nS0_0\n", `m:2: unknown host "S0_0"`},
		{"H0\nH0\n", "m:2: host H0 already mapped on line 1"},
		{"0 H0\n2 H1\n", "rank 1 is not mapped"},
		{"0 H0\nH1\n", "mixes"},
		{"", "no hosts"},
	} {
		_, err := ReadMapping(strings.NewReader(bad.text), "m", f)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("mapping %q: error %v, want %q", bad.text, err, bad.want)
		}
	}
}

// TestCheckPackets checks the bound on a run's packets: a message of
// 2^63−1 bytes is refused before the run, naming the size that fits.
func TestCheckPackets(t *testing.T) {
	f := fabric(t, "kary:k=4,n=2")
	p := planOf(f, Message{Src: 0, Dst: 1, Bytes: math.MaxInt64, Wait: -1}, Message{Src: 1, Dst: 2, Bytes: 1, Wait: -1})
	_, err := Run(f, DefaultConfig(), p)
	if err == nil || !strings.Contains(err.Error(), "at most 4398046511104 bytes fits") { // 2^31/2 packets of 4096 bytes
		t.Fatalf("Run(2^63−1 bytes) = %v; want the packet limit", err)
	}
}

// TestConfigBounds checks the settings that used to hang or print
// nonsense: an MTU beyond 32 bits (int32 packet sizes: never ended),
// link rates and slow factors that overflow the picosecond clock
// ("simulated 2.1 µs", "678.0/0 Gb/s").
func TestConfigBounds(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(*Config)
		want string
	}{
		{"mtu", func(c *Config) { c.MTU = math.MaxInt64 }, "MTU 9223372036854775807 bytes: must be between 1 and 1073741824"},
		{"mtu2^31", func(c *Config) { c.MTU = 1 << 31 }, "must be between 1 and 1073741824"},
		{"gbps", func(c *Config) { c.Bandwidth = 1e-300 * 1e9 }, "must be between 0.001 and 1e+06 Gb/s"},
		{"gbps-inf", func(c *Config) { c.Bandwidth = math.Inf(1) }, "must be between 0.001 and 1e+06 Gb/s"},
		{"slow", func(c *Config) { c.SlowFactor = 1e-300 }, "slow factor 1e-300: must be in [1e-06, 1]"},
		{"slow-nan", func(c *Config) { c.SlowFactor = math.NaN() }, "slow factor NaN"},
	} {
		cfg := DefaultConfig()
		c.set(&cfg)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate() = %v; want %q", c.name, err, c.want)
		}
	}
	for _, ok := range []func(*Config){
		func(c *Config) { c.MTU = MaxMTU },
		func(c *Config) { c.Bandwidth = MinBandwidth },
		func(c *Config) { c.Bandwidth = MaxBandwidth },
		func(c *Config) { c.SlowFactor = MinSlowFactor },
	} {
		cfg := DefaultConfig()
		ok(&cfg)
		if err := cfg.Validate(); err != nil {
			t.Errorf("a bound itself is refused: %v", err)
		}
	}
}

// TestSimulatedSpan checks that a run whose packets at the slowest rate
// could pass a quarter of the picosecond clock is refused before it runs.
func TestSimulatedSpan(t *testing.T) {
	f := fabric(t, "kary:k=4,n=2")
	cfg := DefaultConfig()
	cfg.Bandwidth, cfg.SlowFactor, cfg.MTU = MinBandwidth, MinSlowFactor, MaxMTU
	p := planOf(f, Message{Src: 0, Dst: 1, Bytes: 1 << 40, Wait: -1})
	if _, err := Run(f, cfg, p); err == nil || !strings.Contains(err.Error(), "quarter of the picosecond clock") {
		t.Fatalf("Run = %v; want the clock bound", err)
	}
}

// TestParseTime checks durations at picosecond resolution (0.5ns used to
// become 0 and 1.5ns 1 ns: Go durations count nanoseconds) and the
// refusal of values that do not fit (NaN, Inf and 1e300 used to become
// −2^63 ps).
func TestParseTime(t *testing.T) {
	good := []struct {
		in   string
		want Time
	}{
		{"0", 0}, {"50ns", 50 * Nanosecond}, {"0.5ns", 500}, {"1.5ns", 1500}, {"2us", 2 * Microsecond},
		{"2µs", 2 * Microsecond}, {"1.5ms", 1500 * Microsecond}, {"1h30m", 5400 * Second}, {"7ps", 7},
		{"100", 100 * Nanosecond}, {"0.001", 1}, {"1e3ns", Microsecond}, {"-5ns", -5000},
		{"9223372036854775ns", 9223372036854775 * Nanosecond},
	}
	for _, c := range good {
		if got, err := ParseTime(c.in); err != nil || got != c.want {
			t.Errorf("ParseTime(%q) = %d, %v; want %d ps", c.in, got, err, c.want)
		}
	}
	bad := []struct{ in, want string }{
		{"NaN", "want a duration"}, {"Inf", "want a duration"}, {"-Inf", "want a duration"},
		{"1e300", "exponent"}, {"1e18", "longer than the largest simulated time"},
		{"107000000h", "longer than the largest simulated time"}, {"0.5ps", "finer than"},
		{"0.0001", "finer than"}, {"5 parsecs", "unknown unit"}, {"", "want a duration"},
		{"1e999999999", "exponent"}, {"10 20", "unknown unit"}, {"5ns3", "must stand alone"},
	}
	for _, c := range bad {
		if got, err := ParseTime(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseTime(%q) = %d, %v; want an error with %q", c.in, got, err, c.want)
		}
	}
}

// FuzzParseTime checks that ParseTime never panics and that what it
// accepts is a whole number of picoseconds it can print.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"0", "50ns", "0.5ns", "1h30m", "NaN", "1e300", "-5us", "1e-3ps", "5ns3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseTime(s)
		if err == nil && FormatTime(v) == "" {
			t.Fatalf("ParseTime(%q) = %d", s, v)
		}
	})
}

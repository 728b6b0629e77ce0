package samplingsim

import (
	"math"
	"strings"
	"testing"
)

// TestBuildPlanBudget checks that workloads whose sizes imply more than
// MaxMessages messages are refused before they are built, with the largest
// value of the count parameter that fits (16 ranks: 2^22/16 = 262144 for a
// workload of one message per rank and count; naive-reduce sends
// (n−1)·arrays messages, 2^22/15 = 279620). These sizes used to allocate
// terabytes or grow the plan past 2 GB.
func TestBuildPlanBudget(t *testing.T) {
	f := fabric(t, "kary:k=4,n=2") // 16 hosts
	jobs, _ := Jobs(f, JobsOptions{Workload: "random:msgs=999999999999", Alloc: "contiguous"})
	if _, err := BuildPlan(f, jobs, 1); err == nil || !strings.Contains(err.Error(),
		"more than 4194304 messages on 16 ranks, the limit of a run (about 170 bytes each in memory); the largest msgs that fits is 262144") {
		t.Errorf("random:msgs=999999999999: err = %v; want the limit and the largest msgs", err)
	}
	// The other cases with a limit of 4096 messages, to keep the probes
	// short: 4096/16 = 256, 4096/15 = 273, 4096/240 = 17.
	defer func(l int64) { messageLimit = l }(messageLimit)
	messageLimit = 4096
	cases := []struct{ workload, want string }{
		{"random:msgs=1000000,closed=true", "the largest msgs that fits is 256"},
		{"ring:iters=1000000", "the largest iters that fits is 256"},
		{"ring:iters=1000000000000,closed=true", "the largest iters that fits is 256"},
		{"naive-reduce:arrays=1000000000000", "the largest arrays that fits is 273"},
		{"flow:msgs=9223372036854775807", "the largest msgs that fits is 4096"},
		{"alltoall:iters=1000000000000", "the largest iters that fits is 17"},
		{"allreduce:iters=1000000000000", "the largest iters that fits is 64"},
	}
	for _, c := range cases {
		jobs, err := Jobs(f, JobsOptions{Workload: c.workload, Alloc: "contiguous"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = BuildPlan(f, jobs, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "4096 messages") {
			t.Errorf("%s: err = %v; want the limit and %q", c.workload, err, c.want)
		}
	}
	// The largest value that fits is accepted; the next is refused.
	jobs, _ = Jobs(f, JobsOptions{Workload: "ring:iters=256,size=8", Alloc: "contiguous"})
	if p, err := BuildPlan(f, jobs, 1); err != nil || len(p.Msgs) != 4096 {
		t.Fatalf("ring:iters=256: %v; want 4096 messages", err)
	}
	jobs, _ = Jobs(f, JobsOptions{Workload: "ring:iters=257,size=8", Alloc: "contiguous"})
	if _, err := BuildPlan(f, jobs, 1); err == nil {
		t.Fatal("ring:iters=257 (4112 messages) accepted")
	}
	// A second job gets what the first leaves.
	jobs, _ = Jobs(f, JobsOptions{Workload: "ring:iters=300", Background: "ring:iters=300", Alloc: "contiguous"})
	if _, err := BuildPlan(f, jobs, 1); err == nil || !strings.Contains(err.Error(), "what the jobs before it leave") {
		t.Fatalf("two jobs of 2400 messages (8 ranks each): %v", err)
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

// TestClosedGapBound checks that a think time beyond the clock is refused
// (gap=100000h used to overflow into "message 0: negative delay").
func TestClosedGapBound(t *testing.T) {
	f := fabric(t, "kary:k=4,n=2")
	jobs, _ := Jobs(f, JobsOptions{Workload: "random:msgs=2,closed=true,gap=100000h", Alloc: "contiguous"})
	if _, err := BuildPlan(f, jobs, 1); err == nil || !strings.Contains(err.Error(), "gap=100000h0m0s is longer than the largest simulated time") {
		t.Fatalf("BuildPlan(gap=100000h) = %v", err)
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

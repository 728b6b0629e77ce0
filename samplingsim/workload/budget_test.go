package workload

import (
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
	jobs := jobsOf(f, "random:msgs=999999999999")
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
		jobs := jobsOf(f, c.workload)
		_, err := BuildPlan(f, jobs, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "4096 messages") {
			t.Errorf("%s: err = %v; want the limit and %q", c.workload, err, c.want)
		}
	}
	// The largest value that fits is accepted; the next is refused.
	jobs = jobsOf(f, "ring:iters=256,size=8")
	if p, err := BuildPlan(f, jobs, 1); err != nil || len(p.Msgs) != 4096 {
		t.Fatalf("ring:iters=256: %v; want 4096 messages", err)
	}
	jobs = jobsOf(f, "ring:iters=257,size=8")
	if _, err := BuildPlan(f, jobs, 1); err == nil {
		t.Fatal("ring:iters=257 (4112 messages) accepted")
	}
	// A second job gets what the first leaves.
	jobs = jobsOf(f, "ring:iters=300", "ring:iters=300")
	if _, err := BuildPlan(f, jobs, 1); err == nil || !strings.Contains(err.Error(), "what the jobs before it leave") {
		t.Fatalf("two jobs of 2400 messages (8 ranks each): %v", err)
	}
}

// TestClosedGapBound checks that a think time beyond the clock is refused
// (gap=100000h used to overflow into "message 0: negative delay").
func TestClosedGapBound(t *testing.T) {
	f := fabric(t, "kary:k=4,n=2")
	jobs := jobsOf(f, "random:msgs=2,closed=true,gap=100000h")
	if _, err := BuildPlan(f, jobs, 1); err == nil || !strings.Contains(err.Error(), "gap=100000h0m0s is longer than the largest simulated time") {
		t.Fatalf("BuildPlan(gap=100000h) = %v", err)
	}
}

package samplingsim

import (
	"strings"
	"testing"

	"orcs/internal/railtest"
)

// TestNCCLWorkloadMessages: the messages of each op on 4 nodes × 2 GPUs
// (rank 2i+c on node i's HCA c), size 8192, by hand. Rings: 2 rails × 4
// nodes × (2·7 steps for allreduce, 7 otherwise) chunks of 8192/(2·8) =
// 512 bytes, each from node i's HCA c to node i+1's. All-to-all: every
// GPU sends 8192/8 = 1024 bytes to each of the 6 GPUs of the other nodes
// (48 messages); with PXN node i's HCA c sends 2·1024 bytes to HCA c of
// each other node (24 messages, all on their rail), the same 49152 bytes.
func TestNCCLWorkloadMessages(t *testing.T) {
	f, err := railtest.Fabric(4, 2, 2, railtest.RailLeaves)
	if err != nil {
		t.Fatal(err)
	}
	hosts := make([]int32, 8) // node-major: rank 2i+c on "node0i+1 mlx5_c"
	for r := range hosts {
		v, _ := f.NodeByName(railtest.Host(r/2, r%2))
		hosts[r] = f.HostIndex(v)
	}
	for _, tc := range []struct {
		op          string
		msgs, bytes int
		railLocal   bool
	}{
		{"allreduce", 112, 512, true}, {"allgather", 56, 512, true}, {"reducescatter", 56, 512, true},
		{"alltoall", 48, 1024, false}, {"alltoall_pxn", 24, 2048, true},
	} {
		plan, err := BuildPlan(f, []JobSpec{{Workload: "nccl:op=" + tc.op + ",size=8192,rails=2", Hosts: hosts}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.Msgs) != tc.msgs {
			t.Errorf("%s: %d messages, want %d", tc.op, len(plan.Msgs), tc.msgs)
		}
		cross := 0
		for _, m := range plan.Msgs {
			src, dst := f.HostName(int(m.Src)), f.HostName(int(m.Dst))
			if m.Bytes != int64(tc.bytes) || src[:6] == dst[:6] {
				t.Fatalf("%s: %s → %s, %d bytes", tc.op, src, dst, m.Bytes)
			}
			if src[len(src)-1] != dst[len(dst)-1] {
				cross++
			}
			if !strings.HasPrefix(tc.op, "alltoall") {
				// a ring goes to the next node
				if int(src[5]-'0')%4+1 != int(dst[5]-'0') {
					t.Fatalf("%s: ring hop %s → %s", tc.op, src, dst)
				}
			}
		}
		if tc.railLocal != (cross == 0) || !tc.railLocal && cross != 24 {
			t.Errorf("%s: %d messages leave their rail", tc.op, cross)
		}
	}
	for _, bad := range []string{"nccl:op=bcast", "nccl:rails=3", "nccl:rails=8"} {
		if _, err := BuildPlan(f, []JobSpec{{Workload: bad, Hosts: hosts}}, 1); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestNCCLRingBandwidth: a large ring allreduce runs at the rails' line
// rate: every HCA sends 2·7 chunks of size/16, so at 100 Gb/s the
// collective takes at least 14·size/16 / 12.5 GB/s, and the pipeline
// keeps it within 10 % of that; the bus bandwidth is then at most, and
// close to, 2 rails × 12.5 GB/s.
func TestNCCLRingBandwidth(t *testing.T) {
	f, err := railtest.Fabric(4, 2, 2, railtest.RailLeaves)
	if err != nil {
		t.Fatal(err)
	}
	hosts := make([]int32, 8)
	for r := range hosts {
		v, _ := f.NodeByName(railtest.Host(r/2, r%2))
		hosts[r] = f.HostIndex(v)
	}
	const size = 8 << 20
	plan, err := BuildPlan(f, []JobSpec{{Workload: "nccl:op=allreduce,size=8388608,rails=2", Hosts: hosts}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Scheme = "none"
	res, err := Run(f, cfg, plan)
	if err != nil {
		t.Fatal(err)
	}
	start, end := res.JobFinish(0)
	secs := float64(end-start) / float64(Second)
	lower := 14.0 * size / 16 / (cfg.Bandwidth / 8)
	if secs < lower || secs > 1.1*lower {
		t.Errorf("allreduce of %d bytes: %.1f µs, line rate %.1f µs", size, secs*1e6, lower*1e6)
	}
	busbw := size / secs * NCCLBusFactor("allreduce", 8) / 1e9
	if busbw > 25 || busbw < 22.5 {
		t.Errorf("bus bandwidth %.2f GB/s, want just under 2 × 12.5", busbw)
	}
}

// TestNCCLRingPipeline: a small allreduce is bound by its chain of steps:
// step s of a ring leaves a node only when step s−1 has arrived, so the
// 2·7 steps on 4 nodes × 2 GPUs take at least 14 × (2 links of 50 ns +
// one switch of 100 ns) = 2.8 µs, where sending every chunk at once would
// take about 1.5 µs (14 chunks of 1 KiB at 12.5 GB/s plus one path).
func TestNCCLRingPipeline(t *testing.T) {
	f, err := railtest.Fabric(4, 2, 2, railtest.RailLeaves)
	if err != nil {
		t.Fatal(err)
	}
	hosts := make([]int32, 8)
	for r := range hosts {
		v, _ := f.NodeByName(railtest.Host(r/2, r%2))
		hosts[r] = f.HostIndex(v)
	}
	plan, err := BuildPlan(f, []JobSpec{{Workload: "nccl:op=allreduce,size=16384,rails=2", Hosts: hosts}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Scheme = "none"
	if cfg.Latency != 50*Nanosecond || cfg.RouterDelay != 100*Nanosecond {
		t.Fatalf("defaults changed: latency %v, router delay %v", cfg.Latency, cfg.RouterDelay)
	}
	res, err := Run(f, cfg, plan)
	if err != nil {
		t.Fatal(err)
	}
	start, end := res.JobFinish(0)
	if d := end - start; d < 14*200*Nanosecond {
		t.Errorf("allreduce of 16 KiB took %v, less than its 14 dependent steps of 200 ns", d)
	}
}

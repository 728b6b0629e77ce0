package samplingsim

import (
	"strings"
	"testing"

	"orcs/internal/railtest"
	"orcs/lft"
	"orcs/samplingsim/workload"
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

// railHosts returns the host indices of nodes × rails GPUs of f in rank
// order (rank rails·i+c on "node0i+1 mlx5_c").
func railHosts(t *testing.T, f *lft.Fabric, nodes, rails int) []int32 {
	t.Helper()
	hosts := make([]int32, nodes*rails)
	for r := range hosts {
		v, ok := f.NodeByName(railtest.Host(r/rails, r%rails))
		if !ok {
			t.Fatalf("no host %s", railtest.Host(r/rails, r%rails))
		}
		hosts[r] = f.HostIndex(v)
	}
	return hosts
}

// runNCCL runs one nccl workload on nodes × rails GPUs of f without
// sampling headers and returns the plan and the result.
func runNCCL(t *testing.T, f *lft.Fabric, nodes, rails int, spec string) (*Plan, *Result) {
	t.Helper()
	plan, err := BuildPlan(f, []JobSpec{{Workload: spec, Hosts: railHosts(t, f, nodes, rails)}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Scheme = "none"
	if serTime(1000, cfg.Bandwidth) != 80*Nanosecond || cfg.Latency != 50*Nanosecond || cfg.RouterDelay != 100*Nanosecond {
		t.Fatal("the times below assume 80 ns per 1000 bytes, 50 ns latency and 100 ns router delay")
	}
	res, err := Run(f, cfg, plan)
	if err != nil {
		t.Fatal(err)
	}
	return plan, res
}

// TestNCCLTreeHandWorked: NCCL's tree allreduce of 4000 bytes on 4 nodes
// × 2 rails, one leaf per rail, worked by hand. Each rail carries both
// trees with 4000/(2·2) = 1000 bytes each, one chunk (NCCL's smallest
// chunk is 32 KiB). Tree 0 (btree, root node 0): 1 → 2, 3 → 2, 2 → 0;
// tree 1 (its mirror, root node 3): 0 → 1, 2 → 1, 1 → 3. Every edge
// carries the chunk up and then down: 12 messages per rail.
//
// Times, with s = 80 ns (1000 bytes at 100 Gb/s), λ = 50 ns, ρ = 100 ns
// and T = 3s + 2λ + ρ = 440 ns for a lone message through the rail leaf
// (sent, switched, consumed): at 0 the leaves send (1 → 2, 3 → 2, 0 → 1,
// 2 → 1); two of them meet at each receiver's leaf port, so one finishes
// at T and the other at T + s. Then 2 → 0 and 1 → 3 leave at T + s and
// arrive at 2T + s; the roots send back 0 → 2 and 3 → 1 (3T + s); nodes
// 2 and 1 send their two children the result one after the other:
// 4T + s and 4T + 2s = 1920 ns, the collective's time.
func TestNCCLTreeHandWorked(t *testing.T) {
	f, err := railtest.Fabric(4, 2, 2, railtest.RailLeaves)
	if err != nil {
		t.Fatal(err)
	}
	plan, res := runNCCL(t, f, 4, 2, "nccl:op=allreduce,algo=tree,size=4000,rails=2")
	const s, T = 80 * Nanosecond, 440 * Nanosecond
	// The messages of one rail in the plan's order (chunk, tree, reduce
	// then broadcast, by node), with their finish time; a and b are the
	// two messages into (or out of) one node at once, which finish at
	// {T, T + s} (or {4T + s, 4T + 2s}) in either order.
	type msg struct {
		src, dst int
		at       Time
		pair     string
	}
	want := []msg{
		{1, 2, 0, "a2"}, {2, 0, 2*T + s, ""}, {3, 2, 0, "a2"}, // tree 0, reduce
		{2, 1, 0, "b2"}, {0, 2, 3*T + s, ""}, {2, 3, 0, "b2"}, // tree 0, broadcast
		{0, 1, 0, "a1"}, {1, 3, 2*T + s, ""}, {2, 1, 0, "a1"}, // tree 1, reduce
		{1, 0, 0, "b1"}, {3, 1, 3*T + s, ""}, {1, 2, 0, "b1"}, // tree 1, broadcast
	}
	pairTimes := map[byte][2]Time{'a': {T, T + s}, 'b': {4*T + s, 4*T + 2*s}}
	if len(plan.Msgs) != 2*len(want) {
		t.Fatalf("%d messages, want %d", len(plan.Msgs), 2*len(want))
	}
	for rail := range 2 {
		pairs := map[string][]Time{}
		for i, w := range want {
			id := rail*len(want) + i
			m := plan.Msgs[id]
			src, dst := f.HostName(int(m.Src)), f.HostName(int(m.Dst))
			if src != railtest.Host(w.src, rail) || dst != railtest.Host(w.dst, rail) || m.Bytes != 1000 {
				t.Fatalf("message %d: %s → %s, %d bytes; want %s → %s, 1000", id, src, dst, m.Bytes,
					railtest.Host(w.src, rail), railtest.Host(w.dst, rail))
			}
			got := res.MsgFinish[id]
			if w.pair != "" {
				pairs[w.pair] = append(pairs[w.pair], got)
			} else if got != w.at {
				t.Errorf("rail %d: node %d → %d finished at %v, want %v", rail, w.src, w.dst, got, w.at)
			}
		}
		for name, ts := range pairs {
			w := pairTimes[name[0]]
			if len(ts) != 2 || min(ts[0], ts[1]) != w[0] || max(ts[0], ts[1]) != w[1] {
				t.Errorf("rail %d: the messages %s finished at %v, want %v", rail, name, ts, w)
			}
		}
	}
	if start, end := res.JobFinish(0); end-start != 4*T+2*s {
		t.Errorf("the tree allreduce took %v, want 4T + 2s = %v", end-start, 4*T+2*s)
	}
}

// TestNCCLTreeChunks: NCCL's tree chunk, by hand from its rule (start at
// 512 KiB; halve while fewer than 8·depth chunks per channel and above
// 128 KiB, 4·depth and above 64 KiB, depth and above 32 KiB), and the
// messages of an 8 MiB tree allreduce on 4 nodes × 2 rails: depth 1 + 2
// = 3, 4 channels of 2 MiB; 2 MiB / 512 KiB = 4 < 24 chunks, so 256 KiB
// (8 < 24), then 128 KiB (16 chunks; 16 ≥ 12 and ≥ 3 stops there):
// 4 channels × 3 edges × 2 directions × 16 chunks = 384 messages.
func TestNCCLTreeChunks(t *testing.T) {
	if d := workload.NCCLTreeDepth(4, 2); d != 3 {
		t.Errorf("depth on 4 × 2: %d, want 3", d)
	}
	if d := workload.NCCLTreeDepth(32, 8); d != 12 {
		t.Errorf("depth on 32 × 8: %d, want 7 + 5", d)
	}
	for _, tc := range []struct {
		size            int64
		channels, depth int
		want            int64
	}{
		{8 << 20, 4, 3, 128 << 10},
		{1 << 30, 16, 12, 512 << 10},   // 64 MiB a channel: 128 ≥ 96 chunks of 512 KiB
		{256 << 20, 16, 12, 128 << 10}, // 16 MiB: 32, 64 < 96, then 128 of 128 KiB
		{64 << 20, 16, 12, 64 << 10},   // 4 MiB: 32 of 128 KiB < 48: 64 of 64 KiB
		{1 << 20, 16, 12, 32 << 10},    // 64 KiB: 1 of 64 KiB < 12: the floor, 32 KiB
	} {
		if got := workload.NCCLTreeChunk(tc.size, tc.channels, tc.depth); got != tc.want {
			t.Errorf("chunk of %d bytes on %d channels, depth %d: %d, want %d", tc.size, tc.channels, tc.depth, got, tc.want)
		}
	}
	f, err := railtest.Fabric(4, 2, 2, railtest.RailLeaves)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := BuildPlan(f, []JobSpec{{Workload: "nccl:op=allreduce,algo=tree,size=8388608,rails=2", Hosts: railHosts(t, f, 4, 2)}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Msgs) != 384 {
		t.Errorf("%d messages, want 384", len(plan.Msgs))
	}
	for _, m := range plan.Msgs {
		if m.Bytes != 128<<10 {
			t.Fatalf("a message of %d bytes, want 128 KiB", m.Bytes)
		}
	}
}

// TestNCCLTreeBandwidth: NCCL pipelines the tree. 8 MiB on 8 nodes × 1
// rail is 2 channels (one per tree) of D = 4 MiB in 32 chunks of 128 KiB
// (depth 3). A node inner in one tree and a leaf in the other sends and
// receives 4D, so the collective takes at least 4D / 12.5 GB/s
// (D / 12.5 GB/s = 335.5 µs). Without the pipeline (each edge's D at
// once, after all of it arrived) it would take 10D along tree 0: the
// leaves into 2 and 6 (2D, two children share a link), 2 and 6 into 4
// (2D), 4 → 0 (D), 0 → 4 (D), 4 to 2 and 6 (2D), 2 and 6 to the leaves
// (2D). The pipelined tree takes 4D … 7D: above 4D because samplingsim's
// NIC sends one message at a time, so a sender whose receiver is shared
// with another sender cannot fill its link with its other messages.
func TestNCCLTreeBandwidth(t *testing.T) {
	f, err := railtest.Fabric(8, 1, 1, railtest.RailLeaves)
	if err != nil {
		t.Fatal(err)
	}
	_, res := runNCCL(t, f, 8, 1, "nccl:op=allreduce,algo=tree,size=8388608,rails=1")
	start, end := res.JobFinish(0)
	d := float64(4<<20) / (DefaultConfig().Bandwidth / 8) // seconds
	if secs := float64(end-start) / float64(Second); secs < 4*d || secs > 7*d {
		t.Errorf("tree allreduce of 8 MiB on 8 nodes: %.1f µs = %.2f D, want 4 D … 7 D (D = %.1f µs)", secs*1e6, secs/d, d*1e6)
	}
}

// TestNCCLTreeWindow: a tree sender is at most NCCL_STEPS = 8 chunks
// ahead on each edge: 8 MiB on 4 nodes × 2 rails is 16 chunks of 128 KiB
// per edge and direction, and chunk k (k ≥ 8) enters its sender's queue
// no earlier than chunk k − 8 of the same edge, direction and tree has
// arrived; the leaves' chunks 0 … 7 are ready at once, their chunk 8 is
// not.
func TestNCCLTreeWindow(t *testing.T) {
	f, err := railtest.Fabric(4, 2, 2, railtest.RailLeaves)
	if err != nil {
		t.Fatal(err)
	}
	plan, res := runNCCL(t, f, 4, 2, "nccl:op=allreduce,algo=tree,size=8388608,rails=2")
	// The plan's order: rail, chunk, tree, 3 reduce then 3 broadcast
	// messages (TestNCCLTreeHandWorked): message id = ((rail·16 + k)·2 +
	// tree)·6 + edge.
	const chunks, perChunk = 16, 12
	if len(plan.Msgs) != 2*chunks*perChunk {
		t.Fatalf("%d messages", len(plan.Msgs))
	}
	leafReady := 0
	for rail := range 2 {
		for k := 8; k < chunks; k++ {
			for e := range perChunk {
				id, back := (rail*chunks+k)*perChunk+e, (rail*chunks+k-8)*perChunk+e
				m, b := plan.Msgs[id], plan.Msgs[back]
				if m.Src != b.Src || m.Dst != b.Dst {
					t.Fatalf("messages %d and %d are not one edge", id, back)
				}
				if res.MsgReady[id] < res.MsgFinish[back] {
					t.Errorf("rail %d, chunk %d, edge %d: ready at %v, before chunk %d arrived (%v)", rail, k, e, res.MsgReady[id], k-8, res.MsgFinish[back])
				}
			}
		}
		for k := range 9 {
			// leaves: tree 0's 1 → 2, 3 → 2 (edges 0, 2), tree 1's 0 → 1, 2 → 1 (edges 6, 8)
			for _, e := range []int{0, 2, 6, 8} {
				if ready := res.MsgReady[(rail*chunks+k)*perChunk+e]; (ready == 0) != (k < 8) {
					t.Errorf("rail %d: leaf chunk %d (edge %d) ready at %v", rail, k, e, ready)
				} else if k < 8 {
					leafReady++
				}
			}
		}
	}
	if leafReady != 2*8*4 {
		t.Errorf("%d leaf chunks ready at once, want 64", leafReady)
	}
}

// TestNCCLAlltoallGrouped: NCCL posts an all-to-all's sends together
// (one ncclGroupStart/End of a send and a receive per peer), so a GPU's
// messages leave back to back. On 4 nodes × 2 rails on one leaf switch,
// size 8000: every GPU sends 6 messages of 1000 bytes (s = 80 ns), in
// NCCL's order (node distance k, then rail shift); each of the 6 rounds
// is a permutation of the HCAs, so nothing collides and the last message
// finishes at 5s + T = 840 ns (T = 3s + 2λ + ρ = 440 ns a lone message),
// not after 6 messages one after another's arrival (6T = 2640 ns). With
// PXN each HCA sends 3 messages of 2000 bytes (s' = 160 ns) on its rail:
// 2s' + 3s' + 2λ + ρ = 1000 ns. Both mark the job as an all-to-all for
// Application-Aware routing (plan.Job.Alltoall), a ring allreduce does not.
func TestNCCLAlltoallGrouped(t *testing.T) {
	f, err := railtest.Fabric(4, 2, 1, func(_, _ int) int { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		op       string
		msgs     int
		end      Time
		alltoall bool
	}{
		{"alltoall", 48, 840 * Nanosecond, true},
		{"alltoall_pxn", 24, 1000 * Nanosecond, true},
		{"allreduce", 112, -1, false},
	} {
		plan, res := runNCCL(t, f, 4, 2, "nccl:size=8000,rails=2,op="+tc.op)
		if len(plan.Msgs) != tc.msgs || plan.Jobs[0].Alltoall != tc.alltoall {
			t.Errorf("%s: %d messages, all-to-all %v; want %d, %v", tc.op, len(plan.Msgs), plan.Jobs[0].Alltoall, tc.msgs, tc.alltoall)
		}
		if start, end := res.JobFinish(0); tc.end >= 0 && end-start != tc.end {
			t.Errorf("%s took %v, want %v", tc.op, end-start, tc.end)
		}
	}
}

// TestNCCLAlgoErrors: algo=tree is NCCL's allreduce only; unknown
// algorithms are refused with the choices.
func TestNCCLAlgoErrors(t *testing.T) {
	f, err := railtest.Fabric(4, 2, 2, railtest.RailLeaves)
	if err != nil {
		t.Fatal(err)
	}
	for spec, want := range map[string]string{
		"nccl:op=allgather,algo=tree,rails=2": "NCCL's tree runs allreduce only, not op=allgather",
		"nccl:op=alltoall,algo=tree,rails=2":  "not op=alltoall",
		"nccl:algo=nvls,rails=2":              "algo=nvls: want one of [ring tree]",
	} {
		_, err := BuildPlan(f, []JobSpec{{Workload: spec, Hosts: railHosts(t, f, 4, 2)}}, 1)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
}

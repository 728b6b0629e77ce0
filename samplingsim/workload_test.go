package samplingsim

import (
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

func buildOne(t *testing.T, n int, spec string) *Plan {
	t.Helper()
	f := fabric(t, "kary:k=4,n=3")
	p, err := BuildPlan(f, []JobSpec{{Workload: spec, Hosts: allHosts(n)}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWorkloadShapes(t *testing.T) {
	p := buildOne(t, 64, "naive-reduce")
	if len(p.Msgs) != 63*50 {
		t.Errorf("naive-reduce: %d messages, want 63·50", len(p.Msgs))
	}
	for _, m := range p.Msgs {
		if m.Dst != 0 || m.Bytes != 4096 || m.Wait != -1 {
			t.Fatalf("naive-reduce message %+v", m)
		}
	}
	// Binomial reduce: every rank but the root sends its 50 arrays once, to
	// the rank that differs in its lowest set bit.
	p = buildOne(t, 64, "binomial-reduce:root=5")
	if len(p.Msgs) != 63*50 {
		t.Errorf("binomial-reduce: %d messages", len(p.Msgs))
	}
	for _, m := range p.Msgs {
		v := (int(m.Src) - 5 + 64) % 64
		parent := (v - (v & -v) + 5) % 64
		if int(m.Dst) != parent {
			t.Fatalf("binomial-reduce: %d sends to %d, want %d", m.Src, m.Dst, parent)
		}
		if (v&1 == 0) != (m.Wait >= 0) {
			t.Fatalf("binomial-reduce: rank %d (relative %d) waits for gate %d", m.Src, v, m.Wait)
		}
	}
	// Stencil 8×8: 4 phases, 2·8·7 messages per direction pair.
	p = buildOne(t, 64, "stencil:x=8,y=8,size=1000")
	if len(p.Msgs) != 4*8*7 {
		t.Errorf("stencil: %d messages, want %d", len(p.Msgs), 4*8*7)
	}
	for _, m := range p.Msgs {
		d := int(m.Dst) - int(m.Src)
		if d != 1 && d != -1 && d != 8 && d != -8 || (d == 1 || d == -1) && m.Src/8 != m.Dst/8 {
			t.Fatalf("stencil message %d → %d is not between grid neighbours", m.Src, m.Dst)
		}
	}
	p = buildOne(t, 10, "ring:iters=3,shift=2")
	if len(p.Msgs) != 30 {
		t.Errorf("ring: %d messages", len(p.Msgs))
	}
	for _, m := range p.Msgs {
		if (m.Src-m.Dst+10)%10 != 2 {
			t.Fatalf("ring message %d → %d", m.Src, m.Dst)
		}
	}
	p = buildOne(t, 16, "random:msgs=5,size=10")
	if len(p.Msgs) != 80 {
		t.Errorf("random: %d messages", len(p.Msgs))
	}
	p = buildOne(t, 16, "pattern:name=bisect,size=100")
	if len(p.Msgs) != 8 {
		t.Errorf("pattern bisect: %d messages, want 8 pairs", len(p.Msgs))
	}
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

func TestBuildPlanErrors(t *testing.T) {
	f := fabric(t, "kary:k=2,n=2")
	for _, c := range []struct {
		jobs []JobSpec
		want string
	}{
		{[]JobSpec{{Workload: "bogus", Hosts: allHosts(4)}}, `unknown workload "bogus"`},
		{[]JobSpec{{Workload: "ring:size=0", Hosts: allHosts(4)}}, "size=0 must be at least 1"},
		{[]JobSpec{{Workload: "ring:shift=4", Hosts: allHosts(4)}}, "multiple of the 4 ranks"},
		{[]JobSpec{{Workload: "naive-reduce:root=4", Hosts: allHosts(4)}}, "root=4 is not a rank"},
		{[]JobSpec{{Workload: "stencil", Hosts: allHosts(4)}}, "needs 4608 ranks"},
		{[]JobSpec{{Workload: "ring", Hosts: []int32{0, 1}}, {Workload: "ring", Hosts: []int32{1, 2}}}, "host H1 is in both job ring and job ring"},
		{[]JobSpec{{Workload: "ring", Hosts: []int32{0, 7}}}, "out of range"},
		{[]JobSpec{{Workload: "pattern:name=nosuch", Hosts: allHosts(4)}}, "unknown pattern"},
		{[]JobSpec{{Workload: "random:closed=true,gap=-1us", Hosts: allHosts(4)}}, "gap=-1µs must not be negative"},
		{[]JobSpec{{Workload: "random:gap=2us", Hosts: allHosts(4)}}, "gap=2µs needs closed=true"},
		{[]JobSpec{{Workload: "ring:closed=yes", Hosts: allHosts(4)}}, `closed=yes: "yes" is not true or false`},
		{[]JobSpec{{Workload: "ring:closed=true,gap=fast", Hosts: allHosts(4)}}, "not a duration"},
	} {
		_, err := BuildPlan(f, c.jobs, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
}

package workload

import (
	"fmt"
	"strings"
	"testing"

	"orcs/gen"
	"orcs/lft"
	"orcs/samplingsim/plan"
)

// fabric generates a topology for tests.
func fabric(t testing.TB, spec string) *lft.Fabric {
	t.Helper()
	f, err := gen.Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// jobsOf puts one job per workload spec on the hosts of f, in contiguous
// blocks (as samplingsim.Jobs with the contiguous allocation), each named
// after its workload ("-background" added to a second job of the same
// name).
func jobsOf(f *lft.Fabric, specs ...string) []JobSpec {
	n := f.NumHosts()
	per := (n + len(specs) - 1) / len(specs)
	var jobs []JobSpec
	for j, spec := range specs {
		name, _, _ := strings.Cut(spec, ":")
		if j > 0 && name == jobs[0].Name {
			name += "-background"
		}
		jobs = append(jobs, JobSpec{Name: name, Workload: spec, Hosts: allHosts(n)[j*per : min((j+1)*per, n)]})
	}
	return jobs
}

func allHosts(n int) []int32 {
	h := make([]int32, n)
	for i := range h {
		h[i] = int32(i)
	}
	return h
}

func buildOne(t *testing.T, n int, spec string) *plan.Plan {
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

// TestRegisterDuplicatePanics registers an existing name and a malformed
// one in the workload registry.
func TestRegisterDuplicatePanics(t *testing.T) {
	for _, name := range []string{"ring", "bad name"} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "workload") {
					t.Errorf("registering workload %q: panic %v", name, r)
				}
			}()
			registerWorkload(&workload{name: name})
		}()
	}
}

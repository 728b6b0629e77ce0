package samplingsim

import (
	"fmt"
	"strings"
	"testing"
)

// TestRegisterDuplicatePanics registers an existing name again in every
// registry of the package.
func TestRegisterDuplicatePanics(t *testing.T) {
	for _, c := range []struct {
		what     string
		register func()
	}{
		{"scheme", func() { registerScheme(&scheme{name: "reservoir"}) }},
		{"marking policy", func() { registerMarking(&markingPolicy{name: "queue"}) }},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), c.what) {
					t.Errorf("registering a duplicate %s: panic %v", c.what, r)
				}
			}()
			c.register()
		}()
	}
}

// TestUnknownNames checks that an unknown scheme, marking policy or
// workload is reported with the known names.
func TestUnknownNames(t *testing.T) {
	f := fabric(t, "kary:k=2,n=2")
	cfg := DefaultConfig()
	cfg.Scheme = "resevoir"
	_, err := Run(f, cfg, &Plan{})
	want := `unknown sampling scheme "resevoir" (known: none, onebit, onereservoir, reservoir); did you mean "reservoir"?`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("scheme: %v, want %s", err, want)
	}

	cfg = DefaultConfig()
	cfg.Marking = "queues:threshold=2"
	_, err = Run(f, cfg, &Plan{})
	want = `unknown marking policy "queues" (known: credit-threshold, credits, probabilistic, queue); did you mean "queue"?`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("marking: %v, want %s", err, want)
	}

	_, err = BuildPlan(f, []JobSpec{{Workload: "rnadom:msgs=2", Hosts: allHosts(4)}}, 1)
	want = `unknown workload "rnadom" (known: allreduce, alltoall, barrier, binomial-reduce, flow, halo3d, hotspot, naive-reduce, nccl, pattern, pingpong, random, ring, saturation, stencil); did you mean "random"?`
	if err == nil || err.Error() != want {
		t.Errorf("workload: %v, want %s", err, want)
	}
}

// TestSpecErrors checks the messages of bad workload and marking specs.
func TestSpecErrors(t *testing.T) {
	f := fabric(t, "kary:k=2,n=2")
	for _, c := range []struct{ spec, want string }{
		{"random:mgs=2", `job j (random:mgs=2): unknown parameter "mgs" for random (known: msgs, size, gbps, closed, gap); did you mean "msgs"?`},
		{"random:gbps=10,closed=true", `job j (random:gbps=10,closed=true): gbps=10 with closed=true: the messages follow either a rate (open loop) or each other (closed loop)`},
		{"random:msgs=", `workload: spec "random:msgs=": parameter msgs has no value`},
		{"random:msgs=2,msgs=3", `workload: spec "random:msgs=2,msgs=3": parameter msgs given twice`},
		{"random:msgs=two", `job j (random:msgs=two): msgs=two: "two" is not an integer`},
		{"hotspot:gbps=-1", `job j (hotspot:gbps=-1): gbps=-1 must be a non-negative number`},
		{"hotspot:gbps=x", `job j (hotspot:gbps=x): gbps=x: "x" is not a number`},
		{"flow:src=9", `job j (flow:src=9): src=9 is not a rank (the job has 4)`},
	} {
		_, err := BuildPlan(f, []JobSpec{{Name: "j", Workload: c.spec, Hosts: allHosts(4)}}, 1)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: error %v, want %s", c.spec, err, c.want)
		}
	}
	for _, c := range []struct{ spec, want string }{
		{"credits:threshold=1", `marking policy "credits:threshold=1": unknown parameter "threshold" for credits (known: none)`},
		{"queue:threshold=x", `marking policy "queue:threshold=x": threshold=x: "x" is not an integer`},
		{"probabilistic:min=1,max=1", `marking policy "probabilistic:min=1,max=1": max=1 must be greater than min=1`},
		{"queue:", `marking policy: spec "queue:": nothing after ':'; want KEY=VALUE,...`},
	} {
		if _, err := parseMarking(c.spec); err == nil || err.Error() != c.want {
			t.Errorf("%s: error %v, want %s", c.spec, err, c.want)
		}
	}
	// Specs that work: blanks around the separators are ignored.
	for _, spec := range []string{"random:msgs=8", "random: msgs = 8 , size=4096", "random msgs=8", "hotspot:hot=1,gbps=12.5",
		"stencil:x=2,y=2", "pattern:name=ring", "naive-reduce:root=3"} {
		if _, err := BuildPlan(f, []JobSpec{{Workload: spec, Hosts: allHosts(4)}}, 1); err != nil {
			t.Errorf("%s: %v", spec, err)
		}
	}
}

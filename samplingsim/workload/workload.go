// Package workload builds the traffic of samplingsim's jobs: a spec such
// as "naive-reduce:arrays=50,size=4096" names a registered workload, which
// adds the job's messages to a plan.Plan in terms of the job's ranks
// (JobBuilder). Adding a workload is one file here that registers it from
// an init function (see ring.go); BuildPlan builds the plan of a run's
// jobs within the message budget (budget.go).
package workload

import (
	"fmt"

	"orcs/lft"
	"orcs/registry"
	"orcs/rng"
	"orcs/samplingsim/plan"
)

// A workload turns a spec such as "naive-reduce:arrays=50,size=4096" into
// the messages of one job, in terms of the job's ranks. Workloads are
// registered by name, one file each.
type workload struct {
	name   string
	doc    string
	params []registry.Param
	// build reads the parameters from r and adds the job's messages to b;
	// it returns r.Err() when that is not nil.
	build func(r *registry.Reader, b *JobBuilder) error
}

// workloads holds the workloads by name.
var workloads = registry.New[*workload]("workload")

// registerWorkload adds a workload; called from init functions. It panics
// on a duplicate or invalid name.
func registerWorkload(w *workload) { workloads.Register(w.name, w.doc, w) }

// Names describes the registered workloads with their parameters
// and defaults, sorted by name, for help texts.
func Names() []string {
	var out []string
	for _, w := range workloads.All() {
		out = append(out, registry.Describe(w.name, w.doc, w.params))
	}
	return out
}

// JobBuilder adds the messages of one job to a Plan, in terms of ranks.
type JobBuilder struct {
	target *plan.Plan // where the messages go
	job    int32
	hosts  []int32
	start  plan.Time
	r      *rng.Stream
}

// Ranks returns the number of ranks of the job.
func (b *JobBuilder) Ranks() int { return len(b.hosts) }

// Rand returns the job's random stream (fixed by the seed and the job's
// index).
func (b *JobBuilder) Rand() *rng.Stream { return b.r }

// Gate returns a new gate (see Plan).
func (b *JobBuilder) Gate() int32 { return b.target.NewGate() }

// Send adds a message of bytes from rank src to rank dst that waits for
// gate wait (−1 = none) and signals the given gates when received.
func (b *JobBuilder) Send(src, dst int, bytes int64, wait int32, signals ...int32) int32 {
	return b.target.Add(plan.Message{Src: b.hosts[src], Dst: b.hosts[dst], Bytes: bytes, Job: b.job,
		Start: b.start, Wait: wait}, signals...)
}

// Stop makes rank r stop receiving (see Plan.Stopped).
func (b *JobBuilder) Stop(r int) { b.target.Stopped = append(b.target.Stopped, b.hosts[r]) }

// JobSpec describes a job of a plan.
type JobSpec struct {
	// Name names the job (default: its workload's name).
	Name string
	// Workload is the workload spec, e.g. "ring:size=131072" (the syntax
	// of registry.Parse).
	Workload string
	// Hosts maps the job's ranks to host indices.
	Hosts []int32
	// Start delays the job's messages.
	Start plan.Time
}

// BuildPlan builds the plan of jobs on fabric f. The jobs' host sets must be
// disjoint; random workloads draw from streams fixed by seed and the job's
// position.
func BuildPlan(f *lft.Fabric, jobs []JobSpec, seed uint64) (*plan.Plan, error) {
	p := plan.New(messageLimit)
	owner := make([]int, f.NumHosts())
	for i := range owner {
		owner[i] = -1
	}
	for j, js := range jobs {
		w, spec, err := lookup(js.Workload)
		if err != nil {
			return nil, err
		}
		name := js.Name
		if name == "" {
			name = w.name
		}
		for _, h := range js.Hosts {
			if h < 0 || int(h) >= len(owner) {
				return nil, fmt.Errorf("job %s: host %d out of range (the fabric has %d hosts)", name, h, len(owner))
			}
			if o := owner[h]; o >= 0 {
				if o == j {
					return nil, fmt.Errorf("job %s: host %s appears twice", name, f.HostName(int(h)))
				}
				return nil, fmt.Errorf("host %s is in both job %s and job %s", f.HostName(int(h)), p.Jobs[o].Name, name)
			}
			owner[h] = j
		}
		p.Jobs = append(p.Jobs, plan.Job{Name: name, Hosts: js.Hosts})
		if len(js.Hosts) < 2 {
			return nil, fmt.Errorf("job %s: needs at least 2 hosts, has %d", name, len(js.Hosts))
		}
		// Count the messages first, without keeping them, so that a size
		// beyond the limit is refused before anything is built.
		room := messageLimit - int64(len(p.Msgs))
		if _, ok, err := countMessages(w, spec.Reader(w.params...), p.Jobs, js, j, seed, room); err != nil {
			return nil, fmt.Errorf("job %s (%s): %w", name, js.Workload, err)
		} else if !ok {
			return nil, fmt.Errorf("job %s (%s): %w", name, js.Workload, budgetError(w, spec, p.Jobs, js, j, seed, room))
		}
		b := &JobBuilder{target: p, job: int32(j), hosts: js.Hosts, start: js.Start, r: rng.New(seed, 100+uint64(j))}
		if err := buildWithin(w, spec.Reader(w.params...), b); err != nil {
			return nil, fmt.Errorf("job %s (%s): %w", name, js.Workload, err)
		}
	}
	return p, nil
}

// lookup parses a workload spec once and finds its workload.
func lookup(text string) (*workload, registry.Spec, error) {
	spec, err := registry.Parse(text)
	if err != nil {
		return nil, spec, fmt.Errorf("%s: %w", workloads.Kind(), err)
	}
	w, err := workloads.Lookup(spec.Name)
	return w, spec, err
}

// markIteration records that the messages added to b since first form
// one iteration (plan.Plan.Iters; the noise statistics read them).
func (b *JobBuilder) markIteration(first int32) {
	if b.target.Counting() {
		return
	}
	b.target.Iters = append(b.target.Iters, plan.IterSpan{Job: b.job, First: first, End: int32(len(b.target.Msgs))})
}

// rank reads the parameter key, which must be a rank of the job of b.
func rank(r *registry.Reader, key string, b *JobBuilder) int {
	v := r.Int(key)
	if v < 0 || v >= b.Ranks() {
		r.Failf("%s=%d is not a rank (the job has %d)", key, v, b.Ranks())
	}
	return v
}

// errorf is fmt.Errorf; workloads use it for their parameter errors.
func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

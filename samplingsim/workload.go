package samplingsim

import (
	"fmt"

	"orcs/lft"
	"orcs/registry"
	"orcs/rng"
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

func (w *workload) parameters() []registry.Param { return w.params }

// workloads holds the workloads by name.
var workloads = registry.New[*workload]("workload")

// registerWorkload adds a workload; called from init functions. It panics
// on a duplicate or invalid name.
func registerWorkload(w *workload) { workloads.Register(w.name, w.doc, w) }

// WorkloadNames describes the registered workloads with their parameters
// and defaults, sorted by name, for help texts.
func WorkloadNames() []string {
	var out []string
	for _, w := range workloads.All() {
		out = append(out, describe(w.name, w.doc, w.params))
	}
	return out
}

// JobBuilder adds the messages of one job to a Plan, in terms of ranks.
type JobBuilder struct {
	plan  *Plan
	job   int32
	hosts []int32
	start Time
	r     *rng.Stream
}

// Ranks returns the number of ranks of the job.
func (b *JobBuilder) Ranks() int { return len(b.hosts) }

// Rand returns the job's random stream (fixed by the seed and the job's
// index).
func (b *JobBuilder) Rand() *rng.Stream { return b.r }

// Gate returns a new gate (see Plan).
func (b *JobBuilder) Gate() int32 { return b.plan.NewGate() }

// Send adds a message of bytes from rank src to rank dst that waits for
// gate wait (−1 = none) and signals the given gates when received.
func (b *JobBuilder) Send(src, dst int, bytes int64, wait int32, signals ...int32) int32 {
	return b.plan.Add(Message{Src: b.hosts[src], Dst: b.hosts[dst], Bytes: bytes, Job: b.job,
		Start: b.start, Wait: wait}, signals...)
}

// Stop makes rank r stop receiving (see Plan.Stopped).
func (b *JobBuilder) Stop(r int) { b.plan.Stopped = append(b.plan.Stopped, b.hosts[r]) }

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
	Start Time
}

// BuildPlan builds the plan of jobs on fabric f. The jobs' host sets must be
// disjoint; random workloads draw from streams fixed by seed and the job's
// position.
func BuildPlan(f *lft.Fabric, jobs []JobSpec, seed uint64) (*Plan, error) {
	p := &Plan{limit: messageLimit}
	owner := make([]int, f.NumHosts())
	for i := range owner {
		owner[i] = -1
	}
	for j, js := range jobs {
		w, r, err := lookupSpec(workloads, js.Workload)
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
		p.Jobs = append(p.Jobs, Job{Name: name, Hosts: js.Hosts})
		if len(js.Hosts) < 2 {
			return nil, fmt.Errorf("job %s: needs at least 2 hosts, has %d", name, len(js.Hosts))
		}
		// Count the messages first, without keeping them, so that a size
		// beyond the limit is refused before anything is built.
		spec, _ := registry.Parse(js.Workload) // lookupSpec parsed it
		room := messageLimit - int64(len(p.Msgs))
		if _, ok, err := countMessages(w, spec.Reader(w.params...), p.Jobs, js, j, seed, room); err != nil {
			return nil, fmt.Errorf("job %s (%s): %w", name, js.Workload, err)
		} else if !ok {
			return nil, fmt.Errorf("job %s (%s): %w", name, js.Workload, budgetError(w, spec, p.Jobs, js, j, seed, room))
		}
		b := &JobBuilder{plan: p, job: int32(j), hosts: js.Hosts, start: js.Start, r: rng.New(seed, 100+uint64(j))}
		if err := buildWithin(w, r, b); err != nil {
			return nil, fmt.Errorf("job %s (%s): %w", name, js.Workload, err)
		}
	}
	return p, nil
}

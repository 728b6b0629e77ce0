package samplingsim

import (
	"fmt"
	"slices"
	"strings"

	"orcs/lft"
	"orcs/rng"
)

// A workload turns a spec such as "naive-reduce:arrays=50,size=4096" into
// the messages of one job, in terms of the job's ranks. Workloads are
// registered by name, one file each.
type workload struct {
	name   string
	doc    string
	params []param
	// build adds the job's messages to b.
	build func(s spec, b *JobBuilder) error
}

var workloads = map[string]*workload{}

// registerWorkload adds a workload; called from init functions.
func registerWorkload(w *workload) {
	if _, dup := workloads[w.name]; dup {
		panic("samplingsim: workload registered twice: " + w.name)
	}
	workloads[w.name] = w
}

// WorkloadNames describes the registered workloads with their parameters
// and defaults, sorted by name, for help texts.
func WorkloadNames() []string {
	var out []string
	for _, w := range workloads {
		s := w.name
		if len(w.params) > 0 {
			s += ":" + describeParams(w.params)
		}
		out = append(out, s+" — "+w.doc)
	}
	slices.Sort(out)
	return out
}

func parseWorkload(text string) (spec, *workload, error) {
	s, err := parseSpec("workload", text, func(name string) ([]param, error) {
		w, ok := workloads[name]
		if !ok {
			names := make([]string, 0, len(workloads))
			for n := range workloads {
				names = append(names, n)
			}
			slices.Sort(names)
			return nil, fmt.Errorf("unknown workload %q (known: %s)", name, strings.Join(names, ", "))
		}
		return w.params, nil
	})
	if err != nil {
		return s, nil, err
	}
	return s, workloads[s.name], nil
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

// JobSpec describes a job of a plan.
type JobSpec struct {
	// Name names the job (default: its workload's name).
	Name string
	// Workload is the workload spec, e.g. "ring:size=131072".
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
	p := &Plan{}
	owner := make([]int, f.NumHosts())
	for i := range owner {
		owner[i] = -1
	}
	for j, js := range jobs {
		s, w, err := parseWorkload(js.Workload)
		if err != nil {
			return nil, err
		}
		name := js.Name
		if name == "" {
			name = s.name
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
		b := &JobBuilder{plan: p, job: int32(j), hosts: js.Hosts, start: js.Start, r: rng.New(seed, 100+uint64(j))}
		if len(js.Hosts) < 2 {
			return nil, fmt.Errorf("job %s: needs at least 2 hosts, has %d", name, len(js.Hosts))
		}
		if err := w.build(s, b); err != nil {
			return nil, fmt.Errorf("job %s (%s): %w", name, js.Workload, err)
		}
	}
	return p, nil
}

// positive returns the integer parameter key, which must be ≥ min.
func positive(s spec, key string, min int) (int, error) {
	v, err := s.int(key)
	if err != nil {
		return 0, err
	}
	if v < min {
		return 0, fmt.Errorf("%s=%d must be at least %d", key, v, min)
	}
	return v, nil
}

// params reads a workload's parameters in order and keeps the first error,
// so that a builder reads all of them and checks once.
type params struct {
	s   spec
	b   *JobBuilder
	err error
}

// positive reads an integer parameter that must be at least 1.
func (p *params) positive(key string) int {
	if p.err != nil {
		return 0
	}
	v, err := positive(p.s, key, 1)
	p.err = err
	return v
}

// rank reads a parameter that must be a rank of the job.
func (p *params) rank(key string) int {
	if p.err != nil {
		return 0
	}
	v, err := rankParam(p.s, key, p.b)
	p.err = err
	return v
}

// rankParam returns the rank parameter key, which must be a rank of b.
func rankParam(s spec, key string, b *JobBuilder) (int, error) {
	v, err := s.int(key)
	if err != nil {
		return 0, err
	}
	if v < 0 || v >= b.Ranks() {
		return 0, fmt.Errorf("%s=%d is not a rank (the job has %d)", key, v, b.Ranks())
	}
	return v, nil
}

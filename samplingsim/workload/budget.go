package workload

import (
	"fmt"
	"strconv"

	"orcs/registry"
	"orcs/rng"
	"orcs/samplingsim/plan"
)

// MaxMessages is the largest number of messages of a run (all jobs). A
// message costs about 170 bytes while the plan is built and simulated, so
// the limit keeps a run below about 1 GB of memory; a workload that would
// exceed it is refused before its messages are built, with the largest
// count that fits.
const MaxMessages = 1 << 22

// messageLimit is MaxMessages; tests lower it.
var messageLimit int64 = MaxMessages

// countKeys are the workload parameters that multiply the number of
// messages, in the order the budget error names them.
var countKeys = []string{"msgs", "iters", "arrays"}

// send adds m to the plan of b (see Send).
func (b *JobBuilder) send(m plan.Message, signals ...int32) int32 { return b.target.Add(m, signals...) }

// reserve stops the workload (as Plan.Add does) when it is about to add
// n·per messages and they do not fit in the plan's limit: a workload
// calls it before it allocates in proportion to a count parameter.
func (b *JobBuilder) reserve(n, per int) {
	p := b.target
	if p.Limit() <= 0 {
		return
	}
	room := p.Limit() - p.Size()
	if n > 0 && per > 0 && int64(per) > room/int64(n) {
		panic(plan.OverBudget{})
	}
}

// countMessages builds workload w with the reader r on the given hosts in
// a counting plan and returns the number of messages it adds, or ok =
// false when they are more than limit. The counting plan keeps nothing, so
// a probe costs at most limit calls of Add and no memory.
func countMessages(w *workload, r *registry.Reader, jobs []plan.Job, js JobSpec, j int, seed uint64, limit int64) (n int64, ok bool, err error) {
	p := plan.NewCounting(jobs, limit)
	b := &JobBuilder{target: p, job: int32(j), hosts: js.Hosts, start: js.Start, r: rng.New(seed, 100+uint64(j))}
	defer func() {
		if v := recover(); v != nil {
			if _, over := v.(plan.OverBudget); !over {
				panic(v)
			}
			n, ok, err = 0, false, nil
		}
	}()
	if err := w.build(r, b); err != nil {
		return 0, true, err
	}
	return p.Size(), true, nil
}

// buildWithin builds w into the plan of b and turns a stop at the plan's
// limit into an error (the counting run before it makes that a
// workload that counts differently from how it builds).
func buildWithin(w *workload, r *registry.Reader, b *JobBuilder) (err error) {
	defer func() {
		if v := recover(); v != nil {
			if _, over := v.(plan.OverBudget); !over {
				panic(v)
			}
			err = fmt.Errorf("more than %d messages, the limit of a run", b.target.Limit())
		}
	}()
	return w.build(r, b)
}

// budgetError explains a workload that adds more than limit messages:
// it names the count parameter of the spec and the largest value of it
// that fits, found with counting probes.
func budgetError(w *workload, spec registry.Spec, jobs []plan.Job, js JobSpec, j int, seed uint64, limit int64) error {
	msg := fmt.Sprintf("more than %d messages on %d ranks, the limit of a run (about 170 bytes each in memory)", limit, len(js.Hosts))
	if limit < messageLimit {
		msg = fmt.Sprintf("more than %d messages on %d ranks, what the jobs before it leave of the limit of a run, %d", limit, len(js.Hosts), messageLimit)
	}
	for _, key := range countKeys {
		if !w.takes(key) {
			continue
		}
		probe := func(v int64) (int64, bool) {
			s := withArg(spec, key, strconv.FormatInt(v, 10))
			n, ok, err := countMessages(w, s.Reader(w.params...), jobs, js, j, seed, limit)
			return n, ok && err == nil
		}
		cur, err := strconv.ParseInt(w.value(spec, key), 10, 64)
		if err != nil || cur < 2 {
			continue
		}
		best := largestFitting(probe, cur, limit)
		if best < 1 {
			return fmt.Errorf("%s even with %s=1", msg, key)
		}
		return fmt.Errorf("%s; the largest %s that fits is %d", msg, key, best)
	}
	return fmt.Errorf("%s", msg)
}

// largestFitting returns the largest v in [1, cur) for which probe fits,
// or 0 if even 1 does not: it extrapolates from the counts at 1 and 2
// (the workloads are linear in their count parameters) and checks the
// guess, falling back to bisection.
func largestFitting(probe func(int64) (int64, bool), cur, limit int64) int64 {
	n1, ok1 := probe(1)
	if !ok1 {
		return 0
	}
	lo, hi := int64(1), cur // probe(lo) fits, probe(hi) does not
	if n2, ok2 := probe(2); !ok2 {
		return 1
	} else if d := n2 - n1; d > 0 {
		if g := 1 + (limit-n1)/d; g > lo && g < hi {
			if _, ok := probe(g); ok {
				lo = g
				if g+1 < hi {
					if _, ok := probe(g + 1); !ok {
						return g
					}
				}
			} else {
				hi = g
			}
		}
	} else {
		lo = 2
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if _, ok := probe(mid); ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// takes reports whether w has the parameter key.
func (w *workload) takes(key string) bool {
	for _, p := range w.params {
		if p.Key == key {
			return true
		}
	}
	return false
}

// value returns the value of key in spec, or its default.
func (w *workload) value(spec registry.Spec, key string) string {
	if v, ok := spec.Value(key); ok {
		return v
	}
	for _, p := range w.params {
		if p.Key == key {
			return p.Default
		}
	}
	return ""
}

// withArg returns spec with key set to value.
func withArg(spec registry.Spec, key, value string) registry.Spec {
	out := registry.Spec{Name: spec.Name}
	set := false
	for _, a := range spec.Args {
		if a.Key == key {
			a.Value, set = value, true
		}
		out.Args = append(out.Args, a)
	}
	if !set {
		out.Args = append(out.Args, registry.Arg{Key: key, Value: value})
	}
	return out
}

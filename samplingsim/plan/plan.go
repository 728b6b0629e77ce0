// Package plan holds the traffic of a samplingsim run: jobs and their
// messages, whose starts depend on gates (Plan), and simulated time
// (Time). The workloads (package workload) build plans; the simulator
// (package samplingsim) runs them.
package plan

import (
	"fmt"

	"orcs/lft"
)

// Job is a named set of hosts that runs one workload; rank r of the job is
// host Hosts[r].
type Job struct {
	// Name identifies the job in outputs ("view" of the estimates).
	Name string
	// Hosts are host indices, one per rank.
	Hosts []int32
	// Alltoall marks an alltoall workload: Application-Aware routing uses
	// Increasingly Minimal Bias instead of Adaptive for it.
	Alltoall bool
}

// Message is one message of a Plan.
type Message struct {
	// Src and Dst are host indices.
	Src, Dst int32
	// Bytes is the message size; it is cut into packets of at most MTU bytes.
	Bytes int64
	// Job is the index of the job the message belongs to.
	Job int32
	// Start is the earliest time the message may be handed to its NIC.
	Start Time
	// Wait is the gate that must open before the message starts, or −1.
	Wait int32
	// Delay is a think time: the message starts Delay after its gate opens
	// (after the run's start if it has no gate), and not before Start. The
	// closed-loop workloads draw it (workload/closed.go).
	Delay Time
}

// Plan is the traffic of a run: messages whose starts depend on gates. A
// gate opens when every message that signals it has been received
// completely; a message with Wait = g starts once gate g is open (and its
// Start time has come). A gate that no message signals is open from the
// start. Gates express barriers (every message of a level signals one gate),
// per-rank order (a rank's next send waits for its previous send and
// receive) and reduction trees.
type Plan struct {
	// Jobs are the jobs, in order; Message.Job indexes it.
	Jobs []Job
	// Msgs are the messages; a message's index is its id.
	Msgs []Message
	// Stopped lists hosts (host indices) that stop receiving: their
	// consumers never take a packet, so traffic to them backs up into the
	// network (the hot spots of Kuszmaul and Kuszmaul). A run with stopped
	// hosts ends when only messages to them are left, or at Config.MaxTime.
	Stopped []int32
	// Iters are the iterations of the workloads that have them (the
	// noise statistics of samplingsim's noise.go read them).
	Iters []IterSpan

	gates    int32
	counting bool    // a dry run: Add counts messages without keeping them
	count    int64   // the messages counted
	limit    int64   // the most messages Add takes (0 = no limit)
	sigStart []int32 // signals of message m: sig[sigStart[m]:sigStart[m+1]]
	sig      []int32
}

// NewGate returns a new gate.
func (p *Plan) NewGate() int32 {
	p.gates++
	return p.gates - 1
}

// NumGates returns the number of gates.
func (p *Plan) NumGates() int { return int(p.gates) }

// Add appends a message that signals the given gates when it has been
// received, and returns its id.
func (p *Plan) Add(m Message, signals ...int32) int32 {
	if p.limit > 0 && p.Size() >= p.limit {
		panic(OverBudget{})
	}
	if p.counting {
		p.count++
		return int32(p.count - 1)
	}
	if p.sigStart == nil {
		p.sigStart = []int32{0}
	}
	p.Msgs = append(p.Msgs, m)
	p.sig = append(p.sig, signals...)
	p.sigStart = append(p.sigStart, int32(len(p.sig)))
	return int32(len(p.Msgs) - 1)
}

// Signals returns the gates message m signals.
func (p *Plan) Signals(m int32) []int32 { return p.sig[p.sigStart[m]:p.sigStart[m+1]] }

// IterSpan is one iteration of a job: the messages First … End−1.
type IterSpan struct {
	// Job is the job's index in Plan.Jobs.
	Job int32
	// First and End delimit the iteration's message ids.
	First, End int32
}

// OverBudget is the panic value with which Plan.Add stops a workload that
// adds more messages than its plan's limit (see New); the workload
// package recovers it.
type OverBudget struct{}

// New returns an empty plan whose Add takes at most limit messages
// (0 = no limit) and panics with OverBudget beyond it.
func New(limit int64) *Plan { return &Plan{limit: limit} }

// NewCounting returns a plan for a dry run of the given jobs: Add counts
// the messages (Size) without keeping them, up to limit.
func NewCounting(jobs []Job, limit int64) *Plan {
	return &Plan{Jobs: jobs, counting: true, limit: limit}
}

// Counting reports whether p is a dry run (NewCounting).
func (p *Plan) Counting() bool { return p.counting }

// Size returns the number of messages added to p (counted ones too).
func (p *Plan) Size() int64 { return int64(len(p.Msgs)) + p.count }

// Limit returns the most messages p takes (0 = no limit).
func (p *Plan) Limit() int64 { return p.limit }

// Check validates the plan against fabric f: hosts in range, positive
// sizes, known gates and jobs. It calls visit for each message that
// passes, in order (the simulator walks its route there), and returns the
// first error.
func (p *Plan) Check(f *lft.Fabric, visit func(i int, m Message) error) error {
	H := int32(f.NumHosts())
	if len(p.Msgs) > 0 && len(p.sigStart) != len(p.Msgs)+1 {
		return fmt.Errorf("plan: messages were not added with Plan.Add")
	}
	for i, m := range p.Msgs {
		switch {
		case m.Src < 0 || m.Src >= H || m.Dst < 0 || m.Dst >= H:
			return fmt.Errorf("message %d: host %d → %d out of range (the fabric has %d hosts)", i, m.Src, m.Dst, H)
		case m.Src == m.Dst:
			return fmt.Errorf("message %d: host %s sends to itself", i, f.HostName(int(m.Src)))
		case m.Bytes < 1:
			return fmt.Errorf("message %d: size %d bytes must be at least 1", i, m.Bytes)
		case m.Wait < -1 || m.Wait >= p.gates:
			return fmt.Errorf("message %d: unknown gate %d", i, m.Wait)
		case m.Start < 0:
			return fmt.Errorf("message %d: negative start time", i)
		case m.Delay < 0:
			return fmt.Errorf("message %d: negative delay", i)
		case m.Job < 0 || int(m.Job) >= max(len(p.Jobs), 1):
			return fmt.Errorf("message %d: unknown job %d", i, m.Job)
		}
		for _, g := range p.Signals(int32(i)) {
			if g < 0 || g >= p.gates {
				return fmt.Errorf("message %d: signals unknown gate %d", i, g)
			}
		}
		if err := visit(i, m); err != nil {
			return err
		}
	}
	return nil
}

package mapping

import (
	"fmt"

	"orcs/samplingsim"
)

// Verify configures a packet simulation of a placement (see Simulate).
type Verify struct {
	// Config is samplingsim's configuration (samplingsim.DefaultConfig()).
	Config samplingsim.Config
	// Workload, when not "", is a samplingsim workload spec whose rank i
	// runs on the placement's host i (e.g. "stencil:x=64,y=72", with its
	// own per-rank dependencies); "" simulates the Comm itself.
	Workload string
	// Size is the bytes of a unit-weight message (patterns); traffic
	// matrices send their own bytes.
	Size int64
	// Seed drives the simulation's random choices.
	Seed uint64
}

// Plan returns the traffic of the job under placement pl as a samplingsim
// plan: with v.Workload that workload, else the Comm's messages, level by
// level (a level starts when the previous one has been delivered, as
// samplingsim's pattern workload), Size bytes per unit of weight for
// patterns and the matrix's bytes for traffic matrices.
func (p *Problem) Plan(pl Placement, v Verify) (*samplingsim.Plan, error) {
	if v.Workload != "" {
		return samplingsim.BuildPlan(p.Fabric, []samplingsim.JobSpec{{Name: "job", Workload: v.Workload, Hosts: pl}}, v.Seed)
	}
	size := v.Size
	if p.Comm.Unit == "bytes" {
		size = 1
	}
	if size <= 0 {
		return nil, fmt.Errorf("message size %d: want > 0", size)
	}
	plan := &samplingsim.Plan{Jobs: []samplingsim.Job{{Name: "job", Hosts: pl}}}
	wait, level := int32(-1), int32(-1)
	var done int32
	for _, m := range p.Comm.Msgs {
		if m.Level != level {
			if level >= 0 {
				wait = done
			}
			level, done = m.Level, plan.NewGate()
		}
		plan.Add(samplingsim.Message{Src: pl[m.Src], Dst: pl[m.Dst], Bytes: m.Weight * size, Wait: wait}, done)
	}
	return plan, nil
}

// Simulate runs the job under placement pl through samplingsim on the same
// fabric and tables and returns its completion time.
func (p *Problem) Simulate(pl Placement, v Verify) (samplingsim.Time, error) {
	plan, err := p.Plan(pl, v)
	if err != nil {
		return 0, err
	}
	res, err := samplingsim.Run(p.Fabric, v.Config, plan)
	if err != nil {
		return 0, fmt.Errorf("samplingsim: %w", err)
	}
	start, end := res.JobFinish(0)
	if end < 0 {
		return 0, fmt.Errorf("samplingsim: the job did not finish")
	}
	return end - start, nil
}

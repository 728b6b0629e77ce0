package samplingsim

import (
	"orcs/lft"
	"orcs/samplingsim/buffer"
	"orcs/samplingsim/plan"
	"orcs/samplingsim/workload"
)

// The traffic of a run is a plan.Plan that the workloads of package
// workload build; these names keep them where the command and the other
// packages have always found them.
type (
	// Plan is the traffic of a run (plan.Plan).
	Plan = plan.Plan
	// Job is a named set of hosts that runs one workload (plan.Job).
	Job = plan.Job
	// Message is one message of a Plan (plan.Message).
	Message = plan.Message
	// IterSpan is one iteration of a job (plan.IterSpan).
	IterSpan = plan.IterSpan
	// JobSpec describes a job of a plan (workload.JobSpec).
	JobSpec = workload.JobSpec
	// JobBuilder adds the messages of one job to a Plan (workload.JobBuilder).
	JobBuilder = workload.JobBuilder
)

// MaxMessages is the largest number of messages of a run (all jobs); see
// workload.MaxMessages.
const MaxMessages = workload.MaxMessages

// BuildPlan builds the plan of jobs on fabric f (workload.BuildPlan).
func BuildPlan(f *lft.Fabric, jobs []JobSpec, seed uint64) (*Plan, error) {
	return workload.BuildPlan(f, jobs, seed)
}

// WorkloadNames describes the registered workloads with their parameters
// and defaults, sorted by name, for help texts (workload.Names).
func WorkloadNames() []string { return workload.Names() }

// BufferNames lists the registered buffer policies with their parameters
// and descriptions, sorted by name, for help texts (buffer.Names).
func BufferNames() []string { return buffer.Names() }

// NCCLOps lists the operations of the nccl workload (workload.NCCLOps).
var NCCLOps = workload.NCCLOps

// NCCLAlgos lists the algorithms of the nccl workload (workload.NCCLAlgos).
var NCCLAlgos = workload.NCCLAlgos

// NCCLBusFactor returns nccl-tests' factor from algorithm bandwidth to bus
// bandwidth for op on n ranks (workload.NCCLBusFactor).
func NCCLBusFactor(op string, n int) float64 { return workload.NCCLBusFactor(op, n) }

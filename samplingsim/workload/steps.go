package workload

// stepper builds iterated collectives from steps of concurrent sends. Every
// rank has a current gate (−1 = none): a send waits for its sender's gate,
// and a step gives each rank that takes part a new gate, signalled by all
// of that rank's sends and receives of the step (a rank goes on when what
// it sent and what it expected have arrived, as with blocking MPI calls).
type stepper struct {
	b    *JobBuilder
	cur  []int32
	next []int32
}

func newStepper(b *JobBuilder) *stepper {
	st := &stepper{b: b, cur: make([]int32, b.Ranks()), next: make([]int32, b.Ranks())}
	for i := range st.cur {
		st.cur[i] = -1
	}
	return st
}

// step adds one step: every pair (src, dst) sends bytes concurrently.
func (st *stepper) step(pairs [][2]int, bytes int64) {
	for _, p := range pairs {
		st.next[p[0]], st.next[p[1]] = -1, -1
	}
	for _, p := range pairs {
		for _, r := range p {
			if st.next[r] < 0 {
				st.next[r] = st.b.Gate()
			}
		}
	}
	for _, p := range pairs {
		st.b.Send(p[0], p[1], bytes, st.cur[p[0]], st.next[p[0]], st.next[p[1]])
	}
	for _, p := range pairs {
		st.cur[p[0]], st.cur[p[1]] = st.next[p[0]], st.next[p[1]]
	}
}

// iterations adds iters iterations, each built by one call of body, and
// records each as an iteration of the job.
func (st *stepper) iterations(iters int, body func()) {
	for range iters {
		first := int32(len(st.b.target.Msgs))
		body()
		st.b.markIteration(first)
	}
}

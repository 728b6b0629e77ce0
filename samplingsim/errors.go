package samplingsim

import (
	"fmt"
	"strconv"
	"strings"
)

// DeadlockError reports a run that stopped with packets that can never
// move: the event queue ran dry while packets sat in buffers. On a fabric
// without virtual channels this is a credit loop: every sender of a cycle of
// links waits for a credit of a buffer whose head packet waits for the next
// link of the cycle.
type DeadlockError struct {
	// Time is the time of the last event.
	Time Time
	// Stuck is the number of packets left in buffers and queues.
	Stuck int
	// Unfinished is the number of unfinished messages, of Messages.
	Unfinished, Messages int
	// Loop is the credit loop, link ids in the order the packets wait for
	// them, starting at the smallest id: the head packet of the buffer at
	// the end of Loop[i] waits for room in the output queue of Loop[i+1],
	// the last for Loop[0]. It is empty if no loop was found.
	Loop []int32
	// Nodes names the nodes of the loop in order, the first repeated at the
	// end: Loop[i] goes from Nodes[i] to Nodes[i+1].
	Nodes []string
}

// Error describes the deadlock and names the loop, e.g.
// `... credit loop of 3 links: "S0" -> "S1" -> "S2" -> "S0" ...`.
func (e *DeadlockError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "deadlock at %s: %d packets are stuck in buffers and %d of %d messages are unfinished",
		FormatTime(e.Time), e.Stuck, e.Unfinished, e.Messages)
	if len(e.Nodes) > 0 {
		fmt.Fprintf(&b, "; credit loop of %d links: ", len(e.Loop))
		for i, n := range e.Nodes {
			if i > 0 {
				b.WriteString(" -> ")
			}
			b.WriteString(strconv.Quote(n))
		}
	}
	b.WriteString(" (this routing needs virtual channels or deadlock-free tables)")
	return b.String()
}

// Package samplingsim is a packet-level simulator of credit-flow-controlled
// fabrics (InfiniBand style) whose packets carry the reservoir-sampling
// headers proposed in Taffet's thesis "Understanding congestion in high
// performance interconnection networks using sampling": every packet samples
// one hop of its path and one congested hop, and the receivers turn many
// such samples into per-link traffic and congestion estimates.
//
// The simulator works on the project's own fabrics and forwarding tables
// (lft.Fabric, routing is oblivious: a packet follows its table route, which
// with LMC spread depends on the source, see lft.Fabric.NextHop) and is
// built in layers, each behind a narrow interface:
//
//   - event.go: a discrete-event core with integer time (picoseconds) and a
//     deterministic order of simultaneous events;
//   - link.go: links (bandwidth, latency, full duplex: every direction is an
//     independent lft.Link) and credit-based flow control per direction;
//   - channel.go: the state of a link direction (on one lane) that the
//     event loop keeps, both ends in one 128-byte block;
//   - ring.go: the fixed-size rings of the output queues, input buffers and
//     credits on their way back, one per link in a shared slab (small
//     credit rings ride in the channel);
//   - switch.go: switches with finite input buffers per port, output queues
//     and a first-come first-served arbiter per output; a blocked head packet
//     blocks its whole input buffer (head-of-line blocking);
//   - buffers.go, buf_*.go, buffers_stats.go: buffer policies of the input
//     ports (Config.Buffers): the FIFO above, or the dampening switches of
//     Kuszmaul and Kuszmaul (Dias–Kumar, counting and hashed dampeners) with
//     per-destination flow control mirrored by the senders like credits, and
//     the measurement of runs with hosts that stop receiving (Plan.Stopped);
//   - ids.go: packet ids, per-connection 24-bit PSNs from a seeded start;
//   - nic.go: NICs with an injection queue of messages, injection and
//     ejection at line rate and an optional slower consumer (a hot spot);
//   - packet.go: MTU-sized packets of messages, a cache line each, with
//     their route (routecache.go);
//   - marking.go: when an output port counts as congested (thesis §3.2, §5.10);
//   - header.go, hash.go: the sampling headers (Algorithms 2–9);
//   - estimate.go: the receivers' estimates (Algorithms 4, 7, 9);
//   - truth.go: ground-truth counters per link direction and time window;
//   - workload.go: messages with dependencies, built by named workloads;
//   - output.go, plot.go, diagnose.go: CSV/JSON, SVG plots and the
//     congestion-tree diagnosis of thesis §4.1 (tree saturation from the
//     delivery counts, adaptive route sets);
//   - support.go, detection.go: a verdict over seeds with its support
//     (Consensus) and the estimates' detection power against the truth.
//
// A run is deterministic for a given Config (including Config.Seed) and plan.
//
// Typical use: generate or read a fabric, build a Plan of jobs with
// BuildPlan (or message by message with Plan.Add), Run it with a Config from
// DefaultConfig, then read Result.TruthOf and Result.Estimates per link, or
// Diagnose the congestion trees; see the examples. A routing that deadlocks
// returns a *DeadlockError naming its credit loop.
package samplingsim

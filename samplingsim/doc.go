// Package samplingsim is a packet-level simulator of credit-flow-controlled
// fabrics (InfiniBand style) whose packets carry the reservoir-sampling
// headers proposed in Taffet's thesis "Understanding congestion in high
// performance interconnection networks using sampling": every packet samples
// one hop of its path and one congested hop, and the receivers turn many
// such samples into per-link traffic and congestion estimates.
//
// The simulator works on the project's own fabrics and forwarding tables
// (lft.Fabric, routing is oblivious: a packet follows its table route, which
// with LMC spread depends on the source, see lft.Fabric.NextHop, or
// adaptive) and is a core plus plug-ins. The core is this package: one type,
// network (network.go), the state of a run, whose methods are spread over
// topic-named files; the plug-in families that depend only on exported
// types live in sub-packages, one file per plug-in. The file map, every
// file of every package:
//
//   - doc.go: this map;
//   - network.go: the core type network, Run, the set-up of a run in named
//     steps (newSim) and the event loop (network.run);
//   - config.go: Config, its checks and the plug-in specs parsed once into
//     typed values (Config.parse); plugins.go: the names of the plan,
//     workload and buffer packages kept in this package's API;
//   - event.go: a discrete-event core with integer time (picoseconds) and a
//     deterministic order of simultaneous events; ahead.go: reading the
//     cache lines of coming events ahead of them on large fabrics;
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
//   - buffers.go, buffers_stats.go: the dampening switches' mechanics in the
//     event loop (the senders' mirrors of the downstream buffers, tags on
//     the credits) and the measurement of runs with hosts that stop
//     receiving (Plan.Stopped); the rules are package buffer's;
//   - ids.go: packet ids, per-connection 24-bit PSNs from a seeded start;
//   - nic.go: NICs with an injection queue of messages, injection and
//     ejection at line rate and an optional slower consumer (a hot spot);
//   - packet.go: MTU-sized packets of messages, a cache line each, with
//     their route (routecache.go, which also checks the plan's pairs);
//   - route_adaptive.go, route_app.go, lanes.go: adaptive routing per packet
//     and switch (fat trees, Dragonflies with UGAL), Application-Aware
//     routing's choice per message, virtual lanes and global latency;
//     route_compare.go: one run per routing (CompareRouting);
//   - marking.go, mark_credits.go, mark_creditthreshold.go, mark_queue.go,
//     mark_probabilistic.go: when an output port counts as congested
//     (thesis §3.2, §5.10), one policy per file;
//   - header.go, hash.go, scheme_none.go, scheme_reservoir.go,
//     scheme_onebit.go, scheme_onereservoir.go: the sampling headers
//     (Algorithms 2–9), one scheme per file;
//   - estimate.go: the receivers' estimates (Algorithms 4, 7, 9);
//   - truth.go, stall.go: ground-truth counters per link direction and time
//     window, and the ports' credit-stall ratios;
//   - noise.go: latency and stall statistics per message and iteration
//     (network noise, QCD);
//   - jobs.go, alloc.go: the jobs of a command line (host allocation rules,
//     mapping files) and ParseTime;
//   - result.go, output.go, files.go, plot.go: the Result of a run, CSV and
//     JSON, the output files written together, SVG plots;
//   - diagnose.go, topology.go, verdict.go: the congestion-tree diagnosis
//     of thesis §4.1 (tree saturation from the delivery counts, adaptive
//     route sets) on the fabric's stages, and its verdict sentence per view
//     (Diagnosis.Sentence);
//   - support.go, detection.go: a verdict over seeds with its support
//     (Consensus) and the estimates' detection power against the truth;
//   - cc.go, cc_conf.go, cc_run.go, cc_result.go, cc_compare.go:
//     InfiniBand congestion control (IBA annex A10): its settings, their
//     short form and opensm.conf's cc_* keys, the switches' marking, the
//     BECNs and the sources' flows in the event loop, what it did
//     (CCStats, the hot spot's victims) and one run per setting
//     (CompareCC);
//   - errors.go: DeadlockError, a run stopped by a credit loop;
//   - cputime_linux.go, cputime_other.go: the event loop's CPU time;
//   - plan/: plan.go (Plan: jobs, messages, gates; Plan.Check), time.go
//     (Time and its units);
//   - workload/: workload.go (the registry, JobBuilder, BuildPlan),
//     budget.go (the message limit, checked before a plan is built),
//     closed.go and steps.go (the closed loop and iterated steps the
//     workloads share), and one file per workload: allreduce.go,
//     alltoall.go, barrier.go, flow.go, halo3d.go, hotspot.go, nccl.go (NCCL
//     collectives on GPU nodes), pattern.go,
//     pingpong.go, random.go, reduce.go (naive and binomial), ring.go,
//     saturation.go, stencil.go;
//   - buffer/: policy.go (the registry, Spec, Rule), and one file per
//     buffer policy: fifo.go, bypass.go, diaskumar.go, counting.go,
//     hashed.go.
//
// The layers: plan ← workload ← samplingsim, and buffer ← samplingsim.
// Adding a workload is one file in workload/ with its registration; a
// buffer policy one file in buffer/.
//
// A run is deterministic for a given Config (including Config.Seed) and plan.
//
// Typical use: generate or read a fabric, build a Plan of jobs with
// BuildPlan (or message by message with Plan.Add), Run it with a Config from
// DefaultConfig, then read Result.TruthOf and Result.Estimates per link, or
// Diagnose the congestion trees; see the examples. A routing that deadlocks
// returns a *DeadlockError naming its credit loop.
package samplingsim

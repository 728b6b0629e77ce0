package samplingsim_test

import (
	"errors"
	"fmt"

	"orcs/gen"
	"orcs/lft"
	"orcs/samplingsim"
)

// A naive reduction on a 4-host fat tree: three ranks send 50 arrays of
// 4 KiB each straight to rank 0, whose link saturates. The link into H0 is
// congested for nearly every packet. The receivers' reservoir samples
// estimate its traffic and congested fraction: two thirds of the packets
// come over three switch hops (Var[W] = Σ (l−1) = 200, a standard
// deviation of 14 packets), and their congested samples are shared with the
// congested links upstream.
func ExampleRun() {
	f, err := gen.Generate("kary:k=2,n=2")
	if err != nil {
		panic(err)
	}
	cfg := samplingsim.DefaultConfig()
	hosts := []int32{0, 1, 2, 3}
	plan, err := samplingsim.BuildPlan(f, []samplingsim.JobSpec{
		{Name: "reduce", Workload: "naive-reduce", Hosts: hosts},
	}, cfg.Seed)
	if err != nil {
		panic(err)
	}
	res, err := samplingsim.Run(f, cfg, plan)
	if err != nil {
		panic(err)
	}
	_, end := res.JobFinish(0)
	fmt.Printf("%d messages, %d packets delivered, finished after %s\n",
		len(plan.Msgs), res.Packets, samplingsim.FormatTime(end))

	into := f.NextHop(1, f.SwitchNode(0), 0) // the leaf's link into H0
	truth := res.TruthOf(-1, into)
	est := res.Estimates(samplingsim.AllJobs, -1)[into]
	fmt.Printf("%s: %d packets, congested fraction %.3f (estimated %.0f packets, %.3f)\n",
		f.LinkName(into), truth.Packets, truth.Fraction(), est.Packets, est.Fraction)
	// Output:
	// 150 messages, 150 packets delivered, finished after 50.01 µs
	// "S0_0" -> "H0": 150 packets, congested fraction 0.960 (estimated 167 packets, 0.772)
}

// Diagnose tells the congestion tree of a naive reduction apart from other
// causes: its root is the link into the root rank, endpoint congestion.
func ExampleDiagnose() {
	f, err := gen.Generate("kary:k=2,n=2")
	if err != nil {
		panic(err)
	}
	cfg := samplingsim.DefaultConfig()
	plan, err := samplingsim.BuildPlan(f, []samplingsim.JobSpec{
		{Workload: "naive-reduce", Hosts: []int32{0, 1, 2, 3}},
	}, cfg.Seed)
	if err != nil {
		panic(err)
	}
	res, err := samplingsim.Run(f, cfg, plan)
	if err != nil {
		panic(err)
	}
	d := samplingsim.Diagnose(res, samplingsim.DiagnoseOptions{View: samplingsim.AllJobs, Window: -1})
	fmt.Println(d.Cause)
	for _, r := range d.Roots {
		fmt.Printf("root %s, %d links in the tree\n", r.Name, r.Tree)
	}
	// Output:
	// endpoint congestion
	// root "S0_0" -> "H0", 3 links in the tree
}

// A plan can also be written message by message. One 4 KiB packet from H0
// to H1, which share a leaf switch, is stored and forwarded twice and then
// consumed: three packet times (327.68 ns each at 100 Gb/s) plus two link
// latencies (50 ns) and one router delay (100 ns) make 1.183 µs. The next
// message waits in H0's injection queue and streams its 10 packets at line
// rate, 10 packet times later.
func ExamplePlan_Add() {
	f, err := gen.Generate("kary:k=2,n=2")
	if err != nil {
		panic(err)
	}
	plan := &samplingsim.Plan{Jobs: []samplingsim.Job{{Name: "pair", Hosts: []int32{0, 1}}}}
	plan.Add(samplingsim.Message{Src: 0, Dst: 1, Bytes: 4096, Wait: -1})
	plan.Add(samplingsim.Message{Src: 0, Dst: 1, Bytes: 10 * 4096, Wait: -1})
	res, err := samplingsim.Run(f, samplingsim.DefaultConfig(), plan)
	if err != nil {
		panic(err)
	}
	for i := range plan.Msgs {
		fmt.Printf("message %d finished at %s\n", i, samplingsim.FormatTime(res.MsgFinish[i]))
	}
	// Output:
	// message 0 finished at 1.183 µs
	// message 1 finished at 4.46 µs
}

// A routing whose links form a cycle of dependencies deadlocks without
// virtual channels. Here three switches in a ring route everything
// clockwise; every host sends to the host two switches ahead, buffers hold
// one packet, and the run reports the credit loop.
func ExampleDeadlockError() {
	b := lft.NewBuilder()
	const n = 3
	var sw [n]int32
	for i := range n {
		sw[i] = b.Node(fmt.Sprintf("S%d", i), lft.Switch)
	}
	for i := range n {
		h := b.Node(fmt.Sprintf("H%d", i), lft.Host)
		b.Route(b.Link(h, sw[i], 1, 1), lft.AnyDest)
		b.Route(b.Link(sw[i], h, 1, 1), b.Dest(fmt.Sprintf("H%d", i)))
	}
	for i := range n {
		b.Route(b.Link(sw[i], sw[(i+1)%n], 2, 3), lft.AnyDest)
	}
	f, err := b.Build()
	if err != nil {
		panic(err)
	}
	plan := &samplingsim.Plan{}
	for i := range int32(n) {
		plan.Add(samplingsim.Message{Src: i, Dst: (i + 2) % n, Bytes: 20 * 4096, Wait: -1})
	}
	cfg := samplingsim.DefaultConfig()
	cfg.InputBuffer, cfg.OutputQueue = 1, 1
	_, err = samplingsim.Run(f, cfg, plan)
	var dl *samplingsim.DeadlockError
	if errors.As(err, &dl) {
		fmt.Println("credit loop:", dl.Nodes)
		fmt.Println(err)
	}
	// Output:
	// credit loop: [S0 S1 S2 S0]
	// deadlock at 2.188 µs: 12 packets are stuck in buffers and 3 of 3 messages are unfinished; credit loop of 3 links: "S0" -> "S1" -> "S2" -> "S0" (this routing needs virtual channels or deadlock-free tables)
}

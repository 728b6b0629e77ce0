package samplingsim

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// ccOn returns settings with every field valid, the given threshold and
// table, and the CA entry of SL 0.
func ccOn(threshold uint8, rate uint16, ca CAEntry, cct []CCTEntry) *CongestionControl {
	cc := presetCC(threshold, rate, 1, ca.Timer, ca.Increase, cct)
	cc.CA[0] = ca
	return &cc
}

// TestCCDelayFromTable: one flow whose index starts at CCTI_Min = 3,
// where the table delays 2 packet times, and no marking: the NIC forms a
// packet every 3 packet times (its own and 2 of delay), so the tenth
// packet leaves 27 packet times after the first, and every packet but
// the first waited 2 packet times.
func TestCCDelayFromTable(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	cfg := DefaultConfig()
	ser := serTime(int64(cfg.MTU), cfg.Bandwidth)
	one := (ser + cfg.Latency + cfg.RouterDelay) + (ser + cfg.Latency) + ser // H1 → H0 on one leaf, consumed
	cfg.CC = ccOn(0, 0, CAEntry{Min: 3}, []CCTEntry{{0, 0}, {0, 7}, {0, 9}, {0, 2}, {0, 5}})
	r := mustRun(t, f, cfg, planOf(f, Message{Src: 1, Dst: 0, Bytes: 10 * 4096}))
	if got, want := r.MsgFinish[0], 27*ser+one; got != want {
		t.Errorf("10 packets 3 packet times apart finished at %d ps, want %d", got, want)
	}
	fl := r.CC.Flows[0]
	if fl.Throttled != 18*ser || fl.MeanCCTI != 3 || fl.Packets != 10 || fl.BECNs != 0 {
		t.Errorf("flow %+v: want throttled 18 packet times (%d ps), mean index 3, 10 packets, no BECN", fl, 18*ser)
	}
	// The entry 1:4 (delay (Tp >> 1)·4 = 2 Tp) is the same delay.
	cfg.CC = ccOn(0, 0, CAEntry{Min: 3}, []CCTEntry{{0, 0}, {0, 7}, {0, 9}, {1, 4}})
	if r2 := mustRun(t, f, cfg, planOf(f, Message{Src: 1, Dst: 0, Bytes: 10 * 4096})); r2.MsgFinish[0] != r.MsgFinish[0] {
		t.Errorf("shift 1, multiplier 1 finished at %d ps, want %d as 0:2", r2.MsgFinish[0], r.MsgFinish[0])
	}
}

// TestCCIndexLimitAndTimer: BECNs raise a flow's index by CCTI_Increase
// up to the table's last index; the timer lowers it by one every
// CCTI_Timer × 1.024 µs down to CCTI_Min.
func TestCCIndexLimitAndTimer(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	cfg := DefaultConfig()
	cfg.CC = ccOn(15, 0, CAEntry{Timer: 2, Increase: 2, Min: 1, TriggerThreshold: 4}, LinearCCT(6, 1)) // limit 5
	p := planOf(f, Message{Src: 1, Dst: 0, Bytes: 4096})
	pl, err := cfg.parse()
	if err != nil {
		t.Fatal(err)
	}
	s, err := newSim(f, cfg, p, pl)
	if err != nil {
		t.Fatal(err)
	}
	c := s.cc
	period := 2 * 1024 * Nanosecond
	if c.period != period || c.limit != 5 || c.min != 1 {
		t.Fatalf("period %d, limit %d, min %d: want %d, 5, 1", c.period, c.limit, c.min, period)
	}
	fl := &c.flows[0]
	if fl.ccti != 1 {
		t.Fatalf("a flow starts at CCTI_Min 1, got %d", fl.ccti)
	}
	becn := func(at Time) {
		s.now = at
		pid := s.newPacket()
		c.pk[pid] = ccPacket{flow: 0, cnp: true}
		s.ccBECN(pid)
	}
	steps := []struct {
		at   Time
		becn bool
		want int32
	}{
		{0, true, 3},                    // 1 + 2
		{period / 2, true, 5},           // 3 + 2 = the limit
		{period - 1, true, 5},           // capped at the limit
		{period, false, 4},              // the first tick
		{3*period + period/3, false, 2}, // two more ticks
		{10 * period, false, 1},         // down to CCTI_Min, not below: the timer stops
		{10*period + 1, true, 3},        // up again, the timer restarts
		{11 * period, false, 3},         // not a tick of the new timer
		{11*period + 1, false, 2},       // its first tick
	}
	for _, st := range steps {
		if st.becn {
			becn(st.at)
		}
		if got := c.ccIndex(fl, st.at); got != st.want {
			t.Errorf("at %d ps (BECN %v): index %d, want %d", st.at, st.becn, got, st.want)
		}
	}
	if fl.maxCCTI != 5 || fl.becns != 4 || c.becns != 4 {
		t.Errorf("max index %d, BECNs %d (%d): want 5, 4", fl.maxCCTI, fl.becns, c.becns)
	}
	// The trigger threshold 4 was crossed twice (1→3 no, 3→5 yes, 1→3 no): once.
	if c.triggers != 1 {
		t.Errorf("triggers %d, want 1", c.triggers)
	}
}

// TestCCMarkOneBECN: two hosts send to a third on their leaf; with a
// marking rate that leaves 65 535 packets unmarked after a marked one,
// the leaf's port to the destination marks exactly one packet, the
// destination returns exactly one BECN and only the marked packet's flow
// raises its index, to CCTI_Increase. With a table of zero delays
// nothing else changes: the messages finish as without congestion
// control, and the BECN costs two packet-hops (destination → leaf →
// source).
func TestCCMarkOneBECN(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	cfg := DefaultConfig()
	p := planOf(f, Message{Src: 1, Dst: 0, Bytes: 20 * 4096}, Message{Src: 2, Dst: 0, Bytes: 20 * 4096})
	off := mustRun(t, f, cfg, p)
	cfg.CC = ccOn(15, 65535, CAEntry{Increase: 3}, LinearCCT(8, 0))
	on := mustRun(t, f, cfg, p)
	ports, marks := on.CC.MarkedPorts()
	into := linkInto(f, f.HostNode(0))
	if ports != 1 || marks != 1 || on.CC.Marked[into] != 1 {
		t.Fatalf("marked %d packets on %d ports (%d on the leaf's port to H0): want one", marks, ports, on.CC.Marked[into])
	}
	if on.CC.CNPs != 1 || on.CC.BECNs != 1 {
		t.Errorf("%d BECNs sent, %d applied: want 1, 1", on.CC.CNPs, on.CC.BECNs)
	}
	hit := 0
	for _, fl := range on.CC.Flows {
		if fl.Marked == 1 {
			hit++
			if fl.BECNs != 1 || fl.MaxCCTI != 3 {
				t.Errorf("marked flow %+v: want 1 BECN and index 3", fl)
			}
		} else if fl.BECNs != 0 || fl.MaxCCTI != 0 {
			t.Errorf("unmarked flow %+v raised its index", fl)
		}
	}
	if hit != 1 {
		t.Errorf("%d flows marked, want 1", hit)
	}
	if !slices.Equal(on.MsgFinish, off.MsgFinish) || on.PacketHops != off.PacketHops+2 || on.Packets != off.Packets {
		t.Errorf("finish %v hops %d packets %d; without CC %v hops %d packets %d: want the same finish, 2 more hops",
			on.MsgFinish, on.PacketHops, on.Packets, off.MsgFinish, off.PacketHops, off.Packets)
	}
	if on.CC.Acted() {
		t.Errorf("zero delays throttled a flow")
	}
	// The BECN is one packet of 64 bytes on H0's link to the leaf.
	up := f.OutLinks(f.HostNode(0))[0]
	if a, b := on.TruthOf(0, up), off.TruthOf(0, up); a.Packets != b.Packets+1 || a.Bytes != b.Bytes+CNPBytes || CNPBytes != 64 {
		t.Errorf("H0's link carried %d packets, %d bytes; without CC %d, %d: want one packet of 64 bytes more", a.Packets, a.Bytes, b.Packets, b.Bytes)
	}
}

// TestCCVictimMask: a slow host drains its buffer at a quarter of the
// line rate, so the leaf's port to it runs out of credits: a victim of
// the host, not the root of congestion, which marks nothing unless the
// victim mask names it (victim=hosts).
func TestCCVictimMask(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	cfg := DefaultConfig()
	cfg.SlowHosts, cfg.SlowFactor = []int32{0}, 0.25
	p := planOf(f, Message{Src: 1, Dst: 0, Bytes: 40 * 4096})
	cfg.CC = ccOn(15, 0, CAEntry{Increase: 1}, LinearCCT(8, 1))
	if _, marks := mustRun(t, f, cfg, p).CC.MarkedPorts(); marks != 0 {
		t.Errorf("a port starved of credits marked %d packets without the victim mask", marks)
	}
	cfg.CC.VictimHostPorts = true
	r := mustRun(t, f, cfg, p)
	if ports, marks := r.CC.MarkedPorts(); ports != 1 || marks == 0 || r.CC.Marked[linkInto(f, f.HostNode(0))] != marks {
		t.Errorf("with victim=hosts: %d marks on %d ports, want some on the port to H0 only", marks, ports)
	}
	if !r.CC.Acted() {
		t.Errorf("the slow host's sender was never throttled")
	}
}

// TestCCPacketSize: packets smaller than the packet size limit are not
// marked (1 KiB packets, limit 17 credits = 1088 bytes).
func TestCCPacketSize(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	cfg := DefaultConfig()
	cfg.MTU = 1024
	p := planOf(f, Message{Src: 1, Dst: 0, Bytes: 50 * 1024}, Message{Src: 2, Dst: 0, Bytes: 50 * 1024})
	cc := ccOn(15, 0, CAEntry{Increase: 1}, LinearCCT(8, 1))
	cc.PacketSize = 16
	cfg.CC = cc
	if _, m := mustRun(t, f, cfg, p).CC.MarkedPorts(); m == 0 {
		t.Fatalf("1 KiB packets with a limit of 16 credits: none marked")
	}
	cc.PacketSize = 17
	if _, m := mustRun(t, f, cfg, p).CC.MarkedPorts(); m != 0 {
		t.Errorf("1 KiB packets with a limit of 17 credits: %d marked", m)
	}
}

// TestCCMarkThreshold: the queue length from which a port marks.
func TestCCMarkThreshold(t *testing.T) {
	for _, c := range []struct {
		threshold uint8
		cap, want int
	}{
		{0, 4, 0}, {15, 4, 2}, {8, 4, 3}, {2, 4, 4}, {1, 4, 4}, {15, 1, 1}, {1, 16, 16}, {15, 16, 2}, {8, 16, 9},
	} {
		cc := ccOn(c.threshold, 0, CAEntry{}, nil)
		if got := cc.MarkThreshold(c.cap); got != c.want {
			t.Errorf("threshold %d, queue of %d: %d, want %d", c.threshold, c.cap, got, c.want)
		}
	}
	cc := ccOn(15, 0, CAEntry{}, nil)
	cc.SwitchControlMap &^= 1 << 2
	if cc.MarkThreshold(4) != 0 {
		t.Errorf("threshold not valid in the control map still marks")
	}
}

// TestCCOffIsUnchanged: settings with Enable false run exactly as no
// settings.
func TestCCOffIsUnchanged(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	cfg := DefaultConfig()
	p := planOf(f, Message{Src: 1, Dst: 0, Bytes: 20 * 4096}, Message{Src: 2, Dst: 0, Bytes: 20 * 4096}, Message{Src: 5, Dst: 0, Bytes: 9000})
	a := mustRun(t, f, cfg, p)
	cc := ccOn(15, 0, CAEntry{Increase: 1}, LinearCCT(8, 1))
	cc.Enable = false
	cfg.CC = cc
	b := mustRun(t, f, cfg, p)
	if b.CC != nil || !slices.Equal(a.MsgFinish, b.MsgFinish) || a.Events != b.Events || a.PacketHops != b.PacketHops {
		t.Errorf("disabled congestion control changed the run")
	}
}

// TestCCDeterministic: the same settings and seed give the same run.
func TestCCDeterministic(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	jobs := []JobSpec{{Workload: "saturation:msgs=30,stop=0,frac=0.2", Hosts: allHosts(f.NumHosts())}}
	p, err := BuildPlan(f, jobs, 3)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.CC, _ = ParseCC("aggressive")
	a, b := mustRun(t, f, cfg, p), mustRun(t, f, cfg, p)
	if !slices.Equal(a.MsgFinish, b.MsgFinish) || a.Events != b.Events || !slices.Equal(a.CC.Marked, b.CC.Marked) {
		t.Errorf("two runs differ")
	}
	if !a.CC.Acted() {
		t.Errorf("a hot spot of 20%% of all traffic did not make congestion control act")
	}
}

// TestCCRefusals: adaptive routing and the dampening buffers are refused
// with the reason.
func TestCCRefusals(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	p := planOf(f, Message{Src: 1, Dst: 0, Bytes: 4096})
	for _, c := range []struct{ routing, buffers, want string }{
		{"adaptive", "fifo", "--routing static"},
		{"static", "dias-kumar", "--buffers fifo"},
	} {
		cfg := DefaultConfig()
		cfg.Routing, cfg.Buffers = c.routing, c.buffers
		cfg.CC, _ = ParseCC("on")
		if _, err := Run(f, cfg, p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s, %s: %v, want a refusal naming %s", c.routing, c.buffers, err, c.want)
		}
	}
}

// TestParseCC: the short form.
func TestParseCC(t *testing.T) {
	if cc, err := ParseCC("off"); cc != nil || err != nil {
		t.Errorf("off: %v, %v", cc, err)
	}
	cc, err := ParseCC("default:threshold=12,increase=3,timer=7,min=2,flows=sl,victim=hosts,cct=0:0/0:5/2:3,marking_rate=4,packet_size=2,trigger=9")
	if err != nil {
		t.Fatal(err)
	}
	want := CAEntry{Timer: 7, Increase: 3, Min: 2, TriggerThreshold: 9}
	if cc.Threshold != 12 || cc.CA[0] != want || !cc.SLBased() || !cc.VictimHostPorts || cc.MarkingRate != 4 || cc.PacketSize != 2 ||
		!slices.Equal(cc.CCT, []CCTEntry{{0, 0}, {0, 5}, {2, 3}}) || cc.Limit() != 2 || cc.CCT[2].Delay(400) != 300 || cc.CCT[2].Packets() != 0.75 {
		t.Errorf("parsed %+v", cc)
	}
	on, _ := ParseCC("on")
	def, _ := ParseCC("default")
	if on.String() != def.String() || len(on.CCT) != 128 || on.CCT[127] != (CCTEntry{0, 57}) || on.CCT[17] != (CCTEntry{0, 1}) || on.CCT[16] != (CCTEntry{0, 0}) {
		t.Errorf("on = %s; default = %s", on, def)
	}
	lin, _ := ParseCC("timid:cct=linear:4:3")
	if !slices.Equal(lin.CCT, []CCTEntry{{0, 0}, {0, 3}, {0, 6}, {0, 9}}) {
		t.Errorf("linear:4:3 = %v", lin.CCT)
	}
	for _, bad := range []string{"fast", "off:threshold=1", "on:threshold=16", "on:threshold", "on:nope=1", "on:flows=vl",
		"on:cct=4:1", "on:cct=0:16384", "on:cct=linear:129", "on:victim=all", "on:increase=256"} {
		if _, err := ParseCC(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	timid, _ := ParseCC("timid")
	if timid.CCT[127] != (CCTEntry{3, 24}) || timid.CCT[127].Packets() != 3 || timid.CCT[26] != (CCTEntry{3, 1}) || timid.CCT[25] != (CCTEntry{3, 0}) {
		t.Errorf("timid table %v … %v, want LLNL's simula_llnl up to 3:24", timid.CCT[:4], timid.CCT[124:])
	}
}

// TestReadOpenSMConf reads the real opensm.conf OpenSM writes (CC off, its
// defaults) and OpenSM's rewrite of it with CC on (testdata/cc/README.md).
func TestReadOpenSMConf(t *testing.T) {
	read := func(name string) *CongestionControl {
		t.Helper()
		fh, err := os.Open("../testdata/cc/" + name)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		cc, err := ReadOpenSMConf(fh, name)
		if err != nil {
			t.Fatal(err)
		}
		return cc
	}
	def := read("opensm.conf")
	if def.Enable || def.Threshold != 0 || def.SwitchControlMap != 0 || len(def.CCT) != 0 || def.CA[0] != (CAEntry{}) || def.VictimMask != [32]byte{} {
		t.Errorf("OpenSM's template: %+v, want everything off and zero", def)
	}
	cc := read("opensm-cc.conf")
	wantMask := [32]byte{31: 0x1E}
	if !cc.Enable || cc.SwitchControlMap != 0x15 || cc.VictimMask != wantMask || cc.Threshold != 15 || cc.PacketSize != 8 ||
		cc.MarkingRate != 1 || cc.CAControlMap != 1 || cc.CA[0] != (CAEntry{Timer: 20, Increase: 2, TriggerThreshold: 4}) || cc.Limit() != 7 {
		t.Errorf("opensm-cc.conf: %+v", cc)
	}
	var delays []float64
	for _, e := range cc.CCT {
		delays = append(delays, e.Packets())
	}
	if !slices.Equal(delays, []float64{0, 1, 2, 4, 8, 16, 32, 64}) {
		t.Errorf("delays %v", delays)
	}
	for p := range 8 {
		if cc.victim(p) != (p >= 1 && p <= 4) {
			t.Errorf("port %d victim %v", p, cc.victim(p))
		}
	}
}

// TestReadOpenSMConfErrors: unknown CC keys are refused with the known
// ones listed, bad values with the file and line; other keys pass.
func TestReadOpenSMConfErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"# c\nsm_priority 1\ncc_sw_threshold 3\n", "x.conf:3: unknown congestion control key \"cc_sw_threshold\" (known: congestion_control, cc_key"},
		{"congestion_control true\n", "x.conf:1: congestion_control \"true\": want TRUE or FALSE"},
		{"cc_sw_cong_setting_threshold 0x10\n", "x.conf:1: cc_sw_cong_setting_threshold \"0x10\": the threshold has 4 bits"},
		{"cc_cct 0:1,4:1\n", "x.conf:1: cc_cct \"0:1,4:1\": CCT entry \"4:1\""},
		{"cc_ca_cong_setting_ccti_timer 16 3\n", "SL \"16\""},
		{"cc_ca_cong_setting_ccti_increase 0\n", "want an SL and a value"},
		{"cc_sw_cong_setting_victim_mask 0xZZ\n", "want hex digits"},
		{"cc_sw_cong_setting_marking_rate 70000\n", "at most 16 bits"},
		{"congestion_control TRUE\ncc_sw_cong_setting_control_map 0x8\ncc_sw_cong_setting_credit_starvation_threshold 3\n", "credit starvation"},
	} {
		_, err := ReadOpenSMConf(strings.NewReader(c.text), "x.conf")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
	cc, err := ReadOpenSMConf(strings.NewReader("routing_engine ftree\ncongestion_control TRUE\ncc_cct (null)\n\tcc_sw_cong_setting_threshold\t0x0F\n"), "x.conf")
	if err != nil || !cc.Enable || cc.Threshold != 15 {
		t.Errorf("%+v, %v", cc, err)
	}
}

// FuzzReadOpenSMConf: no input panics, and what is read passes check.
func FuzzReadOpenSMConf(f *testing.F) {
	for _, name := range []string{"opensm.conf", "opensm-cc.conf"} {
		if b, err := os.ReadFile("../testdata/cc/" + name); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("congestion_control TRUE\ncc_cct 0:1,1:2\ncc_sw_cong_setting_victim_mask 0x1\n")
	f.Fuzz(func(t *testing.T, s string) {
		cc, err := ReadOpenSMConf(strings.NewReader(s), "fuzz.conf")
		if err == nil && cc.check() != nil {
			t.Errorf("read settings fail their check: %v", cc.check())
		}
	})
}

// FuzzParseCC: no spec panics, and what parses passes check.
func FuzzParseCC(f *testing.F) {
	for _, s := range []string{"off", "on", "default", "aggressive:cct=linear:8:2", "timid:threshold=3,victim=hosts,flows=sl", "on:cct=0:1/3:16383"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cc, err := ParseCC(s)
		if err == nil && cc.check() != nil {
			t.Errorf("%q parses but fails its check: %v", s, cc.check())
		}
	})
}

// TestCCFlowsServedApart: a NIC serves its flows apart, as an HCA its
// queue pairs: with every flow at 2 packet times of delay (CCTI_Min 3),
// H1's messages to H0 and to H2 interleave, A's packets at 0, 3, …, 27
// packet times and B's at 1, 4, …, 28, instead of B waiting for all of A.
func TestCCFlowsServedApart(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	cfg := DefaultConfig()
	ser := serTime(int64(cfg.MTU), cfg.Bandwidth)
	one := (ser + cfg.Latency + cfg.RouterDelay) + (ser + cfg.Latency) + ser
	cfg.CC = ccOn(0, 0, CAEntry{Min: 3}, []CCTEntry{{0, 0}, {0, 0}, {0, 0}, {0, 2}})
	r := mustRun(t, f, cfg, planOf(f, Message{Src: 1, Dst: 0, Bytes: 10 * 4096}, Message{Src: 1, Dst: 2, Bytes: 10 * 4096}))
	if r.MsgFinish[0] != 27*ser+one || r.MsgFinish[1] != 28*ser+one {
		t.Errorf("finished at %v ps, want %d and %d", r.MsgFinish, 27*ser+one, 28*ser+one)
	}
	// Each flow waited 2 packet times before each of its packets but the
	// first (B's first waited for A's on the link, not for a delay).
	if a, b := r.CC.Flows[0].Throttled, r.CC.Flows[1].Throttled; a != 18*ser || b != 18*ser {
		t.Errorf("throttled %d and %d ps, want %d each", a, b, 18*ser)
	}
}

// TestCCConservation: whatever the settings and seed, every marked packet
// makes one BECN and every BECN reaches its source (the ports' marks, the
// flows' marks, the BECNs sent and applied are one number), every flow's
// packets are its messages' packets, and its index stays within the table.
func TestCCConservation(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	for seed := uint64(1); seed <= 3; seed++ {
		p, err := BuildPlan(f, []JobSpec{{Workload: "saturation:msgs=40,stop=0,frac=0.15", Hosts: allHosts(f.NumHosts())}}, seed)
		if err != nil {
			t.Fatal(err)
		}
		var packets int64
		for _, m := range p.Msgs {
			packets += (m.Bytes + 4095) / 4096
		}
		for _, spec := range []string{"default", "aggressive", "timid:flows=sl", "aggressive:victim=hosts,marking_rate=3,cct=linear:8:3"} {
			cfg := DefaultConfig()
			cfg.Seed = seed
			cfg.CC, _ = ParseCC(spec)
			r := mustRun(t, f, cfg, p)
			_, marks := r.CC.MarkedPorts()
			var flowMarks, flowPackets int64
			for _, fl := range r.CC.Flows {
				flowMarks += fl.Marked
				flowPackets += fl.Packets
				if fl.MaxCCTI > cfg.CC.Limit() || fl.MeanCCTI < 0 || fl.MeanCCTI > float64(fl.MaxCCTI)+1e-9 && fl.BECNs > 0 || fl.Throttled < 0 || fl.Throttled > r.End {
					t.Errorf("seed %d, %s: flow %+v out of bounds", seed, spec, fl)
				}
			}
			if marks != flowMarks || marks != r.CC.CNPs || r.CC.CNPs != r.CC.BECNs || flowPackets != packets || r.Packets != packets {
				t.Errorf("seed %d, %s: ports marked %d, flows %d, BECNs %d sent %d applied; packets %d formed, %d delivered, %d in the plan",
					seed, spec, marks, flowMarks, r.CC.CNPs, r.CC.BECNs, flowPackets, r.Packets, packets)
			}
		}
	}
}

package samplingsim

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// CongestionControl is InfiniBand congestion control (IBA annex A10) as
// OpenSM's congestion-control manager sets it up: one
// SwitchCongestionSetting for every switch port, one CACongestionSetting
// (per service level) for every host and one congestion control table
// (CCT). The fields carry OpenSM's names and units (opensm.conf's cc_*
// keys, ReadOpenSMConf); the short form is ParseCC. A nil
// *CongestionControl in Config.CC, or one with Enable false, is no
// congestion control: the run is the same as without it.
type CongestionControl struct {
	// Enable is congestion_control: OpenSM configures nothing without it.
	Enable bool
	// SwitchControlMap says which switch settings are valid
	// (cc_sw_cong_setting_control_map): bit 0 the victim mask, bit 1 the
	// credit mask, bit 2 the threshold and packet size, bit 3 the credit
	// starvation threshold and return delay, bit 4 the marking rate. A
	// setting whose bit is clear stays at the switch's default, 0.
	SwitchControlMap uint32
	// VictimMask has bit p set (bit 0 of the last byte is port 0) for the
	// switch ports that mark packets also when they are the victims of
	// congestion, not its root (cc_sw_cong_setting_victim_mask).
	VictimMask [32]byte
	// CreditMask, CSThreshold and CSReturnDelay are the credit starvation
	// settings (cc_sw_cong_setting_credit_mask, …_credit_starvation_*):
	// read, not simulated (a run with them valid and a non-zero threshold
	// is refused).
	CreditMask    [32]byte
	CSThreshold   uint8
	CSReturnDelay CCTEntry
	// VictimHostPorts makes every switch port to a host mark as a victim
	// too (the short form's victim=hosts; OpenSM sets ports by number).
	VictimHostPorts bool
	// Threshold is how early a port marks, 0 (never) … 15 (soonest)
	// (cc_sw_cong_setting_threshold): a port marks a packet entering its
	// output queue of C packets when the queue then holds at least
	// MarkThreshold(C) = min(C, 2 + ⌊(C−1)·(15−Threshold)/15⌋) packets:
	// 15 marks as soon as one packet waits ahead, 1 only a full queue.
	Threshold uint8
	// PacketSize is the smallest packet a port marks, in credits of 64
	// bytes (cc_sw_cong_setting_packet_size).
	PacketSize uint8
	// MarkingRate is the number of packets a port leaves unmarked between
	// two marked ones (cc_sw_cong_setting_marking_rate; 0 marks every
	// packet that qualifies).
	MarkingRate uint16
	// PortControl bit 0 chooses the hosts' flows: 0 one per queue pair
	// (here: per source and destination host), 1 one per service level
	// (here: per source host, every packet is on SL 0)
	// (cc_ca_cong_setting_port_control).
	PortControl uint16
	// CAControlMap has bit sl set for the service levels whose CA entry is
	// valid (cc_ca_cong_setting_control_map); traffic runs on SL 0.
	CAControlMap uint16
	// CA holds the CA congestion entries by service level
	// (cc_ca_cong_setting_ccti_timer, …_ccti_increase,
	// …_trigger_threshold, …_ccti_min).
	CA [16]CAEntry
	// CCT is the congestion control table (cc_cct); its last index is
	// CCTI_Limit, and an empty table (OpenSM's default) sets the limit to
	// 0: no delay.
	CCT []CCTEntry
}

// CAEntry is the congestion setting of one service level of a host.
type CAEntry struct {
	// Timer is CCTI_Timer in units of 1.024 µs: every Timer units a
	// flow's CCT index drops by one, down to Min (0: never).
	Timer uint16
	// Increase is CCTI_Increase, added to the index on every BECN (up to
	// the table's last index).
	Increase uint8
	// TriggerThreshold is the index at which a host logs an event; it
	// does not change the traffic (counted in CCStats.Triggers).
	TriggerThreshold uint8
	// Min is CCTI_Min, the lowest index (the least delay a flow returns to).
	Min uint8
}

// CCTEntry is one entry of the congestion control table (2 bits of shift,
// 14 of multiplier): the source waits (Tp >> Shift)·Multiplier after a
// packet whose transmission takes Tp, so that the flow runs at
// 2^Shift/(2^Shift + Multiplier) of the line rate.
type CCTEntry struct {
	Shift      uint8
	Multiplier uint16
}

// Delay returns the entry's inter-packet delay after a packet of time tp.
func (e CCTEntry) Delay(tp Time) Time { return (tp >> e.Shift) * Time(e.Multiplier) }

// Packets returns the entry's delay in packet times, Multiplier/2^Shift.
func (e CCTEntry) Packets() float64 { return float64(e.Multiplier) / float64(int(1)<<e.Shift) }

// String returns the entry as opensm.conf writes it, shift:multiplier.
func (e CCTEntry) String() string { return fmt.Sprintf("%d:%d", e.Shift, e.Multiplier) }

// CCTIPeriod is the unit of CAEntry.Timer.
const CCTIPeriod = 1024 * Nanosecond

// CCCreditBytes is the unit of CongestionControl.PacketSize: a credit.
const CCCreditBytes = 64

// CNPBytes is the size of a congestion notification packet (the BECN
// a destination returns for a marked packet): a packet of one credit.
const CNPBytes = 64

// maxCCTEntries is the most entries OpenSM's cc_cct takes (OSM_CCT_ENTRY_MAX).
const maxCCTEntries = 128

// active reports whether cc asks for congestion control at all.
func (cc *CongestionControl) active() bool { return cc != nil && cc.Enable }

// MarkThreshold returns the output queue length (packets, of capacity
// queueCap) from which a port marks, or 0 when ports never mark (threshold
// 0 or not valid in the control map).
func (cc *CongestionControl) MarkThreshold(queueCap int) int {
	if cc.SwitchControlMap&(1<<2) == 0 || cc.Threshold == 0 {
		return 0
	}
	return max(1, min(queueCap, 2+(queueCap-1)*(15-int(cc.Threshold))/15))
}

// victim reports whether port p marks also as a victim.
func (cc *CongestionControl) victim(p int) bool {
	if cc.SwitchControlMap&1 == 0 || p < 0 || p > 255 {
		return false
	}
	return cc.VictimMask[31-p/8]&(1<<(p%8)) != 0
}

// check returns what cannot be simulated or is out of range.
func (cc *CongestionControl) check() error {
	if !cc.active() {
		return nil
	}
	if cc.Threshold > 15 {
		return fmt.Errorf("threshold %d: want 0 … 15", cc.Threshold)
	}
	if cc.CSThreshold > 15 {
		return fmt.Errorf("credit starvation threshold %d: want 0 … 15", cc.CSThreshold)
	}
	if cc.SwitchControlMap&(1<<3) != 0 && cc.CSThreshold != 0 {
		return fmt.Errorf("credit starvation threshold %d: marking on credit starvation is not simulated (clear bit 3 of the control map or set the threshold to 0)", cc.CSThreshold)
	}
	if len(cc.CCT) > maxCCTEntries {
		return fmt.Errorf("congestion control table of %d entries: at most %d", len(cc.CCT), maxCCTEntries)
	}
	for i, e := range cc.CCT {
		if e.Shift > 3 || e.Multiplier >= 1<<14 {
			return fmt.Errorf("congestion control table entry %d (%s): the shift has 2 bits (0 … 3) and the multiplier 14 (0 … 16383)", i, e)
		}
	}
	return nil
}

// Limit returns CCTI_Limit, the table's last index (0 for an empty table).
func (cc *CongestionControl) Limit() int { return max(len(cc.CCT)-1, 0) }

// SLBased reports whether a host keeps one flow per service level (per
// source host here) rather than per queue pair.
func (cc *CongestionControl) SLBased() bool { return cc.PortControl&1 != 0 }

// LinearCCT returns a table of n entries whose entry i delays i·step
// packet times (shift 0).
func LinearCCT(n int, step int) []CCTEntry {
	t := make([]CCTEntry, n)
	for i := range t {
		t[i] = CCTEntry{Multiplier: uint16(min(i*step, 1<<14-1))}
	}
	return t
}

// QuadraticCCT returns a table of n entries with shift sh whose entry i
// has the multiplier ⌊7·i²/d² / q⌋, the form of the tables of LLNL's
// OpenSM congestion-control test harness (ib-cc-tools-llnl, 2012):
// "mellanox_default" is QuadraticCCT(128, 0, 95, 0.218) (up to 57 packet
// times), "simula_llnl" QuadraticCCT(128, 3, 106, 0.408) (up to 3).
func QuadraticCCT(n int, sh uint8, d, q float64) []CCTEntry {
	t := make([]CCTEntry, n)
	for i := range t {
		m := math.Floor(7 * float64(i*i) / (d * d) / q)
		t[i] = CCTEntry{Shift: sh, Multiplier: uint16(min(m, 1<<14-1))}
	}
	return t
}

// ccPresets are the named settings of the short form (ParseCC). OpenSM
// itself has no default (every cc_* value is 0 and the table empty:
// nothing marks, nothing slows). "default" takes the switch and CA
// defaults of Mellanox OFED's congestion-control manager (threshold 15,
// marking rate 10, packet size 512 bytes, per queue pair, increase 1,
// trigger 2, min 0) with LLNL's "mellanox_default" table (up to 57
// packet times) and a timer of 150 (153.6 µs; the manager derives its own
// from the fabric's size, by a formula not published). "aggressive"
// marks every packet that qualifies, raises the index by 4 per BECN and
// has a linear table up to 127 packet times; "timid" marks at threshold 4
// one packet in 64, on LLNL's "simula_llnl" table (up to 3 packet times).
var ccPresets = map[string]CongestionControl{
	"default":    presetCC(15, 10, 8, 150, 1, QuadraticCCT(128, 0, 95, 0.218)),
	"aggressive": presetCC(15, 0, 8, 150, 4, LinearCCT(128, 1)),
	"timid":      presetCC(4, 64, 8, 150, 1, QuadraticCCT(128, 3, 106, 0.408)),
}

// presetCC returns settings with every switch and SL-0 field valid and
// the trigger threshold 2.
func presetCC(threshold uint8, rate uint16, size uint8, timer uint16, inc uint8, cct []CCTEntry) CongestionControl {
	cc := CongestionControl{Enable: true, SwitchControlMap: 1<<0 | 1<<2 | 1<<4, Threshold: threshold,
		PacketSize: size, MarkingRate: rate, CAControlMap: 1, CCT: cct}
	cc.CA[0] = CAEntry{Timer: timer, Increase: inc, TriggerThreshold: 2}
	return cc
}

// CCPresetNames lists the presets of ParseCC.
func CCPresetNames() []string {
	names := make([]string, 0, len(ccPresets))
	for n := range ccPresets {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// ccShortKeys are the keys of the short form, with what they set.
var ccShortKeys = []string{"threshold", "packet_size", "marking_rate", "victim", "flows", "timer", "increase", "min", "trigger", "cct"}

// ParseCC parses the short form of congestion-control settings: "off",
// "on" (= "default"), a preset name (CCPresetNames), optionally followed
// by ":" and comma-separated key=value pairs that change it: threshold
// (0–15), packet_size (credits of 64 bytes), marking_rate, victim (hosts:
// the switch ports to hosts mark as victims too; none), flows (qp or sl),
// timer (units of 1.024 µs), increase, min, trigger, cct (linear:N[:STEP]
// or a list shift:multiplier/shift:multiplier/…). "off" returns nil.
func ParseCC(spec string) (*CongestionControl, error) {
	name, args, _ := strings.Cut(strings.TrimSpace(spec), ":")
	if name == "off" {
		if args != "" {
			return nil, fmt.Errorf("--cc off takes no settings")
		}
		return nil, nil
	}
	if name == "on" {
		name = "default"
	}
	p, ok := ccPresets[name]
	if !ok {
		return nil, fmt.Errorf("unknown congestion control %q (known: off, on, %s, each optionally :key=value,…)", name, strings.Join(CCPresetNames(), ", "))
	}
	cc := p
	cc.CCT = slices.Clone(p.CCT)
	if args == "" {
		return &cc, nil
	}
	for _, kv := range strings.Split(args, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("congestion control %q: %q is not key=value (keys: %s)", spec, kv, strings.Join(ccShortKeys, ", "))
		}
		if err := cc.setShort(k, v); err != nil {
			return nil, fmt.Errorf("congestion control %q: %s: %w", spec, k, err)
		}
	}
	if err := cc.check(); err != nil {
		return nil, fmt.Errorf("congestion control %q: %w", spec, err)
	}
	return &cc, nil
}

// setShort sets key k of the short form to v.
func (cc *CongestionControl) setShort(k, v string) error {
	num := func(bits int) (uint64, error) {
		n, err := strconv.ParseUint(v, 0, bits)
		if err != nil {
			return 0, fmt.Errorf("%q: want a number below %d", v, uint64(1)<<bits)
		}
		return n, nil
	}
	var n uint64
	var err error
	switch k {
	case "threshold":
		n, err = num(4)
		cc.Threshold = uint8(n)
	case "packet_size":
		n, err = num(8)
		cc.PacketSize = uint8(n)
	case "marking_rate":
		n, err = num(16)
		cc.MarkingRate = uint16(n)
	case "timer":
		n, err = num(16)
		cc.CA[0].Timer = uint16(n)
	case "increase":
		n, err = num(8)
		cc.CA[0].Increase = uint8(n)
	case "min":
		n, err = num(8)
		cc.CA[0].Min = uint8(n)
	case "trigger":
		n, err = num(8)
		cc.CA[0].TriggerThreshold = uint8(n)
	case "victim":
		switch v {
		case "hosts":
			cc.VictimMask = [32]byte{}
			cc.VictimHostPorts = true
		case "none":
			cc.VictimMask, cc.VictimHostPorts = [32]byte{}, false
		default:
			return fmt.Errorf("%q: want hosts or none", v)
		}
	case "flows":
		switch v {
		case "qp":
			cc.PortControl &^= 1
		case "sl":
			cc.PortControl |= 1
		default:
			return fmt.Errorf("%q: want qp or sl", v)
		}
	case "cct":
		cc.CCT, err = parseShortCCT(v)
	default:
		return fmt.Errorf("unknown key (known: %s)", strings.Join(ccShortKeys, ", "))
	}
	return err
}

// parseShortCCT parses linear:N[:STEP] or shift:multiplier/shift:multiplier/….
func parseShortCCT(v string) ([]CCTEntry, error) {
	if rest, ok := strings.CutPrefix(v, "linear:"); ok {
		ns, ss, hasStep := strings.Cut(rest, ":")
		n, err := strconv.Atoi(ns)
		if err != nil || n < 1 || n > maxCCTEntries {
			return nil, fmt.Errorf("linear:%s: want 1 … %d entries", rest, maxCCTEntries)
		}
		step := 1
		if hasStep {
			if step, err = strconv.Atoi(ss); err != nil || step < 0 || step > 1<<14-1 {
				return nil, fmt.Errorf("linear:%s: want a step of 0 … 16383 packet times", rest)
			}
		}
		return LinearCCT(n, step), nil
	}
	return parseCCTList(v, "/")
}

// parseCCTList parses entries shift:multiplier separated by sep.
func parseCCTList(v, sep string) ([]CCTEntry, error) {
	var t []CCTEntry
	for _, e := range strings.Split(v, sep) {
		ce, err := parseCCTEntry(e)
		if err != nil {
			return nil, err
		}
		t = append(t, ce)
	}
	return t, nil
}

// parseCCTEntry parses shift:multiplier (numbers as C's strtoul with base
// 0 reads them, as OpenSM does).
func parseCCTEntry(e string) (CCTEntry, error) {
	sh, mu, ok := strings.Cut(strings.TrimSpace(e), ":")
	if !ok {
		return CCTEntry{}, fmt.Errorf("CCT entry %q: want shift:multiplier", e)
	}
	s, err1 := strconv.ParseUint(sh, 0, 8)
	m, err2 := strconv.ParseUint(mu, 0, 16)
	if err1 != nil || err2 != nil || s > 3 || m >= 1<<14 {
		return CCTEntry{}, fmt.Errorf("CCT entry %q: want shift 0 … 3 and multiplier 0 … 16383", e)
	}
	return CCTEntry{Shift: uint8(s), Multiplier: uint16(m)}, nil
}

// String describes the settings in one line, in OpenSM's terms.
func (cc *CongestionControl) String() string {
	if !cc.active() {
		return "off"
	}
	flows := "per queue pair (source, destination)"
	if cc.SLBased() {
		flows = "per service level (source)"
	}
	ca := cc.CA[0]
	var d []string
	for _, e := range cc.CCT {
		d = append(d, strconv.FormatFloat(e.Packets(), 'g', 4, 64))
	}
	tbl := "empty"
	if len(d) > 6 {
		tbl = strings.Join(d[:3], ", ") + ", …, " + d[len(d)-1]
	} else if len(d) > 0 {
		tbl = strings.Join(d, ", ")
	}
	return fmt.Sprintf("threshold %d, marking rate %d, packet size %d credits, CCTI increase %d, timer %d (%s), min %d, limit %d, flows %s, CCT delays %s packet times",
		cc.Threshold, cc.MarkingRate, cc.PacketSize, ca.Increase, ca.Timer, FormatTime(Time(ca.Timer)*CCTIPeriod), ca.Min, cc.Limit(), flows, tbl)
}

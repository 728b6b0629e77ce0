package samplingsim

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// ccConfKeys are the congestion-control keys of opensm.conf, as OpenSM
// 3.3 reads them (osm_subnet.c).
var ccConfKeys = []string{
	"congestion_control", "cc_key", "cc_max_outstanding_mads",
	"cc_sw_cong_setting_control_map", "cc_sw_cong_setting_victim_mask", "cc_sw_cong_setting_credit_mask",
	"cc_sw_cong_setting_threshold", "cc_sw_cong_setting_packet_size",
	"cc_sw_cong_setting_credit_starvation_threshold", "cc_sw_cong_setting_credit_starvation_return_delay",
	"cc_sw_cong_setting_marking_rate",
	"cc_ca_cong_setting_port_control", "cc_ca_cong_setting_control_map",
	"cc_ca_cong_setting_ccti_timer", "cc_ca_cong_setting_ccti_increase",
	"cc_ca_cong_setting_trigger_threshold", "cc_ca_cong_setting_ccti_min",
	"cc_cct",
}

// CCConfKeys returns the congestion-control keys ReadOpenSMConf knows.
func CCConfKeys() []string { return slices.Clone(ccConfKeys) }

// ReadOpenSMConf reads the congestion-control keys of an opensm.conf
// (OpenSM's "key value" lines, # comments) from r, named name in errors.
// Other OpenSM keys are ignored; a key that starts with "cc_" or
// "congestion_control" and is not one of CCConfKeys is refused with the
// known ones listed, as is a value OpenSM would not take. The result has
// Enable false unless the file says "congestion_control TRUE".
func ReadOpenSMConf(r io.Reader, name string) (*CongestionControl, error) {
	cc := &CongestionControl{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		key, val, _ := strings.Cut(text, " ")
		if k, v, ok := strings.Cut(text, "\t"); ok && len(k) < len(key) {
			key, val = k, v
		}
		val = strings.TrimSpace(val)
		if !strings.HasPrefix(key, "cc_") && !strings.HasPrefix(key, "congestion_control") {
			continue // OpenSM's other settings
		}
		if !slices.Contains(ccConfKeys, key) {
			return nil, fmt.Errorf("%s:%d: unknown congestion control key %q (known: %s)", name, line, key, strings.Join(ccConfKeys, ", "))
		}
		if err := cc.setConf(key, val); err != nil {
			return nil, fmt.Errorf("%s:%d: %s %q: %w", name, line, key, val, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := cc.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return cc, nil
}

// setConf sets opensm.conf key k to v.
func (cc *CongestionControl) setConf(k, v string) error {
	num := func(s string, bits int) (uint64, error) {
		n, err := strconv.ParseUint(s, 0, bits)
		if err != nil {
			return 0, fmt.Errorf("want a number of at most %d bits (decimal, 0x hex or 0 octal)", bits)
		}
		return n, nil
	}
	var err error
	var n uint64
	switch k {
	case "congestion_control":
		switch v {
		case "TRUE":
			cc.Enable = true
		case "FALSE":
			cc.Enable = false
		default:
			return fmt.Errorf("want TRUE or FALSE (OpenSM takes anything but TRUE for FALSE)")
		}
	case "cc_key":
		_, err = num(v, 64)
	case "cc_max_outstanding_mads":
		_, err = num(v, 32)
	case "cc_sw_cong_setting_control_map":
		n, err = num(v, 32)
		cc.SwitchControlMap = uint32(n)
	case "cc_sw_cong_setting_victim_mask":
		cc.VictimMask, err = parsePortMask(v)
	case "cc_sw_cong_setting_credit_mask":
		cc.CreditMask, err = parsePortMask(v)
	case "cc_sw_cong_setting_threshold":
		n, err = num(v, 8)
		cc.Threshold = uint8(n)
		if err == nil && n > 15 {
			err = fmt.Errorf("the threshold has 4 bits: 0 … 15")
		}
	case "cc_sw_cong_setting_packet_size":
		n, err = num(v, 8)
		cc.PacketSize = uint8(n)
	case "cc_sw_cong_setting_credit_starvation_threshold":
		n, err = num(v, 8)
		cc.CSThreshold = uint8(n)
	case "cc_sw_cong_setting_credit_starvation_return_delay":
		cc.CSReturnDelay, err = parseCCTEntry(v)
	case "cc_sw_cong_setting_marking_rate":
		n, err = num(v, 16)
		cc.MarkingRate = uint16(n)
	case "cc_ca_cong_setting_port_control":
		n, err = num(v, 16)
		cc.PortControl = uint16(n)
	case "cc_ca_cong_setting_control_map":
		n, err = num(v, 16)
		cc.CAControlMap = uint16(n)
	case "cc_cct":
		cc.CCT = nil
		if v != "(null)" && v != "" {
			cc.CCT, err = parseCCTList(v, ",")
			if err == nil && len(cc.CCT) > maxCCTEntries {
				err = fmt.Errorf("%d entries: OpenSM takes at most %d", len(cc.CCT), maxCCTEntries)
			}
		}
	default: // the per-SL entries: "SL value"
		return cc.setCAEntry(k, v)
	}
	return err
}

// setCAEntry sets a per-SL key of the CA congestion setting: v is "SL value".
func (cc *CongestionControl) setCAEntry(k, v string) error {
	f := strings.Fields(v)
	if len(f) != 2 {
		return fmt.Errorf("want an SL and a value")
	}
	sl, err := strconv.ParseUint(f[0], 0, 8)
	if err != nil || sl > 15 {
		return fmt.Errorf("SL %q: want 0 … 15", f[0])
	}
	bits := 8
	if k == "cc_ca_cong_setting_ccti_timer" {
		bits = 16
	}
	n, err := strconv.ParseUint(f[1], 0, bits)
	if err != nil {
		return fmt.Errorf("value %q: want a number of at most %d bits", f[1], bits)
	}
	e := &cc.CA[sl]
	switch k {
	case "cc_ca_cong_setting_ccti_timer":
		e.Timer = uint16(n)
	case "cc_ca_cong_setting_ccti_increase":
		e.Increase = uint8(n)
	case "cc_ca_cong_setting_trigger_threshold":
		e.TriggerThreshold = uint8(n)
	case "cc_ca_cong_setting_ccti_min":
		e.Min = uint8(n)
	}
	return nil
}

// parsePortMask parses a 256-bit hex mask as OpenSM does: an optional 0x,
// up to 64 hex digits, right-aligned (the last digit holds ports 0–3).
func parsePortMask(v string) ([32]byte, error) {
	var m [32]byte
	d := strings.TrimPrefix(strings.TrimPrefix(v, "0x"), "0X")
	if d == "" || len(d) > 64 {
		return m, fmt.Errorf("want 1 … 64 hex digits")
	}
	if len(d)%2 == 1 {
		d = "0" + d
	}
	b, err := hex.DecodeString(d)
	if err != nil {
		return m, fmt.Errorf("want hex digits")
	}
	copy(m[32-len(b):], b)
	return m, nil
}

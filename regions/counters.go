package regions

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"orcs/input"
	"orcs/lft"
)

// PortCounters are the counters of one port read from perfquery output.
type PortCounters struct {
	// XmitData is PortXmitData (in 4-byte words); Ext says it came from
	// the 64-bit extended counters (perfquery -x), else from the 32-bit
	// PortCounters, which saturate at 2³²−1.
	XmitData uint64
	Ext      bool
	// XmitWait is PortXmitWait (ticks with data to send and no credit), a
	// 32-bit saturating counter of PortCounters; HasWait says it was read.
	XmitWait uint64
	HasWait  bool
	// Line is where the port's block starts (for errors).
	Line int
}

// PortKey names a port: the LID that perfquery queried and the port number.
type PortKey struct {
	LID  uint16
	Port int32
}

// Snapshot is one reading of the counters of a fabric's ports.
type Snapshot struct {
	// File names the input.
	File string
	// Ports holds every port read.
	Ports map[PortKey]*PortCounters
}

// saturated32 is where a 32-bit PortCounters counter stops.
const saturated32 = math.MaxUint32

// ReadPerfquery reads perfquery output: any concatenation of its blocks of
// PortCounters ("# Port counters: Lid L port P …", as perfquery [-l] LID
// PORT prints them) and PortCountersExtended ("# Port extended counters:
// Lid L port P …", perfquery -x), each followed by "Name:....value" lines.
// PortXmitWait comes from the basic block; PortXmitData from the
// extended block when there is one (64 bits), else from the basic one.
// Other counters are skipped; a malformed line, a counter before any
// header, or a port given twice in the same kind of block is an error
// naming the file and line.
func ReadPerfquery(r io.Reader, file string) (*Snapshot, error) {
	snap := &Snapshot{File: file, Ports: map[PortKey]*PortCounters{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var cur *PortCounters
	ext := false
	seen := map[PortKey][2]bool{}
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		if strings.HasPrefix(text, "#") {
			key, isExt, ok, err := perfHeader(text)
			if err != nil {
				return nil, input.Errorf(file, line, "%v", err)
			}
			if !ok {
				cur = nil // another comment
				continue
			}
			kind := 0
			if isExt {
				kind = 1
			}
			s := seen[key]
			if s[kind] {
				return nil, input.Errorf(file, line, "lid %d port %d read twice", key.LID, key.Port)
			}
			s[kind] = true
			seen[key] = s
			cur = snap.Ports[key]
			if cur == nil {
				cur = &PortCounters{Line: line}
				snap.Ports[key] = cur
			}
			ext = isExt
			continue
		}
		if strings.HasPrefix(text, "ibwarn:") || strings.HasPrefix(text, "ibpanic:") {
			continue // perfquery's diagnostics on standard error, if captured
		}
		name, val, ok := strings.Cut(text, ":")
		if !ok {
			return nil, input.Errorf(file, line, "want a counter line Name:....value, got %q", short(text))
		}
		val = strings.TrimLeft(val, ".")
		if cur == nil {
			return nil, input.Errorf(file, line, "counter %q before any '# Port counters' header", short(name))
		}
		if name != "PortXmitData" && name != "PortXmitWait" {
			continue
		}
		v, err := strconv.ParseUint(val, 0, 64)
		if err != nil {
			return nil, input.Errorf(file, line, "%s: bad value %q", name, short(val))
		}
		switch {
		case name == "PortXmitWait" && !ext:
			cur.XmitWait, cur.HasWait = v, true
		case name == "PortXmitData" && ext:
			cur.XmitData, cur.Ext = v, true
		case name == "PortXmitData" && !cur.Ext:
			cur.XmitData = v
		}
		if !ext && v > saturated32 {
			return nil, input.Errorf(file, line, "%s %d does not fit the 32-bit PortCounters", name, v)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, readErr(file, line+1, err)
	}
	if len(snap.Ports) == 0 {
		return nil, input.Errorf(file, 0, "no perfquery port counters found")
	}
	return snap, nil
}

func short(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// perfHeader parses "# Port counters: Lid L port P …" and "# Port extended
// counters: Lid L port P …". ok is false for other comments.
func perfHeader(text string) (key PortKey, ext, ok bool, err error) {
	rest := strings.TrimSpace(strings.TrimPrefix(text, "#"))
	switch {
	case strings.HasPrefix(rest, "Port counters:"):
		rest = strings.TrimPrefix(rest, "Port counters:")
	case strings.HasPrefix(rest, "Port extended counters:"):
		rest, ext = strings.TrimPrefix(rest, "Port extended counters:"), true
	default:
		return key, false, false, nil
	}
	f := strings.Fields(rest)
	if len(f) < 4 || f[0] != "Lid" || f[2] != "port" {
		return key, false, false, fmt.Errorf("want 'Lid L port P' in the header, got %q", short(text))
	}
	lid, e1 := strconv.ParseUint(f[1], 0, 16)
	port, e2 := strconv.ParseUint(f[3], 0, 8)
	if e1 != nil || e2 != nil {
		return key, false, false, fmt.Errorf("bad lid or port in %q", short(text))
	}
	return PortKey{LID: uint16(lid), Port: int32(port)}, ext, true, nil
}

// CounterDelta is how much a counter advanced between two snapshots:
// later − earlier, or, when the later value is smaller, the later value
// (the counters were reset, by perfquery -R or ibclearcounters, and
// counted from 0 since). The 64-bit extended counters cannot wrap within
// any monitoring interval, and the 32-bit PortCounters do not wrap but
// stop at 2³²−1 (IBA 16.1.3.5): a later value at that bound is a lower
// bound, reported by saturated.
func CounterDelta(earlier, later uint64, bits64 bool) (delta uint64, reset, saturated bool) {
	if later < earlier {
		delta, reset = later, true
	} else {
		delta = later - earlier
	}
	return delta, reset, !bits64 && later == saturated32
}

// CounterWindows turns snapshots (at least two) into windows of stall
// values on the cables of f: for window i (between snapshot i−1 and i, at
// time i) and every switch or CA port read in both, the cable leaving that
// port gets 100·ΔPortXmitWait / (ΔPortXmitData + ΔPortXmitWait) (0 when both
// are 0). A port's LID is its switch's (port 0) or its CA port's, as
// ibnetdiscover names them in --topo; ports whose LID the fabric does not
// know are an error, cables read in no snapshot stay 0. Resets and
// saturated counters are reported in warnings.
func CounterWindows(f *lft.Fabric, snaps []*Snapshot) (Series, []string, error) {
	if len(snaps) < 2 {
		return Series{}, nil, fmt.Errorf("%d counter snapshots: want two or more (the values are differences)", len(snaps))
	}
	// LID → node.
	byLID := map[uint16]int32{}
	for v, n := range f.Nodes {
		if n.LID == 0 {
			continue
		}
		for k := 0; k < 1<<n.LMC; k++ {
			byLID[n.LID+uint16(k)] = int32(v)
		}
	}
	if len(byLID) == 0 {
		return Series{}, nil, fmt.Errorf("the fabric has no LIDs: give it with --topo as ibnetdiscover output (or a subnet list) of the fabric the counters were read on")
	}
	linkOf := func(s *Snapshot, k PortKey, pc *PortCounters) (int32, error) {
		v, ok := byLID[k.LID]
		if !ok {
			return -1, input.Errorf(s.File, pc.Line, "lid %d is no port of the fabric", k.LID)
		}
		for _, l := range f.OutLinks(v) {
			if f.Links[l].FromPort == k.Port {
				return l, nil
			}
		}
		return -1, nil // port 0 or an unconnected port
	}
	var warns []string
	out := Series{Source: SourceCounters}
	for i := 1; i < len(snaps); i++ {
		prev, cur := snaps[i-1], snaps[i]
		var resets, sats []string
		vals := make([]float64, len(f.Links))
		for k, pc := range cur.Ports {
			l, err := linkOf(cur, k, pc)
			if err != nil {
				return Series{}, nil, err
			}
			pp := prev.Ports[k]
			if l < 0 || pp == nil || !pc.HasWait || !pp.HasWait {
				continue
			}
			dw, rw, sw := CounterDelta(pp.XmitWait, pc.XmitWait, false)
			ext := pc.Ext && pp.Ext
			dd, rd, sd := CounterDelta(pp.XmitData, pc.XmitData, ext)
			if rw || rd {
				resets = append(resets, fmt.Sprintf("lid %d port %d", k.LID, k.Port))
			}
			if sw || sd {
				sats = append(sats, fmt.Sprintf("lid %d port %d", k.LID, k.Port))
			}
			if dw+dd > 0 {
				vals[l] = 100 * float64(dw) / (float64(dd) + float64(dw))
			}
		}
		if len(resets) > 0 {
			slices.Sort(resets)
			warns = append(warns, fmt.Sprintf("%s: the counters of %d ports were reset since %s, counted from 0: %s",
				cur.File, len(resets), prev.File, abbreviate(resets, 4)))
		}
		if len(sats) > 0 {
			slices.Sort(sats)
			warns = append(warns, fmt.Sprintf("%s: a 32-bit counter of %d ports saturated, their stall is a bound only (clear the counters more often, or read PortXmitData with perfquery -x): %s",
				cur.File, len(sats), abbreviate(sats, 4)))
		}
		out.Times = append(out.Times, float64(i))
		out.Values = append(out.Values, vals)
	}
	return out, warns, nil
}

// perfqueryPortBytes bounds what perfquery prints for one port: a header
// and about 20 counter lines of its basic and extended blocks.
const perfqueryPortBytes = 4 << 10

// ReadPerfqueryFile reads one snapshot file (- for standard input, gzip
// accepted) of a fabric of ports ports, whose perfquery output it bounds
// (ports < 1: no bound but input's).
func ReadPerfqueryFile(path string, ports int) (*Snapshot, error) {
	lim := input.Limit{}
	if ports > 0 {
		lim = input.Limit{Bytes: 1<<20 + int64(ports)*perfqueryPortBytes,
			Why: fmt.Sprintf("perfquery output of a fabric of %d ports (%d KiB per port)", ports, perfqueryPortBytes>>10)}
	}
	r, name, done, err := openFile(path, lim)
	if err != nil {
		return nil, err
	}
	defer done()
	return ReadPerfquery(r, name)
}

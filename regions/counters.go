package regions

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"orcs/infile"
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
	// HasData says PortXmitData was read (from either block).
	HasData bool
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
				return nil, infile.Errorf(file, line, "%v", err)
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
				return nil, infile.Errorf(file, line, "lid %d port %d read twice", key.LID, key.Port)
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
			return nil, infile.Errorf(file, line, "want a counter line Name:....value, got %q", short(text))
		}
		val = strings.TrimLeft(val, ".")
		if cur == nil {
			return nil, infile.Errorf(file, line, "counter %q before any '# Port counters' header", short(name))
		}
		if name != "PortXmitData" && name != "PortXmitWait" {
			continue
		}
		v, err := strconv.ParseUint(val, 0, 64)
		if err != nil {
			return nil, infile.Errorf(file, line, "%s: bad value %q", name, short(val))
		}
		switch {
		case name == "PortXmitWait" && !ext:
			cur.XmitWait, cur.HasWait = v, true
		case name == "PortXmitData" && ext:
			cur.XmitData, cur.Ext, cur.HasData = v, true, true
		case name == "PortXmitData" && !cur.Ext:
			cur.XmitData, cur.HasData = v, true
		}
		if !ext && v > saturated32 {
			return nil, infile.Errorf(file, line, "%s %d does not fit the 32-bit PortCounters", name, v)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, readErr(file, line+1, err)
	}
	if len(snap.Ports) == 0 {
		return nil, infile.Errorf(file, 0, "no perfquery port counters found")
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
// ibnetdiscover names them in --topo. Resets and saturated counters are
// reported in warnings.
//
// The snapshots must be complete readings of this fabric (see
// checkSnapshots): records of ports the fabric does not have (snapshots of
// another fabric) and cabled ports read in some snapshots but not in others
// (a truncated snapshot) are errors that count both; cabled ports read in no
// snapshot (a fabric read in part, say the switches only) are a warning with
// their count, and their cables read 0.
func CounterWindows(f *lft.Fabric, snaps []*Snapshot) (Series, []string, error) {
	if len(snaps) < 2 {
		return Series{}, nil, fmt.Errorf("%d counter snapshots: want two or more (the values are differences)", len(snaps))
	}
	pm, err := newPortMap(f)
	if err != nil {
		return Series{}, nil, err
	}
	warns, err := pm.checkSnapshots(snaps)
	if err != nil {
		return Series{}, nil, err
	}
	out := Series{Source: SourceCounters}
	for i := 1; i < len(snaps); i++ {
		prev, cur := snaps[i-1], snaps[i]
		var resets, sats []string
		vals := make([]float64, len(f.Links))
		for k, pc := range cur.Ports {
			l, _ := pm.link(k)
			pp := prev.Ports[k]
			if l < 0 || pp == nil || !pc.complete() || !pp.complete() {
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

// complete says both counters of the stall were read.
func (pc *PortCounters) complete() bool { return pc.HasWait && pc.HasData }

// portMap names the ports of a fabric by the LIDs perfquery queries.
type portMap struct {
	f     *lft.Fabric
	byLID map[uint16]int32
	// byGUID lists the CA ports (host nodes) of every CA by node GUID, so
	// that a port queried through the LID of another port of its CA is
	// found.
	byGUID map[uint64][]int32
	// cabled lists the links that leave a node with a LID: the ports whose
	// counters a complete snapshot holds.
	cabled []int32
}

func newPortMap(f *lft.Fabric) (*portMap, error) {
	pm := &portMap{f: f, byLID: map[uint16]int32{}, byGUID: map[uint64][]int32{}}
	for v, n := range f.Nodes {
		if n.LID == 0 {
			continue
		}
		for k := 0; k < 1<<n.LMC; k++ {
			pm.byLID[n.LID+uint16(k)] = int32(v)
		}
		if n.Kind == lft.Host && n.GUID != 0 {
			pm.byGUID[n.GUID] = append(pm.byGUID[n.GUID], int32(v))
		}
	}
	if len(pm.byLID) == 0 {
		return nil, fmt.Errorf("the fabric has no LIDs: give it with --topo as ibnetdiscover output (or a subnet list) of the fabric the counters were read on")
	}
	for l, link := range f.Links {
		if f.Nodes[link.From].LID != 0 {
			pm.cabled = append(pm.cabled, int32(l))
		}
	}
	return pm, nil
}

// link returns the link leaving the port k names, or −1 for port 0 or an
// uncabled switch port; known is false for a port the fabric does not
// have: an unknown LID, or a CA port other than the CA's ports.
func (pm *portMap) link(k PortKey) (l int32, known bool) {
	v, ok := pm.byLID[k.LID]
	if !ok {
		return -1, false
	}
	f := pm.f
	n := f.Nodes[v]
	if n.Kind == lft.Host && n.Port != 0 && n.Port != k.Port {
		// another port of the same CA, queried through this port's LID
		v = -1
		for _, u := range pm.byGUID[n.GUID] {
			if f.Nodes[u].Port == k.Port {
				v = u
			}
		}
		if v < 0 {
			return -1, false
		}
	}
	for _, l := range f.OutLinks(v) {
		if f.Links[l].FromPort == k.Port {
			return l, true
		}
	}
	return -1, n.Kind != lft.Host
}

// checkSnapshots checks that the snapshots read this fabric whole: every
// record names a port of the fabric (else the snapshots are of another
// fabric: an error counting such records, naming the first), and every
// cabled port read (both PortXmitWait and PortXmitData) in one snapshot is
// read in all (else a snapshot was cut short: an error counting the
// missing ports per snapshot). Cabled ports read in no snapshot make a
// warning with their count.
func (pm *portMap) checkSnapshots(snaps []*Snapshot) ([]string, error) {
	f := pm.f
	readIn := make([]int, len(f.Links)) // snapshots that read the link's port
	read := make([][]bool, len(snaps))  // per snapshot, the links read
	for i, s := range snaps {
		read[i] = make([]bool, len(f.Links))
		var unknown []PortKey
		for k, pc := range s.Ports {
			l, known := pm.link(k)
			if !known {
				unknown = append(unknown, k)
				continue
			}
			if l >= 0 && pc.complete() && !read[i][l] {
				read[i][l] = true
				readIn[l]++
			}
		}
		if len(unknown) > 0 {
			slices.SortFunc(unknown, func(a, b PortKey) int { return s.Ports[a].Line - s.Ports[b].Line })
			first := s.Ports[unknown[0]]
			return nil, infile.Errorf(s.File, first.Line, "%d of its %d port records name no port of the fabric (first: lid %d port %d): are the snapshots of another fabric than --topo?",
				len(unknown), len(s.Ports), unknown[0].LID, unknown[0].Port)
		}
	}
	var never []int32
	partial := false
	for _, l := range pm.cabled {
		switch readIn[l] {
		case 0:
			never = append(never, l)
		case len(snaps):
		default:
			partial = true
		}
	}
	if partial {
		var errs []string
		for i, s := range snaps {
			var keys []PortKey
			for _, l := range pm.cabled {
				if readIn[l] > 0 && !read[i][l] {
					keys = append(keys, pm.key(l))
				}
			}
			slices.SortFunc(keys, func(a, b PortKey) int {
				if a.LID != b.LID {
					return int(a.LID) - int(b.LID)
				}
				return int(a.Port - b.Port)
			})
			miss := make([]string, len(keys))
			for j, k := range keys {
				miss[j] = fmt.Sprintf("lid %d port %d", k.LID, k.Port)
			}
			if len(miss) > 0 {
				errs = append(errs, fmt.Sprintf("%s: %d of the %d cabled ports read in the other snapshots are missing or lack PortXmitWait or PortXmitData (%s)",
					s.File, len(miss), len(pm.cabled)-len(never), listSome(miss, 4)))
			}
		}
		return nil, fmt.Errorf("snapshots cut short (their stall would read 0 on the missing ports): %s", strings.Join(errs, "; "))
	}
	if len(never) > 0 {
		names := make([]string, len(never))
		for i, l := range never {
			names[i] = f.Cable(l)
		}
		return []string{fmt.Sprintf("%d of the fabric's %d cabled ports were read in no snapshot; their cables read 0 %%: %s",
			len(never), len(pm.cabled), listSome(names, 4))}, nil
	}
	return nil, nil
}

// listSome joins the first n items with commas and counts the rest.
func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s, … (+%d)", strings.Join(items[:n], ", "), len(items)-n)
}

// key returns the port perfquery names for link l's sending port: its
// node's LID and the port.
func (pm *portMap) key(l int32) PortKey {
	link := pm.f.Links[l]
	return PortKey{LID: pm.f.Nodes[link.From].LID, Port: link.FromPort}
}

// ReadPerfqueryFile reads one snapshot file (- for standard input, gzip
// accepted) of a fabric of ports ports, whose perfquery output it bounds
// (ports < 1: no bound but input's).
func ReadPerfqueryFile(path string, ports int) (*Snapshot, error) {
	lim := infile.Limit{}
	if ports > 0 {
		lim = infile.Limit{Bytes: 1<<20 + int64(ports)*perfqueryPortBytes,
			Why: fmt.Sprintf("perfquery output of a fabric of %d ports (%d KiB per port)", ports, perfqueryPortBytes>>10)}
	}
	r, name, done, err := openFile(path, lim)
	if err != nil {
		return nil, err
	}
	defer done()
	return ReadPerfquery(r, name)
}

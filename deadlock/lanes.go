package deadlock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"orcs/ib"
	"orcs/lft"
)

// noVL marks an SL2VL entry that no table gave.
const noVL = 0xff

// Lanes says on which virtual lane (VL) every hop of every route travels:
// the service level (SL) of each path, and the SL-to-VL tables of the
// nodes. A packet of SL s that enters node v on port i and leaves on port
// o travels on VL SL2VL_v[i][o][s]; a host's first hop uses the table of
// its CA port (in 0, out 0). A node without a table, or a table without
// the entry, keeps VL = SL (the identity, as ibdmchk assumes without an
// SL2VL file). A nil *Lanes, or NewLanes without further calls, puts every
// path on SL 0 and so every hop on VL 0.
type Lanes struct {
	hosts int
	sl    []uint8 // sl[src*hosts+dst]; nil: SL 0 for every path
	ports []int32 // per node: port slots (highest port number used + 1); 1 for hosts
	base  []int32 // per node: offset of its table in vl, or -1
	vl    []uint8 // tables: base + (in*ports+out)*NumSLs + sl; noVL where unset
	// caTables says some host (CA port) has a table: then every host
	// must have one.
	caTables bool

	// SLSource and VLSource say where the SLs and the SL2VL tables came
	// from, for reports ("" = not given).
	SLSource, VLSource string
	// Notes are findings about the lanes worth reporting, such as host
	// pairs without a PathRecord.
	Notes []string
}

// NumSLs is the number of service levels and of entries of an SL2VL table.
const NumSLs = ib.NumSLs

// NewLanes returns lanes for f that put every path on SL 0 and every hop
// on VL = SL, until SetSL and SetVL say otherwise.
func NewLanes(f *lft.Fabric) *Lanes {
	l := &Lanes{hosts: f.NumHosts(), ports: make([]int32, len(f.Nodes)), base: make([]int32, len(f.Nodes))}
	for _, k := range f.Links {
		l.ports[k.From] = max(l.ports[k.From], k.FromPort+1)
		l.ports[k.To] = max(l.ports[k.To], k.ToPort+1)
	}
	for v := range l.base {
		l.base[v] = -1
		if f.HostIndex(int32(v)) >= 0 {
			l.ports[v] = 1 // a CA port has one table: in 0, out 0
		}
	}
	return l
}

// SetSL sets the service level of the path from host src to host dst.
func (l *Lanes) SetSL(src, dst int32, sl uint8) {
	if l.sl == nil {
		l.sl = make([]uint8, l.hosts*l.hosts)
	}
	l.sl[int(src)*l.hosts+int(dst)] = sl & (NumSLs - 1)
}

// SL returns the service level of the path from host src to host dst.
func (l *Lanes) SL(src, dst int32) uint8 {
	if l == nil || l.sl == nil {
		return 0
	}
	return l.sl[int(src)*l.hosts+int(dst)]
}

// SetVL sets node v's SL2VL entry: packets of service level sl that enter
// on port in and leave on port out travel on VL vl. For a host (a CA port)
// in and out are ignored: its one table is used on its first hop. Entries
// of ports that no link uses are ignored (they carry no route).
func (l *Lanes) SetVL(v int32, in, out int, sl, vl uint8) {
	p := int(l.ports[v])
	if l.ports[v] == 1 {
		in, out = 0, 0
		l.caTables = true
	}
	if in >= p || out >= p || in < 0 || out < 0 {
		return
	}
	if l.base[v] < 0 {
		l.base[v] = int32(len(l.vl))
		for range p * p * NumSLs {
			l.vl = append(l.vl, noVL)
		}
	}
	l.vl[l.row(v, int32(in))+l.col(v, int32(out))+int32(sl&(NumSLs-1))] = vl & (NumSLs - 1)
}

// row is the offset in l.vl of the SL2VL entries of node v for packets
// that enter on port in (a host's one table for any port), or -1 when v
// has no table. Its entry for output port out and SL sl is at
// row + l.col(v, out) + sl.
func (l *Lanes) row(v, in int32) int32 {
	b := l.base[v]
	if b < 0 {
		return -1
	}
	if l.ports[v] == 1 {
		in = 0
	}
	return b + in*l.ports[v]*NumSLs
}

// col is the offset of output port out within a row of node v's table.
func (l *Lanes) col(v, out int32) int32 {
	if l.ports[v] == 1 {
		return 0
	}
	return out * NumSLs
}

// hasTables reports whether some node has an SL2VL table.
func (l *Lanes) hasTables() bool { return l != nil && len(l.vl) > 0 }

// Files names the files with the lanes of a fabric read from InfiniBand
// dumps. An empty name is looked for beside LFTs under its usual names;
// "none" turns that off.
type Files struct {
	// SL is saquery PathRecord output (usual name saquery-pr.txt).
	SL string
	// SL2VL is opensm-sl2vl.dump or smpquery sl2vl output (usual names
	// opensm-sl2vl.dump, smpquery-sl2vl.txt).
	SL2VL string
	// LFTs is the forwarding-table file the fabric was read from, if any.
	LFTs string
	// LeftOut lists the ports (by base LID and port GUID) that the routed
	// fabric holds but f leaves out, such as SHARP aggregation nodes kept
	// out of a simulation's hosts: their SL records and SL2VL tables are
	// skipped instead of refused as another fabric's.
	LeftOut []LeftOutPort
}

// LeftOutPort is a port of the routed fabric that the checked fabric
// leaves out: its LIDs (base, 2^LMC of them) and its port GUID.
type LeftOutPort struct {
	LID      uint16
	LMC      uint8
	PortGUID uint64
}

// Usual file names, looked for beside the forwarding tables.
var (
	SLNames    = []string{"saquery-pr.txt", "dfsssp-sl.txt.gz", "dfsssp-sl.txt"}
	SL2VLNames = []string{"opensm-sl2vl.dump", "smpquery-sl2vl.txt"}
)

// errNoPorts is returned when lanes are given for a fabric without LIDs.
var errNoPorts = errors.New("SL and SL2VL files name ports by LID and GUID: give the fabric as InfiniBand files (--topo, --lfts)")

// Load reads the lanes of f from the files that fs names or that lie
// beside fs.LFTs under their usual names. Without any file it returns
// NewLanes(f): one lane.
func Load(f *lft.Fabric, fs Files) (*Lanes, error) {
	find := func(given string, names []string) (string, string) {
		switch {
		case given == "none":
			return "", ""
		case given != "":
			return given, given
		case fs.LFTs == "" || fs.LFTs == "-":
			return "", ""
		}
		dir := filepath.Dir(fs.LFTs)
		for _, n := range names {
			p := filepath.Join(dir, n)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return p, p + " (found beside the tables)"
			}
		}
		return "", ""
	}
	slPath, slSource := find(fs.SL, SLNames)
	vlPath, vlSource := find(fs.SL2VL, SL2VLNames)
	l := NewLanes(f)
	if slPath == "" && vlPath == "" {
		return l, nil
	}
	own, err := portOwners(f)
	if err != nil {
		return nil, err
	}
	own.markLeftOut(fs.LeftOut)
	if slPath != "" {
		if err := l.readSLs(f, own, slPath); err != nil {
			return nil, err
		}
		l.SLSource = slSource
	}
	if vlPath != "" {
		ports := make([]int, len(f.Nodes))
		for _, k := range f.Links {
			ports[k.From]++
		}
		t, err := ib.ReadSL2VLFile(vlPath, ib.SL2VLLimit(ports))
		if err != nil {
			return nil, err
		}
		if err := l.addTables(f, own, t); err != nil {
			return nil, err
		}
		l.VLSource = vlSource
	}
	return l, nil
}

// owners finds the fabric's nodes by LID and port GUID.
type owners struct {
	byLID  []int32 // LID → node id, -1 when no port has it
	byGUID map[uint64]int32
	// leftLID and leftGUID mark the ports of Files.LeftOut.
	leftLID  []bool
	leftGUID map[uint64]bool
}

// leftOut reports whether the port of LID lid or port GUID guid (0:
// unknown) is one of Files.LeftOut.
func (o *owners) leftOut(lid uint16, guid uint64) bool {
	if guid != 0 && o.leftGUID[guid] {
		return true
	}
	return o.leftLID != nil && o.leftLID[lid]
}

// markLeftOut records the ports the fabric leaves out.
func (o *owners) markLeftOut(ports []LeftOutPort) {
	if len(ports) == 0 {
		return
	}
	o.leftLID, o.leftGUID = make([]bool, 1<<16), map[uint64]bool{}
	for _, p := range ports {
		for k := 0; k < 1<<p.LMC && int(p.LID)+k < len(o.leftLID); k++ {
			if p.LID != 0 {
				o.leftLID[int(p.LID)+k] = true
			}
		}
		if p.PortGUID != 0 {
			o.leftGUID[p.PortGUID] = true
		}
	}
}

func portOwners(f *lft.Fabric) (*owners, error) {
	o := &owners{byLID: make([]int32, 1<<16), byGUID: map[uint64]int32{}}
	for i := range o.byLID {
		o.byLID[i] = -1
	}
	any := false
	for v, n := range f.Nodes {
		if n.LID == 0 {
			continue
		}
		any = true
		for k := 0; k < 1<<n.LMC && int(n.LID)+k < len(o.byLID); k++ {
			o.byLID[int(n.LID)+k] = int32(v)
		}
		if n.PortGUID != 0 {
			o.byGUID[n.PortGUID] = int32(v)
		}
	}
	if !any {
		return nil, errNoPorts
	}
	return o, nil
}

// readSLs sets the SL of every host pair from saquery PathRecord output.
// A pair's record is the one to the DLID its route uses (the base LID, or
// with LMC spread base + offset) from the source's base LID, or else from
// another LID of the source. Records of switch ports are skipped.
func (l *Lanes) readSLs(f *lft.Fabric, own *owners, path string) error {
	H := f.NumHosts()
	quality := make([]uint8, H*H) // 0 none, 1 from another SLID, 2 from the base SLID
	var used, conflicts, rerouted int64
	fromLog := false
	err := ib.ScanPathSLsFile(path, func(p ib.PathSL) error {
		fromLog = fromLog || p.Log
		sv, dv := own.byLID[p.SLID], own.byLID[p.DLID]
		for _, x := range []struct {
			lid uint16
			v   int32
		}{{p.SLID, sv}, {p.DLID, dv}} {
			if x.v < 0 {
				if own.leftOut(x.lid, 0) {
					return nil
				}
				return fmt.Errorf("%s:%d: LID %d is no port of the fabric: %w", path, p.Line, x.lid, ib.ErrMismatch)
			}
		}
		src, dst := f.HostIndex(sv), f.HostIndex(dv)
		if src < 0 || dst < 0 || src == dst {
			return nil
		}
		if int32(p.DLID)-int32(f.Nodes[dv].LID) != f.LIDOffset(src, dst) {
			return nil // another LID of dst's range: routes to dst do not use it
		}
		q := uint8(1)
		if p.SLID == f.Nodes[sv].LID {
			q = 2
		}
		i := int(src)*H + int(dst)
		switch {
		case p.Log && quality[i] == q:
			// A later routing in the same log: it replaces the earlier one.
			if l.sl[i] != p.SL {
				rerouted++
			}
			l.SetSL(src, dst, p.SL)
		case quality[i] < q:
			if quality[i] == 0 {
				used++
			}
			quality[i] = q
			l.SetSL(src, dst, p.SL)
		case quality[i] == q && l.sl[i] != p.SL:
			conflicts++
		}
		return nil
	})
	if err != nil {
		return err
	}
	if l.sl == nil {
		l.sl = make([]uint8, H*H)
	}
	if missing := int64(H)*int64(H-1) - used; missing > 0 {
		if err := l.incomplete(f, path, quality, fromLog); err != nil {
			return err
		}
	}
	if rerouted > 0 {
		l.Notes = append(l.Notes, fmt.Sprintf("%s holds several routings: %d paths got another SL in a later one; the last routing was kept", path, rerouted))
	}
	if conflicts > 0 {
		l.Notes = append(l.Notes, fmt.Sprintf("%d PathRecords give a pair another SL than an earlier record; the first was kept", conflicts))
	}
	return nil
}

// ErrIncomplete reports SL or SL2VL files that lack records some route
// needs (a truncated file, or one of a part of the fabric).
var ErrIncomplete = errors.New("incomplete lanes")

// incomplete returns an error naming the host pairs that the tables route
// but the SL file has no record for (their count and the first ones), or
// nil when every pair without a record is one the tables do not route.
func (l *Lanes) incomplete(f *lft.Fabric, path string, quality []uint8, fromLog bool) error {
	H := f.NumHosts()
	var missing int64
	var first []string
	for s := 0; s < H; s++ {
		for d := 0; d < H; d++ {
			if s == d || quality[s*H+d] != 0 || !routed(f, int32(s), int32(d)) {
				continue
			}
			missing++
			if len(first) < 3 {
				first = append(first, fmt.Sprintf("%s -> %s (LID %d -> %d)", f.HostName(s), f.HostName(d),
					f.Nodes[f.HostNode(s)].LID, int32(f.Nodes[f.HostNode(d)].LID)+f.LIDOffset(int32(s), int32(d))))
			}
		}
	}
	if missing == 0 {
		return nil
	}
	what, fix := "PathRecord", "saquery PR for every pair"
	if fromLog {
		what, fix = "dfsssp layer (\"route from src_lid=\" line)", "the log of a complete dfsssp routing"
	}
	return fmt.Errorf("%s: %d of %d host pairs that the tables route have no %s (first: %s): the file is incomplete (cut short, or of part of the fabric) and a path without its SL would be checked on SL 0; give %s, or --sl none to check every path on SL 0: %w",
		path, missing, int64(H)*int64(H-1), what, strings.Join(first, ", "), fix, ErrIncomplete)
}

// routed reports whether the tables lead host s's packets to host d.
func routed(f *lft.Fabric, s, d int32) bool {
	target := f.HostNode(int(d))
	v := f.HostNode(int(s))
	for hops := 0; hops <= len(f.Nodes); hops++ {
		l := f.NextHop(s, v, d)
		if l < 0 {
			return false
		}
		if v = f.Links[l].To; v == target {
			return true
		}
	}
	return false
}

// addTables installs SL2VL tables read from a file.
func (l *Lanes) addTables(f *lft.Fabric, own *owners, t *ib.SL2VL) error {
	for _, nd := range t.Nodes {
		v := int32(-1)
		if nd.PortGUID != 0 {
			if x, ok := own.byGUID[nd.PortGUID]; ok {
				v = x
			}
		} else if x := own.byLID[nd.LID]; x >= 0 {
			v = x
		}
		if v < 0 && own.leftOut(nd.LID, nd.PortGUID) {
			continue
		}
		if v < 0 {
			return fmt.Errorf("%s:%d: SL2VL tables of port GUID 0x%016x, LID %d: no such port in the fabric: %w",
				t.File, nd.Line, nd.PortGUID, nd.LID, ib.ErrMismatch)
		}
		for _, e := range nd.Entries {
			for sl, vl := range e.VL {
				l.SetVL(v, int(e.In), int(e.Out), uint8(sl), vl)
			}
		}
	}
	return nil
}

package ib

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"orcs/lft"
)

// This file writes a routed fabric as the two files a real fabric gives:
// ibnetdiscover output (the topology) and OpenSM's opensm-lfts.dump (the
// forwarding tables), for fabrics larger than ibsim and OpenSM emulate in
// reasonable time. ReadFiles on the two gives the fabric back.

// dumpIDs are the GUIDs and LIDs of a fabric's nodes in the written files.
type dumpIDs struct {
	guid     []uint64 // per node: node GUID
	portGUID []uint64 // per node: a host's CA port GUID, a switch's port 0 GUID
	lid      []uint16 // per node: base LID
	top      int      // the highest LID
	byLID    []int32  // LID → node, -1 none
}

// maxSubnetLIDs is the number of unicast LIDs of one subnet (0x0001-0xbfff).
const maxSubnetLIDs = maxUnicastLID

// fabricIDs returns the identifiers the files give f's nodes. A fabric read
// from InfiniBand files keeps its GUIDs and LIDs. Any other fabric (a
// generator's, a dot file's) gets them as the ibsim fixtures have them:
// host h node GUID 0x100000+2h with port GUID 0x100001+2h, switch s node
// and port GUID 0x200000+s; host h LID h+1 and switch s LID H+s+1.
func fabricIDs(f *lft.Fabric) (*dumpIDs, error) {
	n := len(f.Nodes)
	H, S := f.NumHosts(), f.NumSwitches()
	ids := &dumpIDs{guid: make([]uint64, n), portGUID: make([]uint64, n), lid: make([]uint16, n)}
	known := true
	for v := range f.Nodes {
		nd := &f.Nodes[v]
		if nd.GUID == 0 || nd.LID == 0 || nd.PortGUID == 0 && nd.Kind == lft.Host {
			known = false
			break
		}
	}
	if known {
		for v := range f.Nodes {
			nd := &f.Nodes[v]
			if nd.LMC != 0 {
				return nil, fmt.Errorf("node %q has LMC %d: only fabrics with one LID per port are written", nd.Name, nd.LMC)
			}
			ids.guid[v], ids.portGUID[v], ids.lid[v] = nd.GUID, nd.PortGUID, nd.LID
			if nd.Kind != lft.Host && nd.PortGUID == 0 {
				ids.portGUID[v] = nd.GUID
			}
		}
	} else {
		if H+S > maxSubnetLIDs {
			return nil, fmt.Errorf("%d hosts and %d switches need %d LIDs; one InfiniBand subnet has %d unicast LIDs (0x0001-0xbfff)",
				H, S, H+S, maxSubnetLIDs)
		}
		for h := 0; h < H; h++ {
			v := f.HostNode(h)
			ids.guid[v], ids.portGUID[v], ids.lid[v] = 0x100000+2*uint64(h), 0x100001+2*uint64(h), uint16(h+1)
		}
		for s := 0; s < S; s++ {
			v := f.SwitchNode(s)
			ids.guid[v], ids.portGUID[v], ids.lid[v] = 0x200000+uint64(s), 0x200000+uint64(s), uint16(H+s+1)
		}
	}
	ids.byLID = make([]int32, maxUnicastLID+1)
	for i := range ids.byLID {
		ids.byLID[i] = -1
	}
	for v, lid := range ids.lid {
		if lid == 0 || lid > maxUnicastLID {
			return nil, fmt.Errorf("node %q: LID %d is no unicast LID", f.Nodes[v].Name, lid)
		}
		if w := ids.byLID[lid]; w >= 0 {
			return nil, fmt.Errorf("LID %d belongs to %q and %q", lid, f.Nodes[w].Name, f.Nodes[v].Name)
		}
		ids.byLID[lid] = int32(v)
		ids.top = max(ids.top, int(lid))
	}
	for v := range f.Nodes {
		for _, l := range f.OutLinks(int32(v)) {
			if p := f.Links[l].FromPort; p < 1 || p > MaxPorts {
				return nil, fmt.Errorf("node %q: link to %q leaves on port %d: the fabric has no InfiniBand port numbers", f.Nodes[v].Name, f.Nodes[f.Links[l].To].Name, p)
			}
		}
		if f.Nodes[v].Kind == lft.Host && len(f.OutLinks(int32(v))) != 1 {
			return nil, fmt.Errorf("host %q has %d links: a CA port has one cable", f.Nodes[v].Name, len(f.OutLinks(int32(v))))
		}
	}
	return ids, nil
}

// dumpDesc is the node description written for node v: the one read, else
// the node's name.
func dumpDesc(f *lft.Fabric, v int32) string {
	if d := f.Nodes[v].Desc; d != "" {
		return d
	}
	return f.Nodes[v].Name
}

// WriteLFTDump writes the forwarding tables of f as OpenSM writes
// opensm-lfts.dump: per switch (in the order of their LIDs, as OpenSM
// has them) the header with the LID range and the switch's LID, GUID and description,
// one line per LID in ascending order, and the trailer. The lines are
// those of every host's LID (the out port of the switch's route to it)
// and the switch's own LID (port 0); OpenSM also lists the other
// switches' LIDs, which a fabric's tables do not hold (it routes to hosts
// only). Routes are the base-LID ones (source 0). GUIDs and LIDs are
// fabricIDs'; a subnet holds at most 49 151 LIDs.
func WriteLFTDump(w io.Writer, f *lft.Fabric) error {
	ids, err := fabricIDs(f)
	if err != nil {
		return err
	}
	// label[lid]: " # <kind> portguid 0x<guid>: '<desc>'\n" of every host
	// LID; for switches only their own.
	label := make([][]byte, ids.top+1)
	for lid := 1; lid <= ids.top; lid++ {
		v := ids.byLID[lid]
		if v < 0 || f.HostIndex(v) < 0 {
			continue
		}
		label[lid] = fmt.Appendf(nil, " # Channel Adapter portguid 0x%016x: '%s'\n", ids.portGUID[v], dumpDesc(f, v))
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var line []byte
	for _, v := range ids.switchesByLID(f) {
		fmt.Fprintf(bw, "Unicast lids [0-%d] of switch Lid %d guid 0x%016x ('%s'):\n", ids.top, ids.lid[v], ids.guid[v], dumpDesc(f, v))
		own := fmt.Appendf(nil, " # Switch portguid 0x%016x: '%s'\n", ids.portGUID[v], dumpDesc(f, v))
		for dl := 1; dl <= ids.top; dl++ {
			port := -1
			lab := label[dl]
			switch d := ids.byLID[dl]; {
			case d == v:
				port, lab = 0, own
			case lab != nil:
				if l := f.NextHop(0, v, f.HostIndex(d)); l >= 0 {
					port = int(f.Links[l].FromPort)
				}
			}
			if port < 0 {
				continue
			}
			line = append(line[:0], '0', 'x')
			line = appendHex(line, uint64(dl), 4)
			line = append(line, ' ', byte('0'+port/100), byte('0'+port/10%10), byte('0'+port%10))
			line = append(line, lab...)
			bw.Write(line)
		}
		bw.WriteString(strconv.Itoa(ids.top))
		bw.WriteString(" lids dumped\n")
	}
	return bw.Flush()
}

// switchesByLID returns the switch nodes of f in the order of their LIDs,
// as OpenSM dumps their tables.
func (ids *dumpIDs) switchesByLID(f *lft.Fabric) []int32 {
	var sw []int32
	for lid := 1; lid <= ids.top; lid++ {
		if v := ids.byLID[lid]; v >= 0 && f.SwitchIndex(v) >= 0 {
			sw = append(sw, v)
		}
	}
	return sw
}

// appendHex appends x in n lower-case hexadecimal digits.
func appendHex(b []byte, x uint64, n int) []byte {
	const digits = "0123456789abcdef"
	for i := 4 * (n - 1); i >= 0; i -= 4 {
		b = append(b, digits[x>>uint(i)&15])
	}
	return b
}

// WriteNetDiscover writes the topology of f as ibnetdiscover prints it:
// a record per switch (its ports with the cable at each) and per CA (one
// per host, its port and cable), with node GUIDs, descriptions and LIDs
// as WriteLFTDump gives them, so that the two files describe the same
// fabric. Every link is written 4xSDR (ibsim's default).
func WriteNetDiscover(w io.Writer, f *lft.Fabric) error {
	ids, err := fabricIDs(f)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	first := f.HostNode(0)
	fmt.Fprintf(bw, "#\n# Topology file: written by orcs\n#\n# Initiated from node %016x port %016x\n\n", ids.guid[first], ids.portGUID[first])
	peer := func(v int32, port int32) {
		if f.HostIndex(v) >= 0 {
			fmt.Fprintf(bw, "\"H-%016x\"[%d](%x) \t\t# \"%s\" lid %d 4xSDR\n", ids.guid[v], port, ids.portGUID[v], dumpDesc(f, v), ids.lid[v])
			return
		}
		fmt.Fprintf(bw, "\"S-%016x\"[%d]\t\t# \"%s\" lid %d 4xSDR\n", ids.guid[v], port, dumpDesc(f, v), ids.lid[v])
	}
	for s := 0; s < f.NumSwitches(); s++ {
		v := f.SwitchNode(s)
		radix := int32(0)
		for _, l := range f.OutLinks(v) {
			radix = max(radix, f.Links[l].FromPort)
		}
		g := ids.guid[v]
		fmt.Fprintf(bw, "vendid=0x0\ndevid=0x0\nsysimgguid=0x%x\nswitchguid=0x%x(%x)\nSwitch\t%d \"S-%016x\"\t\t# \"%s\" base port 0 lid %d lmc 0\n",
			g, g, g, radix, g, dumpDesc(f, v), ids.lid[v])
		for _, l := range f.OutLinks(v) {
			k := f.Links[l]
			fmt.Fprintf(bw, "[%d]\t", k.FromPort)
			peer(k.To, k.ToPort)
		}
		bw.WriteString("\n")
	}
	for h := 0; h < f.NumHosts(); h++ {
		v := f.HostNode(h)
		k := f.Links[f.OutLinks(v)[0]]
		g := ids.guid[v]
		fmt.Fprintf(bw, "vendid=0x0\ndevid=0x0\nsysimgguid=0x%x\ncaguid=0x%x\nCa\t%d \"H-%016x\"\t\t# \"%s\"\n[%d](%x) \t\"S-%016x\"[%d]\t\t# lid %d lmc 0 \"%s\" lid %d 4xSDR\n\n",
			g, g, max(1, k.FromPort), g, dumpDesc(f, v), k.FromPort, ids.portGUID[v], ids.guid[k.To], k.ToPort, ids.lid[v], dumpDesc(f, k.To), ids.lid[k.To])
	}
	return bw.Flush()
}

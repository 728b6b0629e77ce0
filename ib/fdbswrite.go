package ib

import (
	"bufio"
	"fmt"
	"io"

	"orcs/lft"
)

// WriteFDBs writes the forwarding tables of f as OpenSM writes
// opensm.fdbs: per switch (in the order of their LIDs) the header and the
// column titles, then every LID from 1 to the highest,
//
//	dump_ucast_routes: Switch 0x<guid>
//	LID    : Port : Hops : Optimal
//	0x<LID> : <port>  : <hops>   : yes
//	0x<LID> : UNREACHABLE
//
// A host's LID gets the out port of the switch's route to it (source 0)
// and the links of that route as hops; the switch's own LID port 0 and 0
// hops; the other switches' LIDs, which a fabric's tables do not route,
// are UNREACHABLE (OpenSM routes them). GUIDs and LIDs are those of
// WriteLFTDump and WriteNetDiscover, so that ReadFiles on the
// ibnetdiscover output and this file gives the fabric back.
func WriteFDBs(w io.Writer, f *lft.Fabric) error {
	ids, err := fabricIDs(f)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var line []byte
	for _, v := range ids.switchesByLID(f) {
		fmt.Fprintf(bw, "dump_ucast_routes: Switch 0x%016x\nLID    : Port : Hops : Optimal\n", ids.guid[v])
		for dl := 1; dl <= ids.top; dl++ {
			port, hops := -1, 0
			switch d := ids.byLID[dl]; {
			case d == v:
				port = 0
			case d >= 0 && f.HostIndex(d) >= 0:
				port, hops = routeOut(f, v, d)
			}
			line = append(line[:0], '0', 'x')
			line = appendHexUpper(line, uint64(dl), 4)
			if port < 0 {
				line = append(line, " : UNREACHABLE\n"...)
			} else {
				line = append(line, " : "...)
				line = append(line, byte('0'+port/100), byte('0'+port/10%10), byte('0'+port%10))
				line = append(line, "  : "...)
				line = append(line, byte('0'+hops/10%10), byte('0'+hops%10))
				line = append(line, "   : yes\n"...)
			}
			bw.Write(line)
		}
	}
	return bw.Flush()
}

// routeOut returns the out port of switch v's route to host node d and the
// links of that route, or -1 when v has none.
func routeOut(f *lft.Fabric, v, d int32) (port, hops int) {
	h := f.HostIndex(d)
	first := f.NextHop(0, v, h)
	if first < 0 {
		return -1, 0
	}
	for node, l := v, first; hops < 100; hops++ {
		if l < 0 {
			return -1, 0
		}
		node = f.Links[l].To
		if node == d {
			return int(f.Links[first].FromPort), hops + 1
		}
		l = f.NextHop(0, node, h)
	}
	return -1, 0 // a loop
}

// appendHexUpper appends x in n upper-case hexadecimal digits.
func appendHexUpper(b []byte, x uint64, n int) []byte {
	const digits = "0123456789ABCDEF"
	for i := 4 * (n - 1); i >= 0; i -= 4 {
		b = append(b, digits[x>>uint(i)&15])
	}
	return b
}

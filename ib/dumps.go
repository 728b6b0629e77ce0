package ib

import (
	"errors"
	"fmt"
	"io/fs"
	"runtime"

	"orcs/infile"
	"orcs/lft"
)

// ReadTopology parses a topology in any supported format, recognised by
// DetectFormat: ibnetdiscover output (plain, -s, -g or -p), iblinkinfo
// output, an ibsim net file, a subnet list or ibdiagnet2.db_csv. file
// names the input in errors. An ibsim include directive is refused
// (ReadTopologyFile follows it).
func ReadTopology(data []byte, file string) (*Topology, error) {
	switch f := DetectFormat(data); f {
	case FormatIBNetDiscover:
		return ReadNetDiscover(data, file)
	case FormatIBSimNet:
		return ReadSimNet(data, file)
	case FormatSubnetLst:
		return ReadSubnetLst(data, file)
	case FormatIBNetDiscoverPorts:
		return ReadPortsReport(data, file)
	case FormatIBLinkInfo:
		return ReadLinkInfo(data, file)
	case FormatIBDiagCSV:
		return ReadDBCSV(data, file)
	default:
		return nil, wrongKind(file, f, topologyKinds, len(data) == 0)
	}
}

// ReadRouting parses forwarding tables in any supported format, recognised
// by DetectFormat: opensm-lfts.dump, dump_fts/ibroute output or an .fdbs
// file. file names the input in errors. Content that is no forwarding
// table (an empty file, an OpenSM log) is an error that names the files
// that hold tables, and how to get them.
func ReadRouting(data []byte, file string) (*Routing, error) {
	switch f := DetectFormat(data); f {
	case FormatLFTDump, FormatDumpFTS:
		return ReadLFTDump(data, file)
	case FormatFDBs:
		return ReadFDBs(data, file)
	default:
		return nil, wrongKind(file, f, routingKinds, len(data) == 0)
	}
}

const (
	topologyKinds = "a topology (ibnetdiscover output, plain, -s, -g or -p, iblinkinfo output, an ibsim net file, opensm-subnet.lst, ibdiagnet2.db_csv)"
	routingKinds  = "forwarding tables (opensm-lfts.dump, dump_fts or ibroute output, opensm.fdbs, ibdiagnet2.fdbs)"
	// routingHint says where forwarding tables come from.
	routingHint = "OpenSM writes opensm-lfts.dump and opensm.fdbs only when its log flags include 0x40 (opensm -D 0x43; the default 0x03 writes neither); " +
		"the tables read back from the switches serve as well: dump_fts > dump_fts.txt (infiniband-diags; ibroute LID for one switch), or ibdiagnet's ibdiagnet2.fdbs"
)

func wrongKind(file string, f Format, want string, empty bool) error {
	hint := ""
	if want == routingKinds {
		hint = "; " + routingHint
	}
	switch {
	case f == FormatUnknown && empty:
		return infile.Errorf(file, 0, "empty file: want %s%s", want, hint).With(ErrFormat)
	case f == FormatUnknown:
		return infile.Errorf(file, 0, "unrecognised content: want %s%s", want, hint).With(ErrFormat)
	case f == FormatIBNetDiscoverList && want == topologyKinds:
		return infile.Errorf(file, 0, "this is the node list of ibnetdiscover -l, without the cables between the nodes: give the full ibnetdiscover output (ibnetdiscover > fabric.txt)").With(ErrFormat)
	case f == FormatDot:
		what := "routing dump"
		if want == topologyKinds {
			what = "topology"
		}
		return infile.Errorf(file, 0, "this is a dot file (a fabric with its routes, as ORCS reads it), not an InfiniBand %s: give it with -i", what).With(ErrFormat)
	case f.IsRouting():
		return infile.Errorf(file, 0, "this is a routing dump (%s), not a topology: want %s", f, want).With(ErrFormat)
	case f.IsTopology():
		return infile.Errorf(file, 0, "this is a topology (%s), not a routing dump: want %s", f, want).With(ErrFormat)
	}
	return infile.Errorf(file, 0, "this is %s: want %s", f, want).With(ErrFormat)
}

// ReadTopologyFile reads a topology file ("-" for standard input, gzip
// accepted) in any supported format, streaming it line by line. ibsim
// include directives are followed, relative to the including file.
func ReadTopologyFile(path string) (*Topology, error) {
	br, done, err := infile.Open(path)
	if err != nil {
		return nil, err
	}
	name := infile.Name(path)
	defer done()
	head, _ := br.Peek(1 << 16) // a short file ends the peek early; read errors recur below
	switch f := DetectFormat(head); f {
	case FormatIBNetDiscover:
		if t := readNetDiscoverFile(br, path, name); t != nil {
			return t, nil
		}
		if path != "-" {
			// Line by line from the start, for the messages.
			br2, done2, err := infile.Open(path)
			if err != nil {
				return nil, err
			}
			defer done2()
			br = br2
		}
		return readNet(streamLines(br, name), f, nil)
	case FormatIBSimNet:
		include := includeFromDisk
		if path == "-" {
			include = nil
		}
		return readNet(streamLines(br, name), f, include)
	case FormatSubnetLst:
		return readSubnetLst(streamLines(br, name))
	case FormatIBNetDiscoverPorts:
		return readPortsReport(streamLines(br, name))
	case FormatIBLinkInfo:
		return readLinkInfo(streamLines(br, name))
	case FormatIBDiagCSV:
		return readDBCSV(streamLines(br, name))
	default:
		return nil, wrongKind(name, f, topologyKinds, len(head) == 0)
	}
}

// ReadRoutingFile reads a routing dump ("-" for standard input, gzip
// accepted) in any supported format, streaming it line by line: a dump of
// hundreds of megabytes is never held in memory. A missing file is an
// error (wrapping fs.ErrNotExist) that says which files hold tables:
// OpenSM writes opensm-lfts.dump only with log flag 0x40.
func ReadRoutingFile(path string) (*Routing, error) { return readRoutingFile(path, false) }

// readRoutingFile is ReadRoutingFile; packed packs the tables (LFT.Each).
// A plain dump file of several megabytes is read on all cores.
func readRoutingFile(path string, packed bool) (*Routing, error) {
	br, done, err := infile.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, infile.Errorf(infile.Name(path), 0, "%w; %s", errors.Unwrap(err), routingHint)
	}
	if err != nil {
		return nil, err
	}
	name := infile.Name(path)
	defer done()
	head, _ := br.Peek(1 << 16)
	switch f := DetectFormat(head); f {
	case FormatLFTDump, FormatDumpFTS:
		if rt, ok, err := readUnicastFile(path, name, packed); ok {
			return rt, err
		}
		return readUnicastAs(streamLines(br, name), packed)
	case FormatFDBs:
		if fh := openParallel(path); fh != nil {
			defer fh.Close()
			return readFDBsParallel(fh, name, packed, runtime.GOMAXPROCS(0))
		}
		return readFDBsAs(streamLines(br, name), packed)
	default:
		return nil, wrongKind(name, f, routingKinds, len(head) == 0)
	}
}

// ReadFiles reads a topology and a routing dump of the same fabric and
// builds the routed fabric (see Build). At most one of the two may be
// standard input ("-").
func ReadFiles(topoPath, routingPath string, opt Options) (*lft.Fabric, error) {
	t, r, err := ReadPair(topoPath, routingPath)
	if err != nil {
		return nil, err
	}
	return Build(t, r, opt)
}

// ReadPair reads a topology and a routing dump of the same fabric, for a
// caller that keeps the topology beside the fabric Build makes. At most
// one of the two may be standard input ("-"). The tables are packed, in
// blocks of 64 LIDs (LFT.Each gives their entries), and a plain dump file of
// several megabytes is read on all cores.
func ReadPair(topoPath, routingPath string) (*Topology, *Routing, error) {
	if topoPath == "-" && routingPath == "-" {
		return nil, nil, fmt.Errorf("the topology and the routing dump cannot both be standard input")
	}
	t, err := ReadTopologyFile(topoPath)
	if err != nil {
		return nil, nil, err
	}
	r, err := readRoutingFile(routingPath, true)
	if err != nil {
		return nil, nil, err
	}
	return t, r, nil
}

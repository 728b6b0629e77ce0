package ib

import (
	"fmt"

	"orcs/input"
	"orcs/lft"
)

// ReadTopology parses a topology in any supported format, recognised by
// DetectFormat: ibnetdiscover output (plain or -s), an ibsim net file or a
// subnet list. file names the input in errors. An ibsim include directive
// is refused (ReadTopologyFile follows it).
func ReadTopology(data []byte, file string) (*Topology, error) {
	switch f := DetectFormat(data); f {
	case FormatIBNetDiscover:
		return ReadNetDiscover(data, file)
	case FormatIBSimNet:
		return ReadSimNet(data, file)
	case FormatSubnetLst:
		return ReadSubnetLst(data, file)
	default:
		return nil, wrongKind(file, f, topologyKinds)
	}
}

// ReadRouting parses forwarding tables in any supported format, recognised
// by DetectFormat: opensm-lfts.dump, dump_fts/ibroute output or an .fdbs
// file. file names the input in errors.
func ReadRouting(data []byte, file string) (*Routing, error) {
	switch f := DetectFormat(data); f {
	case FormatLFTDump, FormatDumpFTS:
		return ReadLFTDump(data, file)
	case FormatFDBs:
		return ReadFDBs(data, file)
	default:
		return nil, wrongKind(file, f, routingKinds)
	}
}

const (
	topologyKinds = "a topology (ibnetdiscover output, an ibsim net file or opensm-subnet.lst)"
	routingKinds  = "forwarding tables (opensm-lfts.dump, dump_fts or ibroute output, opensm.fdbs)"
)

func wrongKind(file string, f Format, want string) error {
	switch {
	case f == FormatUnknown:
		return input.Errorf(file, 0, "unrecognised content: want %s", want).With(ErrFormat)
	case f.IsRouting():
		return input.Errorf(file, 0, "this is a routing dump (%s), not a topology: want %s", f, want).With(ErrFormat)
	case f.IsTopology():
		return input.Errorf(file, 0, "this is a topology (%s), not a routing dump: want %s", f, want).With(ErrFormat)
	}
	return input.Errorf(file, 0, "this is %s: want %s", f, want).With(ErrFormat)
}

// ReadTopologyFile reads a topology file ("-" for standard input, gzip
// accepted) in any supported format, streaming it line by line. ibsim
// include directives are followed, relative to the including file.
func ReadTopologyFile(path string) (*Topology, error) {
	br, done, err := input.Open(path)
	if err != nil {
		return nil, err
	}
	name := input.Name(path)
	defer done()
	head, _ := br.Peek(1 << 16) // a short file ends the peek early; read errors recur below
	switch f := DetectFormat(head); f {
	case FormatIBNetDiscover:
		return readNet(streamLines(br, name), f, nil)
	case FormatIBSimNet:
		include := includeFromDisk
		if path == "-" {
			include = nil
		}
		return readNet(streamLines(br, name), f, include)
	case FormatSubnetLst:
		return readSubnetLst(streamLines(br, name))
	default:
		return nil, wrongKind(name, f, topologyKinds)
	}
}

// ReadRoutingFile reads a routing dump ("-" for standard input, gzip
// accepted) in any supported format, streaming it line by line: a dump of
// hundreds of megabytes is never held in memory.
func ReadRoutingFile(path string) (*Routing, error) {
	br, done, err := input.Open(path)
	if err != nil {
		return nil, err
	}
	name := input.Name(path)
	defer done()
	head, _ := br.Peek(1 << 16)
	switch f := DetectFormat(head); f {
	case FormatLFTDump, FormatDumpFTS:
		return readUnicast(streamLines(br, name))
	case FormatFDBs:
		return readFDBs(streamLines(br, name))
	default:
		return nil, wrongKind(name, f, routingKinds)
	}
}

// ReadFiles reads a topology and a routing dump of the same fabric and
// builds the routed fabric (see Build). At most one of the two may be
// standard input ("-").
func ReadFiles(topoPath, routingPath string, opt Options) (*lft.Fabric, error) {
	if topoPath == "-" && routingPath == "-" {
		return nil, fmt.Errorf("the topology and the routing dump cannot both be standard input")
	}
	t, err := ReadTopologyFile(topoPath)
	if err != nil {
		return nil, err
	}
	r, err := ReadRoutingFile(routingPath)
	if err != nil {
		return nil, err
	}
	return Build(t, r, opt)
}

// Package fabricarg turns the fabric arguments of every orcs command into a
// fabric: a dot file (-i FILE, "-" for standard input, gzip recognised by
// content), a generator spec (-i gen:SPEC), or InfiniBand files (--topo
// FILE with --lfts FILE, or --topo alone where only the topology is
// needed; every format that package ib reads). One function, Load, serves every command, so every command
// accepts the same forms.
package fabricarg

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"orcs/dot"
	"orcs/gen"
	"orcs/ib"
	"orcs/infile"
	"orcs/lft"
)

// GenPrefix marks a generator spec where a file name is expected.
const GenPrefix = "gen:"

// Need says what a command needs of the fabric.
type Need uint8

const (
	// Tables: the command walks routes, so the fabric must carry forwarding
	// tables (a routed dot file, a generator, or --topo with --lfts).
	Tables Need = iota
	// Topology: the command routes the fabric itself (OpenSM) or converts
	// it, so the topology alone is enough; tables given are ignored.
	Topology
)

// Args are the fabric arguments of a command line.
type Args struct {
	// Input is -i: a dot file, "-" for standard input, or gen:SPEC.
	Input string
	// Topo and LFTs are --topo and --lfts: an InfiniBand topology
	// (ibnetdiscover output, an ibsim net file, a subnet list) and the
	// forwarding tables of the same fabric.
	Topo, LFTs string
	// LMCSpread routes by source over LMC ranges (--lmc-spread, with --topo).
	LMCSpread bool
	// Names chooses the node names of --topo fabrics (--names
	// host|guid|desc; "" is host, see ib.NamesHost).
	Names string
	// IncludeAggregationNodes keeps SHARP aggregation nodes as hosts of
	// --topo fabrics (--include-aggregation-nodes).
	IncludeAggregationNodes bool
	// KeepAttrs keeps every dot edge's attributes (for get_cable_cong,
	// which writes the graph again).
	KeepAttrs bool
	// Need says whether forwarding tables are required.
	Need Need
	// Warn receives findings that do not stop the load (may be nil).
	Warn func(msg string)
}

// Fabric is a loaded fabric and what is known about where it came from.
type Fabric struct {
	*lft.Fabric
	// Name names the input in results and messages: the dot file, gen:SPEC
	// in canonical form, or TOPO+LFTS.
	Name string
	// Network is the generator's description (coordinates, tree levels)
	// when the fabric is generated, or (with Need Topology) a dot file that
	// orcs gen wrote and that still holds exactly the generated topology;
	// else nil.
	Network *gen.Network
	// RealPorts says that the links carry real port numbers (generated
	// fabrics and InfiniBand files); a dot file's ports are numbered as
	// dot2osm numbers them.
	RealPorts bool
	// Routed says that the fabric carries forwarding tables.
	Routed bool
	// TopoFile is the --topo file the fabric was built from, else "".
	TopoFile string
	// Topology is the InfiniBand topology of --topo (the fabric is built
	// from it), else nil. Commands that emulate the fabric emulate it.
	Topology *ib.Topology
	// LinkRates is every link's active width and speed as an InfiniBand
	// topology gives them (ib.LinkRates: the zero rate for a link it gives
	// none), or nil when the input gives no rates (dot files, generated
	// fabrics, a topology without speeds).
	LinkRates []ib.LinkRate
	// AggregationLeftOut counts the SHARP aggregation nodes of an
	// InfiniBand topology that the fabric leaves out (without
	// IncludeAggregationNodes), for the checks that say what they left out.
	AggregationLeftOut int
}

// aggregationLeftOut counts the aggregation nodes of t that a fabric built
// with include leaves out.
func aggregationLeftOut(t *ib.Topology, include bool) int {
	n := 0
	for i := range t.Nodes {
		if !include && ib.IsAggregationNode(&t.Nodes[i]) {
			n++
		}
	}
	return n
}

// ShortName names the fabric in titles and JSON: the base name of the
// dot file or of the --topo topology (without ".gz"), or gen:SPEC;
// "<stdin>" for standard input.
func (f *Fabric) ShortName() string {
	name := f.Name
	if f.TopoFile != "" {
		name = f.TopoFile
	}
	if strings.HasPrefix(name, GenPrefix) || name == "-" || name == "<stdin>" {
		return infile.Name(name)
	}
	return strings.TrimSuffix(filepath.Base(name), ".gz")
}

// Generated returns the generator's description of the fabric: Network,
// or for a dot file that orcs gen wrote (and that still holds exactly the
// generated topology) the network recognised now; nil for other fabrics.
func (f *Fabric) Generated() *gen.Network {
	if f.Network == nil {
		f.Network = gen.Recognize(f.Fabric)
	}
	return f.Network
}

// ErrNoFabric is returned (wrapped) when no fabric argument is given.
var ErrNoFabric = errors.New("no fabric given")

// Load reads the fabric that a names.
func Load(a Args) (*Fabric, error) {
	switch {
	case a.Topo == "" && a.LFTs == "":
		if a.LMCSpread || a.Names != "" || a.IncludeAggregationNodes {
			return nil, fmt.Errorf("--lmc-spread, --names and --include-aggregation-nodes apply to --topo/--lfts input, not to -i %s", a.Input)
		}
		if a.Input == "" {
			return nil, fmt.Errorf("%w: give -i FILE (dot, - = stdin), -i gen:SPEC or --topo FILE [--lfts FILE]", ErrNoFabric)
		}
		if spec, ok := strings.CutPrefix(a.Input, GenPrefix); ok {
			return generate(spec)
		}
		return readDot(a)
	case a.Input != "":
		return nil, fmt.Errorf("give the fabric either with -i or with --topo/--lfts, not both")
	case a.Topo == "":
		return nil, fmt.Errorf("--lfts %s needs --topo: the topology of the same fabric (ibnetdiscover or iblinkinfo output, ibsim net file, opensm-subnet.lst, ibdiagnet2.db_csv)", a.LFTs)
	}
	return readIB(a)
}

func generate(spec string) (*Fabric, error) {
	s, err := gen.Parse(spec)
	if err != nil {
		return nil, err
	}
	n, err := s.Build()
	if err != nil {
		return nil, err
	}
	return &Fabric{Fabric: n.Fabric, Name: GenPrefix + s.String(), Network: n, RealPorts: true, Routed: true}, nil
}

func readDot(a Args) (*Fabric, error) {
	f, err := dot.ReadFile(a.Input, dot.Options{Topology: a.Need == Topology, KeepAttrs: a.KeepAttrs})
	if err != nil {
		return nil, notDot(a.Input, err)
	}
	src := &Fabric{Fabric: f, Name: a.Input, Routed: a.Need == Tables}
	if a.Need == Topology {
		// Commands that route the fabric use the generator's coordinates
		// (torus-2QoS seeds, fat-tree roots); recognising it builds the
		// generated fabric once more, which the others need not pay for.
		src.Network = gen.Recognize(f)
	}
	return src, nil
}

// notDot replaces the dot reader's error err on path by a suggestion when
// the file is an InfiniBand file given to -i: a topology or routing dump
// is read with --topo/--lfts. Standard input cannot be read twice and keeps
// err.
func notDot(path string, err error) error {
	if path == "-" {
		return err
	}
	br, done, oerr := infile.Open(path)
	if oerr != nil {
		return err
	}
	defer done()
	head, _ := br.Peek(1 << 16)
	switch f := ib.DetectFormat(head); {
	case f.IsTopology():
		return infile.Errorf(path, 0, "this is an InfiniBand topology (%s), not a dot file: give it with --topo %s and its forwarding tables with --lfts (orcs route and compare take --topo alone)", f, path)
	case f.IsRouting():
		return infile.Errorf(path, 0, "this is a routing dump (%s), not a dot file: give it with --lfts %s and the topology of the same fabric with --topo (ibnetdiscover output)", f, path)
	case f == ib.FormatIBNetDiscoverList:
		return infile.Errorf(path, 0, "this is the node list of ibnetdiscover -l, not a dot file: give the full ibnetdiscover output with --topo")
	}
	return err
}

func readIB(a Args) (*Fabric, error) {
	names := ib.NamesHost
	if a.Names != "" {
		var err error
		if names, err = ib.ParseNameStyle(a.Names); err != nil {
			return nil, fmt.Errorf("--names: %w", err)
		}
	}
	opt := ib.Options{Names: names, LMCSpread: a.LMCSpread, IncludeAggregationNodes: a.IncludeAggregationNodes, Warn: a.Warn}
	if a.LFTs == "" || a.Need == Topology {
		if a.Need == Tables {
			return nil, fmt.Errorf("--topo %s needs --lfts: the forwarding tables of the same fabric (opensm-lfts.dump, dump_fts or ibroute output, opensm.fdbs); only orcs route and compare take a topology alone", a.Topo)
		}
		t, err := ib.ReadTopologyFile(a.Topo)
		if err != nil {
			return nil, err
		}
		f, err := ib.BuildTopology(t, opt)
		if err != nil {
			return nil, err
		}
		return &Fabric{Fabric: f, Name: a.Topo, TopoFile: a.Topo, RealPorts: true, Topology: t, LinkRates: ib.LinkRates(t, f),
			AggregationLeftOut: aggregationLeftOut(t, a.IncludeAggregationNodes)}, nil
	}
	t, rt, err := ib.ReadPair(a.Topo, a.LFTs)
	if err != nil {
		return nil, err
	}
	defer tightGC()()
	f, err := ib.Build(t, rt, opt)
	if err != nil {
		return nil, err
	}
	if a.LMCSpread && !f.LMCSpread() && a.Warn != nil {
		a.Warn(fmt.Sprintf("--lmc-spread: no CA port of %s has LMC > 0, every host has one LID", a.Topo))
	}
	return &Fabric{Fabric: f, Name: a.Topo + "+" + a.LFTs, TopoFile: a.Topo, RealPorts: true, Routed: true, LinkRates: ib.LinkRates(t, f),
		AggregationLeftOut: aggregationLeftOut(t, a.IncludeAggregationNodes)}, nil
}

// tightGC lets the heap grow by half its live size between collections
// instead of by all of it, until the returned function is called, which
// collects once more (unless the user set GOGC). A fabric built from dumps
// has the topology, the tables read and the fabric alive at once, and all
// but the fabric is garbage right after: the default target would let the
// heap grow to twice that peak (32 768 hosts: about 50 MB live), and then
// to twice what was live before the topology and the tables were let go.
// The readers run before it with the default; their garbage on the heap
// (the parsers' scratch and labels, the pieces' tables before merging;
// their text windows are mappings they give back themselves) is collected
// first, so that the build takes its memory again instead of growing the
// heap.
func tightGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	runtime.GC()
	old := debug.SetGCPercent(50)
	return func() {
		debug.SetGCPercent(old)
		runtime.GC()
	}
}

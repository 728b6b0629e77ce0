package gen

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"orcs/lft"
	"orcs/registry"
)

// topology is one registered generator.
type topology struct {
	name string
	doc  string
	// routing names the routing the generator builds (e.g. "d-mod-k").
	routing string
	params  []param
	// check validates relations between parameters (optional).
	check func(s Spec) error
	// size computes the counts of the fabric without building it; it must
	// saturate rather than overflow (use mul and add).
	size func(s Spec) Size
	// build generates the fabric.
	build func(s Spec) (*Network, error)
	// declared is params for the spec reader, filled by register.
	declared []registry.Param
}

// topologies holds the topologies by name. It is filled by init functions
// and read-only afterwards.
var topologies = registry.New[*topology]("topology")

// register adds t to the registry. It is called from init functions and
// panics on a duplicate or malformed entry.
func register(t *topology) {
	if t.size == nil || t.build == nil {
		panic("gen: topology " + t.name + " lacks size or build")
	}
	for i, p := range t.params {
		if !registry.IsName(p.key) {
			panic(fmt.Sprintf("gen: topology %s: invalid parameter name %q", t.name, p.key))
		}
		def := p.def
		if _, err := strconv.Atoi(def); err != nil && def != "" {
			if !slices.ContainsFunc(t.params[:i], func(q param) bool { return q.key == def }) {
				panic(fmt.Sprintf("gen: topology %s: default %q of %s is neither a number nor an earlier parameter", t.name, def, p.key))
			}
			def = "" // the value of another parameter: see Parse
		}
		t.declared = append(t.declared, registry.Param{Key: p.key, Default: def, Doc: p.doc})
	}
	topologies.Register(t.name, t.doc, t)
}

// Names lists the registered topology names, sorted.
func Names() []string { return topologies.Names() }

// Info describes a registered topology for help texts.
type Info struct {
	// Name is the name used in specs.
	Name string
	// Doc is a one-line description.
	Doc string
	// Params lists the parameters in canonical order.
	Params []ParamInfo
}

// ParamInfo describes one parameter of a topology.
type ParamInfo struct {
	// Key is the parameter's name in specs.
	Key string
	// Doc is a short description.
	Doc string
	// Default is the default value: a number, the name of another parameter
	// whose value is used, or "" when the parameter is required.
	Default string
	// List says that the value is a list of sizes joined by "x" (4x4x4).
	List bool
	// Min is the smallest allowed value (of every size, for a list).
	Min int
}

// Topologies describes every registered topology, sorted by name.
func Topologies() []Info {
	var out []Info
	for _, t := range topologies.All() {
		info := Info{Name: t.name, Doc: t.doc}
		for _, p := range t.params {
			info.Params = append(info.Params, ParamInfo{Key: p.key, Doc: p.doc, Default: p.def, List: p.dims, Min: p.min})
		}
		out = append(out, info)
	}
	return out
}

// Usage returns a help text listing the spec syntax, every topology and its
// parameters, for a command line's help output.
func Usage() string {
	var b strings.Builder
	b.WriteString("Topology spec: NAME[:KEY=VALUE[,KEY=VALUE...]] (blanks may replace ':' and ',')\n")
	b.WriteString("Examples: kary:k=4,n=3  fattree2:leaves=8,hosts=8,up=4  torus:dims=4x4x4,hosts=2  mesh:dims=8x8\n")
	for _, info := range Topologies() {
		fmt.Fprintf(&b, "\n%s: %s\n", info.Name, info.Doc)
		for _, p := range info.Params {
			value := "N"
			if p.List {
				value = "AxBx..."
			}
			def := "required"
			switch {
			case p.Default == "":
			case p.Default[0] >= '0' && p.Default[0] <= '9':
				def = "default " + p.Default
			default:
				def = "default: same as " + p.Default
			}
			fmt.Fprintf(&b, "  %-14s %s [%s, >= %d]\n", p.Key+"="+value, p.Doc, def, p.Min)
		}
	}
	return b.String()
}

// Generate parses spec and generates its fabric. Use Build to get the
// topology's coordinates or levels too.
func Generate(spec string) (*lft.Fabric, error) {
	n, err := Build(spec)
	if err != nil {
		return nil, err
	}
	return n.Fabric, nil
}

// Build parses spec and builds its network (Parse, then Spec.Build).
func Build(spec string) (*Network, error) {
	s, err := Parse(spec)
	if err != nil {
		return nil, err
	}
	return s.Build()
}

// Describe parses spec and returns the size of its fabric without
// generating it.
func Describe(spec string) (Size, error) {
	s, err := Parse(spec)
	if err != nil {
		return Size{}, err
	}
	return s.Size(), nil
}

// Size returns the size of the fabric s describes, without generating it.
func (s Spec) Size() Size {
	if s.topo == nil {
		return Size{}
	}
	return s.topo.size(s)
}

// Build generates the fabric of s.
func (s Spec) Build() (*Network, error) {
	if s.topo == nil {
		return nil, errors.New("gen: Build of a Spec that did not come from Parse")
	}
	n, err := s.topo.build(s)
	if err != nil {
		return nil, fmt.Errorf("generating %s: %w", s, err)
	}
	n.Spec = s
	return n, nil
}

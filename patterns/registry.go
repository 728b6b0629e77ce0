package patterns

import (
	"orcs/registry"
	"orcs/rng"
)

// Generator produces the levels of a pattern for commsize n ≥ 1.
//
// A deterministic generator is called once per Compile with r == nil and
// scratch == nil; the result is cached and shared. A random generator is
// called once per run with a non-nil r and should build its result in the
// capacity of scratch (see Source.Levels). Generators must
// never emit a pair whose source equals its destination, nor ranks outside
// 0 … n−1.
type Generator func(n int, r *rng.Stream, scratch []Level) []Level

// entry is one registered pattern.
type entry struct {
	gen     Generator
	orcs2   Generator // ORCS 2.0's variant of gen, if it differs (Spec.ORCS2)
	random  bool
	compile func(spec Spec, n int) (*Source, error) // special patterns (ptrnvsptrn)
	// collective marks an NCCL collective: ranks are GPUs, Spec.Rails per node
	collective bool
}

// known holds the patterns by name.
var known = registry.New[*entry]("pattern", registry.ListAlso(filePrefix+"PATH"))

// Register adds the pattern name to the registry; doc is a one-line
// description and random says whether the levels differ from run to run.
// It is meant to be called from init functions and panics if name is not a
// valid registry name (letters, digits, '-' and '_'; see registry.IsName)
// or is already registered, or if gen is nil.
func Register(name, doc string, gen Generator, random bool) {
	if gen == nil {
		panic("patterns: Register of " + name + " with a nil generator")
	}
	known.Register(name, doc, &entry{gen: gen, random: random})
}

// registerORCS2 adds ORCS 2.0's variant of the registered pattern name,
// used with Spec.ORCS2. It panics if name is not registered.
func registerORCS2(name string, gen Generator) {
	e, err := known.Lookup(name)
	if err != nil || e.gen == nil {
		panic("patterns: ORCS 2.0 variant of unknown pattern " + name)
	}
	e.orcs2 = gen
}

// registerCompiler adds a pattern that builds its Source itself.
func registerCompiler(name, doc string, compile func(Spec, int) (*Source, error)) {
	known.Register(name, doc, &entry{compile: compile})
}

// Collective reports whether name is an NCCL collective, whose ranks are
// GPUs of nodes with Spec.Rails HCAs each and which is placed by node.
func Collective(name string) bool {
	e, err := known.Lookup(name)
	return err == nil && e.collective
}

// Names lists the registered pattern names, sorted.
func Names() []string { return known.Names() }

// Doc returns the one-line description of the registered pattern name.
func Doc(name string) (doc string, ok bool) { return known.Doc(name) }

// lookup returns the entry of name or an error listing the valid names.
func lookup(name string) (*entry, error) { return known.Lookup(name) }

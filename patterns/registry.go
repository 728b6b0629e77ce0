package patterns

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"

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
	doc     string
	gen     Generator
	random  bool
	compile func(spec Spec, n int) (*Source, error) // special patterns (ptrnvsptrn)
}

var (
	registryMu sync.RWMutex
	registry   = map[string]*entry{}
)

// Register adds the pattern name to the registry; doc is a one-line
// description and random says whether the levels differ from run to run.
// It is meant to be called from init functions and panics if name is empty,
// contains a colon or white space, or is already registered, or if gen is nil.
func Register(name, doc string, gen Generator, random bool) {
	if gen == nil {
		panic("patterns: Register of " + name + " with a nil generator")
	}
	register(name, &entry{doc: doc, gen: gen, random: random})
}

// registerCompiler adds a pattern that builds its Source itself.
func registerCompiler(name, doc string, compile func(Spec, int) (*Source, error)) {
	register(name, &entry{doc: doc, compile: compile})
}

func register(name string, e *entry) {
	if name == "" || strings.ContainsFunc(name, func(c rune) bool { return c == ':' || unicode.IsSpace(c) }) {
		panic(fmt.Sprintf("patterns: invalid pattern name %q", name))
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[name]; dup {
		panic("patterns: Register called twice for " + name)
	}
	registry[name] = e
}

// Names lists the registered pattern names, sorted.
func Names() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]string, 0, len(registry))
	for name := range registry {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Doc returns the one-line description of the registered pattern name.
func Doc(name string) (doc string, ok bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	e, ok := registry[name]
	if !ok {
		return "", false
	}
	return e.doc, true
}

// lookup returns the entry of name or an error listing the valid names.
func lookup(name string) (*entry, error) {
	registryMu.RLock()
	e, ok := registry[name]
	registryMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("unknown pattern %q; valid patterns: %s, or %sPATH",
			name, strings.Join(Names(), ", "), filePrefix)
	}
	return e, nil
}

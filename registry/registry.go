// Package registry keeps the named things of one family (patterns, metrics,
// topologies, workloads, …) and parses the "NAME" and "NAME:KEY=VALUE,..."
// specs that select them and set their parameters.
//
// A family makes one Registry with New and fills it from init functions:
//
//	var topologies = registry.New[*topology]("topology")
//
//	func init() { topologies.Register("kary", "k-ary n-tree", &topology{...}) }
//
// Register panics on an empty, malformed or duplicate name: a registration
// error is a bug of the program, found when the program starts. Lookup's
// error for an unknown name lists the known names and suggests the closest
// one. A Registry is safe for concurrent use.
//
// Parse reads a spec and a Reader converts its values, keeping the first
// error (see Spec and Reader).
package registry

import (
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
)

// Registry maps names to values of type T, each with a one-line
// description. Make one with New; the zero Registry is not usable.
type Registry[T any] struct {
	kind  string
	extra []string

	mu      sync.RWMutex
	entries map[string]entry[T]
	aliases map[string]string
	order   []string
}

// entry is one registered value.
type entry[T any] struct {
	doc string
	v   T
}

// An Option configures a Registry made by New.
type Option func(*options)

// options holds what the Options of New set.
type options struct {
	extra []string
}

// ListAlso makes the error of Lookup list forms after the registered names,
// for a family that also accepts names outside the registry, such as
// "file:PATH".
func ListAlso(forms ...string) Option {
	return func(o *options) { o.extra = append(o.extra, forms...) }
}

// New returns an empty registry. kind names one member of the family in
// errors and panics, e.g. "pattern" gives `unknown pattern "x" (known: …)`.
func New[T any](kind string, opts ...Option) *Registry[T] {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return &Registry[T]{
		kind:    kind,
		extra:   o.extra,
		entries: map[string]entry[T]{},
		aliases: map[string]string{},
	}
}

// Kind returns the kind given to New.
func (r *Registry[T]) Kind() string { return r.kind }

// Register adds v under name with the one-line description doc. It is
// meant to be called from init functions and panics if name is not a valid
// name (see IsName) or is already registered (as a name or an alias).
func (r *Registry[T]) Register(name, doc string, v T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.checkNew(name)
	r.entries[name] = entry[T]{doc: doc, v: v}
	r.order = append(r.order, name)
}

// Alias makes alias another name of the registered name: Lookup(alias)
// returns the value of name. Aliases are not listed by Names. Alias panics
// if name is not registered or alias is not a valid, new name.
func (r *Registry[T]) Alias(alias, name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.entries[name]; !ok {
		panic(fmt.Sprintf("registry: alias %q of unregistered %s %q", alias, r.kind, name))
	}
	r.checkNew(alias)
	r.aliases[alias] = name
}

// checkNew panics unless name is valid and unused. r.mu must be held.
func (r *Registry[T]) checkNew(name string) {
	if !IsName(name) {
		panic(fmt.Sprintf("registry: invalid %s name %q (want letters, digits, '-' or '_')", r.kind, name))
	}
	_, dup := r.entries[name]
	_, dupAlias := r.aliases[name]
	if dup || dupAlias {
		panic(fmt.Sprintf("registry: %s %q registered twice", r.kind, name))
	}
}

// Lookup returns the value registered under name or an alias of it. The
// error for an unknown name is an *UnknownError; it lists the known names
// and suggests the closest one, e.g.
//
//	unknown pattern "bisekt" (known: bisect, rand, ring); did you mean "bisect"?
func (r *Registry[T]) Lookup(name string) (T, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if a, ok := r.aliases[name]; ok {
		name = a
	}
	if e, ok := r.entries[name]; ok {
		return e.v, nil
	}
	var zero T
	names := r.sortedLocked()
	return zero, &UnknownError{
		Kind:       r.kind,
		Name:       name,
		Known:      append(names, r.extra...),
		Suggestion: Closest(name, names),
	}
}

// Doc returns the description of the registered name (or alias).
func (r *Registry[T]) Doc(name string) (doc string, ok bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if a, ok := r.aliases[name]; ok {
		name = a
	}
	e, ok := r.entries[name]
	return e.doc, ok
}

// Names returns the registered names, sorted, without the aliases.
func (r *Registry[T]) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.sortedLocked()
}

// All returns the registered names, sorted, with their values, for help
// texts. It iterates over a snapshot taken when the iteration starts.
func (r *Registry[T]) All() iter.Seq2[string, T] {
	return func(yield func(string, T) bool) {
		r.mu.RLock()
		names := r.sortedLocked()
		vals := make([]T, len(names))
		for i, n := range names {
			vals[i] = r.entries[n].v
		}
		r.mu.RUnlock()
		for i, n := range names {
			if !yield(n, vals[i]) {
				return
			}
		}
	}
}

// sortedLocked returns the names, sorted. r.mu must be held.
func (r *Registry[T]) sortedLocked() []string {
	names := slices.Clone(r.order)
	slices.Sort(names)
	return names
}

// InOrder returns the registered names in the order they were registered,
// for families whose listing order means something.
func (r *Registry[T]) InOrder() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.order)
}

// UnknownError is the error of Lookup for a name that is not registered.
type UnknownError struct {
	// Kind is the Registry's kind, e.g. "pattern".
	Kind string
	// Name is the name looked up.
	Name string
	// Known lists the registered names, sorted, and then the forms given
	// with ListAlso.
	Known []string
	// Suggestion is the known name closest to Name, or "" (see Closest).
	Suggestion string
}

// Error returns `unknown KIND "NAME" (known: A, B, C)`, followed by
// `; did you mean "X"?` when there is a suggestion.
func (e *UnknownError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "unknown %s %q (known: %s)", e.Kind, e.Name, knownList(e.Known))
	if e.Suggestion != "" {
		fmt.Fprintf(&b, "; did you mean %q?", e.Suggestion)
	}
	return b.String()
}

// knownList joins names for an error message; "none" for no names.
func knownList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// IsName reports whether s can name a registry entry: a non-empty string of
// ASCII letters, digits, '-' and '_'. These are the names Parse reads.
func IsName(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		if !isNameByte(s[i]) {
			return false
		}
	}
	return true
}

func isNameByte(c byte) bool {
	return c == '-' || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// Closest returns the candidate most like s, for "did you mean" hints: one
// that differs from s only in letter case, or else the one at the smallest
// edit distance, if that distance is at most 2 and smaller than the length
// of s (so that a one-letter name does not suggest every other one). Ties
// go to the earlier candidate. It returns "" when no candidate is close.
func Closest(s string, candidates []string) string {
	best, bestDist := "", 3
	for _, c := range candidates {
		if c == s {
			continue
		}
		if strings.EqualFold(c, s) {
			return c
		}
		if d := editDistance(s, c, bestDist); d < bestDist && d < len(s) {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance returns the Levenshtein distance between a and b, counted in
// bytes, or any value ≥ limit once it is known to be at least limit.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

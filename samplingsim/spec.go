package samplingsim

import (
	"fmt"
	"strings"

	"orcs/registry"
)

// member is a registered marking policy or workload: something selected by
// a "NAME[:KEY=VALUE,...]" spec that declares its parameters.
type member interface {
	parameters() []registry.Param
}

// lookupSpec parses text (see registry.Parse), finds its member in r and
// returns it with a Reader of the spec's parameters. The Reader reports
// keys the member does not take.
func lookupSpec[T member](r *registry.Registry[T], text string) (T, *registry.Reader, error) {
	var zero T
	s, err := registry.Parse(text)
	if err != nil {
		return zero, nil, fmt.Errorf("%s: %w", r.Kind(), err)
	}
	m, err := r.Lookup(s.Name)
	if err != nil {
		return zero, nil, err
	}
	return m, s.Reader(m.parameters()...), nil
}

// describeParams formats parameters for help texts: "key=default,...".
func describeParams(ps []registry.Param) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%s", p.Key, p.Default)
	}
	return b.String()
}

// describe formats a member for help texts: "name:key=default,... — doc",
// or "name — doc" for a member without parameters.
func describe(name, doc string, ps []registry.Param) string {
	if len(ps) > 0 {
		name += ":" + describeParams(ps)
	}
	return name + " — " + doc
}

// atLeast reads the integer parameter key, which must be at least min.
func atLeast(r *registry.Reader, key string, min int) int {
	v := r.Int(key)
	if v < min {
		r.Failf("%s=%d must be at least %d", key, v, min)
	}
	return v
}

// positive reads the integer parameter key, which must be at least 1.
func positive(r *registry.Reader, key string) int { return atLeast(r, key, 1) }

// rank reads the parameter key, which must be a rank of the job of b.
func rank(r *registry.Reader, key string, b *JobBuilder) int {
	v := r.Int(key)
	if v < 0 || v >= b.Ranks() {
		r.Failf("%s=%d is not a rank (the job has %d)", key, v, b.Ranks())
	}
	return v
}

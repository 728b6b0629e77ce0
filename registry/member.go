package registry

import (
	"fmt"
	"strings"
)

// Member is a registered thing that a "NAME[:KEY=VALUE,...]" spec selects
// and that declares its parameters (a workload, a marking or buffer
// policy, a routing).
type Member interface {
	Params() []Param
}

// LookupSpec parses text (see Parse), finds its member in r and returns it
// with a Reader of the spec's parameters. The Reader reports keys the
// member does not take. The errors name r's kind.
func LookupSpec[T Member](r *Registry[T], text string) (T, *Reader, error) {
	var zero T
	s, err := Parse(text)
	if err != nil {
		return zero, nil, fmt.Errorf("%s: %w", r.Kind(), err)
	}
	m, err := r.Lookup(s.Name)
	if err != nil {
		return zero, nil, err
	}
	return m, s.Reader(m.Params()...), nil
}

// DescribeParams formats parameters for help texts: "key=default, ...".
func DescribeParams(ps []Param) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%s", p.Key, p.Default)
	}
	return b.String()
}

// Describe formats a member for help texts: "name:key=default, ... — doc",
// or "name — doc" for a member without parameters.
func Describe(name, doc string, ps []Param) string {
	if len(ps) > 0 {
		name += ":" + DescribeParams(ps)
	}
	return name + " — " + doc
}

// IntAtLeast reads the integer parameter key, which must be at least min
// (else the Reader keeps the error).
func (r *Reader) IntAtLeast(key string, min int) int {
	v := r.Int(key)
	if v < min {
		r.Failf("%s=%d must be at least %d", key, v, min)
	}
	return v
}

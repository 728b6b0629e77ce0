package gen

import (
	"fmt"
	"strconv"
	"strings"

	"orcs/registry"
)

// maxValue bounds every number in a spec; bigger fabrics are refused by the
// size limits anyway, and the bound keeps the arithmetic far from overflow.
const maxValue = 1 << 20

// param describes one parameter of a topology.
type param struct {
	key string
	doc string
	// def is the default: a decimal number, the name of an earlier
	// parameter whose value is copied, or "" for a required parameter.
	def  string
	dims bool // the value is a list of sizes such as 4x4x4
	min  int  // smallest allowed value (of every size, for dims)
}

// Spec is a parsed and validated topology specification. The zero Spec is
// not valid; get one from Parse.
type Spec struct {
	// Name is the topology's registry name.
	Name string
	topo *topology
	vals map[string][]int
}

// String returns the canonical form of s: the name and every parameter,
// defaults included, in the topology's order, e.g. "kary:k=4,n=3".
func (s Spec) String() string {
	if s.topo == nil {
		return s.Name
	}
	var b strings.Builder
	b.WriteString(s.Name)
	for i, p := range s.topo.params {
		if i == 0 {
			b.WriteByte(':')
		} else {
			b.WriteByte(',')
		}
		b.WriteString(p.key)
		b.WriteByte('=')
		for j, v := range s.vals[p.key] {
			if j > 0 {
				b.WriteByte('x')
			}
			b.WriteString(strconv.Itoa(v))
		}
	}
	return b.String()
}

// num returns the value of the number parameter key.
func (s Spec) num(key string) int { return s.vals[key][0] }

// list returns the value of the size-list parameter key.
func (s Spec) list(key string) []int { return s.vals[key] }

// Parse parses and validates a topology spec (see the package
// documentation for the syntax, which is that of registry.Parse). Errors
// quote the spec and say what is wrong, e.g.
// `spec "kary:k=4": missing parameter n (number of switch levels)`.
// A Spec returned without error can be built: its size is within the
// limits (see Size).
func Parse(text string) (Spec, error) {
	ps, err := registry.Parse(text)
	if err != nil {
		return Spec{}, err
	}
	fail := func(err error) (Spec, error) {
		return Spec{}, fmt.Errorf("spec %q: %w", strings.TrimSpace(text), err)
	}
	t, err := topologies.Lookup(ps.Name)
	if err != nil {
		return fail(err)
	}
	s := Spec{Name: ps.Name, topo: t, vals: map[string][]int{}}
	r := ps.Reader(t.declared...)
	for _, p := range t.params {
		if ref := s.vals[p.def]; ref != nil && !r.Has(p.key) {
			s.vals[p.key] = ref // the default is an earlier parameter's value
			continue
		}
		var vals []int
		if p.dims {
			vals = r.Dims(p.key)
		} else {
			vals = []int{r.Int(p.key)}
		}
		for _, v := range vals {
			switch {
			case v < p.min:
				r.Failf("%s=%s: %s must be at least %d", p.key, format(vals), sizeWord(p), p.min)
			case v > maxValue:
				r.Failf("%s=%s: %d is too large (at most %d)", p.key, format(vals), v, maxValue)
			}
		}
		s.vals[p.key] = vals
	}
	if err := r.Err(); err != nil {
		return fail(err)
	}
	if t.check != nil {
		if err := t.check(s); err != nil {
			return fail(err)
		}
	}
	if err := t.size(s).check(); err != nil {
		return fail(err)
	}
	return s, nil
}

// format writes the value of a parameter as in a spec.
func format(vals []int) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = strconv.Itoa(v)
	}
	return strings.Join(parts, "x")
}

func sizeWord(p param) string {
	if p.dims {
		return "every size"
	}
	return p.key
}

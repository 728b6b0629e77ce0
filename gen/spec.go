package gen

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
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
// documentation for the syntax). Errors quote the spec and say what is
// wrong, e.g. `spec "kary:k=4": missing parameter n (number of switch levels)`.
// A Spec returned without error can be built: its size is within the
// limits (see Size).
func Parse(text string) (Spec, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return Spec{}, errors.New("empty topology spec; want NAME[:KEY=VALUE,...], e.g. kary:k=4,n=3")
	}
	fail := func(format string, args ...any) (Spec, error) {
		return Spec{}, fmt.Errorf("spec %q: %s", text, fmt.Sprintf(format, args...))
	}
	end := 0
	for end < len(text) && isNameChar(text[end]) {
		end++
	}
	name, rest := text[:end], text[end:]
	if name == "" {
		return fail("want a topology name first, as in kary:k=4,n=3")
	}
	switch {
	case rest == "":
	case rest[0] == ':':
		rest = rest[1:]
		if strings.TrimSpace(rest) == "" {
			return fail("nothing after ':'; want KEY=VALUE,...")
		}
	case isSpace(rest[0]):
	default:
		return fail("unexpected %q after the topology name %q; want NAME:KEY=VALUE,...", rest[0], name)
	}
	t, ok := lookup(name)
	if !ok {
		return fail("unknown topology %q; valid topologies: %s", name, strings.Join(Names(), ", "))
	}
	s := Spec{Name: name, topo: t, vals: map[string][]int{}}
	if strings.TrimSpace(rest) != "" {
		for _, piece := range strings.Split(rest, ",") {
			fields := strings.Fields(piece)
			if len(fields) == 0 {
				return fail("empty parameter (two commas in a row, or a comma at an end)")
			}
			for _, f := range fields {
				if err := s.set(f); err != nil {
					return fail("%v", err)
				}
			}
		}
	}
	for _, p := range t.params {
		if _, ok := s.vals[p.key]; ok {
			continue
		}
		switch {
		case p.def == "":
			return fail("missing parameter %s (%s)", p.key, p.doc)
		case s.vals[p.def] != nil:
			s.vals[p.key] = s.vals[p.def]
		default:
			v, err := strconv.Atoi(p.def)
			if err != nil {
				panic("gen: bad default " + p.def + " of " + name + " parameter " + p.key)
			}
			s.vals[p.key] = []int{v}
		}
	}
	if t.check != nil {
		if err := t.check(s); err != nil {
			return fail("%v", err)
		}
	}
	if err := t.size(s).check(); err != nil {
		return fail("%v", err)
	}
	return s, nil
}

// set parses one KEY=VALUE field into s.
func (s *Spec) set(field string) error {
	key, value, ok := strings.Cut(field, "=")
	switch {
	case !ok:
		return fmt.Errorf("%q is not KEY=VALUE", field)
	case key == "":
		return fmt.Errorf("%q: missing parameter name before '='", field)
	}
	var p *param
	for i := range s.topo.params {
		if s.topo.params[i].key == key {
			p = &s.topo.params[i]
		}
	}
	if p == nil {
		keys := make([]string, len(s.topo.params))
		for i, q := range s.topo.params {
			keys[i] = q.key
		}
		return fmt.Errorf("unknown parameter %q for %s; valid parameters: %s",
			key, s.Name, strings.Join(keys, ", "))
	}
	if _, dup := s.vals[key]; dup {
		return fmt.Errorf("parameter %s given twice", key)
	}
	if value == "" {
		return fmt.Errorf("parameter %s has no value", key)
	}
	parts := []string{value}
	if p.dims {
		parts = strings.Split(value, "x")
	}
	vals := make([]int, len(parts))
	for i, part := range parts {
		v, err := parseNumber(part)
		if err != nil {
			if p.dims {
				return fmt.Errorf("%s=%s: %v; want sizes joined by x, e.g. 4x4x4", key, value, err)
			}
			return fmt.Errorf("%s=%s: %v", key, value, err)
		}
		if v < p.min {
			return fmt.Errorf("%s=%s: %s must be at least %d", key, value, sizeWord(p), p.min)
		}
		vals[i] = v
	}
	s.vals[key] = vals
	return nil
}

func sizeWord(p *param) string {
	if p.dims {
		return "every size"
	}
	return p.key
}

// parseNumber parses a decimal number of at most maxValue.
func parseNumber(s string) (int, error) {
	if s == "" {
		return 0, errors.New("empty number")
	}
	v := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q is not a decimal number", s)
		}
		if v = v*10 + int(c-'0'); v > maxValue {
			return 0, fmt.Errorf("%s is too large (at most %d)", s, maxValue)
		}
	}
	return v, nil
}

func isNameChar(c byte) bool {
	return c == '-' || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

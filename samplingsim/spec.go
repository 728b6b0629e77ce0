package samplingsim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// param describes one parameter of a registered policy or workload.
type param struct {
	key, def, doc string
}

// spec is a parsed "NAME[:KEY=VALUE[,KEY=VALUE...]]" string.
type spec struct {
	name string
	vals map[string]string
}

// parseSpec parses text against the parameters allowed for its name;
// unknown or repeated keys are errors and missing keys take their defaults.
func parseSpec(kind, text string, allowed func(name string) ([]param, error)) (spec, error) {
	name, rest, _ := strings.Cut(strings.TrimSpace(text), ":")
	s := spec{name: name, vals: map[string]string{}}
	params, err := allowed(name)
	if err != nil {
		return s, err
	}
	if rest != "" {
		for field := range strings.SplitSeq(rest, ",") {
			k, v, ok := strings.Cut(field, "=")
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			if !ok || k == "" {
				return s, fmt.Errorf("%s %q: want KEY=VALUE, got %q", kind, text, field)
			}
			if !slices.ContainsFunc(params, func(p param) bool { return p.key == k }) {
				return s, fmt.Errorf("%s %q: unknown parameter %q (known: %s)", kind, text, k, paramKeys(params))
			}
			if _, dup := s.vals[k]; dup {
				return s, fmt.Errorf("%s %q: parameter %q given twice", kind, text, k)
			}
			s.vals[k] = v
		}
	}
	for _, p := range params {
		if _, ok := s.vals[p.key]; !ok {
			s.vals[p.key] = p.def
		}
	}
	return s, nil
}

func paramKeys(ps []param) string {
	if len(ps) == 0 {
		return "none"
	}
	keys := make([]string, len(ps))
	for i, p := range ps {
		keys[i] = p.key
	}
	return strings.Join(keys, ", ")
}

// int returns the integer parameter key.
func (s spec) int(key string) (int, error) {
	v, err := strconv.Atoi(s.vals[key])
	if err != nil {
		return 0, fmt.Errorf("%s: parameter %s=%q is not an integer", s.name, key, s.vals[key])
	}
	return v, nil
}

// float returns the number parameter key.
func (s spec) float(key string) (float64, error) {
	v, err := strconv.ParseFloat(s.vals[key], 64)
	if err != nil {
		return 0, fmt.Errorf("%s: parameter %s=%q is not a number", s.name, key, s.vals[key])
	}
	return v, nil
}

// str returns the parameter key as given.
func (s spec) str(key string) string { return s.vals[key] }

// describeParams formats parameters for help texts: "key=default (doc)".
func describeParams(ps []param) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%s", p.key, p.def)
	}
	return b.String()
}

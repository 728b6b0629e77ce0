package registry

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Param declares one parameter that a member of a family takes.
type Param struct {
	// Key is the parameter's name in specs.
	Key string
	// Default is the value used when a spec leaves the key out; "" makes
	// the parameter required.
	Default string
	// Doc is a short description, for help texts and the error of a
	// missing parameter.
	Doc string
}

// Keys returns the keys of params, in order.
func Keys(params []Param) []string {
	keys := make([]string, len(params))
	for i, p := range params {
		keys[i] = p.Key
	}
	return keys
}

// Reader converts the values of a Spec. Its accessors never fail: they keep
// the first error, after which they return zero values, so that a family
// reads all its parameters and checks Err once:
//
//	r := spec.Reader(params...)
//	msgs, size := r.Int("msgs"), r.Int("size")
//	if err := r.Err(); err != nil { ... }
//
// A Reader is not safe for concurrent use.
type Reader struct {
	spec     Spec
	params   []Param
	declared bool
	used     []bool // per spec.Args
	read     []string
	err      error
}

// Reader returns a Reader of s for a member that takes params.
//
// With params, a key of s that is not among them is an error (the Reader's
// first), listing the keys of params; a parameter that s leaves out takes
// its Default, and one without a default is an error when it is read.
// Reading a key that is not declared panics.
//
// Without params, the Reader does not know the keys beforehand: a key s
// leaves out is an error when it is read, and Err reports a key of s that
// was never read as unknown, listing the keys that were read.
func (s Spec) Reader(params ...Param) *Reader {
	r := &Reader{spec: s, params: params, declared: len(params) > 0, used: make([]bool, len(s.Args))}
	if r.declared {
		for _, a := range s.Args {
			if !r.isDeclared(a.Key) {
				r.err = r.unknown(a.Key, Keys(params))
				break
			}
		}
	}
	return r
}

// isDeclared reports whether key is one of the declared parameters.
func (r *Reader) isDeclared(key string) bool {
	for _, p := range r.params {
		if p.Key == key {
			return true
		}
	}
	return false
}

// unknown returns the error of a key that the member does not take.
func (r *Reader) unknown(key string, known []string) error {
	msg := fmt.Sprintf("unknown parameter %q for %s (known: %s)", key, r.spec.Name, knownList(known))
	if c := Closest(key, known); c != "" {
		msg += fmt.Sprintf("; did you mean %q?", c)
	}
	return errors.New(msg)
}

// Has reports whether the spec gives key (a default does not count).
func (r *Reader) Has(key string) bool {
	_, ok := r.spec.Value(key)
	return ok
}

// value returns the text of key: as given, or its default. ok is false
// when there is an error (recorded, or recorded now).
func (r *Reader) value(key string) (string, bool) {
	if r.err != nil {
		return "", false
	}
	if !slices.Contains(r.read, key) {
		r.read = append(r.read, key)
	}
	for i, a := range r.spec.Args {
		if a.Key == key {
			r.used[i] = true
			return a.Value, true
		}
	}
	if !r.declared {
		r.err = fmt.Errorf("missing parameter %s", key)
		return "", false
	}
	for _, p := range r.params {
		if p.Key != key {
			continue
		}
		if p.Default == "" {
			if p.Doc != "" {
				r.err = fmt.Errorf("missing parameter %s (%s)", key, p.Doc)
			} else {
				r.err = fmt.Errorf("missing parameter %s", key)
			}
			return "", false
		}
		return p.Default, true
	}
	panic(fmt.Sprintf("registry: %s reads parameter %q, which it does not declare", r.spec.Name, key))
}

// String returns the value of key as text.
func (r *Reader) String(key string) string {
	v, _ := r.value(key)
	return v
}

// Int returns the value of key as a decimal integer (an optional sign, then
// digits).
func (r *Reader) Int(key string) int {
	v, ok := r.value(key)
	if !ok {
		return 0
	}
	n, err := parseInt(v)
	if err != nil {
		r.Failf("%s=%s: %v", key, v, err)
	}
	return n
}

// parseInt parses a decimal integer with strconv.Atoi and explains its
// errors briefly.
func parseInt(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%s is out of range", v)
	}
	if err != nil {
		return 0, fmt.Errorf("%q is not an integer", v)
	}
	return n, nil
}

// Float returns the value of key as a number (strconv.ParseFloat syntax).
func (r *Reader) Float(key string) float64 {
	v, ok := r.value(key)
	if !ok {
		return 0
	}
	f, err := strconv.ParseFloat(v, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		r.Failf("%s=%s: %s is out of range", key, v, v)
		return 0
	case err != nil:
		r.Failf("%s=%s: %q is not a number", key, v, v)
		return 0
	}
	return f
}

// Bool returns the value of key as a truth value (strconv.ParseBool
// syntax: 1, t, true, 0, f, false, …).
func (r *Reader) Bool(key string) bool {
	v, ok := r.value(key)
	if !ok {
		return false
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		r.Failf("%s=%s: %q is not true or false", key, v, v)
	}
	return b
}

// Duration returns the value of key as a time.Duration (time.ParseDuration
// syntax, e.g. 100us or 1.5s).
func (r *Reader) Duration(key string) time.Duration {
	v, ok := r.value(key)
	if !ok {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		r.Failf("%s=%s: %q is not a duration such as 100us or 1.5s", key, v, v)
	}
	return d
}

// Dims returns the value of key as a list of integers joined by "x", such
// as 4x4x4 (or a single integer).
func (r *Reader) Dims(key string) []int {
	v, ok := r.value(key)
	if !ok {
		return nil
	}
	parts := strings.Split(v, "x")
	dims := make([]int, len(parts))
	for i, part := range parts {
		n, err := parseInt(part)
		if part == "" {
			err = errors.New("empty size")
		}
		if err != nil {
			r.Failf("%s=%s: %v; want sizes joined by x, e.g. 4x4x4", key, v, err)
			return nil
		}
		dims[i] = n
	}
	return dims
}

// Fail records err as the Reader's error unless it has one already, for
// checks of the values that the family makes itself.
func (r *Reader) Fail(err error) {
	if r.err == nil && err != nil {
		r.err = err
	}
}

// Failf is Fail of an error formatted as fmt.Errorf does.
func (r *Reader) Failf(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
}

// Err returns the first error: an unknown key, a missing parameter, a value
// that did not convert, or one recorded by Fail. Without one, it reports a
// key of the spec that was never read: as unknown (listing the keys read)
// for a Reader without declared parameters, as unused for one with them.
func (r *Reader) Err() error {
	if r.err != nil {
		return r.err
	}
	for i, a := range r.spec.Args {
		if r.used[i] {
			continue
		}
		if r.declared {
			return fmt.Errorf("parameter %s=%s is not used by %s", a.Key, a.Value, r.spec.Name)
		}
		return r.unknown(a.Key, r.read)
	}
	return nil
}

package registry

import (
	"errors"
	"fmt"
	"strings"
)

// Spec is a parsed spec: a name and its parameters in the order given.
//
// The syntax, read by Parse, is
//
//	NAME
//	NAME:KEY=VALUE[,KEY=VALUE...]
//
// for example "kary:k=4,n=3" or "random:msgs=8". NAME and every KEY are
// made of ASCII letters, digits, '-' and '_' (see IsName). A VALUE is
// any non-empty text without commas and blanks; it may hold '=' and ':'
// (as in "pattern:name=file:p.txt"). Blanks around the spec, the ':', the
// commas and the '=' are ignored, and blanks may stand for the ':' and
// the commas, so that "kary k=4 n=3" (a command line's words joined by
// blanks) is "kary:k=4,n=3". A key may be given only once.
//
// Which keys a name takes, their defaults and the meaning of the values
// are up to the family; a Reader checks and converts them.
type Spec struct {
	// Name is the name before the parameters.
	Name string
	// Args are the parameters in the order given.
	Args []Arg
}

// Arg is one KEY=VALUE parameter of a Spec.
type Arg struct {
	Key, Value string
}

// String returns the canonical form of s: "NAME", or "NAME:K=V,K=V" with the
// parameters in the order given. Parse of the canonical form gives s again.
func (s Spec) String() string {
	var b strings.Builder
	b.WriteString(s.Name)
	for i, a := range s.Args {
		if i == 0 {
			b.WriteByte(':')
		} else {
			b.WriteByte(',')
		}
		b.WriteString(a.Key)
		b.WriteByte('=')
		b.WriteString(a.Value)
	}
	return b.String()
}

// Value returns the value of key as given in s.
func (s Spec) Value(key string) (value string, ok bool) {
	for _, a := range s.Args {
		if a.Key == key {
			return a.Value, true
		}
	}
	return "", false
}

// SyntaxError is the error of Parse: the spec and what is wrong with it.
type SyntaxError struct {
	// Spec is the text given to Parse, without surrounding blanks.
	Spec string
	// Problem says what is wrong.
	Problem string
}

// Error returns `spec "TEXT": PROBLEM`, or the problem alone for an empty
// spec.
func (e *SyntaxError) Error() string {
	if e.Spec == "" {
		return e.Problem
	}
	return fmt.Sprintf("spec %q: %s", e.Spec, e.Problem)
}

// errEmpty is the problem of an empty spec.
const errEmpty = "empty spec; want NAME or NAME:KEY=VALUE,..."

// Parse parses a spec (see Spec for the syntax). Its errors are
// *SyntaxErrors that quote the spec, e.g.
// `spec "kary:k=4,k=5": parameter k given twice`.
func Parse(text string) (Spec, error) {
	p := parser{text: strings.TrimFunc(text, isBlankRune)}
	s, err := p.parse()
	if err != nil {
		return Spec{}, &SyntaxError{Spec: p.text, Problem: err.Error()}
	}
	return s, nil
}

// parser reads one spec.
type parser struct {
	text string
	pos  int
}

func (p *parser) parse() (Spec, error) {
	if p.text == "" {
		return Spec{}, errors.New(errEmpty)
	}
	name := p.run(isNameByte)
	if name == "" {
		return Spec{}, errors.New("want a name first, as in NAME:KEY=VALUE")
	}
	s := Spec{Name: name}
	blank := p.skipBlanks()
	switch {
	case p.end():
		return s, nil
	case p.peek() == ':':
		p.pos++
		p.skipBlanks()
		if p.end() {
			return Spec{}, errors.New("nothing after ':'; want KEY=VALUE,...")
		}
	case !blank:
		return Spec{}, fmt.Errorf("unexpected %q after the name %q; want NAME:KEY=VALUE,...", p.rune(), name)
	}
	for {
		if p.peek() == ',' {
			return Spec{}, errors.New("empty parameter (two commas in a row, or a comma at an end)")
		}
		a, err := p.arg()
		if err != nil {
			return Spec{}, err
		}
		if _, dup := s.Value(a.Key); dup {
			return Spec{}, fmt.Errorf("parameter %s given twice", a.Key)
		}
		s.Args = append(s.Args, a)
		p.skipBlanks()
		if p.end() {
			return s, nil
		}
		if p.peek() == ',' {
			p.pos++
			p.skipBlanks()
			if p.end() {
				return Spec{}, errors.New("empty parameter (two commas in a row, or a comma at an end)")
			}
		}
	}
}

// arg reads one KEY=VALUE at a non-blank byte other than a comma.
func (p *parser) arg() (Arg, error) {
	start := p.pos
	key := p.run(func(c byte) bool { return c != '=' && c != ',' && !isBlank(c) })
	p.skipBlanks()
	if p.end() || p.peek() != '=' {
		return Arg{}, fmt.Errorf("%q is not KEY=VALUE", key)
	}
	p.pos++
	p.skipBlanks()
	value := p.run(func(c byte) bool { return c != ',' && !isBlank(c) })
	switch {
	case key == "":
		return Arg{}, fmt.Errorf("%q: missing parameter name before '='", p.text[start:p.pos])
	case !IsName(key):
		return Arg{}, fmt.Errorf("bad parameter name %q (want letters, digits, '-' or '_')", key)
	case value == "":
		return Arg{}, fmt.Errorf("parameter %s has no value", key)
	}
	return Arg{Key: key, Value: value}, nil
}

func (p *parser) end() bool  { return p.pos >= len(p.text) }
func (p *parser) peek() byte { return p.text[p.pos] }

// rune returns the character at the position, for messages.
func (p *parser) rune() rune {
	for _, r := range p.text[p.pos:] {
		return r
	}
	return 0
}

// run consumes and returns the longest run of bytes that satisfy ok.
func (p *parser) run(ok func(byte) bool) string {
	start := p.pos
	for !p.end() && ok(p.peek()) {
		p.pos++
	}
	return p.text[start:p.pos]
}

// skipBlanks consumes blanks and reports whether there were any.
func (p *parser) skipBlanks() bool {
	return p.run(isBlank) != ""
}

// isBlank reports whether c is an ASCII blank: space, tab or line break.
func isBlank(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func isBlankRune(r rune) bool { return r < 0x80 && isBlank(byte(r)) }

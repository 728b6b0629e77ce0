package registry

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

func fruits() *Registry[int] {
	r := New[int]("fruit")
	r.Register("pear", "a pear", 3)
	r.Register("apple", "an apple", 1)
	r.Register("banana", "a banana", 2)
	r.Alias("malus", "apple")
	return r
}

func TestRegistry(t *testing.T) {
	r := fruits()
	if r.Kind() != "fruit" {
		t.Errorf("Kind() = %q", r.Kind())
	}
	for name, want := range map[string]int{"apple": 1, "banana": 2, "pear": 3, "malus": 1} {
		if v, err := r.Lookup(name); err != nil || v != want {
			t.Errorf("Lookup(%q) = %d, %v; want %d", name, v, err, want)
		}
	}
	if got := r.Names(); !slices.Equal(got, []string{"apple", "banana", "pear"}) {
		t.Errorf("Names() = %v", got)
	}
	if got := r.InOrder(); !slices.Equal(got, []string{"pear", "apple", "banana"}) {
		t.Errorf("InOrder() = %v", got)
	}
	r.Names()[0] = "changed"
	if r.Names()[0] != "apple" {
		t.Error("Names shares its slice with the registry")
	}
	var all []string
	for name, v := range r.All() {
		all = append(all, fmt.Sprint(name, "=", v))
	}
	if want := []string{"apple=1", "banana=2", "pear=3"}; !slices.Equal(all, want) {
		t.Errorf("All() = %v, want %v", all, want)
	}
	for name := range r.All() {
		if name != "apple" {
			t.Errorf("All() after a break went on to %s", name)
		}
		break
	}
	if doc, ok := r.Doc("banana"); !ok || doc != "a banana" {
		t.Errorf("Doc(banana) = %q, %v", doc, ok)
	}
	if doc, ok := r.Doc("malus"); !ok || doc != "an apple" {
		t.Errorf("Doc(malus) = %q, %v", doc, ok)
	}
	if doc, ok := r.Doc("cherry"); ok || doc != "" {
		t.Errorf("Doc(cherry) = %q, %v", doc, ok)
	}
}

func TestLookupUnknown(t *testing.T) {
	r := fruits()
	tests := []struct{ name, want string }{
		{"cherry", `unknown fruit "cherry" (known: apple, banana, pear)`},
		{"banan", `unknown fruit "banan" (known: apple, banana, pear); did you mean "banana"?`},
		{"Pear", `unknown fruit "Pear" (known: apple, banana, pear); did you mean "pear"?`},
		{"aple", `unknown fruit "aple" (known: apple, banana, pear); did you mean "apple"?`},
		{"", `unknown fruit "" (known: apple, banana, pear)`},
	}
	for _, tt := range tests {
		v, err := r.Lookup(tt.name)
		if err == nil || err.Error() != tt.want || v != 0 {
			t.Errorf("Lookup(%q) = %d, %v; want error %s", tt.name, v, err, tt.want)
		}
		var u *UnknownError
		if !errors.As(err, &u) || u.Kind != "fruit" || u.Name != tt.name {
			t.Errorf("Lookup(%q) error %#v is not an *UnknownError", tt.name, err)
		}
	}
	empty := New[string]("engine")
	if _, err := empty.Lookup("x"); err == nil || err.Error() != `unknown engine "x" (known: none)` {
		t.Errorf("empty registry: %v", err)
	}
	files := New[int]("pattern", ListAlso("file:PATH"))
	files.Register("ring", "", 1)
	if _, err := files.Lookup("rign"); err == nil || err.Error() != `unknown pattern "rign" (known: ring, file:PATH); did you mean "ring"?` {
		t.Errorf("ListAlso: %v", err)
	}
}

// mustPanic runs f and reports whether it panicked with a message containing want.
func mustPanic(t *testing.T, what, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Errorf("%s did not panic", what)
			return
		}
		if msg := fmt.Sprint(r); !strings.Contains(msg, want) {
			t.Errorf("%s panicked with %q, want it to contain %q", what, msg, want)
		}
	}()
	f()
}

func TestRegisterPanics(t *testing.T) {
	for _, name := range []string{"", "a b", "file:x", "k=v", "a,b", "ü", " pear"} {
		mustPanic(t, fmt.Sprintf("Register(%q)", name), "invalid fruit name", func() { fruits().Register(name, "", 0) })
	}
	mustPanic(t, "duplicate Register", `fruit "pear" registered twice`, func() { fruits().Register("pear", "again", 4) })
	mustPanic(t, "Register of an alias", `fruit "malus" registered twice`, func() { fruits().Register("malus", "", 4) })
	mustPanic(t, "duplicate Alias", `fruit "malus" registered twice`, func() { fruits().Alias("malus", "pear") })
	mustPanic(t, "Alias of a name", `fruit "pear" registered twice`, func() { fruits().Alias("pear", "apple") })
	mustPanic(t, "Alias of an unknown name", `alias "x" of unregistered fruit "cherry"`, func() { fruits().Alias("x", "cherry") })
	mustPanic(t, "invalid Alias", "invalid fruit name", func() { fruits().Alias("", "pear") })
	// A failed registration leaves the registry as it was.
	r := fruits()
	func() {
		defer func() { _ = recover() }()
		r.Register("pear", "again", 4)
	}()
	if v, _ := r.Lookup("pear"); v != 3 || len(r.Names()) != 3 {
		t.Errorf("after a duplicate: pear = %d, names %v", v, r.Names())
	}
}

func TestConcurrentReaders(t *testing.T) {
	r := fruits()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 200 {
				if v, err := r.Lookup("banana"); err != nil || v != 2 {
					t.Errorf("Lookup(banana) = %d, %v", v, err)
				}
				_, _ = r.Lookup("cherry")
				_ = r.Names()
				_, _ = r.Doc("pear")
			}
			if i == 0 {
				r.Register("cherry", "a cherry", 4)
			}
		})
	}
	wg.Wait()
	if v, err := r.Lookup("cherry"); err != nil || v != 4 {
		t.Errorf("Lookup(cherry) = %d, %v", v, err)
	}
}

func TestClosest(t *testing.T) {
	names := []string{"bisect", "bisect_fb_sym", "k", "n", "ring", "tree"}
	tests := []struct{ in, want string }{
		{"bisekt", "bisect"},
		{"bsect", "bisect"},
		{"BISECT", "bisect"},
		{"bisect_fb", ""}, // 4 edits from either
		{"rign", "ring"},  // a swap is 2 edits
		{"tre", "tree"},
		{"m", ""}, // 1 edit from k and n, but as long as itself
		{"K", "k"},
		{"ab", ""},
		{"", ""},
		{"ring", ""}, // the name itself is no suggestion
		{"xxxxxxxx", ""},
	}
	for _, tt := range tests {
		if got := Closest(tt.in, names); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"flaw", "lawn", 2}, {"ring", "rign", 2}, {"abc", "abc", 0},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b, 100); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := editDistance(tt.b, tt.a, 100); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.b, tt.a, got, tt.want)
		}
		if got := editDistance(tt.a, tt.b, 2); min(got, 2) != min(tt.want, 2) {
			t.Errorf("editDistance(%q, %q, limit 2) = %d, want %d", tt.a, tt.b, got, min(tt.want, 2))
		}
	}
}

func TestIsName(t *testing.T) {
	for _, s := range []string{"a", "kary", "torus-2QoS", "bisect_fb_sym", "2neighbor", "-"} {
		if !IsName(s) {
			t.Errorf("IsName(%q) = false", s)
		}
	}
	for _, s := range []string{"", "a b", "a:b", "a.b", "é", "a=b", "a,b"} {
		if IsName(s) {
			t.Errorf("IsName(%q) = true", s)
		}
	}
}

func ExampleRegistry_Lookup() {
	r := New[int]("pattern")
	r.Register("bisect", "pairs of neighbours", 1)
	r.Register("ring", "a ring", 2)
	_, err := r.Lookup("bisekt")
	fmt.Println(err)
	// Output: unknown pattern "bisekt" (known: bisect, ring); did you mean "bisect"?
}

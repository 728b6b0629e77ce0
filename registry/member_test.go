package registry

import (
	"strings"
	"testing"
)

// fruit is a member for the tests.
type fruit struct{ params []Param }

func (f *fruit) Params() []Param { return f.params }

// TestLookupSpec checks that a spec is parsed, its member found and its
// parameters read with the member's declarations, and that every error
// names the family.
func TestLookupSpec(t *testing.T) {
	r := New[*fruit]("fruit")
	r.Register("apple", "a fruit", &fruit{params: []Param{{Key: "n", Default: "2", Doc: "count"}}})
	m, rd, err := LookupSpec(r, "apple:n=5")
	if err != nil || m == nil || rd.IntAtLeast("n", 1) != 5 || rd.Err() != nil {
		t.Fatalf("LookupSpec(apple:n=5) = %v, %v", m, err)
	}
	_, rd, _ = LookupSpec(r, "apple")
	if rd.IntAtLeast("n", 3); rd.Err() == nil || !strings.Contains(rd.Err().Error(), "n=2 must be at least 3") {
		t.Errorf("IntAtLeast(n, 3) of the default 2: %v", rd.Err())
	}
	for _, c := range []struct{ text, want string }{
		{"apple:n=1,x=2", "x"},
		{"pear", `unknown fruit "pear"`},
		{"apple:", "fruit: "},
	} {
		_, rd, err := LookupSpec(r, c.text)
		if err == nil && rd != nil {
			err = rd.Err()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("LookupSpec(%q): %v, want an error with %q", c.text, err, c.want)
		}
	}
	if got, want := Describe("apple", "a fruit", r.mustParams("apple")), "apple:n=2 — a fruit"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
	if got := Describe("plain", "no parameters", nil); got != "plain — no parameters" {
		t.Errorf("Describe without parameters = %q", got)
	}
}

// mustParams returns the parameters of the member name of r.
func (r *Registry[T]) mustParams(name string) []Param {
	v, err := r.Lookup(name)
	if err != nil {
		panic(err)
	}
	return any(v).(Member).Params()
}

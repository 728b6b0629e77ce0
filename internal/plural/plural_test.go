package plural

import (
	"strings"
	"testing"
)

func TestN(t *testing.T) {
	cases := []struct {
		n    int
		noun string
		want string
	}{
		{1, "link", "1 link"},
		{0, "link", "0 links"},
		{2, "link", "2 links"},
		{-1, "run", "-1 run"},
		{1, "switch", "1 switch"},
		{16, "switch", "16 switches"},
		{3, "entry", "3 entries"},
		{3, "key", "3 keys"},
		{2, "bus", "2 buses"},
		{4, "box", "4 boxes"},
		{2, "ordered pair", "2 ordered pairs"},
		{1, "region", "1 region"},
		{1000, "run", "1000 runs"},
	}
	for _, c := range cases {
		if got := N(c.n, c.noun); got != c.want {
			t.Errorf("N(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
	if Verb(1, "lies", "lie") != "lies" || Verb(2, "lies", "lie") != "lie" || Verb(0, "its", "their") != "their" {
		t.Error("Verb")
	}
	if got := N(int64(1), "host"); got != "1 host" {
		t.Errorf("int64: %q", got)
	}
}

// TestNounProperty checks, for every count, that only 1 and −1 keep the
// singular and that every plural starts with the singular's stem.
func TestNounProperty(t *testing.T) {
	for _, noun := range []string{"link", "run", "switch", "entry", "host", "level", "window", "region"} {
		for n := -3; n <= 300; n++ {
			got := Noun(n, noun)
			if (got == noun) != (n == 1 || n == -1) {
				t.Fatalf("Noun(%d, %q) = %q", n, noun, got)
			}
			if !strings.HasPrefix(got, strings.TrimSuffix(noun, "y")) {
				t.Fatalf("Noun(%d, %q) = %q: not the same word", n, noun, got)
			}
		}
	}
}

// TestSome: the first n items, then how many are left out.
func TestSome(t *testing.T) {
	items := []string{"a", "b", "c", "d"}
	for _, c := range []struct {
		n    int
		want string
	}{{0, " and 4 more"}, {2, "a, b and 2 more"}, {3, "a, b, c and 1 more"}, {4, "a, b, c, d"}, {9, "a, b, c, d"}} {
		if got := Some(items, c.n); got != c.want {
			t.Errorf("Some(%v, %d) = %q, want %q", items, c.n, got, c.want)
		}
	}
	if got := Some(nil, 5); got != "" {
		t.Errorf("Some(nil) = %q", got)
	}
}

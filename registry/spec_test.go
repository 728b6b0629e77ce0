package registry

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want string // canonical form
	}{
		{"kary", "kary"},
		{"  kary\t", "kary"},
		{"kary:k=8,n=3", "kary:k=8,n=3"},
		{"kary:n=3,k=8", "kary:n=3,k=8"},
		{"kary k=4 n=3", "kary:k=4,n=3"},
		{"  kary k=4 n=3  ", "kary:k=4,n=3"},
		{"kary: k=4, n=3", "kary:k=4,n=3"},
		{"kary:k=4 n=3", "kary:k=4,n=3"},
		{"kary : k = 4 , n = 3", "kary:k=4,n=3"},
		{"kary\n:k=4\r\n,n=3", "kary:k=4,n=3"},
		{"fattree3:pods=6,leaves=24,hosts=32,up=16", "fattree3:pods=6,leaves=24,hosts=32,up=16"},
		{"torus:dims=4x4x4,hosts=2", "torus:dims=4x4x4,hosts=2"},
		{"torus dims=4x4x4 hosts=2", "torus:dims=4x4x4,hosts=2"},
		{"dragonfly:a=8,h=4,p=4", "dragonfly:a=8,h=4,p=4"},
		{"random:msgs=8", "random:msgs=8"},
		{"random:msgs = 8", "random:msgs=8"},
		{"hotspot:hot=3,msgs=50,size=4096,gbps=12.5", "hotspot:hot=3,msgs=50,size=4096,gbps=12.5"},
		{"stencil:x=8,y=4,iters=2", "stencil:x=8,y=4,iters=2"},
		{"naive-reduce:arrays=50,size=4096", "naive-reduce:arrays=50,size=4096"},
		{"credit-threshold:threshold=1", "credit-threshold:threshold=1"},
		{"probabilistic:min=0,max=4", "probabilistic:min=0,max=4"},
		{"pattern:name=file:p.txt", "pattern:name=file:p.txt"},
		{"pattern:name=file:a=b", "pattern:name=file:a=b"},
		{"a:k==", "a:k=="},
		{"a:k=-1", "a:k=-1"},
		{"a:k=é", "a:k=é"},
		{"A_b-9:K_1=x", "A_b-9:K_1=x"},
	}
	for _, tt := range tests {
		s, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got := s.String(); got != tt.want {
			t.Errorf("Parse(%q) = %q, want %q", tt.in, got, tt.want)
		}
		again, err := Parse(s.String())
		if err != nil || !equalSpecs(again, s) {
			t.Errorf("Parse(%q) = %v, %v; want %v", s.String(), again, err, s)
		}
	}
	s, _ := Parse("hotspot: hot=3 , gbps=12.5")
	if want := []Arg{{"hot", "3"}, {"gbps", "12.5"}}; s.Name != "hotspot" || !slices.Equal(s.Args, want) {
		t.Errorf("Parse = %#v", s)
	}
	if v, ok := s.Value("gbps"); !ok || v != "12.5" {
		t.Errorf("Value(gbps) = %q, %v", v, ok)
	}
	if v, ok := s.Value("msgs"); ok || v != "" {
		t.Errorf("Value(msgs) = %q, %v", v, ok)
	}
}

func equalSpecs(a, b Spec) bool {
	return a.Name == b.Name && slices.Equal(a.Args, b.Args)
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in   string
		want string // the whole error message
	}{
		{"", "empty spec; want NAME or NAME:KEY=VALUE,..."},
		{" \t\n", "empty spec; want NAME or NAME:KEY=VALUE,..."},
		{"=4", `spec "=4": want a name first, as in NAME:KEY=VALUE`},
		{":k=4", `spec ":k=4": want a name first, as in NAME:KEY=VALUE`},
		{"kary:", `spec "kary:": nothing after ':'; want KEY=VALUE,...`},
		{"kary :  ", `spec "kary :": nothing after ':'; want KEY=VALUE,...`},
		{"kary;k=4", `spec "kary;k=4": unexpected ';' after the name "kary"; want NAME:KEY=VALUE,...`},
		{"karyé", `spec "karyé": unexpected 'é' after the name "kary"; want NAME:KEY=VALUE,...`},
		{"kary,k=4", `spec "kary,k=4": unexpected ',' after the name "kary"; want NAME:KEY=VALUE,...`},
		{"kary:k=4,,n=2", `spec "kary:k=4,,n=2": empty parameter (two commas in a row, or a comma at an end)`},
		{"kary:k=4, ,n=2", `spec "kary:k=4, ,n=2": empty parameter (two commas in a row, or a comma at an end)`},
		{"kary:k=4,n=2,", `spec "kary:k=4,n=2,": empty parameter (two commas in a row, or a comma at an end)`},
		{"kary:,k=4", `spec "kary:,k=4": empty parameter (two commas in a row, or a comma at an end)`},
		{"kary:k=4,n", `spec "kary:k=4,n": "n" is not KEY=VALUE`},
		{"kary k", `spec "kary k": "k" is not KEY=VALUE`},
		{"kary:k=4 n 3", `spec "kary:k=4 n 3": "n" is not KEY=VALUE`},
		{"kary:k:4", `spec "kary:k:4": "k:4" is not KEY=VALUE`},
		{"kary:k=4,=2", `spec "kary:k=4,=2": "=2": missing parameter name before '='`},
		{"kary:k=4,n=", `spec "kary:k=4,n=": parameter n has no value`},
		{"kary:k=,n=2", `spec "kary:k=,n=2": parameter k has no value`},
		{"queue:threshold=", `spec "queue:threshold=": parameter threshold has no value`},
		{"kary:k.x=4", `spec "kary:k.x=4": bad parameter name "k.x" (want letters, digits, '-' or '_')`},
		{"kary:k=4,k=5,n=2", `spec "kary:k=4,k=5,n=2": parameter k given twice`},
		{"kary:k=4 k = 4", `spec "kary:k=4 k = 4": parameter k given twice`},
	}
	for _, tt := range tests {
		s, err := Parse(tt.in)
		if err == nil {
			t.Errorf("Parse(%q) = %v, want error %q", tt.in, s, tt.want)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("Parse(%q) error\n got: %s\nwant: %s", tt.in, err, tt.want)
		}
		if _, ok := err.(*SyntaxError); !ok {
			t.Errorf("Parse(%q) error is a %T, want a *SyntaxError", tt.in, err)
		}
	}
}

func mustParse(t *testing.T, text string) Spec {
	t.Helper()
	s, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestReaderDeclared(t *testing.T) {
	params := []Param{
		{Key: "n", Default: "7", Doc: "count"},
		{Key: "f", Default: "0.5"},
		{Key: "b", Default: "false"},
		{Key: "d", Default: "1ms"},
		{Key: "s", Default: "x"},
		{Key: "dims", Default: "4x4"},
		{Key: "req", Doc: "a required one"},
	}
	r := mustParse(t, "t:req=1,n=-3,f=2.5e3,b=true,d=100us,s=file:a,dims=2x3x4").Reader(params...)
	n, f, b, d, s, dims, req := r.Int("n"), r.Float("f"), r.Bool("b"), r.Duration("d"), r.String("s"), r.Dims("dims"), r.Int("req")
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if n != -3 || f != 2500 || !b || d != 100*time.Microsecond || s != "file:a" || !slices.Equal(dims, []int{2, 3, 4}) || req != 1 {
		t.Errorf("got %d %g %v %v %q %v %d", n, f, b, d, s, dims, req)
	}
	if !r.Has("n") || r.Has("nope") {
		t.Error("Has")
	}

	r = mustParse(t, "t:req=2").Reader(params...)
	n, f, b, d, s, dims, req = r.Int("n"), r.Float("f"), r.Bool("b"), r.Duration("d"), r.String("s"), r.Dims("dims"), r.Int("req")
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 7 || f != 0.5 || b || d != time.Millisecond || s != "x" || !slices.Equal(dims, []int{4, 4}) || req != 2 {
		t.Errorf("defaults: got %d %g %v %v %q %v %d", n, f, b, d, s, dims, req)
	}
	if r.Has("n") {
		t.Error("Has counts a default")
	}
}

func TestReaderErrors(t *testing.T) {
	params := []Param{
		{Key: "msgs", Default: "10"},
		{Key: "size", Default: "4096"},
		{Key: "gbps", Default: "0"},
		{Key: "on", Default: "true"},
		{Key: "wait", Default: "1s"},
		{Key: "dims", Default: "2x2"},
		{Key: "n", Doc: "number of levels"},
		{Key: "m"},
	}
	read := func(r *Reader) {
		r.Int("msgs")
		r.Int("size")
		r.Float("gbps")
		r.Bool("on")
		r.Duration("wait")
		r.Dims("dims")
		r.Int("n")
		r.Int("m")
	}
	tests := []struct{ in, want string }{
		{"w:msgs=8,sise=2,n=1,m=1", `unknown parameter "sise" for w (known: msgs, size, gbps, on, wait, dims, n, m); did you mean "size"?`},
		{"w:x=1,msgs=x", `unknown parameter "x" for w (known: msgs, size, gbps, on, wait, dims, n, m)`},
		{"w:MSGS=1", `unknown parameter "MSGS" for w (known: msgs, size, gbps, on, wait, dims, n, m); did you mean "msgs"?`},
		{"w:msgs=eight,size=x,n=1,m=1", `msgs=eight: "eight" is not an integer`},
		{"w:msgs=4.5,n=1,m=1", `msgs=4.5: "4.5" is not an integer`},
		{"w:msgs=99999999999999999999,n=1,m=1", `msgs=99999999999999999999: 99999999999999999999 is out of range`},
		{"w:gbps=fast,n=1,m=1", `gbps=fast: "fast" is not a number`},
		{"w:gbps=1e999,n=1,m=1", `gbps=1e999: 1e999 is out of range`},
		{"w:on=yes,n=1,m=1", `on=yes: "yes" is not true or false`},
		{"w:wait=5,n=1,m=1", `wait=5: "5" is not a duration such as 100us or 1.5s`},
		{"w:dims=4xx4,n=1,m=1", `dims=4xx4: empty size; want sizes joined by x, e.g. 4x4x4`},
		{"w:dims=4x4x,n=1,m=1", `dims=4x4x: empty size; want sizes joined by x, e.g. 4x4x4`},
		{"w:dims=4X4,n=1,m=1", `dims=4X4: "4X4" is not an integer; want sizes joined by x, e.g. 4x4x4`},
		{"w:dims=4*4,n=1,m=1", `dims=4*4: "4*4" is not an integer; want sizes joined by x, e.g. 4x4x4`},
		{"w:m=1", `missing parameter n (number of levels)`},
		{"w:n=1", `missing parameter m`},
	}
	for _, tt := range tests {
		r := mustParse(t, tt.in).Reader(params...)
		read(r)
		if err := r.Err(); err == nil || err.Error() != tt.want {
			t.Errorf("%s: error %v, want %s", tt.in, err, tt.want)
		}
	}

	// No parameters declared: any key is unknown.
	r := mustParse(t, "credits:x=1").Reader()
	if err := r.Err(); err == nil || err.Error() != `unknown parameter "x" for credits (known: none)` {
		t.Errorf("no parameters: %v", err)
	}
	// A declared parameter that is never read is reported.
	r = mustParse(t, "w:size=3").Reader(params...)
	r.Int("msgs")
	if err := r.Err(); err == nil || err.Error() != "parameter size=3 is not used by w" {
		t.Errorf("unused: %v", err)
	}
	mustPanic(t, "reading an undeclared key", `w reads parameter "other", which it does not declare`, func() {
		mustParse(t, "w").Reader(params...).Int("other")
	})
}

func TestReaderUndeclared(t *testing.T) {
	r := mustParse(t, "w:a=1,b=2,c=3").Reader()
	if a, b := r.Int("a"), r.Int("b"); a != 1 || b != 2 {
		t.Errorf("a, b = %d, %d", a, b)
	}
	r.Int("a")
	if err := r.Err(); err == nil || err.Error() != `unknown parameter "c" for w (known: a, b)` {
		t.Errorf("unread key: %v", err)
	}
	r = mustParse(t, "w:a=1").Reader()
	if r.Int("a") != 1 || r.Int("b") != 0 {
		t.Error("values")
	}
	if err := r.Err(); err == nil || err.Error() != "missing parameter b" {
		t.Errorf("missing key: %v", err)
	}
}

func TestReaderSticky(t *testing.T) {
	r := mustParse(t, "w:a=x,b=y,c=3").Reader()
	if a, b, c := r.Int("a"), r.Float("b"), r.Int("c"); a != 0 || b != 0 || c != 0 {
		t.Errorf("after an error: %d %g %d", a, b, c)
	}
	r.Failf("later")
	r.Fail(fmt.Errorf("later too"))
	if err := r.Err(); err == nil || err.Error() != `a=x: "x" is not an integer` {
		t.Errorf("first error: %v", err)
	}
	r = mustParse(t, "w:a=1").Reader()
	r.Fail(nil)
	r.Int("a")
	if err := r.Err(); err != nil {
		t.Errorf("Fail(nil): %v", err)
	}
	r.Failf("a=%d is too big", 1)
	r.Fail(fmt.Errorf("second"))
	if err := r.Err(); err == nil || err.Error() != "a=1 is too big" {
		t.Errorf("Failf: %v", err)
	}
}

func TestKeys(t *testing.T) {
	if got := Keys([]Param{{Key: "a"}, {Key: "b"}}); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("Keys = %v", got)
	}
}

// FuzzParse checks that Parse never panics and that what it accepts is well
// formed and comes back unchanged from its canonical form.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"kary:k=8,n=3", "fattree3:pods=6,leaves=24,hosts=32,up=16", "torus:dims=4x4x4,hosts=2",
		"dragonfly:a=8,h=4,p=4", "random:msgs=8", "hotspot:hot=0,gbps=12.5", "stencil:x=8,y=8",
		"kary k=4 n=3", " kary : k = 4 , n = 3 ", "pattern:name=file:a=b", "kary:", "kary:k=4,,n=2",
		"kary:k=4,n=2,", "=4", "kary;k=4", "kary:k=4,k=5", "a:k==", "", "\xff", "a:k=\xff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := Parse(text)
		if err != nil {
			if s.Name != "" || s.Args != nil {
				t.Fatalf("Parse(%q) failed (%v) but returned %#v", text, err, s)
			}
			if !strings.HasPrefix(err.Error(), "spec ") && err.Error() != errEmpty {
				t.Fatalf("Parse(%q): error %q does not quote the spec", text, err)
			}
			return
		}
		if !IsName(s.Name) {
			t.Fatalf("Parse(%q): bad name %q", text, s.Name)
		}
		seen := map[string]bool{}
		for _, a := range s.Args {
			if !IsName(a.Key) || seen[a.Key] {
				t.Fatalf("Parse(%q): bad or repeated key %q", text, a.Key)
			}
			seen[a.Key] = true
			if a.Value == "" || strings.ContainsAny(a.Value, ", \t\n\r\v\f") {
				t.Fatalf("Parse(%q): bad value %q", text, a.Value)
			}
		}
		again, err := Parse(s.String())
		if err != nil || !equalSpecs(again, s) {
			t.Fatalf("Parse(%q) = %q, which parses to %#v, %v", text, s, again, err)
		}
	})
}

func ExampleParse() {
	s, err := Parse("torus dims=4x4x4 hosts=2")
	if err != nil {
		fmt.Println(err)
		return
	}
	r := s.Reader(
		Param{Key: "dims", Doc: "switches per dimension"},
		Param{Key: "hosts", Default: "1", Doc: "hosts per switch"},
	)
	dims, hosts := r.Dims("dims"), r.Int("hosts")
	if err := r.Err(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s, dims, hosts)
	_, err = Parse("torus:dims=4x4,,hosts=2")
	fmt.Println(err)
	// Output:
	// torus:dims=4x4x4,hosts=2 [4 4 4] 2
	// spec "torus:dims=4x4,,hosts=2": empty parameter (two commas in a row, or a comma at an end)
}

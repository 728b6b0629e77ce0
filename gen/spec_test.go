package gen

import (
	"fmt"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"kary:k=4,n=3", "kary:k=4,n=3"},
		{"kary:n=3,k=4", "kary:k=4,n=3"},
		{"  kary k=4 n=3  ", "kary:k=4,n=3"},
		{"kary: k=4, n=3", "kary:k=4,n=3"},
		{"kary:k=4 n=3", "kary:k=4,n=3"},
		{"fattree2:leaves=8,hosts=4", "fattree2:leaves=8,hosts=4,up=4,spines=4"},
		{"fattree2:leaves=8,hosts=8,up=4", "fattree2:leaves=8,hosts=8,up=4,spines=4"},
		{"fattree2:leaves=8,hosts=8,up=6,spines=4", "fattree2:leaves=8,hosts=8,up=6,spines=4"},
		{"torus:dims=4x4", "torus:dims=4x4,hosts=1"},
		{"torus dims=4x4x4 hosts=2", "torus:dims=4x4x4,hosts=2"},
		{"mesh:dims=8", "mesh:dims=8,hosts=1"},
		{"mesh:hosts=3,dims=2x3x4x5", "mesh:dims=2x3x4x5,hosts=3"},
		{"kary:k=007,n=1", "kary:k=7,n=1"},
		{"kary:k=+4,n=2", "kary:k=4,n=2"},
		{"kary : k = 4 , n = 3", "kary:k=4,n=3"},
		{"kary:k=8,n=3", "kary:k=8,n=3"},
		{"fattree3:pods=6,leaves=24,hosts=32,up=16", "fattree3:pods=6,leaves=24,hosts=32,up=16,mup=24,rep=1,lmul=1"},
		{"torus:dims=4x4x4,hosts=2", "torus:dims=4x4x4,hosts=2"},
		{"dragonfly:a=8,h=4,p=4", "dragonfly:a=8,h=4,p=4,g=0"},
		{"dragonfly:a=4,h=2", "dragonfly:a=4,h=2,p=2,g=0"},
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
		// The canonical form parses to itself.
		again, err := Parse(s.String())
		if err != nil || again.String() != tt.want {
			t.Errorf("Parse(%q) = %v, %v; want %q", s.String(), again, err, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in   string
		want string // the whole error message
	}{
		{"", "empty spec; want NAME or NAME:KEY=VALUE,..."},
		{"   ", "empty spec; want NAME or NAME:KEY=VALUE,..."},
		{"=4", `spec "=4": want a name first, as in NAME:KEY=VALUE`},
		{"fattree:k=4", `spec "fattree:k=4": unknown topology "fattree" (known: dragonfly, fattree2, fattree3, kary, mesh, rail, superpod-a100, superpod-h100, torus); did you mean "fattree2"?`},
		{"Kary:k=4,n=2", `spec "Kary:k=4,n=2": unknown topology "Kary" (known: dragonfly, fattree2, fattree3, kary, mesh, rail, superpod-a100, superpod-h100, torus); did you mean "kary"?`},
		{"kary:", `spec "kary:": nothing after ':'; want KEY=VALUE,...`},
		{"kary;k=4", `spec "kary;k=4": unexpected ';' after the name "kary"; want NAME:KEY=VALUE,...`},
		{"kary", `spec "kary": missing parameter k (hosts per leaf switch and up-links per switch (switch radix 2k))`},
		{"kary:k=4", `spec "kary:k=4": missing parameter n (number of switch levels)`},
		{"kary:k=4,,n=2", `spec "kary:k=4,,n=2": empty parameter (two commas in a row, or a comma at an end)`},
		{"kary:k=4,n=2,", `spec "kary:k=4,n=2,": empty parameter (two commas in a row, or a comma at an end)`},
		{"kary:k=4,n", `spec "kary:k=4,n": "n" is not KEY=VALUE`},
		{"kary:k=4,=2", `spec "kary:k=4,=2": "=2": missing parameter name before '='`},
		{"kary:k=4,n=", `spec "kary:k=4,n=": parameter n has no value`},
		{"kary:k=4,n=2,m=3", `spec "kary:k=4,n=2,m=3": unknown parameter "m" for kary (known: k, n)`},
		{"kary:K=4,n=2", `spec "kary:K=4,n=2": unknown parameter "K" for kary (known: k, n); did you mean "k"?`},
		{"kary:k=4,k=5,n=2", `spec "kary:k=4,k=5,n=2": parameter k given twice`},
		{"kary:k=four,n=2", `spec "kary:k=four,n=2": k=four: "four" is not an integer`},
		{"kary:k=-4,n=2", `spec "kary:k=-4,n=2": k=-4: k must be at least 2`},
		{"kary:k=4.5,n=2", `spec "kary:k=4.5,n=2": k=4.5: "4.5" is not an integer`},
		{"kary:k=1,n=2", `spec "kary:k=1,n=2": k=1: k must be at least 2`},
		{"kary:k=4,n=0", `spec "kary:k=4,n=0": n=0: n must be at least 1`},
		{"kary:k=2000000,n=1", `spec "kary:k=2000000,n=1": k=2000000: 2000000 is too large (at most 1048576)`},
		{"torus:dims=4x2000000", `spec "torus:dims=4x2000000": dims=4x2000000: 2000000 is too large (at most 1048576)`},
		{"kary:k=4,n=2,hosts=3", `spec "kary:k=4,n=2,hosts=3": unknown parameter "hosts" for kary (known: k, n)`},
		{"fattree2:leaves=4,hots=4", `spec "fattree2:leaves=4,hots=4": unknown parameter "hots" for fattree2 (known: leaves, hosts, up, spines); did you mean "hosts"?`},
		{"dragonfly:a=4,h=2,g=4", `spec "dragonfly:a=4,h=2,g=4": g=4: the a·h = 8 global links of a group must split evenly over the other 3 groups`},
		{"kary:k=99999999999999999999,n=2", `spec "kary:k=99999999999999999999,n=2": k=99999999999999999999: 99999999999999999999 is out of range`},
		{"kary:k=64,n=5", `spec "kary:k=64,n=5": too large: 1073741824 hosts, 83886080 switches, 10737418240 links (5368709120 cables), radix 128 would need 90071992547409920 routing entries (switches × hosts); the limit is 2147483648`},
		{"fattree2:leaves=4", `spec "fattree2:leaves=4": missing parameter hosts (hosts per leaf switch)`},
		{"fattree2:leaves=4,hosts=4,up=2,spines=3", `spec "fattree2:leaves=4,hosts=4,up=2,spines=3": spines=3 is more than up=2: every leaf needs a link to every spine`},
		{"fattree2:leaves=0,hosts=4", `spec "fattree2:leaves=0,hosts=4": leaves=0: leaves must be at least 1`},
		{"torus:hosts=2", `spec "torus:hosts=2": missing parameter dims (switches per dimension, x first, e.g. 4x4 or 4x4x4)`},
		{"torus:dims=4x1", `spec "torus:dims=4x1": dims=4x1: every size must be at least 2`},
		{"torus:dims=4xx4", `spec "torus:dims=4xx4": dims=4xx4: empty size; want sizes joined by x, e.g. 4x4x4`},
		{"mesh:dims=4x4x", `spec "mesh:dims=4x4x": dims=4x4x: empty size; want sizes joined by x, e.g. 4x4x4`},
		{"mesh:dims=4*4", `spec "mesh:dims=4*4": dims=4*4: "4*4" is not an integer; want sizes joined by x, e.g. 4x4x4`},
		{"mesh:dims=4X4", `spec "mesh:dims=4X4": dims=4X4: "4X4" is not an integer; want sizes joined by x, e.g. 4x4x4`},
		{"mesh:dims=4x4,hosts=0", `spec "mesh:dims=4x4,hosts=0": hosts=0: hosts must be at least 1`},
		{"mesh:dims=1024x1024x1024", `spec "mesh:dims=1024x1024x1024": too large: 1073741824 hosts, 1073741824 switches, 8583643136 links (4291821568 cables), radix 7 would need 1152921504606846976 routing entries (switches × hosts); the limit is 2147483648`},
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
	}
}

func TestDescribeErrors(t *testing.T) {
	if _, err := Describe("nope"); err == nil || !strings.Contains(err.Error(), `unknown topology "nope"`) {
		t.Errorf("Describe(nope) error = %v", err)
	}
	if _, err := Generate("kary:k=4"); err == nil || !strings.Contains(err.Error(), "missing parameter n") {
		t.Errorf("Generate(kary:k=4) error = %v", err)
	}
	if _, err := (Spec{Name: "kary"}).Build(); err == nil {
		t.Error("Build of a zero Spec succeeded")
	}
}

func TestUsage(t *testing.T) {
	u := Usage()
	for _, want := range []string{"NAME[:KEY=VALUE", "kary:", "fattree2:", "torus:", "mesh:",
		"k=N", "dims=AxBx...", "up=N", "default: same as hosts", "default 1", "required"} {
		if !strings.Contains(u, want) {
			t.Errorf("Usage() lacks %q:\n%s", want, u)
		}
	}
	names := Names()
	if strings.Join(names, ",") != "dragonfly,fattree2,fattree3,kary,mesh,rail,superpod-a100,superpod-h100,torus" {
		t.Errorf("Names() = %v", names)
	}
	if len(Topologies()) != len(names) {
		t.Errorf("Topologies() has %d entries, want %d", len(Topologies()), len(names))
	}
}

func TestRegisterPanics(t *testing.T) {
	size := func(Spec) Size { return Size{} }
	build := func(Spec) (*Network, error) { return nil, nil }
	for _, tt := range []struct {
		what string
		t    *topology
		want string
	}{
		{"a duplicate", &topology{name: "kary", size: size, build: build}, `topology "kary" registered twice`},
		{"an empty name", &topology{name: "", size: size, build: build}, `invalid topology name ""`},
		{"a bad name", &topology{name: "k:ary", size: size, build: build}, `invalid topology name "k:ary"`},
		{"no build", &topology{name: "nobuild", size: size}, "lacks size or build"},
		{"a bad parameter name", &topology{name: "badkey", size: size, build: build,
			params: []param{{key: "a b"}}}, `invalid parameter name "a b"`},
		{"a bad default", &topology{name: "baddef", size: size, build: build,
			params: []param{{key: "a", def: "b"}, {key: "b"}}}, `default "b" of a is neither a number nor an earlier parameter`},
	} {
		func() {
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(fmt.Sprint(r), tt.want) {
					t.Errorf("register of %s: panic %v, want one containing %q", tt.what, r, tt.want)
				}
			}()
			register(tt.t)
		}()
	}
	if got := strings.Join(Names(), ","); got != "dragonfly,fattree2,fattree3,kary,mesh,rail,superpod-a100,superpod-h100,torus" {
		t.Errorf("Names() after failed registrations = %s", got)
	}
}

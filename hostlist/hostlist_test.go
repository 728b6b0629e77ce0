package hostlist

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	cases := []struct{ in, want string }{
		{"node[001-003,010],login1", "node001 node002 node003 node010 login1"},
		{"n[8-11]", "n8 n9 n10 n11"},
		{"n[08-11]", "n08 n09 n10 n11"},
		{"r[1-2]n[1-2]", "r1n1 r1n2 r2n1 r2n2"},
		{"H0,H1, H2", "H0 H1 H2"},
		{"c[5]", "c5"},
		{"a[1-2]-ib", "a1-ib a2-ib"},
		{"x,x", "x x"},
	}
	for _, c := range cases {
		got, err := Expand(c.in)
		if err != nil || strings.Join(got, " ") != c.want {
			t.Errorf("Expand(%q) = %v, %v; want %s", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", ",", "n[", "n]", "n[]", "n[3-1]", "n[a-b]", "n[1-]", "n[[1]]", "n[1-99999999]"} {
		if got, err := Expand(bad); err == nil {
			t.Errorf("Expand(%q) = %v, want an error", bad, got)
		}
	}
}

func TestReadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hosts")
	content := "\ufeffnode001\n\n# a comment\nnode002  \nnode[003-004]\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Parse("@" + path)
	if err != nil || strings.Join(got, " ") != "node001 node002 node003 node004" {
		t.Errorf("Parse(@file) = %v, %v", got, err)
	}
	if err := os.WriteFile(path, []byte("a\nn[2-1]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Parse("@" + path); err == nil || !strings.Contains(err.Error(), path+":2:") {
		t.Errorf("bad line: %v", err)
	}
	if _, err := Parse("@" + filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("missing file accepted")
	}
}

func FuzzExpand(f *testing.F) {
	for _, s := range []string{"node[001-003,010],login1", "r[1-2]n[1-2]", "n[", "a,b", "x[0-0]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		names, err := Expand(s)
		if err != nil {
			return
		}
		if len(names) == 0 || len(names) > MaxHosts {
			t.Fatalf("%q: %d names", s, len(names))
		}
		for _, n := range names {
			if strings.ContainsAny(n, "[],") {
				t.Fatalf("%q gives name %q", s, n)
			}
		}
	})
}

// TestExpandLinear checks that one name of many brackets is expanded in
// work linear in its length: 20 000 "[1]" groups (60 KB) used to build
// every partial name at every bracket, about 600 MB of strings. The
// check counts allocated bytes, not time.
func TestExpandLinear(t *testing.T) {
	item := "n" + strings.Repeat("[1]", 20000)
	want := "n" + strings.Repeat("1", 20000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, err := Expand(item)
	runtime.ReadMemStats(&after)
	if err != nil || len(got) != 1 || got[0] != want {
		t.Fatalf("Expand(20 000 × [1]) = %d names, %v; want one name of 20 001 bytes", len(got), err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 200*uint64(len(item)) {
		t.Errorf("Expand allocated %d bytes for a %d-byte item; want at most %d (linear)", alloc, len(item), 200*len(item))
	}
}

// TestExpandNameBytes checks the bound on the bytes of the names of one
// item: 2^20 names of 1 KB each are refused before they are built.
func TestExpandNameBytes(t *testing.T) {
	item := strings.Repeat("x", 1000) + strings.Repeat("[0-1]", 20)
	if got, err := Expand(item); err == nil || !strings.Contains(err.Error(), "MB") {
		t.Fatalf("Expand(1 KB × 2^20) = %d names, %v; want an error naming the size", len(got), err)
	}
}

// BenchmarkExpandManyGroups expands one name of 100 000 "[1]" groups.
func BenchmarkExpandManyGroups(b *testing.B) {
	item := "n" + strings.Repeat("[1]", 100000)
	for b.Loop() {
		if _, err := Expand(item); err != nil {
			b.Fatal(err)
		}
	}
}

func TestCompress(t *testing.T) {
	for _, tt := range []struct {
		in   []string
		want string
	}{
		{[]string{"dgx001", "dgx002", "dgx003", "dgx005"}, "dgx[001-003,005]"},
		{[]string{"dgx001"}, "dgx001"},
		{[]string{"n9", "n10", "n11", "login", "n1"}, "n[1,9-11],login"},
		{[]string{"svc01", "dgx001", "svc02"}, "svc[01-02],dgx001"},
		{[]string{"a1b", "a2b"}, "a1b,a2b"},
		{[]string{"r1n01", "r1n02", "r2n01"}, "r1n[01-02],r2n01"},
		{[]string{"n0", "n1", "n01"}, "n[0-1],n01"},
	} {
		if got := Compress(tt.in); got != tt.want {
			t.Errorf("Compress(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestCompressRoundTrip: Expand(Compress(names)) holds the names, each
// once.
func TestCompressRoundTrip(t *testing.T) {
	names := []string{"dgx001", "dgx010", "dgx011", "dgx2", "dgx3", "svc01", "login", "x-9", "x-10", "gpu0"}
	back, err := Expand(Compress(names))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(back)
	want := slices.Clone(names)
	slices.Sort(want)
	if !slices.Equal(back, want) {
		t.Errorf("round trip %q → %q → %q", names, Compress(names), back)
	}
}

// FuzzCompress: every name list that Expand gives is given back by
// Expand(Compress(names)), each name once.
func FuzzCompress(f *testing.F) {
	for _, s := range []string{"dgx[001-003,005]", "n[9-11],n1,login", "a1b,a2b", "n0,n1,n01,n001", "x-9,x-10,y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		names, err := Expand(s)
		if err != nil || len(names) > 1000 {
			return
		}
		c := Compress(names)
		back, err := Expand(c)
		if err != nil {
			t.Fatalf("%q → %q: %v", s, c, err)
		}
		slices.Sort(back)
		want := slices.Compact(slices.Sorted(slices.Values(names)))
		if !slices.Equal(back, want) {
			t.Fatalf("%q → %q → %q, want %q", s, c, back, want)
		}
	})
}

// TestCompressPaddedGrowth: dgx097 … dgx127 is one bracket although
// dgx100 has no leading zero (the 4-unit SuperPOD's last unit).
func TestCompressPaddedGrowth(t *testing.T) {
	for _, tt := range []struct {
		in   []string
		want string
	}{
		{[]string{"dgx097", "dgx098", "dgx099", "dgx100", "dgx101"}, "dgx[097-101]"},
		{[]string{"n1", "n01", "n001", "n100", "n1000"}, "n1,n01,n[001,100,1000]"},
	} {
		if got := Compress(tt.in); got != tt.want {
			t.Errorf("Compress(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

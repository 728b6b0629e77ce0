package patterns

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestParseGood(t *testing.T) {
	tests := []struct {
		name, in string
		want     []Level
	}{
		{"one pair", "0 1", []Level{lv(0, 1)}},
		{"one level", "0 1\n1 0\n", []Level{lv(0, 1, 1, 0)}},
		{"two levels", "0 1\n\n1 0\n", []Level{lv(0, 1), lv(1, 0)}},
		{"many blank lines are one separator", "0 1\n\n\n  \t\n\n1 0\n", []Level{lv(0, 1), lv(1, 0)}},
		{"leading and trailing blank lines", "\n\n0 1\n1 2\n\n\n", []Level{lv(0, 1, 1, 2)}},
		{"comment lines do not separate", "# header\n0 1\n# inside\n2 3\n", []Level{lv(0, 1, 2, 3)}},
		{"comment after pair", "0 1 # first\n2 3#second\n", []Level{lv(0, 1, 2, 3)}},
		{"white space", "\t 4 \t 2  \r\n  5 3\r\n\r\n1 0", []Level{lv(4, 2, 5, 3), lv(1, 0)}},
		{"CRLF blank separator", "0 1\r\n\r\n1 0\r\n", []Level{lv(0, 1), lv(1, 0)}},
		{"leading zeros", "007 0010\n", []Level{lv(7, 10)}},
		{"duplicates allowed", "0 1\n0 1\n", []Level{lv(0, 1, 0, 1)}},
		{"largest rank", "2147483647 0\n", []Level{lv(2147483647, 0)}},
		{"no final newline", "0 1\n\n2 3", []Level{lv(0, 1), lv(2, 3)}},
		{"long comment", "0 1 #" + strings.Repeat("x", 200000) + "\n", []Level{lv(0, 1)}},
	}
	for _, tt := range tests {
		got, err := Parse(strings.NewReader(tt.in), "p.txt")
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if !equalLevels(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestParseBad(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "p.txt: no pairs"},
		{"\n\n  \n", "p.txt: no pairs"},
		{"# only\n# comments\n\n", "p.txt: no pairs"},
		{"0 1\nx 2\n", `p.txt:2: bad rank "x"`},
		{"0 1\n2 y\n", `p.txt:2: bad rank "y"`},
		{"0x1 2\n", `p.txt:1: bad rank "0x1"`},
		{"+1 2\n", `p.txt:1: bad rank "+1"`},
		{"1.0 2\n", `p.txt:1: bad rank "1.0"`},
		{"- 2\n", `p.txt:1: bad rank "-"`},
		{"--1 2\n", `p.txt:1: bad rank "--1"`},
		{"0,1\n", `p.txt:1: want 2 fields "src dst", got 1`},
		{"0 1\n\n3\n", `p.txt:3: want 2 fields "src dst", got 1`},
		{"0 1 2\n", `p.txt:1: want 2 fields "src dst", got 3`},
		{"0 -1\n", "p.txt:1: negative rank -1"},
		{"-3 1\n", "p.txt:1: negative rank -3"},
		{"2147483648 1\n", "p.txt:1: rank 2147483648 too large"},
		{"1 99999999999999999999999\n", "p.txt:1: rank 99999999999999999999999 too large"},
		{"0 1\n\n# c\n4 4\n", "p.txt:4: rank 4 sends to itself"},
		{"007 7\n", "p.txt:1: rank 7 sends to itself"},
	}
	for _, tt := range tests {
		got, err := Parse(strings.NewReader(tt.in), "p.txt")
		if err == nil {
			t.Errorf("Parse(%q) = %v, want error %q", tt.in, got, tt.want)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("Parse(%q) error\n%q\nwant\n%q", tt.in, err, tt.want)
		}
		if got != nil {
			t.Errorf("Parse(%q) returned levels %v with an error", tt.in, got)
		}
	}
}

func TestParseReadError(t *testing.T) {
	r := io.MultiReader(strings.NewReader("0 1\n1 2\n"), iotest.ErrReader(io.ErrUnexpectedEOF))
	_, err := Parse(r, "p.txt")
	if err == nil || err.Error() != "p.txt:3: unexpected EOF" {
		t.Errorf("error %v, want p.txt:3: unexpected EOF", err)
	}
}

func TestFormatRoundTrip(t *testing.T) {
	levels := []Level{lv(0, 1, 2, 3), {}, lv(3, 0)}
	var buf bytes.Buffer
	if err := Format(&buf, levels); err != nil {
		t.Fatal(err)
	}
	if want := "0 1\n2 3\n\n3 0\n"; buf.String() != want {
		t.Fatalf("Format = %q, want %q", buf.String(), want)
	}
	got, err := Parse(&buf, "f")
	if err != nil {
		t.Fatal(err)
	}
	if want := []Level{lv(0, 1, 2, 3), lv(3, 0)}; !equalLevels(got, want) {
		t.Errorf("round trip %v, want %v", got, want)
	}
}

// FuzzParse checks that Parse never panics, that accepted input gives only
// valid non-empty levels, and that Format of the result parses back to the
// same levels.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"0 1\n", "0 1\n\n1 0\n", "# c\n1 2 # d\n\n\n3 4\r\n", "x y\n", "1 1\n", "-1 2\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		levels, err := Parse(bytes.NewReader(data), "fuzz")
		if err != nil {
			if levels != nil {
				t.Fatalf("levels %v with error %v", levels, err)
			}
			if !strings.HasPrefix(err.Error(), "fuzz:") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if len(levels) == 0 {
			t.Fatal("no levels and no error")
		}
		for k, l := range levels {
			if len(l) == 0 {
				t.Fatalf("level %d is empty", k)
			}
			for _, p := range l {
				if p.Src < 0 || p.Dst < 0 || p.Src == p.Dst {
					t.Fatalf("level %d: invalid pair %v", k, p)
				}
			}
		}
		var buf bytes.Buffer
		if err := Format(&buf, levels); err != nil {
			t.Fatal(err)
		}
		again, err := Parse(&buf, "fuzz")
		if err != nil {
			t.Fatalf("re-parse of %q: %v", buf.String(), err)
		}
		if !equalLevels(levels, again) {
			t.Fatalf("round trip: %v became %v", levels, again)
		}
		if err := Print(io.Discard, levels, nil); err != nil {
			t.Fatal(err)
		}
	})
}

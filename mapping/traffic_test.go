package mapping

import (
	"errors"
	"strings"
	"testing"

	"orcs/infile"
)

func TestParseTraffic(t *testing.T) {
	c, err := ParseTraffic(strings.NewReader("src_rank,dst_rank,bytes\n# a comment\n\n0,1,100\n 1 , 0 , 5 \n0,1,20\n2,2,7\n3,0,1\n"), "m.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := []Message{{Src: 0, Dst: 1, Weight: 120}, {Src: 1, Dst: 0, Weight: 5}, {Src: 3, Dst: 0, Weight: 1}}
	if c.Ranks != 4 || c.Levels != 1 || c.Unit != "bytes" || len(c.Msgs) != len(want) {
		t.Fatalf("got %+v", c)
	}
	for i, m := range want {
		if c.Msgs[i] != m {
			t.Errorf("message %d: %+v, want %+v", i, c.Msgs[i], m)
		}
	}
	// Without a header, and with CRLF line ends.
	if c, err := ParseTraffic(strings.NewReader("0,1,5\r\n1,2,5\r\n"), "m.csv"); err != nil || c.Ranks != 3 {
		t.Fatalf("got %+v, %v", c, err)
	}
}

func TestParseTrafficErrors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		line int
		want string
	}{
		{"0,1\n", 1, "want 3 comma-separated fields"},
		{"0,1,2,3\n", 1, "want 3 comma-separated fields"},
		{"0,1,5\nsrc_rank,dst_rank,bytes\n", 2, `src_rank "src_rank": want a rank ≥ 0`},
		{"# c\n-1,1,5\n", 2, `src_rank "-1"`},
		{"0,x,5\n", 1, `dst_rank "x"`},
		{"0,1,0\n", 1, `bytes "0": want an integer > 0`},
		{"0,1,1.5\n", 1, `bytes "1.5"`},
		{"0,99999999,1\n", 1, "ranks go up to 4194303"},
		{"0,1,9223372036854775807\n0,1,1\n", 2, "add up to more than 2^63"},
		{"0,1," + strings.Repeat("9", 1<<20) + "\n", 1, "longer than 1 MiB"},
	} {
		_, err := ParseTraffic(strings.NewReader(tc.in), "m.csv")
		var pe *infile.ParseError
		if !errors.As(err, &pe) || pe.File != "m.csv" || pe.Line != tc.line || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.40q: got %v, want m.csv:%d: …%s…", tc.in, err, tc.line, tc.want)
		}
	}
	for _, in := range []string{"", "# only\n", "src_rank,dst_rank,bytes\n", "3,3,10\n"} {
		if _, err := ParseTraffic(strings.NewReader(in), "m.csv"); err == nil || !strings.Contains(err.Error(), "m.csv: no traffic") {
			t.Errorf("%q: got %v", in, err)
		}
	}
}

// FuzzParseTraffic: any input gives a Comm whose messages are between
// distinct ranks below Ranks with positive bytes, each pair once, or an
// error naming the file; never a panic.
func FuzzParseTraffic(f *testing.F) {
	for _, s := range []string{
		"src_rank,dst_rank,bytes\n0,1,100\n1,0,5\n",
		"0,1,5\r\n1,2,5\r\n# c\n\n2,2,1\n",
		"0,1,9223372036854775807\n0,1,1\n",
		"0,,1\n", ",,\n", "1,2\n", "0,4194303,1\n", " 7 ,\t3, 12 \n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseTraffic(strings.NewReader(s), "fuzz.csv")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.csv") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		seen := map[[2]int32]bool{}
		for _, m := range c.Msgs {
			if m.Src == m.Dst || m.Src < 0 || m.Dst < 0 || int(m.Src) >= c.Ranks || int(m.Dst) >= c.Ranks || m.Weight <= 0 || m.Level != 0 {
				t.Fatalf("bad message %+v of %d ranks", m, c.Ranks)
			}
			if seen[[2]int32{m.Src, m.Dst}] {
				t.Fatalf("pair %d→%d twice", m.Src, m.Dst)
			}
			seen[[2]int32{m.Src, m.Dst}] = true
		}
	})
}

// TestParseTrafficBOMAndRankLine: a file saved with a byte-order mark
// (spreadsheets do) reads like one without, and the line of the largest
// rank is kept for the error when the allocation is too small for it.
func TestParseTrafficBOMAndRankLine(t *testing.T) {
	c, err := ParseTraffic(strings.NewReader("\xef\xbb\xbfsrc_rank,dst_rank,bytes\n0,1,100\n1,7,5\n2,7,5\n"), "m.csv")
	if err != nil {
		t.Fatal(err)
	}
	if c.Ranks != 8 || len(c.Msgs) != 3 || c.MaxRankAt != "m.csv:3" {
		t.Errorf("got %d ranks, %d messages, largest rank at %q; want 8, 3, m.csv:3", c.Ranks, len(c.Msgs), c.MaxRankAt)
	}
}

package lft

import "testing"

// TestInnerWord checks innerWord by hand: a word of no route, routes of
// one to five links after the host's (none to four between switches),
// and the routes that do not fit: six links, or a last link that is not
// the one into the destination.
func TestInnerWord(t *testing.T) {
	const in = 40
	p := uint64(LinkPad)
	for _, c := range []struct {
		name string
		lw   [8]uint16
		want uint64
		ok   bool
	}{
		{"no route", [8]uint16{}, InnerNone, true},
		{"one switch", [8]uint16{1, in, LinkPad, LinkPad, LinkPad, LinkPad, LinkPad, LinkPad}, p | p<<16 | p<<32 | p<<48, true},
		{"two switches", [8]uint16{2, 7, in, LinkPad, LinkPad, LinkPad, LinkPad, LinkPad}, 7 | p<<16 | p<<32 | p<<48, true},
		{"link 0", [8]uint16{3, 0, 9, in, LinkPad, LinkPad, LinkPad, LinkPad}, 0 | 9<<16 | p<<32 | p<<48, true},
		{"five switches", [8]uint16{5, 1, 2, 3, 0xfffd, in, LinkPad, LinkPad}, 1 | 2<<16 | 3<<32 | 0xfffd<<48, true},
		{"six switches", [8]uint16{6, 1, 2, 3, 4, 5, in, LinkPad}, 0, false},
		{"ends elsewhere", [8]uint16{3, 1, 2, in + 1, LinkPad, LinkPad, LinkPad, LinkPad}, 0, false},
	} {
		got, ok := innerWord(&c.lw, in)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("%s: innerWord(%v) = %#x, %v; want %#x, %v", c.name, c.lw, got, ok, c.want, c.ok)
		}
	}
}

// TestInnerLinks checks innerLinks on words of 0 to 4 links, the links
// taken from numbers whose 16 bits are near the borrow's edges (0, 1, the
// top bit alone and beside it, the largest link number).
func TestInnerLinks(t *testing.T) {
	links := []uint64{0, 1, 2, 0x7fff, 0x8000, 0x8001, 0xfffd}
	for n := 0; n <= 4; n++ {
		for i := range 200 {
			w := uint64(0)
			for k := 3; k >= 0; k-- {
				l := uint64(LinkPad)
				if k < n {
					l = links[(i*7+k*3+i/7)%len(links)]
				}
				w = w<<16 | l
			}
			if got := innerLinks(w); got != n {
				t.Fatalf("innerLinks(%#x) = %d, want %d", w, got, n)
			}
		}
	}
}

package ib

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"orcs/gen"
)

// TestPackPorts packs tables cut from a few random 64-LID templates (so
// that blocks repeat), some blocks one entry apart from a template at
// every position, and checks every LID's port, that each distinct block
// is kept once (counted here by content) and that LIDs past the table
// have no entry.
func TestPackPorts(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 64))
	for iter := range 200 {
		size := r.IntN(700)
		templates := make([][64]uint8, 1+r.IntN(3))
		for k := range templates {
			for i := range templates[k] {
				templates[k][i] = uint8(r.IntN(5))
				if templates[k][i] == 4 {
					templates[k][i] = noPort
				}
			}
		}
		ports := make([]uint8, size)
		distinct := map[[64]uint8]bool{}
		for lo := 0; lo < size; lo += 64 {
			blk := templates[r.IntN(len(templates))]
			if r.IntN(4) == 0 {
				blk[r.IntN(64)]++ // one entry apart
			}
			if lo+64 > size {
				for i := size - lo; i < 64; i++ {
					blk[i] = noPort
				}
			}
			copy(ports[lo:], blk[:])
			distinct[blk] = true
		}
		b := packPorts(ports)
		for lid := -1; lid < size+70; lid++ {
			want := uint8(noPort)
			if lid >= 0 && lid < size {
				want = ports[lid]
			}
			if got := b.at(lid); got != want {
				t.Fatalf("iteration %d: LID %d: port %d, want %d", iter, lid, got, want)
			}
		}
		if got := len(b.blocks) / 64; got != len(distinct) {
			t.Errorf("iteration %d: %d distinct blocks kept, want %d", iter, got, len(distinct))
		}
	}
}

// TestPackedTablesInBlocks reads a generated fabric's dump as ReadFiles
// does, line by line and on several goroutines, and checks that no table
// keeps a byte per LID once read: each holds its distinct blocks, a few
// per table for a fat tree, and gives every entry, line included, as the
// unpacked table does.
func TestPackedTablesInBlocks(t *testing.T) {
	f, err := gen.Generate("kary:k=8,n=3")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteLFTDump(&buf, f); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	plain, err := readUnicastAs(newLines(data, "dump"), false)
	if err != nil {
		t.Fatal(err)
	}
	lineByLine, err := readUnicastAs(newLines(data, "dump"), true)
	if err != nil {
		t.Fatal(err)
	}
	old := parallelWindow
	parallelWindow = 64 << 10
	defer func() { parallelWindow = old }()
	parallel, err := readUnicastParallel(bytes.NewReader(data), "dump", true, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := routingText(plain, nil)
	for name, rt := range map[string]*Routing{"line by line": lineByLine, "parallel": parallel} {
		held, lids := 0, 0
		for i := range rt.Switches {
			p := rt.Switches[i].packed
			if p == nil {
				t.Fatalf("%s: table %d not packed", name, i)
			}
			if p.ports != nil {
				t.Fatalf("%s: table %d keeps a byte per LID (%d) after its trailer", name, i, len(p.ports))
			}
			held += 2*len(p.idx) + len(p.blocks)
			lids += rt.Switches[i].Top + 1
			// The distinct blocks of the table, by content.
			distinct := map[[64]uint8]bool{}
			for lo := 0; lo <= rt.Switches[i].Top; lo += 64 {
				var blk [64]uint8
				for j := range blk {
					blk[j] = p.port(lo + j)
				}
				distinct[blk] = true
			}
			if len(p.blocks) != 64*len(distinct) {
				t.Fatalf("%s: table %d keeps %d blocks, %d distinct", name, i, len(p.blocks)/64, len(distinct))
			}
		}
		// A k=8 3-tree's spines route each pod's 64 hosts (one block) down
		// a port of its own: 7 of 11 blocks distinct on average.
		if held > lids*3/4 {
			t.Errorf("%s: tables hold %d bytes for %d switches × LIDs", name, held, lids)
		}
		if got := routingText(rt, nil); got != want {
			t.Errorf("%s: entries differ from the unpacked tables", name)
		}
	}
}

// TestPackedTablesOneEntryApart reads two tables alike but for one entry
// (at several positions of a block) and checks that each gives its own.
func TestPackedTablesOneEntryApart(t *testing.T) {
	const top = 200
	for _, odd := range []int{1, 2, 63, 64, 65, 128, 192, top} {
		var b strings.Builder
		for sw := range 2 {
			fmt.Fprintf(&b, "Unicast lids [0-%d] of switch Lid %d guid 0x%016x ('S%d'):\n", top, sw+1, sw+0x10, sw)
			for lid := 1; lid <= top; lid++ {
				port := 1 + lid%4
				if sw == 1 && lid == odd {
					port = 7
				}
				fmt.Fprintf(&b, "0x%04x %03d : (Channel Adapter portguid 0x%016x: 'H%d')\n", lid, port, 0x1000+lid, lid)
			}
			fmt.Fprintf(&b, "%d lids dumped\n", top)
		}
		rt, err := readUnicastAs(newLines([]byte(b.String()), "dump"), true)
		if err != nil {
			t.Fatal(err)
		}
		for sw := range 2 {
			n := 0
			rt.Switches[sw].Each(func(e LFTEntry) bool {
				n++
				want := uint8(1 + int(e.LID)%4)
				if sw == 1 && int(e.LID) == odd {
					want = 7
				}
				if e.Port != want || e.Line != int32(1+sw*(top+2)+int(e.LID)) {
					t.Fatalf("odd %d: switch %d: entry %+v, want port %d line %d", odd, sw, e, want, 1+sw*(top+2)+int(e.LID))
				}
				return true
			})
			if n != top {
				t.Fatalf("odd %d: switch %d: %d entries, want %d", odd, sw, n, top)
			}
		}
	}
}

// TestLastHeader compares tableStart.last, which searches forward from a
// growing tail, with a backward search (bytes.LastIndex), on windows with
// table starts at every distance from their end, overlapping ones
// included, for the lfts dump's header and the opensm.fdbs header (a mark
// inside its line, checked by the line's grammar).
func TestLastHeader(t *testing.T) {
	backward := func(ts tableStart, w []byte) int {
		for end := len(w); ; {
			i := bytes.LastIndex(w[:end], ts.mark)
			if i < 0 {
				return -1
			}
			if ts.line == nil {
				return i + 1
			}
			if at := ts.lineAt(w, i); at >= 0 {
				return at
			}
			end = i
		}
	}
	h := string(unicastHeader)
	for _, w := range []string{"", "x", h, h + h, "ab" + h + "cd", h[:len(h)-1], "\n" + h[:5] + h + "x", "ab" + h[1:] + "cd", h + "x" + h[1:]} {
		if got, want := unicastStart.last([]byte(w)), backward(unicastStart, []byte(w)); got != want {
			t.Errorf("%q: %d, want %d", w, got, want)
		}
	}
	fh := "osm_ucast_mgr_" + string(fdbsHeader) + "0x0002c90000000001\n"
	r := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		for _, c := range []struct {
			ts     tableStart
			header string
		}{{unicastStart, h[1:]}, {fdbsStart, fh}} {
			w := bytes.Repeat([]byte("0x0001 001 # label\n"), r.IntN(30000))
			for range r.IntN(4) {
				at := bytes.LastIndexByte(w[:r.IntN(len(w)+1)], '\n') + 1 // a line start
				w = append(w[:at:at], append([]byte(c.header), w[at:]...)...)
			}
			if got, want := c.ts.last(w), backward(c.ts, w); got != want {
				t.Fatalf("%q, window of %d bytes: %d, want %d", c.header[:7], len(w), got, want)
			}
		}
	}
}

// TestUnicastLIDRange: a table may route every unicast LID up to 0xBFFF
// (a 45 056-host fat tree with 3 840 switches needs 48 896 of them); the
// multicast range above is refused at its line, line by line and in
// parallel, packed or not.
func TestUnicastLIDRange(t *testing.T) {
	table := func(top int, lids ...int) []byte {
		var b strings.Builder
		fmt.Fprintf(&b, "Unicast lids [0-%d] of switch Lid 1 guid 0x0000000000000010 ('S'):\n", top)
		for _, lid := range lids {
			fmt.Fprintf(&b, "0x%04x 001 # Channel Adapter portguid 0x%016x: 'H%d'\n", lid, 0x1000+lid, lid)
		}
		fmt.Fprintf(&b, "%d lids dumped\n", top)
		return []byte(b.String())
	}
	for _, c := range []struct {
		data []byte
		want string // error, or "" for none
	}{
		{table(0xBFFF, 1, 0xBFFE, 0xBFFF), ""},
		{table(0xBFFF, 1, 0xC000), "dump:3: LID 0xc000 is not a unicast LID"},
		{table(0xBFFF, 0xFFFF), "dump:2: LID 0xffff is not a unicast LID"},
		{table(0xC000, 1), "dump:1: header range top 49152 beyond the last unicast LID 0xbfff"},
	} {
		for _, packed := range []bool{false, true} {
			seq, par := readBoth(c.data, 4096, 2, packed)
			if seq != par {
				t.Errorf("packed %v: line by line and parallel differ:\n%s\n%s", packed, seq, par)
			}
			rt, err := readUnicastAs(newLines(c.data, "dump"), packed)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("packed %v: %v", packed, err)
			case c.want == "" && rt.Switches[0].lidPorts().at(0xBFFF) != 1:
				t.Errorf("packed %v: LID 0xbfff has no route", packed)
			case c.want != "" && (err == nil || err.Error() != c.want):
				t.Errorf("packed %v: error %v, want %q", packed, err, c.want)
			}
		}
	}
}

// TestPackedTablesLineGaps: entry lines taken by the shortcuts of
// fastEntries keep their line numbers across lines that they leave to the
// parser (a skipped diagnostic, an unrouted entry, an empty line, a new
// label), one or more lines long: packed tables give the entries that
// tables of entries give, lines included.
func TestPackedTablesLineGaps(t *testing.T) {
	gaps := []string{"ibwarn: [1] f: x\n", "0x00c8 255 : (illegal port)\n", "\n", "ibwarn: [1] f: x\n\n"}
	for g, gap := range gaps {
		var b strings.Builder
		for round := range 2 { // the second table takes its labels by the shortcut
			fmt.Fprintf(&b, "Unicast lids [0-%d] of switch Lid 1 guid 0x%016x ('S'):\n", 200, 0x10+round)
			for lid := 1; lid < 200; lid++ {
				fmt.Fprintf(&b, "0x%04x %03d # Channel Adapter portguid 0x%016x: 'H%d'\n", lid, 1+lid%3, 0x1000+lid, lid)
				if lid%(7+g) == 0 {
					b.WriteString(gap)
				}
			}
			b.WriteString("200 lids dumped\n")
		}
		data := []byte(b.String())
		plain, errPlain := readUnicastAs(newLines(data, "dump"), false)
		packed, errPacked := readUnicastAs(newLines(data, "dump"), true)
		if errPlain != nil || errPacked != nil {
			t.Fatalf("gap %q: %v, %v", gap, errPlain, errPacked)
		}
		if a, b := routingText(plain, nil), routingText(packed, nil); a != b {
			t.Errorf("gap %q: entries:\n%.600s\npacked:\n%.600s", gap, a, b)
		}
	}
}

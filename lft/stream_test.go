package lft

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// streamFabric builds a random fabric twice: once with its routing lists
// held (RouteList), once with the lists recorded by position in a text and
// read back from it (RouteListAt, SetListSource).
func streamFabric(t *testing.T, r *rand.Rand, source func(text []byte) []byte) (held, streamed *Fabric, err error) {
	t.Helper()
	S, H := 2+r.IntN(6), 2+r.IntN(40)
	type entry struct {
		from, link int32
		list       string
	}
	build := func(stream bool) (*Fabric, error) {
		b := NewBuilder()
		var text bytes.Buffer
		sw := make([]int32, S)
		for i := range sw {
			sw[i] = b.Node(fmt.Sprintf("S%d", i), Switch)
		}
		rr := rand.New(rand.NewPCG(uint64(S), uint64(H))) // the same fabric both times
		var links []int32
		for i := 1; i < S; i++ {
			j := rr.IntN(i)
			links = append(links, b.Link(sw[i], sw[j], 0, 0), b.Link(sw[j], sw[i], 0, 0))
		}
		for h := range H {
			v := b.Node(fmt.Sprintf("H%d", h), Host)
			s := sw[rr.IntN(S)]
			up := b.Link(v, s, 0, 0)
			links = append(links, b.Link(s, v, 0, 0))
			if stream {
				text.WriteString("x[*]\n")
				b.RouteListAt(up, []byte("*"), int64(text.Len()-3))
			} else {
				b.RouteList(up, []byte("*"))
			}
		}
		for range 3 * S {
			l := links[rr.IntN(len(links))]
			var names []string
			for range rr.IntN(2 * H) {
				names = append(names, fmt.Sprintf("H%d", rr.IntN(H+2))) // some name no host
			}
			list := strings.Join(names, ", ")
			if rr.IntN(8) == 0 {
				list = "*"
			}
			if stream {
				text.WriteString("edge [comment=\"")
				off := int64(text.Len())
				text.WriteString(list)
				text.WriteString("\"]\n")
				b.RouteListAt(l, []byte(list), off)
			} else {
				b.RouteList(l, []byte(list))
			}
		}
		if stream {
			b.SetListSource(bytes.NewReader(source(text.Bytes())))
		}
		return b.Build()
	}
	held, err = build(false)
	if err != nil {
		t.Fatal(err)
	}
	streamed, err = build(true)
	return held, streamed, err
}

// TestRouteListAtSameTables: tables built from lists read again from their
// source, through windows much smaller than the lists, equal those built
// from lists held in memory.
func TestRouteListAtSameTables(t *testing.T) {
	defer func(w int) { streamWindow = w }(streamWindow)
	r := rand.New(rand.NewPCG(1, 2))
	for _, w := range []int{1, 7, 64, 1 << 20} {
		streamWindow = w
		for range 20 {
			held, streamed, err := streamFabric(t, r, func(text []byte) []byte { return text })
			if err != nil {
				t.Fatalf("window %d: %v", w, err)
			}
			if held.Digest() != streamed.Digest() {
				t.Fatalf("window %d: tables from streamed lists differ", w)
			}
		}
	}
}

// TestRouteListAtShortSource: a source that ends before the last list (a
// file that changed between the passes) is an error, not a silent table.
func TestRouteListAtShortSource(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 5 {
		_, _, err := streamFabric(t, r, func(text []byte) []byte { return text[:len(text)*2/3] })
		if err == nil || !strings.Contains(err.Error(), "changed or ended early") {
			t.Fatalf("short source: err = %v", err)
		}
	}
}

package lft

import (
	"errors"
	"fmt"
	"io"
)

// A routed fabric's comment lists are most of its file (340 MB of the
// routed dot of a 21 952-host fat tree). RouteListAt lets a reader record
// where a list is instead of keeping it: Build then reads the lists again,
// window by window, from a second pass over the input (SetListSource), so
// that the whole file is never in memory beside the tables.

// listAt locates a list recorded by RouteListAt in the list source.
type listAt struct {
	off int64
	n   int32
}

// listStream hands the lists of RouteListAt entries to Build.
type listStream struct {
	src io.Reader
	at  []listAt // per entry of Builder.lists: where it is (n < 0: held in lists)
	buf []byte   // bytes [start, start+len(buf)) of the source
	pos int64    // source offset of buf[0]
	eof bool
}

// streamWindow is the size of the window Build reads lists through (a
// variable for tests).
var streamWindow = 8 << 20

// RouteListAt is RouteList for a list that the caller will not keep: list
// holds its bytes now, and off is where they start in the source that
// SetListSource hands Build later (offsets grow with every call). A "*"
// list is taken at once; any other is read again from the source.
func (b *Builder) RouteListAt(link int32, list []byte, off int64) {
	if len(list) == 1 && list[0] == '*' {
		b.Route(link, AnyDest)
		return
	}
	if b.stream == nil {
		b.stream = &listStream{}
	}
	for len(b.stream.at) < len(b.lists) {
		b.stream.at = append(b.stream.at, listAt{n: -1})
	}
	b.stream.at = append(b.stream.at, listAt{off: off, n: int32(len(list))})
	b.routes = append(b.routes, route{link, listRef(len(b.lists))})
	b.lists = append(b.lists, nil)
}

// SetListSource gives Build the input again, from its start, for the lists
// recorded by RouteListAt.
func (b *Builder) SetListSource(r io.Reader) {
	if b.stream == nil {
		b.stream = &listStream{}
	}
	b.stream.src = r
}

// each hands the routing entries to apply window by window, with the lists
// of every entry of a window read from the source.
func (s *listStream) each(b *Builder, apply func([]route)) error {
	if s.src == nil && len(s.at) > 0 {
		return errors.New("routing lists recorded by position, but no source to read them from")
	}
	routes := b.routes
	for len(routes) > 0 {
		// The longest run of entries whose lists are in the window.
		n := 0
		for ; n < len(routes); n++ {
			k, ok := s.positioned(routes[n])
			if !ok {
				continue // not a list, or a list held in memory
			}
			a := s.at[k]
			lo, hi := a.off-s.pos, a.off-s.pos+int64(a.n)
			if lo < 0 || hi > int64(len(s.buf)) {
				break
			}
			b.lists[k] = s.buf[lo:hi]
		}
		if n > 0 {
			apply(routes[:n])
			routes = routes[n:]
			continue
		}
		a := s.at[-2-int(routes[0].dest)]
		if err := s.slide(a); err != nil {
			return err
		}
	}
	return nil
}

// positioned returns the list index of entry r if its list is to be read
// from the source.
func (s *listStream) positioned(r route) (int, bool) {
	k := -2 - int(r.dest)
	return k, r.dest < AnyDest && k < len(s.at) && s.at[k].n >= 0
}

// slide moves the window so that it starts at list a and holds at least
// the whole list.
func (s *listStream) slide(a listAt) error {
	if a.off < s.pos {
		return fmt.Errorf("routing list at offset %d: lists out of order", a.off)
	}
	if skip := a.off - s.pos; skip < int64(len(s.buf)) {
		s.buf = s.buf[:copy(s.buf, s.buf[skip:])]
	} else {
		if _, err := io.CopyN(io.Discard, s.src, skip-int64(len(s.buf))); err != nil {
			return s.short(err)
		}
		s.buf = s.buf[:0]
	}
	s.pos = a.off
	size := max(streamWindow, int(a.n))
	if cap(s.buf) < size {
		s.buf = append(make([]byte, 0, size), s.buf...)
	}
	for len(s.buf) < int(a.n) || (len(s.buf) < cap(s.buf) && !s.eof) {
		m, err := s.src.Read(s.buf[len(s.buf):cap(s.buf)])
		s.buf = s.buf[:len(s.buf)+m]
		if err == io.EOF {
			s.eof = true
			if len(s.buf) < int(a.n) {
				return s.short(io.ErrUnexpectedEOF)
			}
			break
		}
		if err != nil {
			return s.short(err)
		}
	}
	return nil
}

// short describes a source that ended before a list.
func (s *listStream) short(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("reading the routing lists again: the input changed or ended early: %w", err)
}

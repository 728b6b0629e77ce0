package ib

import (
	"bytes"
	"errors"
	"io"
	"os"
	"runtime"
	"sync"

	"orcs/infile"
	"orcs/internal/hugemem"
	"orcs/internal/workers"
)

// An opensm-lfts.dump of a large fabric is gigabytes of text, one line per
// switch and LID. A plain file of it is read on all cores: window after
// window, each window cut at table headers ("Unicast lids [") into pieces
// that are parsed at the same time, each from its first line number on
// (every piece's lines are counted first, also at the same time). The
// pieces' tables, LID labels and skipped lines are then merged in file
// order, so that the result and the first error are those of reading the
// file line by line.

// parallelMin is the size from which a plain (not compressed) dump file is
// read on all cores; parallelWindow is the bytes read per round (0: 4 MiB
// per thread, from 8 to 64 MiB: a window must hold a few tables for every
// thread, and the tables of a 45 056-host fabric are 3 MB each) and
// parallelMaxTable bounds a window that holds no table header past its
// start (variables for tests).
var (
	parallelMin      int64 = 4 << 20
	parallelWindow         = 0
	parallelMaxTable       = 1 << 30
)

// windowSize returns the bytes read per round on threads goroutines.
func windowSize(threads int) int {
	if parallelWindow > 0 {
		return parallelWindow
	}
	return min(max(threads*4<<20, 8<<20), 64<<20)
}

// unicastHeader starts every table of the grammar.
var unicastHeader = []byte("\nUnicast lids [")

// unicastPiece is one piece of a window and what parsing it gave.
type unicastPiece struct {
	data  []byte
	base  int // lines before the piece
	lines int // lines in it (when parsed without error)
	p     *unicastParser
	err   error
}

// readUnicastFile reads a plain dump file in the "Unicast lids" grammar on
// all cores (packed: see LFT.Each). ok is false when path is no plain file
// of at least parallelMin bytes (standard input, gzip data), to be read
// line by line instead.
func readUnicastFile(path, name string, packed bool) (rt *Routing, ok bool, err error) {
	fh := openParallel(path)
	if fh == nil {
		return nil, false, nil
	}
	defer fh.Close()
	rt, err = readUnicastParallel(fh, name, packed, runtime.GOMAXPROCS(0))
	return rt, true, err
}

// openParallel opens path for reading on all cores, or returns nil when
// it is no plain file of at least parallelMin bytes (standard input, gzip
// data), to be read line by line instead.
func openParallel(path string) *os.File {
	fh, size := openPlain(path)
	if fh != nil && size < parallelMin {
		fh.Close()
		return nil
	}
	return fh
}

// openPlain opens path and returns it with its size when it is a regular
// file that does not hold gzip data, else nil.
func openPlain(path string) (*os.File, int64) {
	if path == "-" {
		return nil, 0
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, 0
	}
	st, err := fh.Stat()
	var magic [2]byte
	n, _ := fh.ReadAt(magic[:], 0)
	if err != nil || !st.Mode().IsRegular() || infile.IsGzip(magic[:n]) {
		fh.Close()
		return nil, 0
	}
	return fh, st.Size()
}

// unicastMerge is the file read so far: the merged tables and labels, the
// skipped lines, the table left open by the last piece.
type unicastMerge struct {
	rt      *Routing
	notes   lines // notes and skipped of every piece
	open    *LFT  // the last piece's open table, or nil
	lastN   int   // the last line a piece returned
	started bool  // a piece had a table
}

// readUnicastParallel reads src window by window on threads goroutines.
func readUnicastParallel(src io.Reader, name string, packed bool, threads int) (*Routing, error) {
	m := &unicastMerge{rt: &Routing{File: name, Format: FormatLFTDump}, notes: lines{file: name}}
	parsers := make([]*unicastParser, 2*threads)
	base := 0
	err := readWindows(src, name, threads, unicastStart, func() (int, int) { return base, m.lastN }, func(w []byte, ts tableStart) error {
		cuts := splitPieces(w, len(parsers), ts)
		pieces := make([]unicastPiece, len(cuts))
		for i, c := range cuts {
			pieces[i].data = c
		}
		var err error
		base, err = parsePieces(pieces, parsers, base, name, packed, threads, m)
		return err
	})
	if err != nil {
		return nil, err
	}
	return m.finish()
}

// tableStart tells where the tables of a dump start: at the line that
// starts with mark[1:] (mark begins with a line break), or, when line is
// set, at a line that holds mark and that line accepts.
type tableStart struct {
	mark []byte
	line func(l []byte) bool
	// tableLen is the bytes of a table of the dump being read, 0 when not
	// known: the tables of a dump are about the same length (every table
	// lists every LID), so a table start is looked for near a whole number
	// of tables after the window's start before anywhere else.
	tableLen int
}

// unicastStart starts the tables of the "Unicast lids" grammar.
var unicastStart = tableStart{mark: unicastHeader}

// next returns the start of the first table line found from offset from on
// (it may begin before from when midLine), or -1.
//
// A mark that begins with a line break is searched without it, and the
// byte before each find checked: every line ends in a line break, so a
// search for one stops at every line (bytes.Index never leaves its
// byte-by-byte loop for them), while the mark's first letter is rare.
func (ts tableStart) next(w []byte, from int) int {
	return ts.nextBefore(w, from, len(w))
}

// nextBefore is next for a table line whose mark ends by offset end.
func (ts tableStart) nextBefore(w []byte, from, end int) int {
	mark, nl := ts.mark, len(ts.mark) > 0 && ts.mark[0] == '\n'
	if nl {
		mark = mark[1:]
	}
	for from < end {
		i := bytes.Index(w[from:end], mark)
		if i < 0 {
			return -1
		}
		at := from + i
		if nl && (at == from || w[at-1] != '\n') {
			from = at + 1
			continue
		}
		if ts.line == nil {
			return at
		}
		if start := ts.lineAt(w, at); start >= 0 {
			return start
		}
		from = at + len(mark)
	}
	return -1
}

// near returns a table start of w within a few kilobytes of offset g, or
// -1 (also when the table length is not known).
func (ts tableStart) near(w []byte, g int) int {
	if ts.tableLen == 0 {
		return -1
	}
	slack := 4<<10 + ts.tableLen/16
	if g-slack < 1 {
		return -1
	}
	return ts.nextBefore(w, g-slack, min(len(w), g+slack+len(ts.mark)))
}

// guess returns a table start of w (which starts with a table) near
// offset g, from its table length, or -1.
func (ts tableStart) guess(w []byte, g int) int {
	if ts.tableLen == 0 {
		return -1
	}
	m := (g + ts.tableLen/2) / ts.tableLen
	return ts.near(w, max(m, 1)*ts.tableLen)
}

// lastGuess returns a table start near the end of w (which starts with a
// table): the last one, or one a table before it, found from the table
// length; else the last one (last). It is -1 when w holds none past its
// start.
func (ts tableStart) lastGuess(w []byte) int {
	if ts.tableLen > 0 {
		for m := (len(w) - 1) / ts.tableLen; m >= 1 && m >= (len(w)-1)/ts.tableLen-1; m-- {
			if at := ts.near(w, m*ts.tableLen); at > 0 {
				return at
			}
		}
	}
	return ts.last(w)
}

// withTableLen returns ts with the table length of w, the distance between
// its first two table starts, when ts has none yet.
func (ts tableStart) withTableLen(w []byte) tableStart {
	if ts.tableLen == 0 {
		if a := ts.next(w, 0); a >= 0 {
			if b := ts.next(w, a+1); b > a {
				ts.tableLen = b - a
			}
		}
	}
	return ts
}

// last returns the start of the last table line of w, or -1. It searches
// forward from a tail of w that doubles until it holds one: bytes.LastIndex
// searches backward byte by byte, which cost a second of CPU per 6.7 GB
// dump of tables of 2 MB.
func (ts tableStart) last(w []byte) int {
	for tail := 64 << 10; ; tail *= 2 {
		from := max(0, len(w)-tail)
		if at := ts.next(w, from); at >= 0 {
			for {
				// From the end of the line at: a later table line.
				e := bytes.IndexByte(w[at:], '\n')
				if e < 0 {
					return at
				}
				n := ts.next(w, at+e)
				if n < 0 {
					return at
				}
				at = n
			}
		}
		if from == 0 {
			return -1
		}
	}
}

// lineAt returns the start of the line of w that holds offset i, or -1
// when ts.line refuses that line.
func (ts tableStart) lineAt(w []byte, i int) int {
	start := bytes.LastIndexByte(w[:i], '\n') + 1
	end := bytes.IndexByte(w[i:], '\n')
	if end < 0 {
		end = len(w)
	} else {
		end += i
	}
	if !ts.line(w[start:end]) {
		return -1
	}
	return start
}

// readWindows reads src window by window, each ending before the start of
// a table (the last one ends with the input), and hands each window to
// parse while the next one is read. at gives the lines before the window
// and the last line parsed, for the messages.
func readWindows(src io.Reader, name string, threads int, ts tableStart, at func() (base, lastN int), parse func(window []byte, ts tableStart) error) error {
	window := windowSize(threads)
	// The windows are held on huge pages, given back when they are
	// replaced and when the read ends (the tables keep no byte of them):
	// the copy out of the page cache into them and the parsers' reads of
	// them miss the TLB 512 times less often (the reader 5–10 % faster on
	// the development machine).
	bufMem, nextMem := new(hugemem.Arena), new(hugemem.Arena)
	var wg sync.WaitGroup // the fill of next
	defer func() {
		wg.Wait() // a panic in parse: the fill must not write into a released window
		bufMem.Release()
		nextMem.Release()
	}()
	buf := hugemem.Make[byte](bufMem, 0, window)
	next := hugemem.Make[byte](nextMem, 0, window) // the window read while buf is parsed
	size := window                                 // the windows' capacity from the next one on
	var readErr error
	fill := func(b []byte) ([]byte, error) {
		n, err := io.ReadFull(src, b[len(b):cap(b)])
		return b[:len(b)+n], err
	}
	buf, readErr = fill(buf)
	for {
		eof := errors.Is(readErr, io.EOF) || errors.Is(readErr, io.ErrUnexpectedEOF)
		if readErr != nil && !eof {
			_, lastN := at()
			return infile.Errorf(name, 0, "after line %d: %w", lastN, readErr).With(ErrTruncated)
		}
		if eof && len(buf) == 0 {
			break
		}
		cut := len(buf)
		if !eof {
			had := ts.tableLen
			ts = ts.withTableLen(buf)
			if had == 0 && ts.tableLen > 0 && parallelWindow == 0 {
				// The next windows hold two whole tables per thread: the
				// pieces, a table each, then keep every thread busy to
				// the window's end (three tables on two threads left one
				// idle for a third of each window).
				if c := 2*threads*ts.tableLen + ts.tableLen/2; c <= 64<<20 {
					size = max(size, c)
				}
			}
			cut = ts.lastGuess(buf)
		}
		if cut <= 0 {
			// No table header past the window's start: a longer table.
			if 2*cap(buf) > parallelMaxTable {
				base, _ := at()
				return infile.Errorf(name, base+1, "no table header in %d MB: not a forwarding table dump", cap(buf)>>20).With(ErrFormat)
			}
			grown := append(make([]byte, 0, 2*cap(buf)), buf...)
			buf, readErr = fill(grown)
			continue
		}
		// Read the next window while this one is parsed.
		if c := max(size, cap(buf)); cap(next) < c {
			// A larger window (whole tables, or a table longer than the
			// window): next is mapped anew and the old one given back.
			mem := new(hugemem.Arena)
			next = hugemem.Make[byte](mem, 0, c)
			nextMem.Release()
			nextMem = mem
		}
		next = append(next[:0], buf[cut:]...)
		var nextErr error
		if !eof {
			wg.Add(1)
			go func() {
				defer wg.Done()
				next, nextErr = fill(next)
			}()
		}
		err := parse(buf[:cut], ts)
		wg.Wait()
		if err != nil {
			return err
		}
		if eof {
			break
		}
		buf, next = next, buf
		bufMem, nextMem = nextMem, bufMem
		readErr = nextErr
	}
	return nil
}

// splitPieces cuts a window into at most n pieces at table starts.
func splitPieces(w []byte, n int, ts tableStart) [][]byte {
	var pieces [][]byte
	start := 0
	for k := 1; k < n; k++ {
		cut := ts.guess(w, k*len(w)/n)
		if cut <= start {
			cut = ts.next(w, max(start, k*len(w)/n))
		}
		if cut < 0 || cut >= len(w) {
			break
		}
		if cut > start {
			pieces = append(pieces, w[start:cut])
			start = cut
		}
	}
	return append(pieces, w[start:])
}

// parsePieces parses the pieces at the same time, each from line 1, and
// merges them into m in order, moving their lines behind the lines before
// them. A piece that fails or skips lines is parsed again from its real
// first line, so that its messages name the right lines. It returns the
// lines read so far.
func parsePieces(pieces []unicastPiece, parsers []*unicastParser, base int, name string, packed bool, threads int, m *unicastMerge) (int, error) {
	workers.Run(nil, threads, len(pieces), func(_, i int) error {
		pc := &pieces[i]
		p := parsers[i]
		r := newLines(pc.data, name)
		if p == nil {
			p = newUnicastParser(r, packed)
			parsers[i] = p
		} else {
			p.reset(r)
		}
		pc.p = p
		pc.err = p.all()
		pc.lines = r.phys
		return nil
	})
	for i := range pieces {
		pc := &pieces[i]
		pc.base = base
		if pc.err != nil || pc.p.r.skipped > 0 {
			// Again, from its first line: the messages name lines.
			r := newLines(pc.data, name)
			r.phys, r.n = base, base
			p := newUnicastParser(r, packed)
			p.rt.labels, pc.p.rt.labels = pc.p.rt.labels, nil
			clear(p.rt.labels)
			pc.p, pc.err = p, p.all()
		} else {
			pc.p.shift(base)
		}
		if err := m.add(pc); err != nil {
			return base, err
		}
		base += pc.lines
	}
	return base, nil
}

// all parses every line of p's input.
func (p *unicastParser) all() error {
	for {
		if p.cur != nil && p.packed {
			p.fastEntries()
		}
		l, ok := p.r.next()
		if !ok {
			return nil
		}
		if err := p.line(l); err != nil {
			return err
		}
	}
}

// shift moves the lines that p recorded behind base lines.
func (p *unicastParser) shift(base int) {
	b := int32(base)
	for i := range p.rt.Switches {
		t := &p.rt.Switches[i]
		t.Line += base
		if t.packed != nil {
			t.packed.first += b
			for j := range t.packed.jumps {
				t.packed.jumps[j].line += b
			}
		}
		for j := range t.Entries {
			t.Entries[j].Line += b
		}
	}
	for _, lid := range p.rt.labelled {
		p.rt.labels[lid].line += b
	}
	p.r.n += base
	p.r.phys += base
}

// reset makes p ready for a new piece read by r; its LID bookkeeping
// (seen, by table number) carries over.
func (p *unicastParser) reset(r *lines) {
	labels := p.rt.labels
	p.r, p.rt, p.cur, p.listed = r, &Routing{File: r.file, Format: FormatLFTDump, labels: labels}, nil, 0
	p.conflict = LFTEntry{}
}

// add merges a parsed piece, returning the error of reading the file line
// by line when the piece holds the first one.
func (m *unicastMerge) add(pc *unicastPiece) error {
	p := pc.p
	if m.open != nil {
		// The piece starts with a header: the previous table has no trailer.
		return infile.Errorf(m.rt.File, pc.base+1, "new table before the trailer of switch 0x%016x (line %d): truncated table", m.open.GUID, m.open.Line).With(ErrTruncated)
	}
	// Labels: the first label of each LID wins; a different one later is
	// an error at its line.
	// Only the piece's own labels are gone through (most pieces set none:
	// their lines have the labels of earlier ones); the conflict kept is
	// the one of the earliest line, in whatever order they are found.
	labels := p.rt.labels
	var conflict *infile.ParseError
	for _, lid := range p.rt.labelled {
		lab := labels[lid]
		labels[lid] = lidLabel{}
		if conflict != nil && int(lab.line) > conflict.Line {
			continue
		}
		if prev, old := m.rt.setLabel(uint16(lid), lab.guid, lab.kind, int(lab.line)); prev != 0 {
			conflict = labelConflict(m.rt.File, uint16(lid), int(lab.line), lab.guid, old, prev)
		}
	}
	if c := p.conflict; pc.err != nil && c.Line > 0 {
		// A label of the piece contradicts its first label in the file,
		// which may come before the piece.
		first := m.rt.labels[c.LID]
		pc.err = labelConflict(m.rt.File, c.LID, int(c.Line), p.conflictGUID, first.guid, int(first.line))
	}
	var pe *infile.ParseError
	if conflict != nil && (pc.err == nil || !errors.As(pc.err, &pe) || pe.Line > conflict.Line) {
		return conflict
	}
	if pc.err != nil {
		return pc.err
	}
	if len(p.rt.Switches) > 0 {
		if !m.started {
			m.rt.Format = p.rt.Format
			m.started = true
		}
		m.rt.Switches = append(m.rt.Switches, p.rt.Switches...)
	}
	m.open = nil
	if p.cur != nil {
		t := *p.cur
		m.open = &t
	}
	if p.r.n > pc.base {
		m.lastN = p.r.n
	}
	for _, n := range p.r.notes {
		if len(m.notes.notes) < maxNotes {
			m.notes.notes = append(m.notes.notes, n)
		}
	}
	m.notes.skipped += p.r.skipped
	return nil
}

// finish ends the file as unicastParser.finish does.
func (m *unicastMerge) finish() (*Routing, error) {
	if m.open != nil {
		return nil, infile.Errorf(m.rt.File, m.lastN, "truncated dump: the table of switch 0x%016x (line %d) has no \"lids dumped\" trailer", m.open.GUID, m.open.Line).With(ErrTruncated)
	}
	if len(m.rt.Switches) == 0 {
		return nil, infile.Errorf(m.rt.File, m.lastN, "no switch tables (want \"Unicast lids [...] of switch ...\" headers)")
	}
	m.rt.Warnings = m.notes.warnings()
	return m.rt, nil
}

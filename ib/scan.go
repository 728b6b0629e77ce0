package ib

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"

	"orcs/infile"
)

// This file holds the small line and token scanners shared by the readers
// of InfiniBand tool output. They work on the input in place: no regular
// expressions and no allocation per line.

// lines iterates over the lines of an input, held in memory (data) or
// read from src. Lines read from src are valid until the next call.
type lines struct {
	file  string
	data  []byte
	src   *bufio.Reader
	err   error  // read error of src
	long  []byte // a line longer than src's buffer
	held  []byte // line read by peek
	heldN int    // its number
	hold  bool
	n     int // number of the line last returned, 1-based
	phys  int // number of lines read, skipped ones included

	notes   []string // the first skipped lines, as warnings
	skipped int      // number of skipped lines
}

// newLines returns a line reader over data.
func newLines(data []byte, file string) *lines { return &lines{file: file, data: data} }

// streamLines returns a line reader over src.
func streamLines(src *bufio.Reader, file string) *lines { return &lines{file: file, src: src} }

// raw returns the next line that is not noise (see noise), and counts
// every line read in phys.
func (r *lines) raw() ([]byte, bool) {
	for {
		l, ok := r.physical()
		if !ok {
			return nil, false
		}
		r.phys++
		if r.phys == 1 && bytes.HasPrefix(l, utf8BOM) {
			l = l[len(utf8BOM):]
			r.note("a UTF-8 byte-order mark", nil)
		}
		if why := noise(l); why != "" {
			r.note(why, l)
			continue
		}
		return l, true
	}
}

// maxLine bounds a line of a streamed input: no line of the tools' output
// comes near it, and a file that is one endless line stops early.
const maxLine = 1 << 20

// errLineTooLong ends a streamed input whose line passes maxLine.
var errLineTooLong = fmt.Errorf("a line longer than %d bytes: not the output of an InfiniBand tool", maxLine)

// utf8BOM is the byte-order mark that some editors put before UTF-8 text.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// maxNotes is the number of skipped lines reported one by one.
const maxNotes = 5

// note records that the line just read (number phys) was skipped, or its
// byte-order mark dropped (l nil).
func (r *lines) note(why string, l []byte) {
	r.skipped++
	if len(r.notes) >= maxNotes {
		return
	}
	msg := fmt.Sprintf("%s:%d: skipped %s", r.file, r.phys, why)
	if l != nil {
		msg += " " + tok(trimBlank(l))
	}
	r.notes = append(r.notes, msg)
}

// warnings returns what the reader skipped: one message per line for the
// first few lines, then their number.
func (r *lines) warnings() []string {
	if r.skipped == 0 {
		return nil
	}
	w := append([]string(nil), r.notes...)
	switch more := r.skipped - len(r.notes); {
	case more == 1:
		w = append(w, fmt.Sprintf("%s: skipped 1 more line that is not the tool's output", r.file))
	case more > 1:
		w = append(w, fmt.Sprintf("%s: skipped %d more lines that are not the tool's output", r.file, more))
	}
	return w
}

// physical returns the next line of the input as it is.
func (r *lines) physical() ([]byte, bool) {
	var l []byte
	if r.src == nil {
		if len(r.data) == 0 {
			return nil, false
		}
		if i := bytes.IndexByte(r.data, '\n'); i >= 0 {
			l, r.data = r.data[:i], r.data[i+1:]
		} else {
			l, r.data = r.data, nil
		}
	} else {
		if r.err != nil {
			return nil, false
		}
		var err error
		l, err = r.src.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			r.long = append(r.long[:0], l...)
			for err == bufio.ErrBufferFull {
				l, err = r.src.ReadSlice('\n')
				r.long = append(r.long, l...)
				if len(r.long) > maxLine {
					r.err = errLineTooLong
					return nil, false
				}
			}
			l = r.long
		}
		if err != nil && err != io.EOF {
			r.err = err
			return nil, false
		}
		if len(l) == 0 {
			return nil, false
		}
		if l[len(l)-1] == '\n' {
			l = l[:len(l)-1]
		}
	}
	if k := len(l); k > 0 && l[k-1] == '\r' {
		l = l[:k-1]
	}
	return l, true
}

// next returns the next line without its line break (a trailing carriage
// return is dropped too), or false at the end of the input or on a read
// error (see readErr).
func (r *lines) next() ([]byte, bool) {
	if r.hold {
		r.hold = false
		r.n = r.heldN
		return r.held, true
	}
	l, ok := r.raw()
	if ok {
		r.n = r.phys
	}
	return l, ok
}

// nextHex is next for the entry lines of a table dump held in memory: it
// returns the next line when it starts with "0x" (never noise) and is not
// the first line (which may carry a byte-order mark); false leaves the
// line to next.
func (r *lines) nextHex() ([]byte, bool) {
	d := r.data
	if r.src != nil || r.hold || r.phys == 0 || len(d) < 3 || d[0] != '0' || d[1] != 'x' && d[1] != 'X' {
		return nil, false
	}
	l := d
	if i := bytes.IndexByte(d, '\n'); i >= 0 {
		l, r.data = d[:i], d[i+1:]
	} else {
		r.data = nil
	}
	if k := len(l); k > 0 && l[k-1] == '\r' {
		l = l[:k-1]
	}
	r.phys++
	r.n = r.phys
	return l, true
}

// peek returns the next line without consuming it.
func (r *lines) peek() ([]byte, bool) {
	if !r.hold {
		l, ok := r.raw()
		if !ok {
			return nil, false
		}
		r.held, r.heldN, r.hold = l, r.phys, true
	}
	return r.held, true
}

// readErr returns the read error that ended the input early, naming the
// file.
func (r *lines) readErr() error {
	if r.err == nil {
		return nil
	}
	if r.err == errLineTooLong {
		return infile.Errorf(r.file, r.phys+1, "%w", r.err).With(ErrFormat)
	}
	return infile.Errorf(r.file, 0, "after line %d: %w", r.n, r.err).With(ErrTruncated)
}

// errorf returns an error located at the line last returned.
func (r *lines) errorf(format string, args ...any) *infile.ParseError {
	return infile.Errorf(r.file, r.n, "%s", fmt.Sprintf(format, args...))
}

// errorAt returns an error located at line n of the same file.
func (r *lines) errorAt(n int, format string, args ...any) *infile.ParseError {
	return infile.Errorf(r.file, n, "%s", fmt.Sprintf(format, args...))
}

// tok quotes a token for an error message, shortened when long.
func tok(b []byte) string {
	const max = 48
	if len(b) > max {
		return strconv.Quote(string(b[:max]) + "…")
	}
	return strconv.Quote(string(b))
}

// cursor walks one line.
type cursor struct {
	b []byte
	i int
}

func (c *cursor) done() bool { return c.i >= len(c.b) }

func (c *cursor) peek() byte {
	if c.i < len(c.b) {
		return c.b[c.i]
	}
	return 0
}

// rest returns the unread part of the line.
func (c *cursor) rest() []byte { return c.b[c.i:] }

// blank skips spaces and tabs and reports whether there were any.
func (c *cursor) blank() bool {
	start := c.i
	for c.i < len(c.b) && (c.b[c.i] == ' ' || c.b[c.i] == '\t') {
		c.i++
	}
	return c.i > start
}

// lit consumes s if the line continues with it.
func (c *cursor) lit(s string) bool {
	if len(c.b)-c.i >= len(s) && string(c.b[c.i:c.i+len(s)]) == s {
		c.i += len(s)
		return true
	}
	return false
}

// field returns the next run of non-blank bytes (possibly empty).
func (c *cursor) field() []byte {
	start := c.i
	for c.i < len(c.b) && c.b[c.i] != ' ' && c.b[c.i] != '\t' {
		c.i++
	}
	return c.b[start:c.i]
}

// until returns the bytes up to the next byte b (not consumed) or to the
// end of the line.
func (c *cursor) until(b byte) []byte {
	start := c.i
	for c.i < len(c.b) && c.b[c.i] != b {
		c.i++
	}
	return c.b[start:c.i]
}

// dec parses an unsigned decimal number of at most 9 digits.
func (c *cursor) dec() (int, bool) {
	start := c.i
	n := 0
	for c.i < len(c.b) && c.b[c.i] >= '0' && c.b[c.i] <= '9' {
		if c.i-start >= 9 {
			return 0, false
		}
		n = n*10 + int(c.b[c.i]-'0')
		c.i++
	}
	return n, c.i > start
}

// hex parses up to 16 hexadecimal digits (without a 0x prefix).
func (c *cursor) hex() (uint64, bool) {
	start := c.i
	var n uint64
	for c.i < len(c.b) {
		d, ok := hexDigit(c.b[c.i])
		if !ok {
			break
		}
		if c.i-start >= 16 {
			return 0, false
		}
		n = n<<4 | uint64(d)
		c.i++
	}
	return n, c.i > start
}

// hex0x parses 0x followed by hexadecimal digits.
func (c *cursor) hex0x() (uint64, bool) {
	if !c.lit("0x") && !c.lit("0X") {
		return 0, false
	}
	return c.hex()
}

// number parses a C-style unsigned number: 0x-prefixed hexadecimal or
// decimal.
func (c *cursor) number() (uint64, bool) {
	if c.lit("0x") || c.lit("0X") {
		return c.hex()
	}
	start := c.i
	var n uint64
	for c.i < len(c.b) && c.b[c.i] >= '0' && c.b[c.i] <= '9' {
		if c.i-start >= 19 {
			return 0, false
		}
		n = n*10 + uint64(c.b[c.i]-'0')
		c.i++
	}
	return n, c.i > start
}

// word returns the next run of letters, digits, '_' and '-'.
func (c *cursor) word() []byte {
	start := c.i
	for c.i < len(c.b) {
		b := c.b[c.i]
		if !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-') {
			break
		}
		c.i++
	}
	return c.b[start:c.i]
}

// hexDigit returns the value of a hexadecimal digit, false for any other
// byte.
func hexDigit(b byte) (byte, bool) {
	v := hexNibble[b]
	return v, v < 16
}

// hex4 reads the four hexadecimal digits of b[0:4] (a LID as the dumps
// write it) with a table, without a branch per digit; ok is false unless
// all four are digits.
func hex4(b []byte) (v int, ok bool) {
	_ = b[3]
	h0, h1, h2, h3 := hexNibble[b[0]], hexNibble[b[1]], hexNibble[b[2]], hexNibble[b[3]]
	return int(h0)<<12 | int(h1)<<8 | int(h2)<<4 | int(h3), (h0|h1|h2|h3)&0xf0 == 0
}

// dec3 reads the three decimal digits of b[0:3] (an out port as the dumps
// write it); ok is false unless all three are digits.
func dec3(b []byte) (v int, ok bool) {
	_ = b[2]
	d0, d1, d2 := b[0]-'0', b[1]-'0', b[2]-'0'
	return int(d0)*100 + int(d1)*10 + int(d2), d0 <= 9 && d1 <= 9 && d2 <= 9
}

// hexNibble holds the value of each hexadecimal digit, 0xff for any other
// byte.
var hexNibble = func() (t [256]byte) {
	for b := range t {
		t[b] = 0xff
		switch {
		case b >= '0' && b <= '9':
			t[b] = byte(b - '0')
		case b >= 'a' && b <= 'f':
			t[b] = byte(b - 'a' + 10)
		case b >= 'A' && b <= 'F':
			t[b] = byte(b - 'A' + 10)
		}
	}
	return t
}()

// trimBlank drops leading and trailing spaces and tabs.
func trimBlank(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// isBlankLine reports whether a line holds only spaces and tabs.
func isBlankLine(l []byte) bool { return len(trimBlank(l)) == 0 }

// maxUnicastLID is the largest unicast LID (0xBFFF); 0xC000 and up are
// multicast.
const maxUnicastLID = 0xBFFF

// Package infile opens the files a user names on the command line: "-" is
// standard input, and gzip data is decompressed whatever the file is
// called (recognised by its magic bytes). Errors name the file.
package infile

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// Name returns how path is named in messages: "<stdin>" for "-".
func Name(path string) string {
	if path == "-" {
		return "<stdin>"
	}
	return path
}

// Open opens path ("-" for standard input) for reading through a buffer,
// decompressing gzip data. It returns the reader and a function that closes
// the input. The reader refuses a run of more than MaxBlank blank bytes
// (see OpenLimit).
func Open(path string) (*bufio.Reader, func(), error) {
	return OpenLimit(path, Limit{})
}

// MaxBlank is the longest run of blank bytes (spaces, tabs, carriage
// returns and line ends) that an input may hold: no file orcs reads means
// anything by 1 MiB of blank space, and a stream of it (yes ' ' | orcs …)
// would otherwise be read until memory or patience runs out.
const MaxBlank = 1 << 20

// Limit bounds the bytes a reader accepts from one input (after
// decompression): Bytes (0: no bound beyond MaxBlank), and Why, which
// says in the error what the bound stands for ("a shard of 10 runs", "the
// counters of a fabric of 96 cables"), so that a user sees the limit and
// its reason.
type Limit struct {
	Bytes int64
	Why   string
}

// ErrTooLarge is the kind of the error for an input that holds more bytes
// than its reader accepts, or a run of more than MaxBlank blank bytes.
var ErrTooLarge = errors.New("input too large")

// OpenLimit is Open with a bound on the bytes read: past lim.Bytes bytes,
// or a run of more than MaxBlank blank bytes, the reader fails with a
// *ParseError of kind ErrTooLarge that names the file, the limit and
// lim.Why.
func OpenLimit(path string, lim Limit) (*bufio.Reader, func(), error) {
	var src io.Reader = os.Stdin
	done := func() {}
	if path != "-" {
		fh, err := os.Open(path)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, StripPath(err))
		}
		src, done = fh, func() { fh.Close() }
	}
	br := bufio.NewReaderSize(src, 1<<16)
	var text io.Reader = br
	if magic, _ := br.Peek(2); IsGzip(magic) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			done()
			return nil, nil, fmt.Errorf("%s: gzip: %w", Name(path), err)
		}
		closeFile := done
		done = func() { zr.Close(); closeFile() }
		text = gzipErrors{zr}
	}
	g := &guard{r: text, name: Name(path), lim: lim, line: 1}
	return bufio.NewReaderSize(g, 1<<16), done, nil
}

// IsGzip reports whether b starts with the gzip magic number, as the
// start of an input that Open decompresses.
func IsGzip(b []byte) bool {
	return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b
}

// ReadAll reads a whole input into memory (see Open). Errors name the
// file.
func ReadAll(path string) ([]byte, error) {
	return ReadAllLimit(path, Limit{})
}

// ReadAllLimit reads a whole input into memory, at most lim.Bytes bytes
// (see OpenLimit). Errors name the file.
func ReadAllLimit(path string, lim Limit) ([]byte, error) {
	br, done, err := OpenLimit(path, lim)
	if err != nil {
		return nil, err
	}
	defer done()
	if err := CheckText(br, Name(path)); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if path != "-" {
		// A plain file is read into a buffer of its size: growing one by
		// doubling would need up to three times the file in memory.
		if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
			size := st.Size()
			if lim.Bytes > 0 {
				size = min(size, lim.Bytes)
			}
			buf.Grow(int(size) + bytes.MinRead)
		}
	}
	if _, err := buf.ReadFrom(br); err != nil {
		var pe *ParseError
		if errors.As(err, &pe) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", Name(path), StripPath(err))
	}
	return buf.Bytes(), nil
}

// blank marks the bytes of blank space.
var blank = [256]bool{' ': true, '\t': true, '\r': true, '\n': true}

// guard counts the bytes read from an input and fails past its limit or
// on a run of more than MaxBlank blank bytes.
type guard struct {
	r     io.Reader
	name  string
	lim   Limit
	n     int64 // bytes read
	line  int   // the line of the next byte
	blank int64 // blank bytes just before the next byte
	from  int   // the line where that run of blank bytes started
	err   error // the error once failed
}

// Read reads from the input and checks what it read.
func (g *guard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	// Pieces of at most MaxBlank bytes: a run of blank space longer than
	// that touches a piece's start or end, where it is counted; within a
	// piece only the first and the last non-blank byte are looked for.
	for rest := p[:n]; len(rest) > 0; {
		piece := rest[:min(len(rest), MaxBlank)]
		rest = rest[len(piece):]
		if g.check(piece) {
			g.err = Errorf(g.name, g.from, "more than %d bytes (%d MiB) of blank space from this line on: not an input orcs reads", MaxBlank, MaxBlank>>20).With(ErrTooLarge)
			return 0, g.err
		}
	}
	g.n += int64(n)
	if g.lim.Bytes > 0 && g.n > g.lim.Bytes {
		g.err = Errorf(g.name, 0, "more than %d bytes (%s), the most %s can hold", g.lim.Bytes, sizeText(g.lim.Bytes), g.lim.Why).With(ErrTooLarge)
		return 0, g.err
	}
	return n, err
}

// check follows the runs of blank space through a piece of at most
// MaxBlank bytes and reports whether one grew longer than MaxBlank.
func (g *guard) check(piece []byte) bool {
	first := 0
	for first < len(piece) && blank[piece[first]] {
		first++
	}
	if first == len(piece) { // all blank: the run goes on
		if g.blank == 0 {
			g.from = g.line
		}
		g.blank += int64(len(piece))
		g.line += bytes.Count(piece, newline)
		return g.blank > MaxBlank
	}
	if g.blank+int64(first) > MaxBlank {
		return true
	}
	last := len(piece) - 1
	for blank[piece[last]] {
		last--
	}
	g.blank = int64(len(piece) - 1 - last)
	g.line += bytes.Count(piece[:last+1], newline)
	g.from = g.line
	g.line += bytes.Count(piece[last+1:], newline)
	return false
}

// newline is what lines end with.
var newline = []byte{'\n'}

// sizeText writes a byte count in the largest binary unit that keeps it
// at least 1: "512 KiB", "1.5 GiB".
func sizeText(n int64) string {
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB"}
	v, u := float64(n), 0
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	if u == 0 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.4g %s", v, units[u])
}

// gzipErrors says that read errors come from the compressed data.
type gzipErrors struct{ r io.Reader }

func (g gzipErrors) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("gzip: corrupt or truncated data: %w", err)
	}
	return n, err
}

// StripPath drops the *os.PathError wrapper, whose text repeats the file
// name that the caller already puts first.
func StripPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

// ParseError is an error located in an input file: the file, the line
// (1-based; 0 when the error concerns the file as a whole) and the cause.
// Kind, when not nil, is a sentinel error that classifies the cause (for
// errors.Is), such as a truncated file or a duplicate identifier.
type ParseError struct {
	File string
	Line int
	Err  error
	Kind error
}

// Errorf returns a *ParseError at file:line whose cause is
// fmt.Errorf(format, args...) (so %w keeps a wrapped error).
func Errorf(file string, line int, format string, args ...any) *ParseError {
	return &ParseError{File: file, Line: line, Err: fmt.Errorf(format, args...)}
}

// With classifies e by the sentinel kind and returns it.
func (e *ParseError) With(kind error) *ParseError {
	e.Kind = kind
	return e
}

// Error formats the error as "file:line: cause", or "file: cause" without
// a line.
func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

// Unwrap returns the cause and the kind, for errors.Is and errors.As.
func (e *ParseError) Unwrap() []error {
	if e.Kind == nil {
		return []error{e.Err}
	}
	return []error{e.Err, e.Kind}
}

// ErrBinary is the kind of the error for an input that is not text.
var ErrBinary = errors.New("binary data")

// CheckText looks at the first 4 KiB of br (without consuming them) and
// refuses binary data, such as /dev/zero or a compressed file that is not
// gzip, before a reader spends time and memory on it: every input of orcs
// is text.
func CheckText(br *bufio.Reader, name string) error {
	head, _ := br.Peek(4096)
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return Errorf(name, 0, "a NUL byte at offset %d: binary data, not a text file", i).With(ErrBinary)
	}
	return nil
}

// maxToken is the longest word an error message shows whole.
const maxToken = 64

// maxPath is the longest file name (PATH_MAX) an error message keeps whole
// however long it is: a path or a "file:line" is what the user needs to
// find the problem, so it is never cut.
const maxPath = 4096

// ShortenTokens shortens every word of msg longer than 64 bytes to its
// first 48 bytes and a note of its length, so that a message about a huge
// bad token (a 200 KB argument, a runaway line) stays one readable line.
// A word that names a file (see isPath), with its ":line" or ":line:col",
// is kept whole up to 4096 bytes.
func ShortenTokens(msg string) string {
	if len(msg) <= maxToken {
		return msg
	}
	var b strings.Builder
	start := -1
	flush := func(end int) {
		if w := msg[start:end]; len(w) > maxToken && !isPath(w) {
			cut := 48
			for cut > 0 && !utf8.RuneStart(w[cut]) {
				cut--
			}
			tail := len(w) // keep closing punctuation: `"`, `":`, `),`
			for tail > len(w)-3 && strings.ContainsRune("\"')]}:;,.", rune(w[tail-1])) {
				tail--
			}
			fmt.Fprintf(&b, "%s…(%d bytes)%s", w[:cut], len(w), w[tail:])
		} else {
			b.WriteString(w)
		}
		start = -1
	}
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		if c == ' ' || c == '\n' || c == '\t' {
			if start >= 0 {
				flush(i)
			}
			b.WriteByte(c)
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		flush(len(msg))
	}
	return b.String()
}

// isPath reports whether the word w (as it appears in a message: maybe
// quoted, maybe followed by ":12:", ":" or ",") names a file: at most
// maxPath bytes of printable characters without quotes, containing a '/'
// or ending in an extension (".ibnetdiscover", ".dot"), optionally followed
// by up to two ":number" parts.
func isPath(w string) bool {
	if len(w) > maxPath+16 {
		return false
	}
	w = strings.TrimRight(w, "\"')]}:;,.")
	w = strings.TrimLeft(w, "\"'([{")
	for range 2 { // ":line" and ":line:col"
		i := strings.LastIndexByte(w, ':')
		if i < 0 || i == len(w)-1 || strings.Trim(w[i+1:], "0123456789") != "" {
			break
		}
		w = w[:i]
	}
	if w == "" || len(w) > maxPath || !utf8.ValidString(w) {
		return false
	}
	for _, r := range w {
		if r < ' ' || r == 0x7f || r == '"' || r == '\'' || r == utf8.RuneError {
			return false
		}
	}
	if strings.ContainsRune(w, '/') {
		return true
	}
	dot := strings.LastIndexByte(w, '.')
	if dot <= 0 || len(w)-dot-1 < 1 || len(w)-dot-1 > 16 {
		return false
	}
	for _, r := range w[dot+1:] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

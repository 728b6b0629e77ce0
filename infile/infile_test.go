package infile

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestReadAllGzipByContent(t *testing.T) {
	dir := t.TempDir()
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte("digraph g {}\n"))
	zw.Close()
	// The name does not say gzip; the content does.
	path := filepath.Join(dir, "fabric.dot")
	if err := os.WriteFile(path, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadAll(path)
	if err != nil || string(got) != "digraph g {}\n" {
		t.Errorf("ReadAll = %q, %v", got, err)
	}
	// A cut gzip stream is an error naming the file.
	cut := filepath.Join(dir, "cut.dot")
	if err := os.WriteFile(cut, z.Bytes()[:z.Len()-6], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadAll(cut); err == nil || !strings.HasPrefix(err.Error(), cut+": gzip: corrupt or truncated data") {
		t.Errorf("cut gzip: %v", err)
	}
	_, err = ReadAll(filepath.Join(dir, "missing"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), filepath.Join(dir, "missing")+": open: ") {
		t.Errorf("missing file: %v", err)
	}
}

func TestParseError(t *testing.T) {
	kind := errors.New("kind")
	cause := errors.New("cause")
	e := Errorf("f.txt", 3, "bad %w", cause).With(kind)
	if e.Error() != "f.txt:3: bad cause" || !errors.Is(e, kind) || !errors.Is(e, cause) {
		t.Errorf("%v", e)
	}
	if e := Errorf("f.txt", 0, "empty"); e.Error() != "f.txt: empty" || errors.Is(e, kind) {
		t.Errorf("%v", e)
	}
	var pe *ParseError
	wrapped := errors.Join(errors.New("context"), e)
	if !errors.As(wrapped, &pe) || pe.Line != 3 || pe.File != "f.txt" {
		t.Errorf("errors.As: %+v", pe)
	}
	if Name("-") != "<stdin>" || Name("a") != "a" {
		t.Error("Name")
	}
}

func TestShortenTokens(t *testing.T) {
	long := strings.Repeat("x", 100000)
	deep := "/scratch/" + strings.Repeat("a-rather-long-directory-name/", 8) + "fabric.ibnetdiscover"
	longName := strings.Repeat("cluster-west-", 8) + "2026-11-27.dot"
	cases := []struct{ in, want string }{
		{"short message", "short message"},
		{`--seed "` + long + `": want a number`, `--seed "` + strings.Repeat("x", 47) + `…(100003 bytes)": want a number`},
		{"a\n" + long, "a\n" + strings.Repeat("x", 48) + "…(100000 bytes)"},
		// A file name and its line are never cut, however deep the path.
		{"open " + deep + ": no such file or directory", "open " + deep + ": no such file or directory"},
		{deep + ":12: a cable to nowhere", deep + ":12: a cable to nowhere"},
		{deep + ":12:7: syntax error", deep + ":12:7: syntax error"},
		{"--topo " + longName + ": a dot file", "--topo " + longName + ": a dot file"},
		{`reading "` + deep + `": empty`, `reading "` + deep + `": empty`},
		// Other long words are still cut, also next to a path, and so
		// is a "path" longer than any file name can be.
		{deep + ":3: node " + strings.Repeat("y", 80), deep + ":3: node " + strings.Repeat("y", 48) + "…(80 bytes)"},
		{"/" + long, "/" + strings.Repeat("x", 47) + "…(100001 bytes)"},
		{`"` + strings.Repeat("a/", 40) + `"x"`, `"` + strings.Repeat("a/", 23) + "a…(84 bytes)" + `"`},
	}
	for _, c := range cases {
		if got := ShortenTokens(c.in); got != c.want {
			t.Errorf("ShortenTokens(%.60q…) = %.120q", c.in, got)
		}
	}
}

// TestReadAllAllocatesOnce checks that a plain file is read into one buffer
// of its size: growing a buffer by doubling allocated (and kept alive at
// the peak) up to three times the file.
func TestReadAllAllocatesOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.dot")
	const size = 32 << 20
	if err := os.WriteFile(path, bytes.Repeat([]byte("a"), size), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	data, err := ReadAll(path)
	runtime.ReadMemStats(&after)
	if err != nil || len(data) != size {
		t.Fatalf("ReadAll: %d bytes, %v", len(data), err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > size+size/4 {
		t.Errorf("reading %d bytes allocated %d", size, got)
	}
}

// endless is an endless stream of one pattern (yes ' ', /dev/zero, …),
// counting the bytes handed out.
type endless struct {
	pattern []byte
	n       int64
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.pattern[(e.n+int64(i))%int64(len(e.pattern))]
	}
	e.n += int64(len(p))
	return len(p), nil
}

// TestGuardStopsEndlessBlank: an endless stream of blank space is refused
// after MaxBlank bytes, with the file and the line where the blank space
// starts, instead of being read until memory runs out (issue 22, item 4).
func TestGuardStopsEndlessBlank(t *testing.T) {
	for _, pat := range []string{" \n", " ", "\n", "\t\r\n"} {
		src := &endless{pattern: []byte(pat)}
		g := &guard{r: io.MultiReader(strings.NewReader("a\nb\n"), io.LimitReader(src, 16<<20)), name: "in.txt", line: 1}
		_, err := io.Copy(io.Discard, g)
		var pe *ParseError
		if !errors.As(err, &pe) || !errors.Is(err, ErrTooLarge) || pe.File != "in.txt" || pe.Line != 2 ||
			!strings.Contains(err.Error(), "more than 1048576 bytes (1 MiB) of blank space") {
			t.Errorf("%q: %v", pat, err)
		}
		if src.n > MaxBlank+1<<17 {
			t.Errorf("%q: read %d bytes before refusing", pat, src.n)
		}
	}
	// Read in one piece larger than MaxBlank (as dot's 4 MiB buffer does).
	text := "a\nb\n" + strings.Repeat("x"+strings.Repeat(" \n", 450<<10), 3) + strings.Repeat(" \n", 600<<10) + "y"
	buf := make([]byte, 8<<20)
	_, err := io.ReadFull(&guard{r: strings.NewReader(text), name: "big", line: 1}, buf)
	if want := fmt.Sprintf("big:%d: more than 1048576 bytes", 3+2*(450<<10)); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("one large read: %v, want %s", err, want)
	}
	// A run that ends inside the second piece of one read.
	_, err = io.ReadFull(&guard{r: strings.NewReader("x" + strings.Repeat(" ", 1400<<10) + "y"), name: "two", line: 1}, buf)
	if err == nil || !strings.HasPrefix(err.Error(), "two:1: more than 1048576 bytes") {
		t.Errorf("a run across two pieces: %v", err)
	}
	// Blank space up to the limit, between words, is fine.
	text = "x" + strings.Repeat(" \n", MaxBlank/2) + "y\n"
	if n, err := io.Copy(io.Discard, &guard{r: strings.NewReader(text), name: "ok", line: 1}); err != nil || n != int64(len(text)) {
		t.Errorf("%d blank bytes: %d, %v", MaxBlank, n, err)
	}
}

// TestLimitBoundsBytes: ReadAllLimit and OpenLimit stop at the limit and
// say what it stands for; a file within it is read whole.
func TestLimitBoundsBytes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.json")
	if err := os.WriteFile(path, bytes.Repeat([]byte("0,"), 5000), 0o644); err != nil {
		t.Fatal(err)
	}
	lim := Limit{Bytes: 4096, Why: "a test file of 2 values"}
	_, err := ReadAllLimit(path, lim)
	want := path + ": more than 4096 bytes (4 KiB), the most a test file of 2 values can hold"
	if err == nil || err.Error() != want || !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadAllLimit: %v, want %s", err, want)
	}
	if data, err := ReadAllLimit(path, Limit{Bytes: 10000}); err != nil || len(data) != 10000 {
		t.Errorf("at the limit: %d bytes, %v", len(data), err)
	}
	// The limit counts the decompressed bytes.
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(bytes.Repeat([]byte("0,"), 1<<20))
	zw.Close()
	gz := filepath.Join(dir, "big.json.gz")
	if err := os.WriteFile(gz, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	br, done, err := OpenLimit(gz, lim)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	if _, err := io.Copy(io.Discard, br); err == nil || !strings.Contains(err.Error(), "more than 4096 bytes") {
		t.Errorf("gzip: %v", err)
	}
}

// BenchmarkGuard measures what the blank-space and byte checks cost per
// byte of a fabric-like text (compare with BenchmarkGuardBaseline).
func BenchmarkGuard(b *testing.B) {
	text := bytes.Repeat([]byte("  \"S1_12\" -> \"H103\" [comment=\"H103,H104\"];\n"), 1<<14)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		g := &guard{r: bytes.NewReader(text), name: "bench", line: 1, lim: Limit{Bytes: 1 << 30}}
		if _, err := io.Copy(io.Discard, g); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGuardBaseline copies the same text without the guard.
func BenchmarkGuardBaseline(b *testing.B) {
	text := bytes.Repeat([]byte("  \"S1_12\" -> \"H103\" [comment=\"H103,H104\"];\n"), 1<<14)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := io.Copy(io.Discard, struct{ io.Reader }{bytes.NewReader(text)}); err != nil {
			b.Fatal(err)
		}
	}
}

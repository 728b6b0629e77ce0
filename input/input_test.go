package input

import (
	"bytes"
	"compress/gzip"
	"errors"
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
	cases := []struct{ in, want string }{
		{"short message", "short message"},
		{`--seed "` + long + `": want a number`, `--seed "` + strings.Repeat("x", 47) + `…(100003 bytes)": want a number`},
		{"a\n" + long, "a\n" + strings.Repeat("x", 48) + "…(100000 bytes)"},
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

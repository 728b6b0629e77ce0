package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestCommitAndAbort(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("hello\n")
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatalf("target exists before commit")
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "hello\n" {
		t.Fatalf("content %q", b)
	}
	g, _ := Create(p)
	g.WriteString("partial")
	g.Abort()
	if b, _ := os.ReadFile(p); string(b) != "hello\n" {
		t.Fatalf("abort changed the target: %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("left files behind: %v", entries)
	}
}

func TestCreateInMissingDir(t *testing.T) {
	if _, err := Create(filepath.Join(t.TempDir(), "no", "such", "x")); err == nil {
		t.Fatal("want error")
	}
}

// TestSpecialFileWrittenInPlace: a named pipe (like /dev/null or a
// terminal) is written directly, never replaced by a renamed regular file.
func TestSpecialFileWrittenInPlace(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no mkfifo:", err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	f, err := Create(fifo)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("through the pipe\n")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe\n" {
		t.Fatalf("reader got %q", s)
	}
	st, err := os.Stat(fifo)
	if err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the pipe was replaced: %v %v", st.Mode(), err)
	}
	entries, _ := os.ReadDir(filepath.Dir(fifo))
	if len(entries) != 1 {
		t.Fatalf("left files behind: %v", entries)
	}
	if _, err := Create(t.TempDir()); err == nil {
		t.Fatal("a directory as output: want an error")
	}
}

// TestRemovePending checks that the temporary files of unfinished outputs
// go, and committed outputs stay.
func TestRemovePending(t *testing.T) {
	dir := t.TempDir()
	done, err := Create(filepath.Join(dir, "done"))
	if err != nil {
		t.Fatal(err)
	}
	done.WriteString("x")
	if err := done.Commit(); err != nil {
		t.Fatal(err)
	}
	open, err := Create(filepath.Join(dir, "open"))
	if err != nil {
		t.Fatal(err)
	}
	open.WriteString("y")
	RemovePending()
	files, _ := os.ReadDir(dir)
	if len(files) != 1 || files[0].Name() != "done" {
		t.Errorf("files after RemovePending: %v", files)
	}
}

// TestSetAllOrNothing checks that a group of outputs whose last member
// fails to write (a write error as on a full disk: its file closed under
// it, or /dev/full) leaves none of them, and that a group that succeeds
// leaves all.
func TestSetAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	s := &Set{}
	a, _ := s.Create(filepath.Join(dir, "a.txt"))
	b, _ := s.Create(filepath.Join(dir, "b.svg"))
	a.WriteString("first\n")
	b.WriteString("second\n")
	b.tmp.Close() // its write fails at the flush
	if err := s.Commit(); err == nil {
		t.Fatal("Commit succeeded with a failed member")
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
	if _, err := os.Stat("/dev/full"); err == nil {
		s := &Set{}
		a, _ := s.Create(filepath.Join(dir, "a.txt"))
		full, _ := s.Create("/dev/full")
		a.WriteString("first\n")
		full.WriteString("second\n")
		if err := s.Commit(); err == nil || !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("Commit with /dev/full = %v; want ENOSPC", err)
		}
		if left, _ := os.ReadDir(dir); len(left) > 0 {
			t.Errorf("/dev/full: left behind: %v", left)
		}
	}
	s = &Set{}
	for _, n := range []string{"x", "y"} {
		f, _ := s.Create(filepath.Join(dir, n))
		f.WriteString(n)
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 2 {
		t.Errorf("after a good commit: %v", left)
	}
}

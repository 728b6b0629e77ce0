package outfile

import (
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

package outfile

import (
	"os"
	"path/filepath"
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

// Package outfile writes output files atomically: everything goes to a
// temporary file next to the target, which is renamed over the target only
// when the whole output was written. A failed run leaves no partial file.
package outfile

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
)

// File is an output being written. Write to it, then Commit or Abort.
type File struct {
	*bufio.Writer
	path string
	tmp  *os.File // nil for standard output
}

// Create starts writing path; "-" means standard output.
func Create(path string) (*File, error) {
	if path == "-" || path == "" {
		return &File{Writer: bufio.NewWriterSize(os.Stdout, 1<<16), path: "-"}, nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &File{Writer: bufio.NewWriterSize(tmp, 1<<16), path: path, tmp: tmp}, nil
}

// Commit flushes the output and moves it into place.
func (f *File) Commit() error {
	if err := f.Flush(); err != nil {
		f.Abort()
		return fmt.Errorf("%s: %w", f.path, err)
	}
	if f.tmp == nil {
		return nil
	}
	if err := f.tmp.Close(); err != nil {
		os.Remove(f.tmp.Name())
		return fmt.Errorf("%s: %w", f.path, err)
	}
	if err := os.Chmod(f.tmp.Name(), 0o644); err != nil {
		os.Remove(f.tmp.Name())
		return fmt.Errorf("%s: %w", f.path, err)
	}
	if err := os.Rename(f.tmp.Name(), f.path); err != nil {
		os.Remove(f.tmp.Name())
		return fmt.Errorf("%s: %w", f.path, err)
	}
	return nil
}

// Abort discards the output. It is safe to call after Commit.
func (f *File) Abort() {
	if f.tmp != nil {
		f.tmp.Close()
		os.Remove(f.tmp.Name())
	}
}

// Package outfile writes output files atomically: everything goes to a
// temporary file next to the target, which is renamed over the target only
// when the whole output was written. A failed run leaves no partial file.
// Targets that are not regular files (/dev/null, a terminal, a named pipe)
// are written directly: renaming over them would replace the device.
package outfile

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// File is an output being written. Write to it, then Commit or Abort.
type File struct {
	*bufio.Writer
	path   string
	tmp    *os.File // the temporary file, nil when writing directly
	direct *os.File // a special file written in place, else nil
}

// Create starts writing path; "-" means standard output.
func Create(path string) (*File, error) {
	if path == "-" || path == "" {
		return &File{Writer: bufio.NewWriterSize(os.Stdout, 1<<16), path: "-"}, nil
	}
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		if st.IsDir() {
			return nil, fmt.Errorf("%s: is a directory", path)
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return &File{Writer: bufio.NewWriterSize(f, 1<<16), path: path, direct: f}, nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) { // name the target, not the temporary file
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: cannot create: %w", path, err)
	}
	pending.Store(tmp.Name(), struct{}{})
	return &File{Writer: bufio.NewWriterSize(tmp, 1<<16), path: path, tmp: tmp}, nil
}

// pending holds the temporary files of outputs not yet committed or
// aborted, for RemovePending.
var pending sync.Map

// RemovePending removes the temporary files of every output still being
// written, for a process that is stopped by a signal: the targets keep
// their previous contents and no temporary file is left behind.
func RemovePending() {
	pending.Range(func(name, _ any) bool {
		os.Remove(name.(string))
		pending.Delete(name)
		return true
	})
}

// Commit flushes the output and moves it into place.
func (f *File) Commit() error {
	if err := f.Flush(); err != nil {
		f.Abort()
		return fmt.Errorf("%s: %w", f.path, err)
	}
	if f.direct != nil {
		err := f.direct.Close()
		f.direct = nil
		if err != nil {
			return fmt.Errorf("%s: %w", f.path, err)
		}
		return nil
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
	pending.Delete(f.tmp.Name())
	return nil
}

// Abort discards the output. It is safe to call after Commit.
func (f *File) Abort() {
	if f.direct != nil {
		f.direct.Close()
		f.direct = nil
	}
	if f.tmp != nil {
		f.tmp.Close()
		os.Remove(f.tmp.Name())
		pending.Delete(f.tmp.Name())
	}
}

// Set is a group of outputs of one command that are committed together:
// Commit first flushes and closes every file (where a full disk shows)
// and renames them into place only when all of them were written.
type Set struct{ files []*File }

// Create starts writing path as a member of s.
func (s *Set) Create(path string) (*File, error) {
	f, err := Create(path)
	if err != nil {
		return nil, err
	}
	s.files = append(s.files, f)
	return f, nil
}

// Commit writes every member out and moves them into place, or, if one
// fails, drops them all: it flushes and syncs the temporary files first,
// then flushes the members written in place (standard output, devices),
// and renames the temporary files only when all of that succeeded.
func (s *Set) Commit() error {
	for _, f := range s.files {
		if f.tmp == nil {
			continue
		}
		err := f.Flush()
		if err == nil {
			err = f.tmp.Sync()
		}
		if err != nil {
			s.Abort()
			return fmt.Errorf("%s: %w", f.path, err)
		}
	}
	for _, f := range s.files {
		if f.tmp == nil {
			if err := f.Commit(); err != nil {
				s.Abort()
				return err
			}
		}
	}
	for _, f := range s.files {
		if f.tmp != nil {
			if err := f.Commit(); err != nil {
				s.Abort()
				return err
			}
		}
	}
	return nil
}

// Abort drops every member not yet committed.
func (s *Set) Abort() {
	for _, f := range s.files {
		f.Abort()
	}
}

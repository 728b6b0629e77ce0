package infile

import "errors"

// ErrNewerVersion classifies the refusal of a file written in a newer
// version of its format than the reader knows (see CheckVersion).
var ErrNewerVersion = errors.New("file of a newer format version")

// CheckVersion checks the format version of a JSON file that one orcs
// command wrote for another to read: got is the file's version field
// (0 when absent: a file written before the field existed, read as
// version 1) and known the newest version the reader knows. A newer
// version is refused, naming the file, the kind and both versions, as its
// fields may no longer mean what the reader takes them for.
func CheckVersion(file, kind string, got, known int) error {
	switch {
	case got < 0:
		return Errorf(file, 0, "%s with format_version %d: want 1 to %d", kind, got, known)
	case got > known:
		return Errorf(file, 0, "%s of format_version %d, but this orcs reads up to version %d: read it with the orcs that wrote it, or write it again with this one", kind, got, known).With(ErrNewerVersion)
	}
	return nil
}

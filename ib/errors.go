package ib

import "errors"

// Sentinel causes of the errors of this package's readers and of Build. A
// reader's error is an *infile.ParseError (file, line, cause); errors.Is
// tells these kinds apart.
var (
	// ErrTruncated: a dump or file ends in the middle of a table.
	ErrTruncated = errors.New("truncated input")
	// ErrDuplicateLID: two ports claim the same LID.
	ErrDuplicateLID = errors.New("duplicate LID")
	// ErrMismatch: the topology and the forwarding tables do not describe
	// the same fabric.
	ErrMismatch = errors.New("files of different fabrics")
	// ErrFormat: the content is not a format the reader takes (or the
	// wrong kind: tables where a topology is expected, or the reverse).
	ErrFormat = errors.New("unrecognised format")
)

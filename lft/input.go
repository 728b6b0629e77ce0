package lft

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
)

// ReadInput reads a whole input file into memory, or standard input when
// path is "-". Gzip data (recognised by its magic bytes, whatever the file
// is called) is decompressed. Errors name the file.
func ReadInput(path string) ([]byte, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = io.ReadAll(os.Stdin)
		path = "<stdin>"
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPathError(err))
	}
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: gzip: %w", path, err)
		}
		var out bytes.Buffer
		if _, err := io.Copy(&out, zr); err != nil {
			return nil, fmt.Errorf("%s: gzip: corrupt or truncated data: %w", path, err)
		}
		if err := zr.Close(); err != nil {
			return nil, fmt.Errorf("%s: gzip: %w", path, err)
		}
		data = out.Bytes()
	}
	return data, nil
}

// unwrapPathError drops the *os.PathError wrapper, whose text repeats the
// file name that the caller already puts first.
func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

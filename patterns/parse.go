package patterns

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"orcs/infile"
)

// Parse reads a user pattern file (the file:PATH pattern); file names the
// source in errors.
//
// The format has one "src dst" pair of decimal ranks per line, separated by
// white space. A blank line (empty or only white space) ends a level;
// several blank lines in a row are one separator and no level is ever
// empty. "#" starts a comment that runs to the end of the line; a line that
// holds only a comment is ignored and does not end a level. A rank may not
// send to itself.
//
// Errors have the form "file:line: problem", or "file: no pairs" for a file
// without any pair. Ranks are checked against the commsize only by Compile.
func Parse(r io.Reader, file string) ([]Level, error) {
	levels, _, err := parse(r, file)
	return levels, err
}

// maxLine bounds a line of a pattern file ("src dst" and a comment).
const maxLine = 1 << 20

// parse is Parse that also returns, for every pair, its line number.
func parse(r io.Reader, file string) (levels []Level, lines [][]int, err error) {
	br := bufio.NewReader(r)
	if err := infile.CheckText(br, file); err != nil {
		return nil, nil, err
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	var (
		cur     Level
		curLine []int
		lineNo  int
	)
	endLevel := func() {
		if len(cur) > 0 {
			levels = append(levels, cur)
			lines = append(lines, curLine)
			cur, curLine = nil, nil
		}
	}
	for sc.Scan() {
		lineNo++
		text := sc.Bytes()
		comment := false
		if i := bytes.IndexByte(text, '#'); i >= 0 {
			text, comment = text[:i], true
		}
		fields := bytes.Fields(text)
		switch {
		case len(fields) == 0:
			if !comment {
				endLevel()
			}
			continue
		case len(fields) != 2:
			return nil, nil, infile.Errorf(file, lineNo, "want 2 fields \"src dst\", got %d", len(fields))
		}
		var p [2]int32
		for k, tok := range fields {
			v, problem := parseRank(tok)
			if problem != "" {
				return nil, nil, infile.Errorf(file, lineNo, "%s", problem)
			}
			p[k] = v
		}
		if p[0] == p[1] {
			return nil, nil, infile.Errorf(file, lineNo, "rank %d sends to itself", p[0])
		}
		cur = append(cur, Pair{p[0], p[1]})
		curLine = append(curLine, lineNo)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, nil, infile.Errorf(file, lineNo+1, "line longer than %d bytes: not a pattern file", maxLine)
		}
		return nil, nil, infile.Errorf(file, lineNo+1, "%w", err)
	}
	endLevel()
	if len(levels) == 0 {
		return nil, nil, fmt.Errorf("%s: no pairs", file)
	}
	return levels, lines, nil
}

// parseRank parses a decimal rank. On failure it returns a description of
// the problem.
func parseRank(tok []byte) (int32, string) {
	digits := tok
	neg := len(tok) > 1 && tok[0] == '-'
	if neg {
		digits = tok[1:]
	}
	v := int64(0)
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, fmt.Sprintf("bad rank %q", tok)
		}
		if v = v*10 + int64(c-'0'); v > math.MaxInt32 {
			v = math.MaxInt32 + 1 // keep scanning for bad characters
		}
	}
	switch {
	case neg:
		return 0, fmt.Sprintf("negative rank %s", tok)
	case v > math.MaxInt32:
		return 0, fmt.Sprintf("rank %s too large", tok)
	}
	return int32(v), ""
}

// ReadFile reads the pattern file path (the PATH of -p file:PATH; "-" is
// standard input, gzip data is decompressed) through infile, as Parse
// describes. Errors name the file.
func ReadFile(path string) ([]Level, error) {
	levels, _, err := readFile(path)
	return levels, err
}

// readFile is ReadFile that also returns, for every pair, its line number.
func readFile(path string) ([]Level, [][]int, error) {
	r, done, err := infile.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("pattern %s%w", filePrefix, err)
	}
	defer done()
	return parse(r, infile.Name(path))
}

// FilePath returns the PATH of a pattern name of the form file:PATH, and
// whether name has that form.
func FilePath(name string) (string, bool) {
	return strings.CutPrefix(name, filePrefix)
}

// compileFile reads the pattern file path and checks it for commsize n.
func compileFile(path string, n int) (*Source, error) {
	levels, lines, err := readFile(path)
	if err != nil {
		return nil, err
	}
	for k, lv := range levels {
		for i, p := range lv {
			for _, rank := range [2]int32{p.Src, p.Dst} {
				if int(rank) >= n {
					return nil, infile.Errorf(infile.Name(path), lines[k][i], "rank %d out of range for commsize %d", rank, n)
				}
			}
		}
	}
	return fixedSource(levels, n), nil
}

package mapping

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"orcs/infile"
)

// MaxRanks bounds the rank numbers of a traffic matrix (a typo such as a
// rank of 10^9 would otherwise ask for gigabytes).
const MaxRanks = 1 << 22

// ParseTraffic reads a traffic matrix: CSV lines "src_rank,dst_rank,bytes"
// (ranks from 0, bytes > 0), optionally after that very header line. Blank
// lines and lines starting with # are ignored, spaces around fields and a
// byte-order mark too.
// Repeated pairs add up; traffic of a rank to itself uses no cable and is
// dropped. The job has max rank + 1 ranks. The result is one level of
// messages weighted by bytes, in (src, dst) order of first appearance.
// Errors are *infile.ParseError values naming the file and line.
func ParseTraffic(r io.Reader, name string) (*Comm, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	c := &Comm{Levels: 1, Unit: "bytes"}
	index := map[[2]int32]int{}
	line, header := 0, false
	maxRank, maxLine := int32(-1), 0
	for sc.Scan() {
		line++
		text := sc.Bytes()
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf")) // a byte-order mark
		}
		text = bytes.TrimSpace(text)
		if len(text) == 0 || text[0] == '#' {
			continue
		}
		fields := bytes.Split(text, []byte{','})
		if len(fields) != 3 {
			return nil, infile.Errorf(name, line, "want 3 comma-separated fields src_rank,dst_rank,bytes, got %d", len(fields))
		}
		for i := range fields {
			fields[i] = bytes.TrimSpace(fields[i])
		}
		if !header && len(c.Msgs) == 0 && len(index) == 0 && string(fields[0]) == "src_rank" &&
			string(fields[1]) == "dst_rank" && string(fields[2]) == "bytes" {
			header = true
			continue
		}
		header = true // a header is only allowed first
		var ranks [2]int32
		for i, what := range []string{"src_rank", "dst_rank"} {
			v, err := strconv.ParseInt(string(fields[i]), 10, 64)
			if err != nil || v < 0 {
				return nil, infile.Errorf(name, line, "%s %q: want a rank ≥ 0", what, fields[i])
			}
			if v >= MaxRanks {
				return nil, infile.Errorf(name, line, "%s %d: ranks go up to %d", what, v, MaxRanks-1)
			}
			ranks[i] = int32(v)
		}
		b, err := strconv.ParseInt(string(fields[2]), 10, 64)
		if err != nil || b <= 0 {
			return nil, infile.Errorf(name, line, "bytes %q: want an integer > 0", fields[2])
		}
		if m := max(ranks[0], ranks[1]); m > maxRank {
			maxRank, maxLine = m, line
		}
		if ranks[0] == ranks[1] {
			continue
		}
		if i, ok := index[ranks]; ok {
			if c.Msgs[i].Weight > math.MaxInt64-b {
				return nil, infile.Errorf(name, line, "the bytes of %d→%d add up to more than 2^63", ranks[0], ranks[1])
			}
			c.Msgs[i].Weight += b
			continue
		}
		index[ranks] = len(c.Msgs)
		c.Msgs = append(c.Msgs, Message{Src: ranks[0], Dst: ranks[1], Weight: b})
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, infile.Errorf(name, line+1, "line longer than 1 MiB")
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(c.Msgs) == 0 {
		return nil, fmt.Errorf("%s: no traffic between two ranks", name)
	}
	c.Ranks = int(maxRank) + 1
	c.MaxRankAt = fmt.Sprintf("%s:%d", name, maxLine)
	return c, nil
}

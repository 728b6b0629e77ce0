package patterns

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// Print writes levels in the format of ORCS's --printptrn: for each level a
// header, one "src -> dst   |   srcname -> dstname" line per pair and a
// footer; an empty level, or a pattern without levels, prints
// "Pattern empty!". name maps a rank to a host name; if name is nil the
// rank number is printed instead.
func Print(w io.Writer, levels []Level, name func(rank int) string) error {
	if name == nil {
		name = strconv.Itoa
	}
	bw := bufio.NewWriter(w)
	if len(levels) == 0 {
		bw.WriteString("Pattern empty!\n")
	}
	for _, lv := range levels {
		if len(lv) == 0 {
			bw.WriteString("Pattern empty!\n")
			continue
		}
		bw.WriteString("\nUsed Pattern:\n=================\n")
		for _, p := range lv {
			fmt.Fprintf(bw, "% 5d -> %-5d   |   %s -> %s\n", p.Src, p.Dst, name(int(p.Src)), name(int(p.Dst)))
		}
		bw.WriteString("=================\n")
	}
	return bw.Flush()
}

// Format writes levels in the pattern file format that Parse reads: one
// "src dst" line per pair and a blank line between levels. The file format
// has no empty levels, so empty levels are left out.
func Format(w io.Writer, levels []Level) error {
	bw := bufio.NewWriter(w)
	var buf []byte
	sep := false
	for _, lv := range levels {
		if len(lv) == 0 {
			continue
		}
		if sep {
			bw.WriteByte('\n')
		}
		sep = true
		for _, p := range lv {
			buf = strconv.AppendInt(buf[:0], int64(p.Src), 10)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(p.Dst), 10)
			buf = append(buf, '\n')
			bw.Write(buf)
		}
	}
	return bw.Flush()
}

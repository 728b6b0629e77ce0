package dot

import (
	"bufio"
	"io"

	"orcs/lft"
)

// WriteOptions controls Write.
//
// Extra attributes replace input attributes of the same key.
type WriteOptions struct {
	// GraphName names the digraph; empty uses the fabric's, or "network".
	GraphName string
	// Extra returns attributes appended to link l's statement (may be nil).
	Extra func(l int32) []lft.Attr
	// OriginalAttrs writes each link's input attributes (Fabric.LinkAttrs)
	// instead of a comment derived from the tables, when they were kept.
	OriginalAttrs bool
}

// Write writes f as routed ORCS dot, one statement per line: first every
// node (so that reading the file back gives the same node and host order),
// then every link in link order with a comment listing the hosts routed over
// it, derived from the compiled tables ("*" where a link carries every host).
// Reading the output with Read gives the same fabric and tables.
func Write(w io.Writer, f *lft.Fabric, opt WriteOptions) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	name := opt.GraphName
	if name == "" {
		name = f.GraphName
	}
	if name == "" {
		name = "network"
	}
	bw.WriteString("digraph ")
	bw.WriteString(quoteID(name))
	bw.WriteString(" {\n")
	for _, n := range f.Nodes {
		bw.WriteString("  ")
		bw.WriteString(quoteID(n.Name))
		bw.WriteString(";\n")
	}
	useOriginal := opt.OriginalAttrs && f.LinkAttrs != nil
	var comments [][]byte
	if !useOriginal {
		comments = linkComments(f)
	}
	var buf []byte
	for l := range f.Links {
		k := f.Links[l]
		buf = buf[:0]
		buf = append(buf, "  "...)
		buf = append(buf, quoteID(f.Nodes[k.From].Name)...)
		buf = append(buf, " -> "...)
		buf = append(buf, quoteID(f.Nodes[k.To].Name)...)
		buf = append(buf, " ["...)
		first := true
		attr := func(key string, value []byte) {
			if !first {
				buf = append(buf, ", "...)
			}
			first = false
			buf = append(buf, key...)
			buf = append(buf, '=')
			buf = appendQuoted(buf, value)
		}
		var extra []lft.Attr
		if opt.Extra != nil {
			extra = opt.Extra(int32(l))
		}
		if useOriginal {
			for _, a := range f.LinkAttrs[l] {
				if !hasKey(extra, a.Key) { // an extra attribute replaces the input's
					attr(a.Key, []byte(a.Value))
				}
			}
		} else {
			attr("comment", comments[l])
		}
		for _, a := range extra {
			attr(a.Key, []byte(a.Value))
		}
		buf = append(buf, "];\n"...)
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

func hasKey(attrs []lft.Attr, key string) bool {
	for _, a := range attrs {
		if a.Key == key {
			return true
		}
	}
	return false
}

func appendQuoted(buf, s []byte) []byte {
	buf = append(buf, '"')
	for _, c := range s {
		switch c {
		case '"':
			buf = append(buf, '\\', '"')
		case '\n':
			buf = append(buf, ' ')
		default:
			buf = append(buf, c)
		}
	}
	return append(buf, '"')
}

// linkComments derives every link's ORCS routing comment from the base
// tables.
func linkComments(f *lft.Fabric) [][]byte {
	H := f.NumHosts()
	out := make([][]byte, len(f.Links))
	var buckets [][]int32
	var rowBuf []int32 // switch rows are built here, one after the other
	for v := range f.Nodes {
		links := f.OutLinks(int32(v))
		if len(links) == 0 {
			continue
		}
		for _, l := range links {
			out[l] = []byte{}
		}
		h := f.HostIndex(int32(v))
		row, uniform := f.RowInto(rowBuf, int32(v))
		if f.SwitchIndex(int32(v)) >= 0 {
			rowBuf = row
		}
		if row == nil {
			if uniform >= 0 {
				out[uniform] = []byte("*")
			}
			continue
		}
		// Bucket the destinations by out-link position, in host order.
		for len(buckets) < len(links) {
			buckets = append(buckets, nil)
		}
		for i := range links {
			buckets[i] = buckets[i][:0]
		}
		for d, l := range row {
			if l < 0 || int32(d) == h {
				continue
			}
			for i, x := range links {
				if x == l {
					buckets[i] = append(buckets[i], int32(d))
					break
				}
			}
		}
		all := H
		if h >= 0 {
			all = H - 1
		}
		for i, l := range links {
			if len(buckets[i]) == all && all > 0 {
				out[l] = []byte("*")
				continue
			}
			var b []byte
			for j, d := range buckets[i] {
				if j > 0 {
					b = append(b, ',')
				}
				b = append(b, f.HostName(int(d))...)
			}
			if b != nil {
				out[l] = b
			}
		}
	}
	return out
}

// Package hostlist expands Slurm host list expressions, as Slurm's
// `scontrol show hostnames` does: "node[001-003,010],login1" names node001,
// node002, node003, node010 and login1. A bracket holds comma-separated
// numbers and ranges; a range keeps the zero padding of its lower bound
// ("[01-10]" gives 01 … 10). Several brackets in one name multiply
// ("r[1-2]n[1-2]" gives r1n1, r1n2, r2n1, r2n2). A list can also be read
// from a file with one name per line (what `scontrol show hostnames`
// prints), given as @FILE.
package hostlist

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"orcs/infile"
)

// MaxHosts bounds the names one expression may expand to, so that a typo
// such as "n[1-999999999]" is an error, not an allocation of gigabytes.
const MaxHosts = 1 << 22

// Expand returns the host names of a Slurm host list expression, in order.
// Duplicates are kept (the caller decides whether they are an error).
func Expand(expr string) ([]string, error) {
	var out []string
	for _, item := range splitTop(expr) {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		names, err := expandItem(item, len(out))
		if err != nil {
			return nil, fmt.Errorf("host list %q: %w", shorten(expr), err)
		}
		out = append(out, names...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("host list %q names no host", shorten(expr))
	}
	return out, nil
}

// splitTop splits at the commas outside brackets.
func splitTop(s string) []string {
	var items []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				items = append(items, s[start:i])
				start = i + 1
			}
		}
	}
	return append(items, s[start:])
}

// maxNameBytes bounds the bytes of the names one item expands to.
const maxNameBytes = 1 << 28

// expandItem expands one name with brackets; have is how many names the
// expression gave so far (for MaxHosts). It splits the item into its
// literal parts and bracket groups first, checks the product of the
// groups' sizes against MaxHosts, and then builds every name once, so that
// its work is linear in the item and in the names it gives.
func expandItem(item string, have int) ([]string, error) {
	var lits []string     // lits[i] precedes groups[i]; one more literal ends the name
	var groups [][]string // the values of each bracket
	count, width := 1, 0  // names, and the longest name's bytes
	for rest := item; ; {
		open := strings.IndexByte(rest, '[')
		if open < 0 {
			if strings.IndexByte(rest, ']') >= 0 {
				return nil, fmt.Errorf("%q: ']' without '['", shorten(item))
			}
			lits = append(lits, rest)
			width += len(rest)
			break
		}
		closing := strings.IndexByte(rest[open:], ']')
		if closing < 0 {
			return nil, fmt.Errorf("%q: '[' without ']'", shorten(item))
		}
		closing += open
		prefix, body := rest[:open], rest[open+1:closing]
		if strings.IndexByte(prefix, ']') >= 0 || strings.IndexByte(body, '[') >= 0 {
			return nil, fmt.Errorf("%q: nested or unbalanced brackets", shorten(item))
		}
		values, err := expandBody(body, have)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", shorten(item), err)
		}
		if len(values) > (MaxHosts-have)/count {
			return nil, fmt.Errorf("more than %d hosts", MaxHosts)
		}
		count *= len(values)
		w := 0
		for _, v := range values {
			w = max(w, len(v))
		}
		lits = append(lits, prefix)
		groups = append(groups, values)
		width += len(prefix) + w
		rest = rest[closing+1:]
	}
	if len(groups) == 0 {
		return []string{item}, nil
	}
	if width > maxNameBytes/count {
		return nil, fmt.Errorf("%q: its %d names of up to %d bytes take more than %d MB", shorten(item), count, width, maxNameBytes>>20)
	}
	out := make([]string, 0, count)
	idx := make([]int, len(groups)) // the value of each group in the current name
	var b strings.Builder
	for {
		b.Reset()
		b.Grow(width)
		for i, g := range groups {
			b.WriteString(lits[i])
			b.WriteString(g[idx[i]])
		}
		b.WriteString(lits[len(groups)])
		out = append(out, b.String())
		k := len(groups) - 1 // the last bracket varies fastest
		for ; k >= 0; k-- {
			if idx[k]++; idx[k] < len(groups[k]) {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return out, nil
		}
	}
}

// expandBody expands "1-3,7,09-11" into its numbers as strings.
func expandBody(body string, have int) ([]string, error) {
	if body == "" {
		return nil, fmt.Errorf("empty brackets")
	}
	var out []string
	for _, part := range strings.Split(body, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		if !isRange {
			hi = lo
		}
		a, err1 := strconv.ParseUint(lo, 10, 32)
		b, err2 := strconv.ParseUint(hi, 10, 32)
		if lo == "" || hi == "" || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("bad range %q (want N or N-M)", part)
		}
		if b < a {
			return nil, fmt.Errorf("range %q runs backwards", part)
		}
		if uint64(have+len(out))+b-a+1 > MaxHosts {
			return nil, fmt.Errorf("more than %d hosts", MaxHosts)
		}
		width := len(lo)
		for v := a; v <= b; v++ {
			s := strconv.FormatUint(v, 10)
			if len(s) < width {
				s = strings.Repeat("0", width-len(s)) + s
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// Read reads one host name per line (blank lines and #-comments skipped;
// a line may itself be a host list expression). name is used in errors.
func Read(r io.Reader, name string) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = strings.TrimSpace(text[:i])
		}
		text = strings.TrimPrefix(text, "\ufeff")
		if text == "" {
			continue
		}
		names, err := Expand(text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		out = append(out, names...)
		if len(out) > MaxHosts {
			return nil, fmt.Errorf("%s:%d: more than %d hosts", name, line, MaxHosts)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no host names", name)
	}
	return out, nil
}

// Parse takes a --hosts argument: a host list expression, or @FILE for a
// file of host names ("@-" reads standard input).
func Parse(arg string) ([]string, error) {
	path, isFile := strings.CutPrefix(arg, "@")
	if !isFile {
		return Expand(arg)
	}
	r, done, err := infile.Open(path)
	if err != nil {
		return nil, err
	}
	defer done()
	if err := infile.CheckText(r, infile.Name(path)); err != nil {
		return nil, err
	}
	return Read(r, infile.Name(path))
}

func shorten(s string) string {
	if len(s) > 64 {
		return s[:61] + "..."
	}
	return s
}

// Compress writes names as a Slurm host list expression, the inverse of
// Expand: names that differ only in a trailing number of one width join
// in brackets ("dgx[001-003,005]"), in the order of their first
// appearance; other names stand alone. Expand(Compress(names)) gives the
// names back (each once), sorted within each bracket.
func Compress(names []string) string {
	type group struct {
		prefix string
		width  int
		nums   []uint64
	}
	// split cuts a name into a prefix and a trailing number of width
	// digits (width 0: no zero padding); ok is false for a name without
	// one.
	split := func(name string) (prefix string, num uint64, width int, ok bool) {
		i := len(name)
		for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
			i--
		}
		num, err := strconv.ParseUint(name[i:], 10, 32)
		if i == len(name) || err != nil || strings.ContainsAny(name[:i], "[],") {
			return "", 0, 0, false
		}
		if width = len(name) - i; name[i] != '0' || width == 1 {
			width = 0
		}
		return name[:i], num, width, true
	}
	// A number without zero padding of at least w digits prints the same
	// in a bracket of width w: it joins the widest such bracket.
	padded := map[string][]int{}
	for _, name := range names {
		if prefix, _, width, ok := split(name); ok && width > 0 && !slices.Contains(padded[prefix], width) {
			padded[prefix] = append(padded[prefix], width)
		}
	}
	var order []*group
	byKey := map[string]*group{}
	for _, name := range names {
		prefix, num, width, ok := split(name)
		if !ok {
			if key := "\x00" + name; byKey[key] == nil {
				byKey[key] = &group{prefix: name, width: -1}
				order = append(order, byKey[key])
			}
			continue
		}
		if width == 0 {
			digits := len(strconv.FormatUint(num, 10))
			for _, w := range padded[prefix] {
				if w <= digits && w > width {
					width = w
				}
			}
		}
		key := prefix + "\x00" + strconv.Itoa(width)
		g := byKey[key]
		if g == nil {
			g = &group{prefix: prefix, width: width}
			byKey[key] = g
			order = append(order, g)
		}
		g.nums = append(g.nums, num)
	}
	parts := make([]string, 0, len(order))
	for _, g := range order {
		if g.width < 0 {
			parts = append(parts, g.prefix)
			continue
		}
		num := func(v uint64) string {
			s := strconv.FormatUint(v, 10)
			for len(s) < g.width {
				s = "0" + s
			}
			return s
		}
		if len(g.nums) == 1 {
			parts = append(parts, g.prefix+num(g.nums[0]))
			continue
		}
		slices.Sort(g.nums)
		g.nums = slices.Compact(g.nums)
		var ranges []string
		for i := 0; i < len(g.nums); {
			j := i
			for j+1 < len(g.nums) && g.nums[j+1] == g.nums[j]+1 {
				j++
			}
			if j == i {
				ranges = append(ranges, num(g.nums[i]))
			} else {
				ranges = append(ranges, num(g.nums[i])+"-"+num(g.nums[j]))
			}
			i = j + 1
		}
		parts = append(parts, g.prefix+"["+strings.Join(ranges, ",")+"]")
	}
	return strings.Join(parts, ",")
}

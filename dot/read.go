package dot

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"orcs/infile"
	"orcs/lft"

	"github.com/awalterschulze/gographviz"
	"github.com/awalterschulze/gographviz/ast"
)

// Options controls Read.
type Options struct {
	// Topology skips routing: edges need no comment attribute. Otherwise
	// every edge must carry one (possibly empty), as in ORCS files.
	Topology bool
	// KeepAttrs keeps every edge's attributes in Fabric.LinkAttrs so that
	// the graph can be written again with extra attributes.
	KeepAttrs bool
}

// ReadFile reads a routed dot file ("-" for standard input, gzip
// accepted). See Read.
func ReadFile(path string, opt Options) (*lft.Fabric, error) {
	// Only a regular file can be read twice; a pipe (-i <(zcat f.dot.gz))
	// or a terminal is read once, whole.
	if st, err := os.Stat(path); path != "-" && err == nil && st.Mode().IsRegular() {
		f, ok, err := readStream(path, opt)
		if ok || err != nil {
			return f, err
		}
	}
	data, err := infile.ReadAll(path)
	if err != nil {
		return nil, err
	}
	if path == "-" {
		path = "<stdin>"
	}
	return Read(data, path, opt)
}

// streamBuffer is the size of the buffer readStream reads lines through (a
// variable for tests; it grows for longer lines).
var streamBuffer = 4 << 20

// readStream reads a file in the one-statement-per-line form (see Read)
// without holding it in memory: one pass builds the nodes and links and
// notes where each routing list is, and Build reads the lists from a
// second pass. It returns false when the file is in another form.
func readStream(path string, opt Options) (*lft.Fabric, bool, error) {
	br, done, err := infile.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer done()
	if err := infile.CheckText(br, path); err != nil {
		return nil, false, err
	}
	p := dotParser{file: path, opt: opt, b: lft.NewBuilder(), streaming: true}
	buf := make([]byte, 0, streamBuffer)
	var off int64 // input offset of buf[0]
	for eof := false; !eof; {
		n, err := io.ReadFull(br, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			eof = true
		case err != nil:
			return nil, false, fmt.Errorf("%s: %w", path, infile.StripPath(err))
		}
		data := buf
		if !eof {
			i := bytes.LastIndexByte(buf, '\n')
			if i < 0 { // a line longer than the buffer
				buf = append(make([]byte, 0, 2*cap(buf)), buf...)
				continue
			}
			data = buf[:i+1]
		}
		for pos := 0; pos < len(data); {
			line := data[pos:]
			next := len(data)
			if i := bytes.IndexByte(line, '\n'); i >= 0 {
				line, next = line[:i], pos+i+1
			}
			p.lineOff = off + int64(pos)
			if ok, err := p.fastLine(line); !ok || err != nil {
				return nil, false, err
			}
			pos = next
		}
		off += int64(len(data))
		buf = buf[:copy(buf, buf[len(data):])]
	}
	if !p.fastEnd() {
		return nil, false, nil
	}
	again, doneAgain, err := infile.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer doneAgain()
	p.b.SetListSource(again)
	f, err := p.build(func() []byte {
		data, _ := infile.ReadAll(path) // only to locate a bad host name
		return data
	})
	return f, err == nil, err
}

// Read parses a fabric in ORCS dot: nodes whose name starts with H are
// hosts, others switches; every edge is one link; an edge's comment lists
// the destination hosts routed over it ("*" = all), and a node uses its
// first matching out-edge in file order. file names the input in errors.
//
// Files with one statement per line (as every ORCS tool writes them) are read
// by a streaming parser without building a syntax tree; any other dot is
// handed to gographviz.
func Read(data []byte, file string, opt Options) (*lft.Fabric, error) {
	p := dotParser{file: file, opt: opt, b: lft.NewBuilder()}
	ok, err := p.fast(data)
	if err != nil {
		return nil, err
	}
	if !ok {
		fallbackLine := p.line
		p = dotParser{file: file, opt: opt, b: lft.NewBuilder()}
		if err := p.slow(data, fallbackLine); err != nil {
			return nil, err
		}
	}
	return p.build(func() []byte { return data })
}

// build checks the host names and builds the fabric the parser read;
// data gives the input again, only to locate a bad host name.
func (p *dotParser) build(data func() []byte) (*lft.Fabric, error) {
	nodeLines := func() []int {
		lines, _ := Lines(data())
		return lines
	}
	if err := checkHostNames(p.b, nodeLines, p.file); err != nil {
		return nil, err
	}
	f, err := p.b.Build()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.file, err)
	}
	f.GraphName = p.graphName
	f.LinkAttrs = p.attrs
	return f, nil
}

type dotParser struct {
	file  string
	opt   Options
	b     *lft.Builder
	line  int // current line (fast path), 1-based
	state int // fast path: 0 before the header, 1 in the body, 2 after the closing brace
	// When streaming (see readStream), routing lists are recorded by their
	// offset in the input: lineOff is the offset of curLine, the line being
	// parsed, and fresh says that the last ID parsed was unescaped into a
	// new slice (so it is not in the input as it stands).
	streaming bool
	lineOff   int64
	curLine   []byte
	fresh     bool
	graphName string
	attrs     [][]lft.Attr
	// recordLines makes the fast path note the line where each node first
	// appears and the line of each link (see Lines).
	recordLines          bool
	nodeLines, linkLines []int
}

func kindOfName(name []byte) lft.NodeKind {
	if len(name) > 0 && name[0] == 'H' {
		return lft.Host
	}
	return lft.Switch
}

// errorf returns an error located at the current line.
func (p *dotParser) errorf(format string, args ...any) error {
	return infile.Errorf(p.file, p.line, "%s", fmt.Sprintf(format, args...))
}

// fast parses data line by line. It returns false (and p.line set to the
// offending line) when a line is not in the one-statement-per-line form, so
// that the caller falls back to the full parser; semantic errors are returned.
func (p *dotParser) fast(data []byte) (bool, error) {
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		if ok, err := p.fastLine(line); !ok || err != nil {
			return false, err
		}
	}
	return p.fastEnd(), nil
}

// fastLine parses the next line for fast; false means the line is not in
// the one-statement-per-line form.
func (p *dotParser) fastLine(line []byte) (bool, error) {
	p.line++
	p.curLine = line
	s := lineScanner{buf: line}
	s.skipSpace()
	if s.done() || s.hasPrefix("//") || s.hasPrefix("#") {
		return true, nil
	}
	switch p.state {
	case 0:
		ok, err := p.header(&s)
		if !ok || err != nil {
			return false, err
		}
		p.state = 1
	case 1:
		if s.peek() == '}' {
			s.pos++
			s.skipSpace()
			if s.peek() == ';' {
				s.pos++
			}
			if !s.endOfStatement() {
				return false, nil
			}
			p.state = 2
			return true, nil
		}
		ok, err := p.statement(&s)
		if !ok || err != nil {
			return false, err
		}
		if p.recordLines {
			for len(p.nodeLines) < p.b.NumNodes() {
				p.nodeLines = append(p.nodeLines, p.line)
			}
			for len(p.linkLines) < p.b.NumLinks() {
				p.linkLines = append(p.linkLines, p.line)
			}
		}
	default:
		return false, nil // text after the closing brace
	}
	return true, nil
}

// fastEnd reports whether the lines fast parsed made a whole graph.
func (p *dotParser) fastEnd() bool {
	if p.state != 2 {
		if p.state == 0 {
			p.line = 1
		}
		return false
	}
	return true
}

// header parses `[strict] digraph [ID] {`.
func (p *dotParser) header(s *lineScanner) (bool, error) {
	// dot keywords are case-independent.
	w := strings.ToLower(string(s.word()))
	if w == "strict" {
		s.skipSpace()
		w = strings.ToLower(string(s.word()))
	}
	switch w {
	case "digraph":
	case "graph":
		return false, p.errorf("undirected graph: a fabric must be a digraph (every cable is two directed edges)")
	default:
		return false, nil
	}
	s.skipSpace()
	if s.peek() != '{' {
		id, ok := p.id(s)
		if !ok {
			return false, nil
		}
		p.graphName = string(id)
		s.skipSpace()
	}
	if s.peek() != '{' {
		return false, nil
	}
	s.pos++
	return s.endOfStatement(), nil
}

// statement parses one node, edge or attribute statement.
func (p *dotParser) statement(s *lineScanner) (bool, error) {
	from, ok := p.id(s)
	if !ok {
		return false, nil
	}
	s.skipSpace()
	switch {
	case s.hasPrefix("->"):
		s.pos += 2
		s.skipSpace()
		fromID := p.b.NodeBytes(from, kindOfName(from))
		to, ok := p.id(s)
		if !ok {
			return false, nil
		}
		toID := p.b.NodeBytes(to, kindOfName(to))
		s.skipSpace()
		link := p.b.Link(fromID, toID, 0, 0)
		var attrs []lft.Attr
		comment, hasComment, fresh := []byte(nil), false, false
		for s.peek() == '[' {
			ok := p.attrList(s, func(k, v []byte) {
				if string(k) == "comment" {
					comment, hasComment, fresh = v, true, p.fresh
				}
				if p.opt.KeepAttrs {
					attrs = append(attrs, lft.Attr{Key: string(k), Value: string(v)})
				}
			})
			if !ok {
				return false, nil
			}
			s.skipSpace()
		}
		if s.peek() == ';' {
			s.pos++
		}
		if !s.endOfStatement() {
			return false, nil
		}
		if p.opt.KeepAttrs {
			p.attrs = append(p.attrs, attrs)
		}
		return true, p.routeComment(link, comment, hasComment, fresh)
	case s.peek() == '=':
		// graph attribute: ID = ID
		s.pos++
		s.skipSpace()
		if _, ok := p.id(s); !ok {
			return false, nil
		}
	default:
		keyword := strings.ToLower(string(from))
		isAttrStmt := keyword == "node" || keyword == "edge" || keyword == "graph"
		if isAttrStmt && s.peek() != '[' {
			return false, nil
		}
		var label []byte
		for s.peek() == '[' {
			ok := p.attrList(s, func(k, v []byte) {
				if keyword == "edge" && string(k) == "comment" {
					isAttrStmt = false // default routing: let the full parser apply it
				}
				if string(k) == "label" {
					label = v
				}
			})
			if !ok || (keyword == "edge" && !isAttrStmt) {
				return false, nil
			}
			s.skipSpace()
		}
		if !isAttrStmt {
			id := p.b.NodeBytes(from, kindOfName(from))
			if label != nil {
				p.b.SetDesc(id, string(label))
			}
		}
	}
	s.skipSpace()
	if s.peek() == ';' {
		s.pos++
	}
	return s.endOfStatement(), nil
}

// routeComment records the routing of one edge.
func (p *dotParser) routeComment(link int32, comment []byte, has, fresh bool) error {
	if p.opt.Topology {
		return nil
	}
	if !has {
		return p.errorf("edge %s has no comment attribute (the destinations routed over it, or \"*\")",
			linkName(p.b, link))
	}
	if p.streaming && !fresh {
		p.b.RouteListAt(link, comment, p.lineOff+int64(cap(p.curLine)-cap(comment)))
		return nil
	}
	p.b.RouteList(link, comment)
	return nil
}

// attrList parses `[ k = v (,|;)? ... ]`, calling fn for each attribute.
func (p *dotParser) attrList(s *lineScanner, fn func(k, v []byte)) bool {
	s.pos++ // '['
	for {
		s.skipSpace()
		if s.peek() == ']' {
			s.pos++
			return true
		}
		k, ok := p.id(s)
		if !ok {
			return false
		}
		key := k
		s.skipSpace()
		v := []byte("true")
		p.fresh = true // the default value is not in the input
		if s.peek() == '=' {
			s.pos++
			s.skipSpace()
			if v, ok = p.id(s); !ok {
				return false
			}
		}
		fn(key, v)
		s.skipSpace()
		if c := s.peek(); c == ',' || c == ';' {
			s.pos++
		}
	}
}

// id parses a dot ID: a quoted string, a name or a numeral. The returned
// slice points into the input, or is freshly allocated for an escaped string.
func (p *dotParser) id(s *lineScanner) ([]byte, bool) {
	if s.done() {
		return nil, false
	}
	c := s.peek()
	p.fresh = false
	if c == '"' {
		start := s.pos + 1
		escaped := false
		for i := start; i < len(s.buf); i++ {
			switch s.buf[i] {
			case '\\':
				if i+1 >= len(s.buf) {
					return nil, false // line continuation
				}
				escaped = true
				i++
			case '"':
				s.pos = i + 1
				raw := s.buf[start:i]
				if escaped {
					// A fresh slice: routing lists are kept until Build.
					unq := make([]byte, 0, len(raw))
					for j := 0; j < len(raw); j++ {
						if raw[j] == '\\' && j+1 < len(raw) && raw[j+1] == '"' {
							j++
						}
						unq = append(unq, raw[j])
					}
					raw, p.fresh = unq, true
				}
				// "a" + "b" concatenation is left to the full parser.
				save := s.pos
				s.skipSpace()
				if s.peek() == '+' {
					return nil, false
				}
				s.pos = save
				return raw, true
			}
		}
		return nil, false
	}
	start := s.pos
	if isIDStart(c) {
		for !s.done() && isIDChar(s.peek()) {
			s.pos++
		}
		return s.buf[start:s.pos], true
	}
	if c == '-' || c == '.' || (c >= '0' && c <= '9') {
		s.pos++
		for !s.done() && (s.peek() == '.' || (s.peek() >= '0' && s.peek() <= '9')) {
			s.pos++
		}
		w := s.buf[start:s.pos]
		if string(w) == "-" || string(w) == "." {
			s.pos = start
			return nil, false
		}
		return w, true
	}
	return nil, false
}

func isIDStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

func isIDChar(c byte) bool { return isIDStart(c) || (c >= '0' && c <= '9') }

// lineScanner walks one line.
type lineScanner struct {
	buf []byte
	pos int
}

func (s *lineScanner) done() bool { return s.pos >= len(s.buf) }
func (s *lineScanner) peek() byte {
	if s.pos >= len(s.buf) {
		return 0
	}
	return s.buf[s.pos]
}
func (s *lineScanner) hasPrefix(p string) bool {
	return bytes.HasPrefix(s.buf[s.pos:], []byte(p))
}
func (s *lineScanner) skipSpace() {
	for s.pos < len(s.buf) {
		switch s.buf[s.pos] {
		case ' ', '\t', '\r', '\f', '\v':
			s.pos++
		default:
			return
		}
	}
}
func (s *lineScanner) word() []byte {
	start := s.pos
	for !s.done() && isIDChar(s.peek()) {
		s.pos++
	}
	return s.buf[start:s.pos]
}

// endOfStatement accepts trailing blanks and a // comment.
func (s *lineScanner) endOfStatement() bool {
	s.skipSpace()
	return s.done() || s.hasPrefix("//")
}

// linkName describes a link while building.
func linkName(b *lft.Builder, l int32) string {
	k := b.LinkAt(l)
	return quoteID(b.NodeName(k.From)) + " -> " + quoteID(b.NodeName(k.To))
}

// slow parses any dot with gographviz and walks its syntax tree in order.
func (p *dotParser) slow(data []byte, fastLine int) error {
	g, err := gographviz.Parse(data)
	if err != nil {
		line, msg := gographvizError(err.Error())
		if line == 0 {
			// else the line where the streaming reader stopped is the
			// best guess.
			line = fastLine
		}
		return infile.Errorf(p.file, line, "malformed dot: %s", msg)
	}
	if !g.Type {
		return fmt.Errorf("%s: undirected graph: a fabric must be a digraph (every cable is two directed edges)", p.file)
	}
	p.graphName = unquoteID(string(g.ID))
	p.line = 0
	return p.walk(g.StmtList, nil)
}

// gographvizSyntax matches a gographviz syntax error: "Error in S47:
// ->(16,->), Pos(offset=18, line=2, column=7), expected one of: { id ".
var gographvizSyntax = regexp.MustCompile(`(?s)^Error in S\d+: (.*)\(\d+,(.*)\), Pos\(offset=\d+, line=(\d+), column=(\d+)\), expected one of: (.*)$`)

// gographvizError turns the text of a gographviz parse error into one line
// for a person: the line it stopped at (0 if it names none) and "column
// C: unexpected TOKEN, want one of: ...", the token quoted and cut to 20
// bytes. The parser's own words for its tokens ("graphx", "$") become the
// file's ("graph", end of file).
func gographvizError(text string) (line int, msg string) {
	m := gographvizSyntax.FindStringSubmatch(strings.TrimSpace(text))
	if m == nil {
		return 0, strings.Join(strings.Fields(text), " ")
	}
	line, _ = strconv.Atoi(m[3])
	tok := fmt.Sprintf("%q", m[2])
	if r := []rune(m[2]); len(r) > 20 {
		tok = fmt.Sprintf("%q…", string(r[:20]))
	}
	if m[1] == "$" {
		tok = "end of file"
	}
	want := strings.Fields(m[5])
	for i, w := range want {
		if w == "graphx" {
			want[i] = "graph"
		}
	}
	return line, fmt.Sprintf("column %s: unexpected %s, want one of: %s", m[4], tok, strings.Join(want, " "))
}

// walk visits statements in file order; edgeDefaults are the attributes set
// by `edge [...]` statements in scope.
func (p *dotParser) walk(stmts ast.StmtList, edgeDefaults []lft.Attr) error {
	for _, st := range stmts {
		p.line++ // statement counter: gographviz keeps no positions
		switch st := st.(type) {
		case ast.NodeStmt:
			p.node(&st)
		case *ast.NodeStmt:
			p.node(st)
		case ast.EdgeStmt:
			if err := p.edge(&st, edgeDefaults); err != nil {
				return err
			}
		case *ast.EdgeStmt:
			if err := p.edge(st, edgeDefaults); err != nil {
				return err
			}
		case ast.EdgeAttrs:
			edgeDefaults = mergeAttrs(edgeDefaults, ast.AttrList(st))
		case *ast.SubGraph:
			if err := p.walk(st.StmtList, edgeDefaults); err != nil {
				return err
			}
		}
	}
	return nil
}

// node adds the node of a node statement; its label, if any, is the
// node's description (what a drawing shows for it).
func (p *dotParser) node(st *ast.NodeStmt) {
	name := unquoteID(string(st.NodeID.ID))
	id := p.b.Node(name, kindOfName([]byte(name)))
	for _, a := range st.Attrs {
		for _, kv := range a {
			if string(kv.Field) == "label" {
				p.b.SetDesc(id, unquoteID(string(kv.Value)))
			}
		}
	}
}

func mergeAttrs(base []lft.Attr, list ast.AttrList) []lft.Attr {
	out := append([]lft.Attr(nil), base...)
	for _, al := range list {
		for _, a := range al {
			k, v := unquoteID(string(a.Field)), unquoteID(string(a.Value))
			replaced := false
			for i := range out {
				if out[i].Key == k {
					out[i].Value, replaced = v, true
				}
			}
			if !replaced {
				out = append(out, lft.Attr{Key: k, Value: v})
			}
		}
	}
	return out
}

func (p *dotParser) edge(st *ast.EdgeStmt, defaults []lft.Attr) error {
	attrs := mergeAttrs(defaults, st.Attrs)
	src := st.Source
	for _, rh := range st.EdgeRHS {
		if !src.IsNode() || !rh.Destination.IsNode() {
			return fmt.Errorf("%s: statement %d: subgraphs as edge ends are not supported", p.file, p.line)
		}
		a := unquoteID(string(src.GetID()))
		bname := unquoteID(string(rh.Destination.GetID()))
		from := p.b.Node(a, kindOfName([]byte(a)))
		to := p.b.Node(bname, kindOfName([]byte(bname)))
		link := p.b.Link(from, to, 0, 0)
		var comment []byte
		has := false
		for _, at := range attrs {
			if at.Key == "comment" {
				comment, has = []byte(at.Value), true
			}
		}
		if p.opt.KeepAttrs {
			p.attrs = append(p.attrs, attrs)
		}
		if !p.opt.Topology && !has {
			return fmt.Errorf("%s: statement %d: edge %s has no comment attribute (the destinations routed over it, or \"*\")",
				p.file, p.line, linkName(p.b, link))
		}
		if !p.opt.Topology {
			p.b.RouteList(link, comment)
		}
		src = rh.Destination
	}
	return nil
}

// unquoteID strips the quotes of a quoted dot ID and its \" escapes.
func unquoteID(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
		s = strings.ReplaceAll(s, "\\\n", "")
		s = strings.ReplaceAll(s, `\"`, `"`)
	}
	return s
}

// Lines returns, for a dot file with one statement per line (as every
// ORCS tool writes them), the line where each node first appears and the
// line of each edge, in the order Read numbers nodes and links. For
// other dot files it returns nil slices.
func Lines(data []byte) (nodeLines, linkLines []int) {
	p := dotParser{opt: Options{Topology: true}, b: lft.NewBuilder(), recordLines: true}
	if ok, err := p.fast(data); !ok || err != nil {
		return nil, nil
	}
	return p.nodeLines, p.linkLines
}

// quoteID quotes a dot identifier. Only the double quote is escaped: dot
// keeps every other backslash sequence of an ID as it is, and so do the
// readers.
func quoteID(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}

// checkHostNames refuses host names that routing comments cannot name: a
// comment separates names by commas and blanks, so no table entry could
// ever lead to a host "H 1" (and ibsim could not carry it either).
func checkHostNames(b *lft.Builder, nodeLines func() []int, file string) error {
	for id := range b.NumNodes() {
		name := b.NodeName(int32(id))
		if kindOfName([]byte(name)) != lft.Host || !strings.ContainsAny(name, ", \t\r\n") {
			continue
		}
		line := 0
		if lines := nodeLines(); id < len(lines) {
			line = lines[id]
		}
		return infile.Errorf(file, line, "host %q: a host name cannot hold blanks or commas, which separate the names in routing comments (no route could lead to it)", name)
	}
	return nil
}

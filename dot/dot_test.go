package dot

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"orcs/infile"
	"orcs/lft"
)

func mustRead(t *testing.T, src string) *lft.Fabric {
	t.Helper()
	f, err := Read([]byte(src), "test.dot", Options{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// routeNames walks src→dst and names the nodes visited.
func routeNames(t *testing.T, f *lft.Fabric, src, dst string) string {
	t.Helper()
	s, _ := f.NodeByName(src)
	d, _ := f.NodeByName(dst)
	links, st := f.AppendRoute(nil, f.HostIndex(s), f.HostIndex(d))
	if st != lft.RouteOK {
		t.Fatalf("route %s->%s: status %d", src, dst, st)
	}
	names := []string{src}
	for _, l := range links {
		names = append(names, f.Nodes[f.Links[l].To].Name)
	}
	return strings.Join(names, " ")
}

func TestManualListing1(t *testing.T) {
	f, err := ReadFile("../testdata/manual4.dot", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f.NumHosts() != 4 || f.NumSwitches() != 3 || len(f.Links) != 16 {
		t.Fatalf("hosts %d switches %d links %d, want 4 3 16", f.NumHosts(), f.NumSwitches(), len(f.Links))
	}
	for i, want := range []string{"H1", "H2", "H3", "H4"} {
		if got := f.HostName(i); got != want {
			t.Errorf("host %d = %s, want %s", i, got, want)
		}
	}
	if got := routeNames(t, f, "H3", "H1"); got != "H3 S1 H1" {
		t.Errorf("route H3->H1 = %q", got)
	}
	// S11 routes H1,H2 over its first edge to S1 and H3,H4 over the second.
	s11, _ := f.NodeByName("S11")
	out := f.OutLinks(s11)
	for dst, want := range []int32{out[0], out[0], out[1], out[1]} {
		if got := f.NextHop(0, s11, int32(dst)); got != want {
			t.Errorf("S11 towards host %d uses link %d, want %d", dst, got, want)
		}
	}
	if c := f.CheckRoutes([]int32{0, 1, 2, 3}, 5, 2); !c.OK() || c.Pairs != 12 {
		t.Fatalf("check: %+v", c)
	}
}

func TestFirstMatchInFileOrder(t *testing.T) {
	f := mustRead(t, `digraph g {
"HA" -> "S" [comment="*"];
"HB" -> "S" [comment="*"];
"HC" -> "S" [comment="*"];
"S" -> "T" [comment="HB HC"];
"S" -> "HA" [comment="HA"];
"S" -> "HB" [comment="HB"];
"T" -> "HC" [comment="HC,*"];
"T" -> "S" [comment="*"];
"HC" -> "T" [comment="*"];
}`)
	// S sends HB to T first (file order), then T has no entry for HB except
	// "*" back to S: a loop S -> T -> S.
	s, _ := f.NodeByName("S")
	b := f.HostIndex(mustNode(t, f, "HB"))
	e := f.Explain(f.HostIndex(mustNode(t, f, "HA")), b)
	if e == nil || e.Status != lft.Loop {
		t.Fatalf("want loop, got %+v", e)
	}
	msg := e.Error()
	if !strings.Contains(msg, "routing loop from HA to HB at node S: S -> T -> S") {
		t.Errorf("message %q", msg)
	}
	_ = s
	// "HC,*" lists HC and a host literally named "*": not a wildcard, so T has no
	// entry for HA other than its "*" edge back to S.
	if got := routeNames(t, f, "HC", "HA"); got != "HC S HA" {
		t.Errorf("route = %q", got)
	}
	c := f.CheckRoutes([]int32{0, 1, 2}, 10, 1)
	if c.Loops != 2 || c.Unroutable != 0 {
		t.Fatalf("check = %+v, want 2 loops (HA->HB, HC->HB)", c)
	}
}

func mustNode(t *testing.T, f *lft.Fabric, name string) int32 {
	t.Helper()
	v, ok := f.NodeByName(name)
	if !ok {
		t.Fatalf("no node %s", name)
	}
	return v
}

func TestUnroutableMessage(t *testing.T) {
	f := mustRead(t, `digraph g {
H1 -> S1 [comment="*"];
S1 -> H1 [comment="H1"];
H2 -> S1 [comment="*"];
S1 -> H2 [comment=""];
}`)
	e := f.Explain(0, 1)
	if e == nil || e.Status != lft.Unroutable {
		t.Fatalf("got %+v", e)
	}
	if got, want := e.Error(), "no route from H1 to H2: node S1 has no table entry for H2"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
	if _, st := f.AppendRoute(nil, 0, 1); st != lft.Unroutable {
		t.Errorf("AppendRoute status %d", st)
	}
	c := f.CheckRoutes([]int32{0, 1}, 10, 1)
	if c.Unroutable != 1 || c.Loops != 0 || len(c.Examples) != 1 {
		t.Errorf("check = %+v", c)
	}
}

func TestCommentTokenSeparators(t *testing.T) {
	f := mustRead(t, "digraph g {\nH1 -> S [comment=\"*\"];\nH2 -> S [comment=\"*\"];\nH3 -> S [comment=\"*\"];\nS -> H1 [comment=\" H1,\tH10 \"];\nS -> H2 [comment=\"H2 ,H3\"];\nS -> H3 [comment=\"H3\"];\n}\n")
	// H3 is first listed on S->H2, so S sends it to host H2, which sends it
	// back: a loop through a host.
	if e := f.Explain(1, 2); e == nil || e.Status != lft.Loop || e.Error() != "routing loop from H2 to H3 at node H2: H2 -> S -> H2" {
		t.Fatalf("H2->H3: %+v", e)
	}
	// H3 is listed on S->H2 first: the first match wins even if it is odd.
	s := mustNode(t, f, "S")
	h2 := mustNode(t, f, "H2")
	if l := f.NextHop(0, s, f.HostIndex(mustNode(t, f, "H3"))); f.Links[l].To != h2 {
		t.Errorf("S routes H3 over %s, want the edge to H2", f.LinkName(l))
	}
	if l := f.NextHop(0, s, 0); f.Nodes[f.Links[l].To].Name != "H1" {
		t.Errorf("S routes H1 over %s", f.LinkName(l))
	}
}

func TestFallbackParser(t *testing.T) {
	// Multi-line statements, chains, default edge attributes, /* */ comments:
	// not the one-statement-per-line form, so gographviz reads it.
	src := `/* fabric */ digraph "net" {
  edge [comment="*"]
  H1 -> S1
  H2 -> S1;
  S1 -> H1 [
     comment="H1"];
  S1 -> H2 [comment="H2"]
}`
	f := mustRead(t, src)
	if f.NumHosts() != 2 || len(f.Links) != 4 || f.GraphName != "net" {
		t.Fatalf("hosts %d links %d name %q", f.NumHosts(), len(f.Links), f.GraphName)
	}
	if got := routeNames(t, f, "H1", "H2"); got != "H1 S1 H2" {
		t.Errorf("route %q", got)
	}
	chain := mustRead(t, "digraph { H1 -> S1 -> H2 [comment=\"*\"]; H2 -> S1 -> H1 [comment=\"*\"] }")
	if len(chain.Links) != 4 {
		t.Fatalf("chain links %d", len(chain.Links))
	}
	if got := routeNames(t, chain, "H1", "H2"); got != "H1 S1 H2" {
		t.Errorf("chain route %q", got)
	}
}

func TestFastAndFallbackAgree(t *testing.T) {
	data, err := os.ReadFile("../testdata/manual4.dot")
	if err != nil {
		t.Fatal(err)
	}
	fast, err := Read(data, "a", Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := dotParser{file: "b", b: lft.NewBuilder()}
	if err := p.slow(data, 0); err != nil {
		t.Fatal(err)
	}
	slow, err := p.b.Build()
	if err != nil {
		t.Fatal(err)
	}
	assertSameFabric(t, fast, slow)
}

func assertSameFabric(t *testing.T, a, b *lft.Fabric) {
	t.Helper()
	if len(a.Nodes) != len(b.Nodes) || len(a.Links) != len(b.Links) || a.NumHosts() != b.NumHosts() {
		t.Fatalf("sizes differ: %d/%d nodes, %d/%d links", len(a.Nodes), len(b.Nodes), len(a.Links), len(b.Links))
	}
	for i := range a.Nodes {
		if a.Nodes[i].Name != b.Nodes[i].Name || a.Nodes[i].Kind != b.Nodes[i].Kind {
			t.Fatalf("node %d: %v vs %v", i, a.Nodes[i], b.Nodes[i])
		}
	}
	for i := range a.Links {
		if a.Links[i].From != b.Links[i].From || a.Links[i].To != b.Links[i].To {
			t.Fatalf("link %d differs", i)
		}
	}
	for v := range a.Nodes {
		for d := 0; d < a.NumHosts(); d++ {
			if x, y := a.NextHop(0, int32(v), int32(d)), b.NextHop(0, int32(v), int32(d)); x != y {
				t.Fatalf("node %s towards %s: link %d vs %d", a.Nodes[v].Name, a.HostName(d), x, y)
			}
		}
	}
}

func TestWriteDotRoundTrip(t *testing.T) {
	for _, file := range []string{"../testdata/manual4.dot"} {
		f, err := ReadFile(file, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, f, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		p := dotParser{file: "rt", b: lft.NewBuilder()}
		ok, err := p.fast(buf.Bytes())
		if !ok || err != nil {
			t.Fatalf("written dot is not in the streaming form (line %d): %v", p.line, err)
		}
		g, err := Read(buf.Bytes(), "rt", Options{})
		if err != nil {
			t.Fatal(err)
		}
		assertSameFabric(t, f, g)
	}
}

func TestDotErrors(t *testing.T) {
	dir := t.TempDir()
	gz := filepath.Join(dir, "bad.dot.gz")
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write([]byte("digraph { H1 -> S1 [comment=\"*\"]; }\n"))
	zw.Close()
	os.WriteFile(gz, zb.Bytes()[:zb.Len()-6], 0o644)
	cases := []struct {
		name, src, want string
	}{
		{"missing comment", "digraph g {\n H1 -> S1 [comment=\"*\"];\n S1 -> H1;\n}\n",
			`f.dot:3: edge "S1" -> "H1" has no comment attribute`},
		{"malformed", "digraph g {\n H1 -> S1 [comment=\"*\"];\n S1 -> -> H1;\n}\n",
			`f.dot:3: malformed dot:`},
		{"unclosed", "digraph g {\n H1 -> S1 [comment=\"*\"];\n", `f.dot:`},
		{"undirected", "graph g {\n H1 -- S1;\n}\n", "f.dot:1: undirected graph"},
		{"no hosts", "digraph g {\n S1 -> S2 [comment=\"*\"];\n}\n", "f.dot: fabric has no hosts"},
		{"empty", "", "f.dot:1: malformed dot"},
	}
	for _, c := range cases {
		_, err := Read([]byte(c.src), "f.dot", Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
	if _, err := ReadFile(gz, Options{}); err == nil || !strings.Contains(err.Error(), "bad.dot.gz: gzip:") {
		t.Errorf("truncated gzip: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.dot"), Options{}); err == nil || !strings.Contains(err.Error(), "missing.dot: open: no such file") {
		t.Errorf("missing file: %v", err)
	}
}

// TestDotSyntaxErrorOneLine checks that a syntax error of the full dot
// parser is one line naming file:line, the column, the token and what the
// parser wanted, in the file's words: an unterminated string spanning
// lines gave a three-line message, and every message carried gographviz's
// state ("Error in S98") and token ids ("graphx").
func TestDotSyntaxErrorOneLine(t *testing.T) {
	long := strings.Repeat("x", 30)
	cases := []struct{ src, want string }{
		{"digraph g {\n a -> -> b;\n}\n", `f.dot:2: malformed dot: column 7: unexpected "->", want one of: { subgraph id`},
		{"digraph g {\n a -> b [x=\"unterminated];\n}\n", `f.dot:2: malformed dot: column 12: unexpected "\"unterminated];\n}\n", want one of: id`},
		{"digraph g {\n a -> b [x=\"" + long + "];\n}\n", `f.dot:2: malformed dot: column 12: unexpected "\"` + strings.Repeat("x", 19) + `"…, want one of: id`},
		{"digraph g {\n a -> b [comment=\"*\"]\n", `f.dot:3: malformed dot: column 1: unexpected end of file, want one of: graph { } ; node edge [ subgraph id`},
		{"Unicast lids [0x1-0x3] of switch\n", `f.dot:1: malformed dot: column 1: unexpected "Unicast", want one of: graph strict digraph`},
	}
	for _, c := range cases {
		_, err := Read([]byte(c.src), "f.dot", Options{})
		if err == nil || err.Error() != c.want {
			t.Errorf("%q:\n got %v\nwant %s", c.src, err, c.want)
		}
		if err != nil && strings.ContainsAny(err.Error(), "\n\r") {
			t.Errorf("%q: error of more than one line: %q", c.src, err)
		}
	}
}

func TestGzipInput(t *testing.T) {
	data, _ := os.ReadFile("../testdata/manual4.dot")
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(data)
	zw.Close()
	p := filepath.Join(t.TempDir(), "m.dot") // no .gz suffix: detected by content
	os.WriteFile(p, zb.Bytes(), 0o644)
	f, err := ReadFile(p, Options{})
	if err != nil || f.NumHosts() != 4 {
		t.Fatalf("gzip input: %v", err)
	}
}

func TestTopologyOnly(t *testing.T) {
	f, err := Read([]byte("digraph {\nH1 -> S1;\nS1 -> H1;\n}\n"), "t", Options{Topology: true})
	if err != nil || len(f.Links) != 2 {
		t.Fatalf("topology read: %v", err)
	}
}

func FuzzReadDot(f *testing.F) {
	for _, s := range []string{
		"digraph g {\n H1 -> S1 [comment=\"*\"];\n S1 -> H1 [comment=\"H1\"];\n}\n",
		"digraph { a -> b -> c [comment=\"H1,H2\"] }",
		"strict digraph \"x\" {\n\"H\\\"1\" -> S [comment=\"*\", color=red];\n}",
		"digraph {\n edge [comment=\"*\"];\n H1 -> S1;\n}",
		"digraph g {\n a -> b [x=\"unterminated];\n}\n",
	} {
		f.Add([]byte(s))
	}
	if data, err := os.ReadFile("../testdata/manual4.dot"); err == nil {
		f.Add(data)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		fab, err := Read(data, "fuzz.dot", Options{KeepAttrs: true})
		// The same bytes from a file: read streaming (or handed to the
		// full parser), with the same verdict and fabric.
		path := filepath.Join(dir, "fuzz.dot")
		if werr := os.WriteFile(path, data, 0o644); werr != nil {
			t.Fatal(werr)
		}
		streamed, serr := ReadFile(path, Options{KeepAttrs: true})
		if (err == nil) != (serr == nil) {
			t.Fatalf("whole read: %v; read from the file: %v", err, serr)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.dot") {
				t.Fatalf("error does not name the file: %v", err)
			}
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		if streamed.Digest() != fab.Digest() {
			t.Fatalf("the file read streaming gives another fabric")
		}
		// Whatever was accepted must route without panics and write out.
		n := int32(fab.NumHosts())
		for s := int32(0); s < n && s < 8; s++ {
			for d := int32(0); d < n && d < 8; d++ {
				fab.AppendRoute(nil, s, d)
				fab.Explain(s, d)
			}
		}
		var buf bytes.Buffer
		if err := Write(&buf, fab, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		back, err := Read(buf.Bytes(), "rt", Options{})
		if err != nil {
			t.Fatalf("re-reading written dot: %v\n%s", err, buf.Bytes())
		}
		if back.NumHosts() != fab.NumHosts() || len(back.Links) != len(fab.Links) {
			t.Fatalf("round trip changed sizes")
		}
	})
}

// TestKeywordsIgnoreCase: Node, EDGE, Digraph are dot keywords in any case;
// both parsers must agree (a "Node" statement is not a switch named Node).
func TestKeywordsIgnoreCase(t *testing.T) {
	src := "Strict DiGraph g {\nNode [shape=box];\nEDGE [color=red];\nH1 -> S1 [comment=\"*\"];\nS1 -> H1 [comment=\"H1\"];\nH2 -> S1 [comment=\"*\"];\nS1 -> H2 [comment=\"H2\"];\n}\n"
	fast := mustRead(t, src)
	p := dotParser{file: "b", b: lft.NewBuilder()}
	if ok, _ := p.fast([]byte(src)); !ok {
		t.Fatal("streaming parser refused the keywords")
	}
	q := dotParser{file: "b", b: lft.NewBuilder()}
	if err := q.slow([]byte(src), 0); err != nil {
		t.Fatal(err)
	}
	slow, err := q.b.Build()
	if err != nil {
		t.Fatal(err)
	}
	assertSameFabric(t, fast, slow)
	if _, ok := fast.NodeByName("Node"); ok || len(fast.Nodes) != 3 {
		t.Fatalf("keyword taken for a node: %d nodes", len(fast.Nodes))
	}
}

// TestBackslashNamesRoundTrip: names keep their backslashes through a
// write and a read.
func TestBackslashNamesRoundTrip(t *testing.T) {
	f := mustRead(t, "digraph {\n\"H\\\\c\" -> S [comment=\"*\"];\nS -> \"H\\\\c\" [comment=\"H\\\\c\"];\nH2 -> S [comment=\"*\"];\nS -> H2 [comment=\"H2\"];\n}\n")
	var buf bytes.Buffer
	if err := Write(&buf, f, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	g, err := Read(buf.Bytes(), "rt", Options{})
	if err != nil {
		t.Fatal(err)
	}
	assertSameFabric(t, f, g)
	if f.Digest() != g.Digest() {
		t.Fatal("digest changed by a write and a read")
	}
}

func TestDotLines(t *testing.T) {
	src := "digraph g {\n  // comment\n  H0;\n  H0 -> S0 [comment=\"*\"];\n\n  S0 -> H0 [comment=\"H0\"];\n}\n"
	nodes, links := Lines([]byte(src))
	if fmt.Sprint(nodes) != "[3 4]" || fmt.Sprint(links) != "[4 6]" {
		t.Errorf("Lines = %v, %v", nodes, links)
	}
}

// TestHostNameWithBlank checks that a host name that routing comments
// cannot name is refused at its line, in both parsers.
func TestHostNameWithBlank(t *testing.T) {
	for _, src := range []string{
		"digraph g {\n  \"H 1\" -> \"S\" [comment=\"*\"];\n  \"S\" -> \"H 1\" [comment=\"H 1\"];\n}\n",
		"digraph g { \"H,1\" -> S [comment=\"*\"]; S -> \"H,1\" [comment=\"*\"] }",
	} {
		_, err := Read([]byte(src), "g.dot", Options{})
		if err == nil || !strings.Contains(err.Error(), "a host name cannot hold blanks or commas") {
			t.Errorf("%q: %v", src, err)
		}
	}
	_, err := Read([]byte("digraph g {\n  \"H 1\" -> \"S\" [comment=\"*\"];\n  \"S\" -> \"H 1\" [comment=\"H 1\"];\n}\n"), "g.dot", Options{})
	if err == nil || !strings.HasPrefix(err.Error(), `g.dot:2: host "H 1"`) {
		t.Errorf("line: %v", err)
	}
}

// TestReadStream: a file in the one-statement-per-line form is read in
// two passes without holding it (readStream), through a buffer much
// shorter than its lines, and gives the fabric that reading it whole does;
// escaped comments, comment-free topology reads and gzip included.
func TestReadStream(t *testing.T) {
	defer func(n int) { streamBuffer = n }(streamBuffer)
	dir := t.TempDir()
	escaped := "digraph g {\n H0 -> S0 [comment=\"*\"];\n H1 -> S0 [comment=\"*\"];\n" +
		" S0 -> H0 [comment=\"H0, \\\"H9\\\"\"];\n S0 -> H1 [comment=\"H1\"];\n}\n"
	os.WriteFile(filepath.Join(dir, "escaped.dot"), []byte(escaped), 0o644)
	// A comment without a value is the value "true", which is nowhere in
	// the file; a line of noise after it makes any offset taken from the
	// default value land on other bytes.
	bare := "digraph g {\n\"S1\" -> \"H1\" [comment];\n\"H1\" -> \"S1\" [comment=\"*\"];\n" +
		"\"H2\" -> \"S1\" [comment=\"*\"];\n# " + strings.Repeat("H2 ", 400) + "\n\"S1\" -> \"H2\" [comment=\"H2\"];\n}\n"
	os.WriteFile(filepath.Join(dir, "bare.dot"), []byte(bare), 0o644)
	data, _ := os.ReadFile("../testdata/ft64.dot")
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(data)
	zw.Close()
	os.WriteFile(filepath.Join(dir, "ft64.gz"), zb.Bytes(), 0o644)
	files := []string{"../testdata/manual4.dot", "../testdata/ft16.dot", "../testdata/ft64.dot",
		"../testdata/torus4x4.dot", filepath.Join(dir, "escaped.dot"), filepath.Join(dir, "bare.dot"), filepath.Join(dir, "ft64.gz")}
	for _, size := range []int{16, 1000, 4 << 20} {
		streamBuffer = size
		for _, file := range files {
			for _, opt := range []Options{{}, {Topology: true}, {KeepAttrs: true}} {
				streamed, ok, err := readStream(file, opt)
				if err != nil || !ok {
					t.Fatalf("%s (buffer %d): streamed read: ok %v, %v", file, size, ok, err)
				}
				whole, err := infile.ReadAll(file)
				if err != nil {
					t.Fatal(err)
				}
				want, err := Read(whole, file, opt)
				if err != nil {
					t.Fatal(err)
				}
				if streamed.Digest() != want.Digest() || streamed.GraphName != want.GraphName ||
					fmt.Sprint(streamed.LinkAttrs) != fmt.Sprint(want.LinkAttrs) {
					t.Errorf("%s (buffer %d, %+v): streamed read differs from the whole read", file, size, opt)
				}
			}
		}
	}
}

// TestReadFileErrorsStreamed: errors found while streaming a file name the
// file and line as the whole-file reader does, and a file in another form
// falls back to the full parser.
func TestReadFileErrorsStreamed(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ name, src, want string }{
		{"missing comment", "digraph g {\n H1 -> S1 [comment=\"*\"];\n S1 -> H1;\n}\n",
			`:3: edge "S1" -> "H1" has no comment attribute`},
		{"no hosts", "digraph g {\n S1 -> S2 [comment=\"*\"];\n}\n", ": fabric has no hosts"},
		{"blank host", "digraph g {\n \"H 1\" -> S1 [comment=\"*\"];\n S1 -> \"H 1\" [comment=\"*\"];\n}\n",
			`:2: host "H 1": a host name cannot hold blanks`},
		{"one line", "digraph g { H1 -> S1 [comment=\"*\"]; S1 -> H1 [comment=\"H1\"]; }", ""},
	}
	for _, c := range cases {
		p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".dot")
		os.WriteFile(p, []byte(c.src), 0o644)
		_, err := ReadFile(p, Options{})
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), p+c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, p+c.want)
		}
	}
}

// TestReadFileFromPipe: a named pipe (what -i <(zcat f.dot.gz) gives) can
// be read only once: it is read whole, not streamed in two passes.
func TestReadFileFromPipe(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	data, err := os.ReadFile("../testdata/ft16.dot")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		w, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.Write(data)
		w.Close()
	}()
	type result struct {
		f   *lft.Fabric
		err error
	}
	done := make(chan result, 1)
	go func() {
		f, err := ReadFile(p, Options{})
		done <- result{f, err}
	}()
	var f *lft.Fabric
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("reading a named pipe: %v", r.err)
		}
		f = r.f
	case <-time.After(20 * time.Second):
		t.Fatal("reading a named pipe does not end: is it opened a second time?")
	}
	want, err := Read(data, "ft16", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Digest() != want.Digest() {
		t.Fatal("the pipe's fabric differs from the file's")
	}
}

// TestNodeLabelIsDesc: a node statement's label is the node's description
// (a drawing shows it), in the line parser and in the full one (the
// second file needs it: a default edge routing).
func TestNodeLabelIsDesc(t *testing.T) {
	for _, src := range []string{
		"digraph g {\n  S1 [label=\"MF0;sw-leaf-03:SX6036/U1\"];\n  H1 -> S1 [comment=\"*\"];\n  S1 -> H1 [comment=\"*\"];\n}\n",
		"digraph g {\n  edge [comment=\"*\"];\n  S1 [shape=box, label=\"MF0;sw-leaf-03:SX6036/U1\"];\n  H1 -> S1;\n  S1 -> H1;\n}\n",
	} {
		f, err := Read([]byte(src), "l.dot", Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range f.Nodes {
			want := map[string]string{"S1": "MF0;sw-leaf-03:SX6036/U1", "H1": ""}[n.Name]
			if n.Desc != want {
				t.Errorf("%s: desc %q, want %q\n%s", n.Name, n.Desc, want, src)
			}
		}
	}
}

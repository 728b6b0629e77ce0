package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// docsOutput makes TestDocumentedExamples log the whole output of every
// example that shows output, to refresh the pages after an output changed.
var docsOutput = flag.Bool("docs-output", false, "TestDocumentedExamples: log the output of every console example")

// docExample is one command of a fenced shell example in the documentation.
type docExample struct {
	file   string   // the Markdown file, relative to the repository
	line   int      // the line of the command in it
	cmd    string   // the command, continuation lines joined
	vars   string   // the block's variable assignments before it
	shown  []string // the output the page shows below the command (console blocks)
	exit   int      // the exit status the page expects (<!-- exit N -->)
	notRun string   // why the example is not run (<!-- not run: REASON -->)
}

var (
	docFence     = regexp.MustCompile("^```(\\w*)\\s*$")
	docDirective = regexp.MustCompile(`^<!--\s*(not run|exit)\s*:?\s*(.*?)\s*-->\s*$`)
	docCommand   = regexp.MustCompile(`^(orcs|make|go)(\s|$)`)
	docVars      = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
)

// parseDocExamples extracts the commands of the fenced ```sh and ```console
// blocks of a Markdown page. In a sh block every line that starts with orcs,
// make or go is a command; in a console block every line that starts with
// "$ " is, and the lines after it, up to the next command, are the output
// the page shows. Variable assignments (F=...) of a sh block precede its
// later commands when they run. A line ending in a backslash continues on the next. An
// HTML comment on the line before the fence applies to every command of the
// block: <!-- not run: REASON --> leaves them out, <!-- exit N --> expects
// status N (else 0).
func parseDocExamples(file string, text []byte) ([]docExample, error) {
	var out []docExample
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var (
		lang      string // "" outside a block
		inBlock   bool
		exit      int
		notRun    string
		prev      string // the last non-blank line before a fence
		pending   string // a command continued with a backslash
		pendingAt int
		last      = -1 // the index of the block's last console command
		vars      string
		n         int
	)
	for sc.Scan() {
		n++
		line := sc.Text()
		if m := docFence.FindStringSubmatch(line); m != nil {
			if !inBlock {
				inBlock, lang, exit, notRun, last, vars = true, m[1], 0, "", -1, ""
				if d := docDirective.FindStringSubmatch(prev); d != nil {
					switch d[1] {
					case "not run":
						if d[2] == "" {
							return nil, fmt.Errorf("%s:%d: <!-- not run --> without a reason", file, n-1)
						}
						notRun = d[2]
					case "exit":
						v, err := strconv.Atoi(d[2])
						if err != nil {
							return nil, fmt.Errorf("%s:%d: <!-- exit %s -->: not a number", file, n-1, d[2])
						}
						exit = v
					}
				}
				continue
			}
			if pending != "" {
				return nil, fmt.Errorf("%s:%d: the block ends in a continued line", file, pendingAt)
			}
			inBlock, lang = false, ""
			continue
		}
		if !inBlock {
			if strings.TrimSpace(line) != "" {
				prev = strings.TrimSpace(line)
			}
			continue
		}
		if lang != "sh" && lang != "console" {
			continue
		}
		isCommand := false
		body := line
		if pending != "" {
			body, isCommand = pending+" "+strings.TrimSpace(line), true
		} else if lang == "console" && strings.HasPrefix(line, "$ ") {
			body, isCommand = strings.TrimSpace(line[2:]), true
		} else if lang == "sh" && docCommand.MatchString(line) {
			body, isCommand = strings.TrimSpace(line), true
		}
		if !isCommand && lang == "sh" && docVars.MatchString(line) {
			vars += strings.TrimSpace(line) + "\n"
			continue
		}
		if !isCommand {
			if lang == "console" && last >= 0 {
				out[last].shown = append(out[last].shown, line)
			}
			continue
		}
		if pending == "" {
			pendingAt = n
		}
		if strings.HasSuffix(body, "\\") {
			pending = strings.TrimSpace(strings.TrimSuffix(body, "\\"))
			continue
		}
		pending = ""
		out = append(out, docExample{file: file, line: pendingAt, cmd: body, vars: vars, exit: exit, notRun: notRun})
		if lang == "console" {
			last = len(out) - 1
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if inBlock {
		return nil, fmt.Errorf("%s: a block is not closed", file)
	}
	return out, nil
}

// shownLineFound reports whether a line of shown output appears in the real
// output: spaces are compared as one, and "…" stands for any text.
func shownLineFound(shown, real string) bool {
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	pieces := strings.Split(norm(shown), "…")
	for _, line := range strings.Split(real, "\n") {
		rest, ok := norm(line), true
		for _, p := range pieces {
			p = strings.TrimSpace(p)
			i := strings.Index(rest, p)
			if i < 0 {
				ok = false
				break
			}
			rest = rest[i+len(p):]
		}
		if ok {
			return true
		}
	}
	return false
}

// firstShownLine is the line of shown output the test compares: the first
// one that is neither blank nor an elision.
func firstShownLine(shown []string) string {
	for _, l := range shown {
		if t := strings.TrimSpace(l); t != "" && t != "…" && t != "..." {
			return l
		}
	}
	return ""
}

// TestDocumentedExamples runs every command of the fenced shell examples of
// README.md and doc/*.md, page by page, in one scratch directory per page
// (with testdata linked into it, so the pages name the shipped fixtures and
// every other input is made by an example before it on the same page), and
// checks the exit status and the first line of the output the page shows.
// make lines run in the repository; make test, which runs this test, is
// left out.
func TestDocumentedExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every documented example")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob(filepath.Join(repo, "doc", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{filepath.Join(repo, "README.md")}, pages...)
	total := 0
	for _, page := range pages {
		rel, _ := filepath.Rel(repo, page)
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		examples, err := parseDocExamples(rel, text)
		if err != nil {
			t.Fatal(err)
		}
		total += len(examples)
		t.Run(strings.TrimSuffix(filepath.Base(rel), ".md"), func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Symlink(filepath.Join(repo, "testdata"), filepath.Join(dir, "testdata")); err != nil {
				t.Fatal(err)
			}
			for _, ex := range examples {
				if ex.notRun != "" {
					t.Logf("%s:%d: not run (%s): %s", ex.file, ex.line, ex.notRun, ex.cmd)
					continue
				}
				if ex.cmd == "make test" || strings.HasPrefix(ex.cmd, "make test ") {
					continue // this test is part of it
				}
				runDocExample(t, ex, dir, repo)
			}
		})
	}
	if total < 20 {
		t.Errorf("only %d documented examples found", total)
	}
}

// runDocExample runs one example with bash, orcs on the PATH, and checks it.
func runDocExample(t *testing.T, ex docExample, dir, repo string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", ex.vars+ex.cmd)
	cmd.Dir = dir
	if strings.HasPrefix(ex.cmd, "make ") || strings.HasPrefix(ex.cmd, "go ") {
		cmd.Dir = repo
	}
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(orcsBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	start := time.Now()
	out, err := cmd.CombinedOutput()
	status := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Errorf("%s:%d: %s: %v", ex.file, ex.line, ex.cmd, err)
			return
		}
		status = ee.ExitCode()
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	t.Logf("%s:%d: %.1fs (CPU %.1fs): %s", ex.file, ex.line, time.Since(start).Seconds(), cpu.Seconds(), ex.cmd)
	if status != ex.exit {
		t.Errorf("%s:%d: %s: exit status %d, the page expects %d; output:\n%s", ex.file, ex.line, ex.cmd, status, ex.exit, docTail(string(out), 2000))
		return
	}
	if *docsOutput && len(ex.shown) > 0 {
		t.Logf("%s:%d: output:\n%s", ex.file, ex.line, out)
	}
	if want := firstShownLine(ex.shown); want != "" && !shownLineFound(want, string(out)) {
		t.Errorf("%s:%d: %s: the page shows %q, not in the output:\n%s", ex.file, ex.line, ex.cmd, strings.TrimSpace(want), docTail(string(out), 2000))
	}
}

// docTail is the end of s, at most n bytes.
func docTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// TestParseDocExamples checks the extraction on a hand-written page.
func TestParseDocExamples(t *testing.T) {
	page := "text\n```sh\norcs gen kary:k=4,n=2 \\\n    -o ft16.dot   # comment\nF=testdata/ft16.dot\nmake run\n```\n" +
		"<!-- exit 2 -->\n```console\n$ orcs deadlock -i testdata/torus4x4.dot\ncredit loop on VL 0: 4 cables\n…\n$ orcs --version\norcs version 1.0.0\n```\n" +
		"<!-- not run: needs a cluster -->\n\n```sh\norcs merge shard-*.json\n```\n```go\norcs not a command here\n```\n"
	got, err := parseDocExamples("p.md", []byte(page))
	if err != nil {
		t.Fatal(err)
	}
	want := []docExample{
		{file: "p.md", line: 3, cmd: "orcs gen kary:k=4,n=2 -o ft16.dot   # comment"},
		{file: "p.md", line: 6, cmd: "make run", vars: "F=testdata/ft16.dot\n"},
		{file: "p.md", line: 10, cmd: "orcs deadlock -i testdata/torus4x4.dot", shown: []string{"credit loop on VL 0: 4 cables", "…"}, exit: 2},
		{file: "p.md", line: 13, cmd: "orcs --version", shown: []string{"orcs version 1.0.0"}, exit: 2},
		{file: "p.md", line: 19, cmd: "orcs merge shard-*.json", notRun: "needs a cluster"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
	for _, c := range []struct {
		shown, real string
		ok          bool
	}{
		{"credit loop on VL 0: 4 cables", "x\ncredit  loop on VL 0: 4 cables; 1 loop\n", true},
		{"deadlock-free (2 VLs)", "credit loop on VL 0", false},
		{"mean 0.52 … p95 0.60", "mean 0.52, p5 0.40, p95 0.60", true},
		{"mean 0.52 … p95 0.60", "p95 0.60 mean 0.52", false},
	} {
		if got := shownLineFound(c.shown, c.real); got != c.ok {
			t.Errorf("shownLineFound(%q, %q) = %v", c.shown, c.real, got)
		}
	}
	if _, err := parseDocExamples("p.md", []byte("<!-- not run -->\n```sh\norcs x\n```\n")); err == nil {
		t.Error("a not-run example without a reason was accepted")
	}
}

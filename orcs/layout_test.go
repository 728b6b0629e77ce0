package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestLayoutDoc checks that the layout table of doc/layout.md lists exactly
// the module's packages (directories with non-test Go files).
func TestLayoutDoc(t *testing.T) {
	page, err := os.ReadFile("../doc/layout.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(page)
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z0-9_/]+)/` \\|").FindAllStringSubmatch(section, -1) {
		listed[m[1]] = true
	}
	found := map[string]bool{}
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != ".." && (strings.HasPrefix(name, ".") || name == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			rel, _ := filepath.Rel("..", filepath.Dir(path))
			found[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var missing, extra []string
	for p := range found {
		if !listed[p] {
			missing = append(missing, p)
		}
	}
	for p := range listed {
		if !found[p] && p != "bench" {
			extra = append(extra, p)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Errorf("doc/layout.md: packages not listed %v, listed but not packages %v", missing, extra)
	}
}

// TestLayers checks dependencies the layout rules out: a reader of saved
// results does not pull in the machinery that made them.
func TestLayers(t *testing.T) {
	for _, c := range []struct{ pkg, not string }{
		{"orcs/report", "orcs/opensm"},  // reads compare's JSON: schema.Comparison
		{"orcs/schema", "orcs/opensm"},  // the file type, not the routing tools
		{"orcs/schema", "orcs/analyze"}, // the file type, not the walk
		{"orcs/regions", "orcs/opensm"}, // regions of saved loads, no routing
		{"orcs/report", "orcs/mapping"}, // a page of saved results, no placement
	} {
		out, err := exec.Command("go", "list", "-deps", c.pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", c.pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if dep == c.not {
				t.Errorf("%s depends on %s", c.pkg, c.not)
			}
		}
	}
}

// longFuncs lists the functions of more than maxFuncLines lines that may
// stay (samplingsim's core is split apart from this list).
var longFuncs = map[string]bool{}

// maxFuncLines is the longest a function may grow outside longFuncs.
const maxFuncLines = 150

// TestFunctionLength fails on a function of more than maxFuncLines lines
// outside samplingsim and longFuncs: a long function is split into named
// steps.
func TestFunctionLength(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != ".." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || path == filepath.Join("..", "samplingsim")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			name := fn.Name.Name
			if fn.Recv != nil && len(fn.Recv.List) == 1 {
				typ := fn.Recv.List[0].Type
				if star, ok := typ.(*ast.StarExpr); ok {
					typ = star.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					name = id.Name + "." + name
				}
			}
			rel, _ := filepath.Rel("..", path)
			key := filepath.ToSlash(rel) + " " + name
			lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if lines > maxFuncLines && !longFuncs[key] {
				t.Errorf("%s: %d lines (at most %d): split it into named steps", key, lines, maxFuncLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

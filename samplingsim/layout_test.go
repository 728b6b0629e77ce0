package samplingsim

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The rules of the package's layout (doc.go): a file map that lists every
// file of every samplingsim package, plug-in specs parsed once without
// dropped errors, a set-up in short named steps and a documented core
// struct.

// sourceFiles parses the non-test Go files of samplingsim and its
// sub-packages; the keys are paths relative to this directory.
func sourceFiles(t *testing.T) (map[string]*ast.File, *token.FileSet) {
	t.Helper()
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(path)] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 40 {
		t.Fatalf("found %d source files: not run in the package directory?", len(files))
	}
	return files, fset
}

// TestDocFileMap checks that doc.go names every source file: a file of
// this package by its name, a file of a sub-package DIR in the map's
// bullet "DIR/".
func TestDocFileMap(t *testing.T) {
	files, _ := sourceFiles(t)
	doc := files["doc.go"].Doc.Text()
	// bullets: the text of each "- " item of the map, by its first word.
	bullets := map[string]string{}
	for _, item := range strings.Split(doc, "\n  - ")[1:] {
		word, _, _ := strings.Cut(item, " ")
		bullets[strings.TrimSuffix(word, ":")] = item
	}
	for path := range files {
		dir, name := filepath.Split(path)
		switch {
		case dir == "" && !strings.Contains(doc, name):
			t.Errorf("doc.go does not name %s", name)
		case dir != "" && !strings.Contains(bullets[dir], name):
			t.Errorf("doc.go's bullet %q does not name %s", dir, name)
		}
	}
}

// TestNoDroppedParseErrors checks that no parse or lookup of a spec drops
// its error (newSim used to: s.marker, _ = parseMarking(cfg.Marking)).
func TestNoDroppedParseErrors(t *testing.T) {
	files, fset := sourceFiles(t)
	for path, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok || len(as.Rhs) != 1 || len(as.Lhs) < 2 {
				return true
			}
			call, ok := as.Rhs[0].(*ast.CallExpr)
			if !ok {
				return true
			}
			name := ""
			switch fn := call.Fun.(type) {
			case *ast.Ident:
				name = fn.Name
			case *ast.SelectorExpr:
				name = fn.Sel.Name
			}
			lower := strings.ToLower(name)
			if !strings.HasPrefix(lower, "parse") && !strings.HasPrefix(lower, "lookup") {
				return true
			}
			if last, ok := as.Lhs[len(as.Lhs)-1].(*ast.Ident); ok && last.Name == "_" {
				t.Errorf("%s:%d: the error of %s is dropped", path, fset.Position(as.Pos()).Line, name)
			}
			return true
		})
	}
}

// maxStepLines bounds the lines of newSim and of each of its set-up steps.
const maxStepLines = 80

// TestSetupSteps checks that the set-up of a run, newSim and its steps
// (the setup… methods), stays in short named steps (newSim used to be 199
// lines).
func TestSetupSteps(t *testing.T) {
	files, fset := sourceFiles(t)
	steps := 0
	for path, f := range files {
		if strings.Contains(path, "/") {
			continue
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Name.Name != "newSim" && !strings.HasPrefix(fn.Name.Name, "setup") {
				continue
			}
			steps++
			lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if lines > maxStepLines {
				t.Errorf("%s: %s is %d lines, more than %d", path, fn.Name.Name, lines, maxStepLines)
			}
		}
	}
	if steps < 8 {
		t.Errorf("%d set-up functions; want newSim and at least 7 steps", steps)
	}
}

// TestCoreFieldsDocumented checks that every field of the core struct,
// network, has a comment saying what it holds.
func TestCoreFieldsDocumented(t *testing.T) {
	files, fset := sourceFiles(t)
	found := false
	for path, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || ts.Name.Name != "network" || strings.Contains(path, "/") {
				return true
			}
			found = true
			// A comment above a group of fields (up to the next blank
			// line) documents those of them it names.
			st := ts.Type.(*ast.StructType)
			groupDoc, groupEnd := "", 0
			for _, fl := range st.Fields.List {
				line := fset.Position(fl.Pos()).Line
				if fl.Doc != nil {
					groupDoc = fl.Doc.Text()
				} else if line != groupEnd+1 {
					groupDoc = ""
				}
				groupEnd = fset.Position(fl.End()).Line
				for _, name := range fl.Names {
					if fl.Doc == nil && fl.Comment == nil && !strings.Contains(groupDoc, name.Name) {
						t.Errorf("%s:%d: field %s of network has no comment", path, line, name.Name)
					}
				}
			}
			return false
		})
	}
	if !found {
		t.Error("no struct network in the package")
	}
}

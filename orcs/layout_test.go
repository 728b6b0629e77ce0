package main

import (
	"io/fs"
	"os"
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

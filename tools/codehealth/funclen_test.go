// Package codehealth holds repository-wide code checks that `make test`
// runs with the unit tests.
package codehealth

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// maxFuncLines bounds every function and function literal of the
// repository's Go code, tests included, counted from its func keyword to
// its closing brace.
const maxFuncLines = 120

// skipDirs are never Go code of the suite: build output, caches, corpora.
var skipDirs = map[string]bool{".git": true, "testdata": true, "bin": true, ".bench": true, "demo-out": true, "node_modules": true}

func TestNoLongFunctions(t *testing.T) {
	eachGoFile(t, func(rel string, fset *token.FileSet, f *ast.File) {
		for _, long := range longFunctions(fset, f) {
			t.Errorf("%s: %s — split it into named phases", rel, long)
		}
	})
}

// eachGoFile parses every Go file of the repository (tests included) and
// hands it to check with its slash-separated path from the root.
func eachGoFile(t *testing.T, check func(rel string, fset *token.FileSet, f *ast.File)) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(root, path)
		check(filepath.ToSlash(rel), fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("checked only %d files under %s; the walk lost the repository", files, root)
	}
}

// longFunctions describes each function of f longer than maxFuncLines.
func longFunctions(fset *token.FileSet, f *ast.File) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		var body *ast.BlockStmt
		name := "func literal"
		switch x := n.(type) {
		case *ast.FuncDecl:
			body, name = x.Body, x.Name.Name
		case *ast.FuncLit:
			body = x.Body
		}
		if body == nil {
			return true
		}
		start := fset.Position(n.Pos())
		if lines := fset.Position(body.Rbrace).Line - start.Line + 1; lines > maxFuncLines {
			out = append(out, name+" at line "+strconv.Itoa(start.Line)+" has "+strconv.Itoa(lines)+" lines (at most "+strconv.Itoa(maxFuncLines)+")")
		}
		return true
	})
	return out
}

// TestLongFunctionsCounts pins the counting: a function of exactly
// maxFuncLines lines passes, one more line fails, literals count too.
func TestLongFunctionsCounts(t *testing.T) {
	fn := func(name string, lines int) string {
		return "func " + name + "() {\n" + strings.Repeat("\t_ = 0\n", lines-2) + "}\n"
	}
	lit := "var v = func() {\n" + strings.Repeat("\t_ = 0\n", maxFuncLines-1) + "}\n"
	src := "package p\n\n" + fn("ok", maxFuncLines) + fn("long", maxFuncLines+1) + lit
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(longFunctions(fset, f), "\n")
	want := "long at line 123 has 121 lines (at most 120)\nfunc literal at line 244 has 121 lines (at most 120)"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

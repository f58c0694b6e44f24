package codehealth

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"
)

// eagerCalls build something at package initialisation that every process
// of every binary linking the package pays for at start (SPEC §14 times
// whole processes): compile the expression on first use with lazyre.New,
// make the table in a sync.OnceValue.
var eagerCalls = map[string]bool{"regexp.MustCompile": true, "regexp.Compile": true, "regexp.MustCompilePOSIX": true, "crc32.MakeTable": true}

func TestNoEagerPackageInit(t *testing.T) {
	eachGoFile(t, func(rel string, fset *token.FileSet, f *ast.File) {
		if strings.HasSuffix(rel, "_test.go") {
			return // a test binary's start is not the suite's
		}
		for _, e := range eagerInits(fset, f) {
			t.Errorf("%s: %s — build it on first use (internal/lazyre for expressions)", rel, e)
		}
	})
}

// eagerInits describes each call of eagerCalls in a package-level
// variable's initialiser (function literals there run later and are
// not counted).
func eagerInits(fset *token.FileSet, f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, spec := range g.Specs {
			for _, v := range spec.(*ast.ValueSpec).Values {
				ast.Inspect(v, func(n ast.Node) bool {
					if _, lit := n.(*ast.FuncLit); lit {
						return false
					}
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
						if pkg, ok := sel.X.(*ast.Ident); ok && eagerCalls[pkg.Name+"."+sel.Sel.Name] {
							out = append(out, pkg.Name+"."+sel.Sel.Name+" at line "+strconv.Itoa(fset.Position(call.Pos()).Line)+" runs at package initialisation")
						}
					}
					return true
				})
			}
		}
	}
	return out
}

// TestEagerInitsFinds pins what counts: package-level initialisers, also
// inside a composite literal; not a function literal's body or a local.
func TestEagerInitsFinds(t *testing.T) {
	src := `package p

var a = regexp.MustCompile("x")
var (
	b = map[string]*regexp.Regexp{"k": regexp.MustCompile("y")}
	c = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("z") })
)
var d = crc32.MakeTable(crc32.Castagnoli)

func f() { _ = regexp.MustCompile("w") }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(eagerInits(fset, f), "\n")
	want := "regexp.MustCompile at line 3 runs at package initialisation\n" +
		"regexp.MustCompile at line 5 runs at package initialisation\n" +
		"crc32.MakeTable at line 8 runs at package initialisation"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

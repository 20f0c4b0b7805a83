package guard

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestAPINamesNoInternalType: no exported name of the package (a
// function's or method's signature, an exported field's type, a type, a
// variable's declared type) mentions a type of an internal package, which
// a program outside this module could not name. go doc shows only the
// guard's own types, package rules' and the standard library's.
func TestAPINamesNoInternalType(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		internal := map[string]string{} // import name -> path
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if !strings.Contains(path, "/internal/") {
				continue
			}
			n := path[strings.LastIndex(path, "/")+1:]
			if imp.Name != nil {
				n = imp.Name.Name
			}
			internal[n] = path
		}
		var check func(what string, n ast.Node)
		check = func(what string, n ast.Node) {
			checked++
			ast.Inspect(n, func(n ast.Node) bool {
				var fields *ast.FieldList
				switch n := n.(type) {
				case *ast.SelectorExpr:
					if x, ok := n.X.(*ast.Ident); ok && internal[x.Name] != "" {
						t.Errorf("%s: %s names %s.%s (%s)", fset.Position(n.Pos()), what, x.Name, n.Sel.Name, internal[x.Name])
					}
				case *ast.StructType:
					fields = n.Fields
				case *ast.InterfaceType:
					fields = n.Methods
				}
				if fields == nil {
					return true
				}
				// A struct's unexported fields and an interface's
				// unexported methods are not the API.
				for _, fl := range fields.List {
					if len(fl.Names) == 0 || fl.Names[0].IsExported() {
						check(what, fl.Type)
					}
				}
				return false
			})
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() || d.Recv != nil && !exportedRecv(d.Recv) {
					continue
				}
				check(d.Name.Name, d.Type)
				if d.Recv != nil {
					check(d.Name.Name, d.Recv)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							check(s.Name.Name, s.Type)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() && s.Type != nil {
								check(n.Name, s.Type)
							}
						}
					}
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked only %d exported declarations", checked)
	}
}

// exportedRecv reports whether a method's receiver type is exported.
func exportedRecv(recv *ast.FieldList) bool {
	typ := recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	id, ok := typ.(*ast.Ident)
	return ok && id.IsExported()
}

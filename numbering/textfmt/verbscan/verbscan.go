// Package verbscan finds, in the string literals of a package's Go files,
// the format verbs that package textfmt does not know: a check for the
// tests of the packages that format their messages with textfmt.
package verbscan

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"

	"github.com/numenhq/numen/numbering/textfmt"
)

// Scan returns one line per unknown verb in the non-test Go files of dir,
// naming the file, the line and the literal.
func Scan(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var bad []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			return nil, err
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				for _, v := range textfmt.Verbs(lit.Value) {
					bad = append(bad, fset.Position(lit.Pos()).String()+": verb "+v+" in "+lit.Value)
				}
			}
			return true
		})
	}
	return bad, nil
}

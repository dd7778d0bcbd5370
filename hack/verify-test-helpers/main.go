// Command verify-test-helpers fails when a test helper is defined in more than one test package of the repository,
// so that a helper two packages need lives once, in test/framework (or test/fixtures, test/mcosim), and a helper
// of one package has a name of its own.
//
// It parses, with go/parser, every _test.go file of the repository and every Go file under test/ (the helper
// packages test/framework, test/fixtures, test/mcosim... and the test module test/kubeletcreds), skipping vendor/,
// testdata/ and directories whose name starts with "." or "_". A test package is a directory and a package
// clause: a directory's package and its external test package (NAME_test) are two. It reports every name of a
// top-level function (not a method) defined in two test packages or more, with where each is defined, and exits
// with status 1. The functions go test calls itself are left out: TestMain, Test*, Benchmark*, Fuzz* and
// Example* (named as go test recognises them), init, main and _.
//
// Two functions that do different things must have names that say which is which; the exceptions are in the
// list allowed, each with its reason. Run it from the root of the repository (make verify does):
//
//	go run ./hack/verify-test-helpers
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// allowed lists the names that may be defined in more than one test package, each with the exact set of
// directories that define it and the reason. An entry that no longer matches what the repository defines is
// reported too, so that the list does not outlive its reasons.
var allowed = map[string][]string{
	// framework.Start starts a control plane and mcosim.Start the MCO simulator. Each is the entry point of a
	// package of its own, exported and always called qualified (framework.Start, mcosim.Start): the calls say
	// which is which, and neither package's name would read better repeated in the function's (StartControlPlane,
	// StartSimulator).
	"Start": {"test/framework", "test/mcosim"},
}

func main() {
	problems, err := check(".", allowed)
	if err != nil {
		fmt.Fprintf(os.Stderr, "verify-test-helpers: %v\n", err)
		os.Exit(2)
	}
	if len(problems) == 0 {
		return
	}
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, p)
	}
	fmt.Fprintln(os.Stderr, "Move a helper that several test packages share to test/framework (see hack/verify-test-helpers), "+
		"or rename a function that does something else so that its name says what.")
	os.Exit(1)
}

// definition is where a test package defines a top-level function.
type definition struct {
	dir, pkg string // the directory, relative to the root and slash-separated, and the package clause
	pos      string // file:line
}

// check returns what is wrong under root: the names defined in more than one test package (one line each, naming
// every definition), and the entries of allowed that do not match the definitions found.
func check(root string, allowed map[string][]string) ([]string, error) {
	defs, err := topLevelFuncs(root)
	if err != nil {
		return nil, err
	}
	var problems []string
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		ds := defs[name]
		packages := map[string]bool{}
		for _, d := range ds {
			packages[d.dir+" "+d.pkg] = true
		}
		if len(packages) < 2 {
			continue
		}
		var dirs, where []string
		for _, d := range ds {
			dirs = append(dirs, d.dir)
			where = append(where, fmt.Sprintf("%s (package %s)", d.pos, d.pkg))
		}
		slices.Sort(dirs)
		if want, ok := allowed[name]; ok && slices.Equal(slices.Compact(dirs), want) {
			continue
		}
		problems = append(problems, fmt.Sprintf("%s is defined in %d test packages: %s", name, len(packages), strings.Join(where, ", ")))
	}
	for _, name := range slices.Sorted(maps.Keys(allowed)) {
		var dirs []string
		for _, d := range defs[name] {
			dirs = append(dirs, d.dir)
		}
		slices.Sort(dirs)
		if dirs = slices.Compact(dirs); !slices.Equal(dirs, allowed[name]) {
			problems = append(problems, fmt.Sprintf("the allowed duplicate %s is defined in %v, not %v: update or remove its entry",
				name, dirs, allowed[name]))
		}
	}
	return problems, nil
}

// topLevelFuncs returns the definitions of the top-level functions of the test files under root, by name, in the
// order of the files' paths, leaving out the functions go test calls itself (goTestCalls).
func topLevelFuncs(root string) (map[string][]definition, error) {
	defs := map[string][]definition{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if e.IsDir() {
			name := e.Name()
			if rel != "." && (name == "vendor" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !isTestFile(rel) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || goTestCalls(fn.Name.Name) {
				continue
			}
			defs[fn.Name.Name] = append(defs[fn.Name.Name], definition{
				dir: filepath.ToSlash(filepath.Dir(rel)), pkg: f.Name.Name,
				pos: fmt.Sprintf("%s:%d", rel, fset.Position(fn.Pos()).Line),
			})
		}
		return nil
	})
	return defs, err
}

// isTestFile reports whether the file rel (relative to the root, slash-separated) holds tests or test helpers: a
// _test.go file anywhere, or any Go file under test/.
func isTestFile(rel string) bool {
	return strings.HasSuffix(rel, ".go") && (strings.HasSuffix(rel, "_test.go") || strings.HasPrefix(rel, "test/"))
}

// goTestCalls reports whether go test (or the runtime) calls a function of this name itself, so that every test
// package may define one: TestMain, the tests, benchmarks, fuzz targets and examples, init and main, and _.
func goTestCalls(name string) bool {
	switch name {
	case "TestMain", "init", "main", "_":
		return true
	}
	for _, prefix := range []string{"Test", "Benchmark", "Fuzz"} {
		if isGoTestName(name, prefix) {
			return true
		}
	}
	return name == "Example" || strings.HasPrefix(name, "Example_") || isGoTestName(name, "Example")
}

// isGoTestName reports whether name is prefix followed by nothing or by a character other than a lower-case
// letter, as go test recognises TestXxx (Testing is not a test).
func isGoTestName(name, prefix string) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return !unicode.IsLower(r)
}

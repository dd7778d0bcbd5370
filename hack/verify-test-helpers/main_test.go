package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestNoTestHelperIsDefinedInTwoTestPackages runs the check on this repository, as make verify does.
func TestNoTestHelperIsDefinedInTwoTestPackages(t *testing.T) {
	problems, err := check(filepath.Join("..", ".."), allowed)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// writeGoFiles writes the files of a repository under a temporary directory: path to contents.
func writeGoFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for path, data := range files {
		path = filepath.Join(root, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestTheCheckNamesEveryDefinitionOfAHelperOfTwoTestPackages(t *testing.T) {
	root := writeGoFiles(t, map[string]string{
		"pkg/a/a_test.go":        "package a\n\nfunc helper() {}\nfunc TestA(t *testing.T) {}\nfunc onlyA() {}\n",
		"pkg/a/ext_test.go":      "package a_test\n\nfunc helper() {}\n",
		"pkg/b/b_test.go":        "package b\n\nfunc TestA(t *testing.T) {}\nfunc TestMain(m *testing.M) {}\nfunc init() {}\nfunc (s *s) helper() {}\n",
		"pkg/b/b.go":             "package b\n\nfunc helper() {}\n", // production code: not a test helper
		"test/c/c.go":            "package c\n\n// a helper file of test/\nfunc helper() {}\nfunc Testing() {}\n",
		"test/d/d_test.go":       "package d\n\nfunc Testing() {}\nfunc BenchmarkX(b *testing.B) {}\nfunc ExampleX() {}\nfunc Example_x() {}\n",
		"vendor/v/v_test.go":     "package v\n\nfunc helper() {}\n",
		"pkg/a/testdata/x.go":    "package x\n\nfunc helper() {}\n",
		"test/e/procattr_a.go":   "package e\n\nfunc sysProcAttr() {}\n",
		"test/e/procattr_b.go":   "package e\n\nfunc sysProcAttr() {}\n", // one package, two build tags
		"test/f/start.go":        "package f\n\nfunc Start() {}\n",
		"test/g/start.go":        "package g\n\nfunc Start() {}\n",
		"test/h/start_test.go":   "package h\n\nfunc Stop() {}\n",
		"hack/tool/tool_test.go": "package main\n\nfunc main() {}\n",
	})
	problems, err := check(root, map[string][]string{"Start": {"test/f", "test/g"}, "Stop": {"test/h", "test/i"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Testing is defined in 2 test packages: test/c/c.go:5 (package c), test/d/d_test.go:3 (package d)",
		"helper is defined in 3 test packages: pkg/a/a_test.go:3 (package a), pkg/a/ext_test.go:3 (package a_test), test/c/c.go:4 (package c)",
		"the allowed duplicate Stop is defined in [test/h], not [test/h test/i]: update or remove its entry",
	}
	if !reflect.DeepEqual(problems, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(problems, "\n"), strings.Join(want, "\n"))
	}
}

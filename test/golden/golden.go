// Package golden holds what the golden-file tests share: a case is a directory named as a sentence, with the
// cluster objects in input.yaml and the expected files beside it, written by hand from docs/semantics.md and
// never produced by the code under test (there is deliberately no -update flag).
package golden

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/openshift/registries-controller/pkg/inputfiles"
	"github.com/openshift/registries-controller/pkg/inputs"
)

// Cases returns the case directories under dir (testdata/golden), failing the test when there is none.
func Cases(t *testing.T, dir string) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no golden cases found in %s: %v", dir, err)
	}
	return dirs
}

// Input reads the case's input.yaml as the render command reads manifests.
func Input(t *testing.T, dir string) *inputs.Inputs {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "input.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// MCO's test data, which the API server partly refuses (keys that are not PEM): the render core is proven on
	// it as MCO's is, unjudged.
	objs, err := inputfiles.DecodeUnjudged("input.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	return &objs.Inputs
}

// Optional returns the case's file name and whether it exists.
func Optional(t *testing.T, dir, name string) (string, bool) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if errors.Is(err, os.ErrNotExist) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(data), true
}

// CompareFile compares got with the case's file name: absent means no file may be written (got nil).
func CompareFile(t *testing.T, dir, name string, got []byte) {
	t.Helper()
	want, ok := Optional(t, dir, name)
	switch {
	case !ok && got != nil:
		t.Errorf("%s: want no file, got:\n%s", name, got)
	case ok && got == nil:
		t.Errorf("%s: want a file, got none", name)
	case ok:
		CompareText(t, name, want, string(got))
	}
}

// CompareText reports a difference between want and got, showing both.
func CompareText(t *testing.T, what, want, got string) {
	t.Helper()
	if want != got {
		t.Errorf("%s differ\n--- want\n%s\n--- got\n%s", what, want, got)
	}
}

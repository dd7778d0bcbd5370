package imagepolicy_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/test/golden"
)

// goldenNames maps the node paths of the rendered files to the names of the expected files in a case.
var goldenNames = map[string]string{
	nodefiles.RegistriesConf:     "registries.conf",
	nodefiles.PolicyJSON:         "policy.json",
	nodefiles.SigstoreRegistries: "sigstore-registries.yaml",
	nodefiles.SearchRegistries:   "search.conf",
}

// goldenName returns the expected file's name for a node path: crio-policies/<ns>.json for a namespace policy.
func goldenName(p string) string {
	if ns, ok := nodefiles.IsNamespacePolicy(p); ok {
		return "crio-policies/" + ns + ".json"
	}
	return goldenNames[p]
}

// TestGolden renders every case under testdata/golden with render.Render, the path the controller and the
// render command take. A case is a directory named as a sentence, holding:
//
//	input.yaml                 the cluster objects; its leading comment says where the expectation comes from
//	                           (a vector of MCO's tests, the worked example of docs/semantics.md §9.8, or a
//	                           defect of docs/semantics.md §9.9)
//	policy.json                the expected /etc/containers/policy.json, absent when none must be written
//	sigstore-registries.yaml   the expected /etc/containers/registries.d/sigstore-registries.yaml, likewise
//	crio-policies/<ns>.json    the expected /etc/crio/policies/<ns>.json, one per namespace, likewise
//	registries.conf, search.conf   compared when present (most cases leave them to pkg/registries' goldens)
//	problems.txt               when present, the input is invalid: the exact error, and no file is expected
//	status.txt                 the expected per-object outcomes that are not plain (absent: none)
//	warnings.txt               the expected report warnings (absent: none)
//
// The expected files are written by hand from docs/semantics.md §9 and MCO's test vectors, never produced
// by this code; there is deliberately no -update flag.
func TestGolden(t *testing.T) {
	dirs := golden.Cases(t, "testdata/golden")
	checker := registriesconf.NewChecker()
	t.Cleanup(checker.Close)
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			in := golden.Input(t, dir)
			out, err := render.Render(in, render.Options{Checker: checker})
			if want, ok := golden.Optional(t, dir, "problems.txt"); ok {
				var invalid *inputs.InvalidError
				if !errors.As(err, &invalid) {
					t.Fatalf("want an invalid-input error, got %v", err)
				}
				golden.CompareText(t, "problems", want, invalid.Error()+"\n")
				return
			}
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			compareFiles(t, dir, out.OutputFiles("worker", machineconfigs.Registries))
			want, _ := golden.Optional(t, dir, "status.txt")
			golden.CompareText(t, "status", want, statusText(out))
			want, _ = golden.Optional(t, dir, "warnings.txt")
			var got strings.Builder
			for _, w := range out.Report.Warnings {
				got.WriteString(w.String() + "\n")
			}
			golden.CompareText(t, "warnings", want, got.String())
		})
	}
}

// compareFiles checks every expected policy file was rendered with the expected bytes, and that no other
// policy file was rendered; registries.conf and the search drop-in only when the case holds them.
func compareFiles(t *testing.T, dir string, files nodefiles.Files) {
	t.Helper()
	for _, f := range files {
		name := goldenName(f.Path)
		want, ok := golden.Optional(t, dir, name)
		switch {
		case !ok && (f.Path == nodefiles.RegistriesConf || f.Path == nodefiles.SearchRegistries):
		case !ok:
			t.Errorf("%s: want no file, got:\n%s", f.Path, f.Data)
		default:
			golden.CompareText(t, name, want, string(f.Data))
		}
	}
	expected, _ := filepath.Glob(filepath.Join(dir, "crio-policies", "*.json"))
	for _, name := range []string{"policy.json", "sigstore-registries.yaml", "registries.conf", "search.conf"} {
		if _, ok := golden.Optional(t, dir, name); ok {
			expected = append(expected, name)
		}
	}
	for _, e := range expected {
		name := strings.TrimPrefix(filepath.ToSlash(e), filepath.ToSlash(dir)+"/")
		if !slices.ContainsFunc(files, func(f nodefiles.File) bool { return goldenName(f.Path) == name }) {
			t.Errorf("%s: want a file, got none", name)
		}
	}
}

func statusText(out *render.Output) string {
	var b strings.Builder
	for _, o := range out.Policies.Objects {
		if len(o.DroppedScopes) > 0 {
			fmt.Fprintf(&b, "%s: dropped %q\n", o.Ref, o.DroppedScopes)
		}
	}
	return b.String()
}

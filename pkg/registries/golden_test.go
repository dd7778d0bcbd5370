package registries_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshift/registries-controller/pkg/imagepolicy"
	"github.com/openshift/registries-controller/pkg/inputfiles"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/registries"
)

// TestGolden runs every case under testdata/golden. A case is a directory named as a sentence, holding:
//
//	input.yaml         the cluster objects (a ClusterVersion document supplies the release image)
//	registries.conf    the expected /etc/containers/registries.conf, absent when none must be written
//	policy.json        the expected /etc/containers/policy.json (rendered by pkg/imagepolicy from the merge's
//	                   PolicyScopes), absent when none must be written
//	search.conf        the expected search-registries drop-in, absent when none must be written
//	problems.txt       when present, the input is invalid: the exact error, and no file is expected
//	warnings.txt       the expected report warnings, one per line (absent: none)
//
// The expected files are written by hand from docs/semantics (see the comment at the top of each
// input.yaml), never produced by this code; there is deliberately no -update flag.
func TestGolden(t *testing.T) {
	dirs, err := filepath.Glob("testdata/golden/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no golden cases found: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			in := readGoldenInput(t, dir)
			res, err := registries.Merge(in)
			if want, ok := readOptional(t, dir, "problems.txt"); ok {
				var invalid *inputs.InvalidError
				if !errors.As(err, &invalid) {
					t.Fatalf("want an invalid-input error, got result %v, error %v", res != nil, err)
				}
				compareText(t, "problems", want, invalid.Error()+"\n")
				return
			}
			if err != nil {
				t.Fatalf("Merge: %v", err)
			}
			compareFile(t, dir, "registries.conf", res.RegistriesConf)
			compareFile(t, dir, "policy.json", policyJSON(t, in, res))
			compareFile(t, dir, "search.conf", res.SearchRegistries)
			want, _ := readOptional(t, dir, "warnings.txt")
			var got strings.Builder
			for _, w := range res.Report.Warnings {
				got.WriteString(w.String() + "\n")
			}
			compareText(t, "warnings", want, got.String())
		})
	}
}

// policyJSON renders policy.json from the merge, as render.Render does: pkg/imagepolicy builds the file from
// the scopes the merge exposes.
func policyJSON(t testing.TB, in *inputs.Inputs, res *registries.Result) []byte {
	t.Helper()
	p, err := imagepolicy.Render(in, res)
	if err != nil {
		t.Fatalf("imagepolicy.Render: %v", err)
	}
	return p.PolicyJSON
}

func readGoldenInput(t *testing.T, dir string) *inputs.Inputs {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "input.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := inputfiles.Decode("input.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	return &objs.Inputs
}

func readOptional(t *testing.T, dir, name string) (string, bool) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(data), true
}

func compareFile(t *testing.T, dir, name string, got []byte) {
	t.Helper()
	want, ok := readOptional(t, dir, name)
	switch {
	case !ok && got != nil:
		t.Errorf("%s: want no file, got:\n%s", name, got)
	case ok && got == nil:
		t.Errorf("%s: want a file, got none", name)
	case ok:
		compareText(t, name, want, string(got))
	}
}

func compareText(t *testing.T, what, want, got string) {
	t.Helper()
	if want != got {
		t.Errorf("%s differ\n--- want\n%s\n--- got\n%s", what, want, got)
	}
}

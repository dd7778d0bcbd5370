package registries_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshift/registries-controller/pkg/imagepolicy"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/registries"
	"github.com/openshift/registries-controller/test/golden"
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
	dirs := golden.Cases(t, "testdata/golden")
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			in := golden.Input(t, dir)
			res, err := registries.Merge(in)
			if want, ok := golden.Optional(t, dir, "problems.txt"); ok {
				var invalid *inputs.InvalidError
				if !errors.As(err, &invalid) {
					t.Fatalf("want an invalid-input error, got result %v, error %v", res != nil, err)
				}
				golden.CompareText(t, "problems", want, invalid.Error()+"\n")
				return
			}
			if err != nil {
				t.Fatalf("Merge: %v", err)
			}
			golden.CompareFile(t, dir, "registries.conf", res.RegistriesConf)
			golden.CompareFile(t, dir, "policy.json", renderPolicyJSON(t, in, res))
			golden.CompareFile(t, dir, "search.conf", res.SearchRegistries)
			want, _ := golden.Optional(t, dir, "warnings.txt")
			var got strings.Builder
			for _, w := range res.Report.Warnings {
				got.WriteString(w.String() + "\n")
			}
			golden.CompareText(t, "warnings", want, got.String())
		})
	}
}

// renderPolicyJSON renders policy.json from the merge, as render.Render does: pkg/imagepolicy builds the file from
// the scopes the merge exposes.
func renderPolicyJSON(t testing.TB, in *inputs.Inputs, res *registries.Result) []byte {
	t.Helper()
	p, err := imagepolicy.RenderPolicies(in, res)
	if err != nil {
		t.Fatalf("imagepolicy.Render: %v", err)
	}
	return p.PolicyJSON
}

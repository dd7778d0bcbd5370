package imagepolicy_test

import (
	"os"
	"testing"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift/registries-controller/pkg/imagepolicy"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/registries"
	"github.com/openshift/registries-controller/test/fixtures"
)

// TestMirrorLookupWritesNoFile shows the fix of docs/semantics.md §9.9 D7: MCO writes every rendered
// registries.conf to a temporary file for containers/image, whose cache keeps each path forever. Here the
// lookup of sigstore-registries.yaml reads the merge's in-memory model: no file is written at all.
func TestMirrorLookupWritesNoFile(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cip := fixtures.CIP("signed", fixtures.PublicKey([]byte("key")), "quay.io/team")
	in := &inputs.Inputs{
		ImageDigestMirrorSets: []*configv1.ImageDigestMirrorSet{fixtures.IDMS("team", fixtures.Mirror("quay.io/team", "mirror.local/team"))},
		ClusterImagePolicies:  []*configv1.ClusterImagePolicy{cip},
	}
	for range 20 {
		merge, err := registries.Merge(in)
		if err != nil {
			t.Fatal(err)
		}
		loaded, err := merge.Loaded()
		if err != nil {
			t.Fatal(err)
		}
		if loaded.SystemContext() != nil {
			t.Fatal("the merge's registries.conf model is backed by a file")
		}
		res, err := imagepolicy.RenderPolicies(in, merge)
		if err != nil {
			t.Fatal(err)
		}
		if want := "docker:\n  mirror.local/team:\n    use-sigstore-attachments: true\n  quay.io/team:\n    use-sigstore-attachments: true\n"; string(res.SigstoreRegistries) != want {
			t.Fatalf("sigstore-registries.yaml:\n%s\nwant:\n%s", res.SigstoreRegistries, want)
		}
	}
	if entries, _ := os.ReadDir(tmp); len(entries) > 0 {
		t.Errorf("rendering wrote %d temporary files", len(entries))
	}
}

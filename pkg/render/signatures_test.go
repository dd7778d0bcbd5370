package render_test

import (
	"encoding/json"
	"slices"
	"testing"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/test/fixtures"
)

// TestSignatureFilesComeInTheReferencesOrder pins the file order of docs/semantics.md §9.6 and the Ignition
// file form MCO writes (overwrite, mode 0644, compression ""), read without the code under test.
func TestSignatureFilesComeInTheReferencesOrder(t *testing.T) {
	in := exampleInputs()
	key := fixtures.PublicKey([]byte("-----BEGIN PUBLIC KEY-----\nK\n-----END PUBLIC KEY-----\n"))
	in.ClusterImagePolicies = []*configv1.ClusterImagePolicy{fixtures.CIP("apps", key, "quay.io/apps")}
	in.ImagePolicies = []*configv1.ImagePolicy{
		fixtures.IP("zeta", "own", key, "zeta.io/app"),
		fixtures.IP("alpha", "own", key, "alpha.io/app"),
	}
	out, err := render.Render(in, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{nodefiles.RegistriesConf, nodefiles.PolicyJSON, nodefiles.SigstoreRegistries,
		nodefiles.NamespacePolicy("alpha"), nodefiles.NamespacePolicy("zeta"), nodefiles.SearchRegistries}
	var ign struct {
		Storage struct {
			Files []struct {
				Path      string
				Overwrite *bool
				Mode      *int
				Contents  struct{ Compression *string }
			}
		}
	}
	for _, d := range out.MachineConfigs {
		mc := d.Object
		if err := json.Unmarshal(mc.Spec.Config.Raw, &ign); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range ign.Storage.Files {
			got = append(got, f.Path)
			if f.Overwrite == nil || !*f.Overwrite || f.Mode == nil || *f.Mode != 0o644 || f.Contents.Compression == nil || *f.Contents.Compression != "" {
				t.Errorf("%s %s: not overwrite, 0644, compression \"\"", mc.Name, f.Path)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: files %q, want %q", mc.Name, got, want)
		}
	}
}

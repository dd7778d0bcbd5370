package framework_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

var cp *framework.ControlPlane

func TestMain(m *testing.M) {
	if os.Getenv(envHelper) == "true" {
		os.Exit(helperMain())
	}
	framework.Run(m, func(c *framework.ControlPlane) error {
		cp = c
		return nil
	})
}

// idmsYAML returns an ImageDigestMirrorSet manifest with one source, mirrored to two mirrors.
func idmsYAML(name, source, policy string) string {
	return fmt.Sprintf(`apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
  name: %s
spec:
  imageDigestMirrors:
  - source: %s
    mirrors:
    - mirror-1.example.com/team-a
    - mirror-2.example.com:5000/team-a
    mirrorSourcePolicy: %s
`, name, source, policy)
}

func TestAnImageDigestMirrorSetAppliedWithKubectlIsReadBackByTheTypedClient(t *testing.T) {
	ctx := t.Context()
	if _, _, err := cp.Kubectl(ctx, strings.NewReader(idmsYAML("team-a", "registry.example.com/team-a", "NeverContactSource")), "apply", "-f", "-"); err != nil {
		t.Fatal(err)
	}

	got, err := cp.Config.ConfigV1().ImageDigestMirrorSets().Get(ctx, "team-a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []configv1.ImageDigestMirrors{{
		Source:             "registry.example.com/team-a",
		Mirrors:            []configv1.ImageMirror{"mirror-1.example.com/team-a", "mirror-2.example.com:5000/team-a"},
		MirrorSourcePolicy: configv1.NeverContactSource,
	}}
	if !equalIDMS(got.Spec.ImageDigestMirrors, want) {
		t.Errorf("spec.imageDigestMirrors = %+v, want %+v", got.Spec.ImageDigestMirrors, want)
	}
}

func equalIDMS(a, b []configv1.ImageDigestMirrors) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Source != b[i].Source || a[i].MirrorSourcePolicy != b[i].MirrorSourcePolicy ||
			strings.Join(mirrorStrings(a[i].Mirrors), ",") != strings.Join(mirrorStrings(b[i].Mirrors), ",") {
			return false
		}
	}
	return true
}

func mirrorStrings(ms []configv1.ImageMirror) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = string(m)
	}
	return out
}

func TestTheAPIServerRejectsAnInvalidImageDigestMirrorSetWithTheCRDValidationMessage(t *testing.T) {
	tests := []struct {
		name        string
		source      string
		policy      string
		wantMessage []string
	}{{
		name:   "unknown mirrorSourcePolicy",
		source: "registry.example.com/team-b",
		policy: "Sometimes",
		wantMessage: []string{
			`spec.imageDigestMirrors[0].mirrorSourcePolicy: Unsupported value: "Sometimes"`,
			`"NeverContactSource"`, `"AllowContactingSource"`,
		},
	}, {
		name:        "source with a scheme",
		source:      "https://registry.example.com/team-b",
		policy:      "AllowContactingSource",
		wantMessage: []string{`spec.imageDigestMirrors[0].source in body should match`},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			yaml := idmsYAML("team-b", tc.source, tc.policy)
			_, _, err := cp.Kubectl(t.Context(), strings.NewReader(yaml), "apply", "-f", "-")
			if err == nil {
				t.Fatalf("kubectl apply accepted:\n%s", yaml)
			}
			for _, want := range append(tc.wantMessage, `The ImageDigestMirrorSet "team-b" is invalid`) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error does not contain %q:\n%v", want, err)
				}
			}
			_, err = cp.Config.ConfigV1().ImageDigestMirrorSets().Get(t.Context(), "team-b", metav1.GetOptions{})
			if err == nil {
				t.Errorf("the invalid ImageDigestMirrorSet was stored")
			}
		})
	}
}

func TestTheBuiltinPoolsAndClusterVersionFixturesAreAccepted(t *testing.T) {
	ctx := context.Background()
	if err := cp.CreateBuiltinPools(ctx); err != nil {
		t.Fatal(err)
	}
	out, _, err := cp.Kubectl(ctx, nil, "get", "machineconfigpools",
		"-l", fixtures.LabelBuiltInPool, "-o", "jsonpath={.items[*].metadata.name}")
	if err != nil {
		t.Fatal(err)
	}
	if out != "master worker" {
		t.Errorf("built-in pools = %q, want %q", out, "master worker")
	}

	if _, err := cp.CreateClusterVersion(ctx, fixtures.ReleaseImage); err != nil {
		t.Fatal(err)
	}
	cv, err := cp.Config.ConfigV1().ClusterVersions().Get(ctx, framework.ClusterVersionName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cv.Status.Desired.Image != fixtures.ReleaseImage {
		t.Errorf("status.desired.image = %q, want %q", cv.Status.Desired.Image, fixtures.ReleaseImage)
	}
}

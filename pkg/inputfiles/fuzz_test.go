package inputfiles_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/openshift/registries-controller/pkg/inputfiles"
	"github.com/openshift/registries-controller/pkg/inputs"
)

// FuzzDecode feeds arbitrary bytes to the manifest decoder `render` and `preview` read files with. It must never
// panic; an error must name the file and the document, and so must every problem of a refused object; and every
// object it reads must read back the same from
// its own JSON, so that what render takes does not depend on how the file spelled it.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		"apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: a\nspec:\n  imageDigestMirrors:\n  - source: quay.io/a\n    mirrors: [m.local/a]\n    mirrorSourcePolicy: NeverContactSource\n",
		"apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata: {name: b}\nspec:\n  repositoryDigestMirrors:\n  - {source: quay.io/b, mirrors: [m.local/b]}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n",
		`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"config.openshift.io/v1","kind":"Image","metadata":{"name":"cluster"},"spec":{"registrySources":{"blockedRegistries":["docker.io"]}}},{"apiVersion":"config.openshift.io/v1","kind":"Image","metadata":{"name":"other"}}]}`,
		"apiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata: {name: version}\nstatus: {desired: {image: \"quay.io/r@sha256:00\"}}\n",
		"apiVersion: config.openshift.io/v1\nkind: ImagePolicy\nmetadata: {name: p, namespace: ns}\nspec: {scopes: [quay.io/p]}\n",
		"apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfigPool\nmetadata:\n  name: worker\n  labels: {machineconfiguration.openshift.io/mco-built-in: \"\"}\n",
		"---\n---\nnull\n",
		"apiVersion: config.openshift.io/v1\nkind: ImageTagMirrorSet\nmetadata: {name: \"\"}\n",
		"kind: ImageDigestMirrorSet\n",
		"{\"apiVersion\": 1}",
		"\x00\xff",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := inputfiles.Decode("in.yaml", data)
		var invalid *inputs.InvalidError
		if errors.As(err, &invalid) {
			for _, p := range invalid.Problems {
				if !strings.HasPrefix(p.Where, "in.yaml (document ") {
					t.Fatalf("a problem does not name the file and document: %v", p)
				}
			}
		} else if err != nil {
			if !strings.HasPrefix(err.Error(), "in.yaml (document ") {
				t.Fatalf("the error does not name the file and document: %v", err)
			}
			return
		}
		for _, o := range m.Objects {
			if o.Object.GetName() == "" || !strings.HasPrefix(o.Where, "in.yaml (document ") {
				t.Fatalf("object without a name or a place: %+v", o)
			}
			again, err := json.Marshal(o.Object)
			if err != nil {
				t.Fatalf("%s: %v", o.Where, err)
			}
			m2, err := inputfiles.Decode("again.json", again)
			if err != nil {
				t.Fatalf("%s does not read back from its own JSON: %v\n%s", o.Where, err, again)
			}
			if len(m2.Objects) != 1 || !reflect.DeepEqual(m2.Objects[0].Object, o.Object) {
				t.Fatalf("%s reads back differently from its own JSON:\n%s", o.Where, again)
			}
		}
	})
}

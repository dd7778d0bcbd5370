package inputfiles_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshift/registries-controller/pkg/inputfiles"
)

const multiDoc = `# a comment before the first document
apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata: {name: a}
spec:
  imageDigestMirrors:
  - source: quay.io/a
    mirrors: [m.local/a]
---
---
apiVersion: v1
kind: Namespace
metadata: {name: demo}
---
apiVersion: v1
kind: List
items:
- apiVersion: config.openshift.io/v1
  kind: ImageTagMirrorSet
  metadata: {name: t}
  spec:
    imageTagMirrors:
    - source: quay.io/t
      mirrors: [m.local/t]
- apiVersion: operator.openshift.io/v1alpha1
  kind: ImageContentSourcePolicy
  metadata: {name: i}
  spec:
    repositoryDigestMirrors:
    - source: quay.io/i
      mirrors: [m.local/i]
`

const jsonDocs = `{"apiVersion": "config.openshift.io/v1", "kind": "Image", "metadata": {"name": "cluster"},
 "spec": {"registrySources": {"insecureRegistries": ["lab.local"]}}}
{"apiVersion": "config.openshift.io/v1", "kind": "Image", "metadata": {"name": "other"}, "spec": {}}
{"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion", "metadata": {"name": "version"},
 "status": {"desired": {"image": "quay.io/ocp/release@sha256:0000000000000000000000000000000000000000000000000000000000000000"}}}
{"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfigPool", "metadata": {"name": "worker", "labels": {"machineconfiguration.openshift.io/mco-built-in": ""}}}
`

func writeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReadDirTakesEveryKindFromYAMLAndJSONAndSkipsTheRest(t *testing.T) {
	dir := writeDir(t, map[string]string{"mirrors.yaml": multiDoc, "cluster.json": jsonDocs, "notes.txt": "not read", "x.yml": ""})
	objs, err := inputfiles.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs.ImageDigestMirrorSets) != 1 || len(objs.ImageTagMirrorSets) != 1 || len(objs.ImageContentSourcePolicies) != 1 ||
		len(objs.Pools) != 1 || objs.Image == nil || objs.ClusterVersion == nil {
		t.Fatalf("objects: %s", objs.Summary())
	}
	if got := objs.ImageTagMirrorSets[0].Spec.ImageTagMirrors[0].Mirrors[0]; got != "m.local/t" {
		t.Errorf("List item decoded wrong: %q", got)
	}
	if objs.Image.Spec.RegistrySources.InsecureRegistries[0] != "lab.local" {
		t.Errorf("Image decoded wrong: %+v", objs.Image.Spec)
	}
	if len(objs.Skipped) != 2 || !strings.Contains(objs.Skipped[0], `Image "other": only the Image named "cluster"`) ||
		!strings.Contains(objs.Skipped[1], `v1 Namespace "demo"`) || !strings.Contains(objs.Skipped[1], "mirrors.yaml (document 2)") {
		t.Errorf("skipped: %q", objs.Skipped)
	}
	if got, _ := objs.ReleaseImage(); got != objs.ClusterVersion.Status.Desired.Image {
		t.Errorf("release image %q not taken from the ClusterVersion", got)
	}
	objs.ReleaseImageFlag = "quay.io/x/y:1"
	if got, at := objs.ReleaseImage(); got != "quay.io/x/y:1" || at.Field != "--release-image" {
		t.Errorf("--release-image did not win: %q from %s", got, at)
	}
}

func TestReadDirErrorsNameTheFileAndDocument(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
	}{
		{"broken YAML", "apiVersion: v1\nkind: [", "bad.yaml (document 1)"},
		{"not an object", "- a\n- b\n", "bad.yaml (document 1)"},
		{"no kind", "apiVersion: v1\nmetadata: {name: x}\n", "apiVersion and kind are required"},
		{"wrong field type", "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {name: a}\nspec: {imageDigestMirrors: 3}\n",
			`ImageDigestMirrorSet "a": spec.imageDigestMirrors: Invalid value: "integer": spec.imageDigestMirrors in body must be of type array: "integer" (in `},
		{"a typo", "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {name: a}\nspec: {imageDigestMirrors: [{source: quay.io/a, mirorrs: [m.local/a]}]}\n",
			`ImageDigestMirrorSet "a": spec.imageDigestMirrors[0].mirorrs: unknown field "spec.imageDigestMirrors[0].mirorrs"; ` + "the CRD defines no such field"},
		{"no name", "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {}\nspec: {}\n", `ImageDigestMirrorSet "": metadata.name: Required value: name or generateName is required (in `},
		{"twice the same object", "apiVersion: config.openshift.io/v1\nkind: ImageTagMirrorSet\nmetadata: {name: a}\nspec: {}\n---\napiVersion: config.openshift.io/v1\nkind: ImageTagMirrorSet\nmetadata: {name: a}\nspec: {}\n", "also defined in"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := inputfiles.ReadDir(writeDir(t, map[string]string{"bad.yaml": tc.data}))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "bad.yaml (document") {
				t.Errorf("error %v, want it to contain %q and name the file and document", err, tc.want)
			}
		})
	}
	if _, err := inputfiles.ReadDir(filepath.Join(t.TempDir(), "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("a missing directory: %v", err)
	}
}

func TestReadTakesFilesDirectoriesAndStdinAsKubectlApplyDoes(t *testing.T) {
	dir := writeDir(t, map[string]string{"mirrors.yaml": multiDoc, "notes.txt": "not read"})
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "deeper.yaml"), []byte("apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {name: deeper}\nspec: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	single := filepath.Join(t.TempDir(), "image.txt") // a file named on the command line is read whatever its name
	if err := os.WriteFile(single, []byte(jsonDocs), 0o644); err != nil {
		t.Fatal(err)
	}
	stdin := strings.NewReader("apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {name: piped}\nspec: {}\n")

	objs, err := inputfiles.Read([]string{dir, single, inputfiles.Stdin}, stdin)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range objs.Objects {
		got = append(got, o.Kind.Name+"/"+o.Object.GetName()+" from "+o.Where)
	}
	want := []string{
		"ImageDigestMirrorSet/a from " + filepath.Join(dir, "mirrors.yaml") + " (document 1)",
		"ImageTagMirrorSet/t from " + filepath.Join(dir, "mirrors.yaml") + " (document 3) items[0]",
		"ImageContentSourcePolicy/i from " + filepath.Join(dir, "mirrors.yaml") + " (document 3) items[1]",
		"Image/cluster from " + single + " (document 1)",
		"ClusterVersion/version from " + single + " (document 3)",
		"MachineConfigPool/worker from " + single + " (document 4)",
		"ImageDigestMirrorSet/piped from stdin (document 1)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("objects, in order:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	_, err = inputfiles.Read([]string{dir, filepath.Join(dir, "mirrors.yaml")}, nil)
	if err == nil || !strings.Contains(err.Error(), "also defined in") {
		t.Errorf("the same object from two paths: %v", err)
	}
	if _, err := inputfiles.Read([]string{filepath.Join(dir, "missing.yaml")}, nil); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("a missing file: %v", err)
	}
}

// Documents are examined at once; what they hold is taken in document order, and the first document's error is
// the one reported, as when they were read one after the other.
func TestDocumentsExaminedAtOnceAreTakenInTheirOrder(t *testing.T) {
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "---\napiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {name: s%03d}\nspec:\n  imageDigestMirrors:\n  - source: quay.io/s%03d\n    mirrors: [m.local/s%03d]\n", i, i, i)
		if i%100 == 50 {
			fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: n%03d}\n", i)
		}
	}
	objs, err := inputfiles.Decode("many.yaml", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs.Objects) != 300 || len(objs.ImageDigestMirrorSets) != 300 {
		t.Fatalf("%d objects read, want 300", len(objs.Objects))
	}
	for i, o := range objs.Objects {
		if want := fmt.Sprintf("s%03d", i); o.Object.GetName() != want || objs.ImageDigestMirrorSets[i].Name != want {
			t.Fatalf("object %d is %s, want %s: documents taken out of order", i, o.Object.GetName(), want)
		}
	}
	if len(objs.Skipped) != 3 || !strings.Contains(objs.Skipped[0], `"n050"`) || !strings.Contains(objs.Skipped[2], `"n250"`) {
		t.Errorf("skipped out of order: %q", objs.Skipped)
	}

	// Document 2 is not an object, document 4 neither, and document 5 is not YAML: document 2 is reported.
	bad := "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n- a\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n---\n[1]\n---\nkind: [\n"
	if _, err := inputfiles.Decode("bad.yaml", []byte(bad)); err == nil || !strings.Contains(err.Error(), "bad.yaml (document 2)") {
		t.Errorf("error %v, want the first bad document's, document 2", err)
	}
}

package verify

import (
	"reflect"
	"testing"
)

func TestAnImageListIsReadAsLinesOrAsThePodSpecsOfManifests(t *testing.T) {
	lines := "# release images\nquay.io/a/b:1\n\n  quay.io/a/c@sha256:0123\n"
	got, err := ParseImageList("images.txt", []byte(lines))
	if err != nil {
		t.Fatal(err)
	}
	want := []Named{{"quay.io/a/b:1", "images.txt line 2"}, {"quay.io/a/c@sha256:0123", "images.txt line 4"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("lines: %+v, want %+v", got, want)
	}

	manifests := `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      initContainers: [{name: init, image: "quay.io/a/init:1"}]
      containers: [{name: web, image: "quay.io/a/web:1"}]
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: "quay.io/a/web:1"}]
`
	got, err = ParseImageList("app.yaml", []byte(manifests))
	if err != nil {
		t.Fatal(err)
	}
	want = []Named{
		{"quay.io/a/web:1", `app.yaml: Deployment "web" spec.template.spec.containers[0]`},
		{"quay.io/a/init:1", `app.yaml: Deployment "web" spec.template.spec.initContainers[0]`},
		{"quay.io/a/web:1", `app.yaml: Pod "p" spec.containers[0]`},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("manifests: %+v, want %+v", got, want)
	}
}

func TestALineWithTwoWordsIsRefused(t *testing.T) {
	if _, err := ParseImageList("x", []byte("quay.io/a:1 quay.io/b:1\n")); err == nil || err.Error() != `x line 1: "quay.io/a:1 quay.io/b:1" is not one image reference` {
		t.Errorf("%v", err)
	}
}

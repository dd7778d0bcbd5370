package releasepayload

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseReadsEveryTagOfTheImageReferencesImageStream(t *testing.T) {
	data := `{"kind": "ImageStream", "apiVersion": "image.openshift.io/v1", "metadata": {"name": "4.22.0"},
	  "spec": {"tags": [
	    {"name": "cli", "from": {"kind": "DockerImage", "name": "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:aa"}},
	    {"name": "installer", "annotations": {"io.openshift.build.commit.id": "abc"}, "from": {"kind": "DockerImage", "name": "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:bb"}}
	  ]}}`
	got, err := Parse([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	want := []Image{
		{Name: "cli", Reference: "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:aa"},
		{Name: "installer", Reference: "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:bb"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%+v, want %+v", got, want)
	}
}

func TestParseRefusesWhatIsNotAnImageStreamOfDockerImages(t *testing.T) {
	for name, tc := range map[string]struct{ data, err string }{
		"another kind": {`{"kind": "ConfigMap"}`, `kind "ConfigMap", want ImageStream`},
		"a tag from an ImageStreamTag": {`{"kind": "ImageStream", "spec": {"tags": [{"name": "cli", "from": {"kind": "ImageStreamTag", "name": "cli:latest"}}]}}`,
			`spec.tags[0] ("cli"): from must be a DockerImage with a name, is "ImageStreamTag" "cli:latest"`},
		"not JSON": {`kind: ImageStream`, "invalid character"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse([]byte(tc.data)); err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("error %v, want one containing %q", err, tc.err)
			}
		})
	}
}

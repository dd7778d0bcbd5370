package image

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"

	"github.com/openshift/registries-controller/pkg/releasepayload"
	"github.com/openshift/registries-controller/test/framework"
)

// envImage names the OCI image layout directory make image wrote; make test sets it. Without it, the test runs
// make image itself.
const envImage = "REGISTRIES_CONTROLLER_IMAGE"

var (
	layoutOnce sync.Once
	layoutDir  string
	layoutErr  error
)

// imageLayout returns the OCI layout of the image: $REGISTRIES_CONTROLLER_IMAGE, or _output/image/oci after
// running make image. A missing image fails the test; nothing skips it.
func imageLayout(t *testing.T) string {
	t.Helper()
	layoutOnce.Do(func() {
		if layoutDir = os.Getenv(envImage); layoutDir != "" {
			return
		}
		root, err := framework.RepoRoot()
		if err != nil {
			layoutErr = err
			return
		}
		cmd := exec.Command("make", "image")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			layoutErr = fmt.Errorf("%s is not set and make image failed: %w: %s", envImage, err, out)
			return
		}
		layoutDir = filepath.Join(root, "_output", "image", "oci")
	})
	if layoutErr != nil {
		t.Fatalf("%v (run make test, or make image and set %s to _output/image/oci)", layoutErr, envImage)
	}
	if _, err := os.Stat(filepath.Join(layoutDir, "index.json")); err != nil {
		t.Fatalf("%s=%s is not an OCI image layout: %v (run make image)", envImage, layoutDir, err)
	}
	return layoutDir
}

// dockerfile is what the final stage of the repository's Dockerfile says.
type dockerfile struct {
	// final are the instructions of the last stage, continuation lines joined, e.g. "USER 1001".
	final  []string
	labels map[string]string
}

// readDockerfile reads the Dockerfile at the repository root.
func readDockerfile(t *testing.T) *dockerfile {
	t.Helper()
	root, err := framework.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(readFile(t, filepath.Join(root, "Dockerfile"))), "\\\n", " ")
	d := &dockerfile{labels: map[string]string{}}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "FROM "):
			d.final = nil
			d.labels = map[string]string{}
		default:
			d.final = append(d.final, line)
			if rest, ok := strings.CutPrefix(line, "LABEL "); ok {
				if err := parseLabels(rest, d.labels); err != nil {
					t.Fatalf("Dockerfile: %s: %v", line, err)
				}
			}
		}
	}
	return d
}

// parseLabels adds the key=value pairs of a LABEL instruction to labels; a value may be double-quoted.
func parseLabels(s string, labels map[string]string) error {
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		key, rest, ok := strings.Cut(s, "=")
		if !ok || key == "" || strings.ContainsAny(key, " \t") {
			return fmt.Errorf("want key=value at %q", s)
		}
		value := rest
		if strings.HasPrefix(rest, `"`) {
			end := strings.Index(rest[1:], `"`)
			if end < 0 {
				return fmt.Errorf("unterminated quote at %q", rest)
			}
			quoted, err := strconv.Unquote(rest[:end+2])
			if err != nil {
				return err
			}
			value, s = quoted, rest[end+2:]
		} else if i := strings.IndexAny(rest, " \t"); i >= 0 {
			value, s = rest[:i], rest[i:]
		} else {
			s = ""
		}
		labels[key] = value
	}
	return nil
}

// TestTheDockerfileBuildsWhatMakeImageBuilds checks the Dockerfile's final stage against the same hand-written
// expectations as the offline image: the binary of make image-binary at the entrypoint, /manifests, the user and
// the release label (its labels are compared with the image's in the push test).
func TestTheDockerfileBuildsWhatMakeImageBuilds(t *testing.T) {
	d := readDockerfile(t)
	for _, want := range []string{
		"COPY --from=builder /go/src/github.com/openshift/registries-controller/_output/image/registries-controller " + wantEntrypoint,
		"COPY manifests /manifests",
		"USER " + wantUser,
		`ENTRYPOINT ["` + wantEntrypoint + `"]`,
	} {
		found := false
		for _, line := range d.final {
			found = found || line == want
		}
		if !found {
			t.Errorf("the Dockerfile's final stage lacks %q; it says:\n%s", want, strings.Join(d.final, "\n"))
		}
	}
	if d.labels[releaseOperatorLabel] != "true" {
		t.Errorf("the Dockerfile labels %q, want %s=true", d.labels, releaseOperatorLabel)
	}
	root, err := framework.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readFile(t, filepath.Join(root, "Dockerfile"))), "RUN make image-binary\n") {
		t.Error("the Dockerfile's builder stage does not build the binary with make image-binary, as make image does")
	}
}

// TestTheDeploymentRunsTheImageNamedInImageReferences checks that the Deployment's container names the pull spec
// of the registries-controller tag of manifests/image-references, which the release tooling replaces by the
// release's image, and runs the image's entrypoint.
func TestTheDeploymentRunsTheImageNamedInImageReferences(t *testing.T) {
	root, err := framework.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	// Read as the release tooling and pkg/releasepayload read it: an ImageStream whose tags are from DockerImages.
	data, err := yaml.YAMLToJSON(readFile(t, filepath.Join(root, "manifests", "image-references")))
	if err != nil {
		t.Fatal(err)
	}
	refs, err := releasepayload.Parse(data)
	if err != nil || len(refs) != 1 || refs[0].Name != "registries-controller" {
		t.Fatalf("manifests/image-references: %+v, %v; want an ImageStream with the one tag registries-controller from a DockerImage", refs, err)
	}
	pullSpec := refs[0].Reference

	var deploy appsv1.Deployment
	if err := yaml.Unmarshal(readFile(t, filepath.Join(root, "manifests", "0000_80_registries-controller_10_deployment.yaml")), &deploy); err != nil {
		t.Fatal(err)
	}
	containers := deploy.Spec.Template.Spec.Containers
	if len(containers) != 1 {
		t.Fatalf("the Deployment has %d containers, want 1", len(containers))
	}
	c := containers[0]
	if c.Image != pullSpec {
		t.Errorf("the Deployment's container runs %q, image-references names %q: the release tooling would not replace it", c.Image, pullSpec)
	}
	if len(c.Command) != 1 || c.Command[0] != wantEntrypoint {
		t.Errorf("the Deployment's command %q, want [%q], the image's entrypoint", c.Command, wantEntrypoint)
	}
	if sc := deploy.Spec.Template.Spec.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Error("the Deployment does not ask for runAsNonRoot, which the image's numeric non-root user satisfies")
	}
}

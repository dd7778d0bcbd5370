package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

// TestPreviewVerifyRefusesAnIDMSThatWouldBreakTheReleasePayload: an ImageDigestMirrorSet with NeverContactSource
// whose mirror lacks one image of the release payload (assembled on a registry on loopback). preview --verify,
// before it is applied, renders the configuration it would give, asks the mirror for every image of the payload, and
// exits 1 naming the image. Once the process has exited, the cluster holds no such object and the same
// MachineConfigs (a write by the process would have completed before it exited).
func TestPreviewVerifyRefusesAnIDMSThatWouldBreakTheReleasePayload(t *testing.T) {
	cp.Reset(t)
	apply(t, fixtures.Image())
	m := framework.StartReleaseMirror(t, []string{"cli", "installer", "machine-config-operator"}, "machine-config-operator")
	missing := m.Images["machine-config-operator"]
	file := filepath.Join(t.TempDir(), "release-mirror.yaml")
	if err := os.WriteFile(file, []byte(m.MirrorSet("release-mirror")), 0o600); err != nil {
		t.Fatal(err)
	}
	before := cp.RunKubectl(t, "get", "machineconfigs", "-o", "name")

	stdout, stderr, code := runBinary(t, "preview", "--kubeconfig", cp.KubeconfigPath, "-f", file,
		"--verify", "--release-image", m.Release, "--certs-dir", m.CertsDir)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, want := range []string{
		"  ImageDigestMirrorSet \"release-mirror\" added, from " + file,
		"\n== verify: the pulls under pool worker's configuration with these changes\nFAILS: " + missing + ` (release image-references "machine-config-operator")` + "\n",
		"  1. mirror " + strings.Replace(missing, m.Source, m.Mirror.Host, 1) + ": not found (HTTP 404)\n",
		"summary: 4 images: 3 served, 0 served only by the source, 1 fail\n",
		"NeverContactSource entries whose mirrors lack an image (an outage waiting for its trigger):\n  " + m.Source + "/ocp/art (",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	if got := cp.RunKubectl(t, "get", "imagedigestmirrorsets", "-o", "name"); strings.Contains(got, "release-mirror") {
		t.Errorf("the cluster holds the ImageDigestMirrorSet after preview: %s", got)
	}
	if after := cp.RunKubectl(t, "get", "machineconfigs", "-o", "name"); after != before {
		t.Errorf("MachineConfigs changed: before\n%s\nafter\n%s", before, after)
	}
}

package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/openshift/registries-controller/test/framework"
	"github.com/openshift/registries-controller/test/readme"
)

// TestTheREADMEsLiveExamples runs every live example of README.md (`<!-- checked: live -->`) and every example with
// a release payload on a mirror (`<!-- checked: registry -->`, releaseMirrorForREADME); the offline ones run in
// cmd/registries-controller's tests, without a control plane. They run in order, in one directory holding a copy of
// examples/, with the built binary and the bundled kubectl on PATH, the live ones against this package's control
// plane with the controller and the simulated MCO running and examples/ applied (what `make run` gives). Each command's stdout must
// have the shape the README shows, so the README cannot silently rot. `README_PRINT=1` prints what each command
// printed, to update the README from.
func TestTheREADMEsLiveExamples(t *testing.T) {
	root, err := framework.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := readme.ReadExamples(root)
	if err != nil {
		t.Fatal(err)
	}
	var live []readme.Block
	mirrored := false
	for _, b := range blocks {
		if b.Live || b.Registry {
			live = append(live, b)
		}
		mirrored = mirrored || b.Registry
	}
	if len(live) == 0 {
		t.Fatal("README.md has no live example (<!-- checked: live -->): start, preview and explain read a cluster")
	}
	dir := t.TempDir()
	if out, err := exec.Command("cp", "-r", filepath.Join(root, "examples"), dir).CombinedOutput(); err != nil {
		t.Fatalf("copying examples/: %v: %s", err, out)
	}
	bin := t.TempDir()
	for name, target := range map[string]string{"registries-controller": controllerBinary(t), "kubectl": filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "kubectl")} {
		if err := os.Symlink(target, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	cp.Reset(t)
	cp.RunKubectl(t, "apply", "-f", filepath.Join(root, "examples"))
	startSim(t)
	startInProcess(t, cp.RESTConfig, fastSettle, 0)
	env := append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "KUBECONFIG="+cp.KubeconfigPath)
	if mirrored {
		env = append(env, releaseMirrorForREADME(t, dir)...)
	}
	// A cluster converges: a live command runs again for up to 20 s until it prints what the README shows.
	readme.RunExamples(t, dir, env, live, 20*time.Second)
}

// releaseMirrorForREADME starts the mirror the README's verify example asks: a release payload of three images
// (framework.StartReleaseMirror) whose mirror lacks "machine-config-operator", the ImageDigestMirrorSet
// "release-mirror" in dir/mirrored/, and the mirror's CA in dir/certs.d/. It returns RELEASE_IMAGE=<the release
// image at the source>, for the example's environment.
func releaseMirrorForREADME(t *testing.T, dir string) []string {
	t.Helper()
	m := framework.StartReleaseMirror(t, []string{"cli", "installer", "machine-config-operator"}, "machine-config-operator")
	if err := os.MkdirAll(filepath.Join(dir, "mirrored"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mirrored", "release-mirror.yaml"), []byte(m.MirrorSet("release-mirror")), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-r", m.CertsDir, filepath.Join(dir, "certs.d")).CombinedOutput(); err != nil {
		t.Fatalf("copying the mirror's certs.d: %v: %s", err, out)
	}
	return []string{"RELEASE_IMAGE=" + m.Release}
}

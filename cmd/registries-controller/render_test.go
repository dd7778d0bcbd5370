package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshift/registries-controller/pkg/registriesconf"
)

func TestRenderWritesOneMachineConfigPerPoolAndTheNodeTree(t *testing.T) {
	dir := t.TempDir()
	out, root := filepath.Join(dir, "out"), filepath.Join(dir, "root")
	stdout, stderr, code := runCLI(t, "render", "--manifests", "../../examples", "--output", out, "--node-root", root,
		"--release-image", "quay.io/openshift-release-dev/ocp-release@sha256:8f3b4c29e2d1b0a7c6f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a098")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, pool := range []string{"master", "worker"} {
		mc, err := os.ReadFile(filepath.Join(out, "99-"+pool+"-generated-registries.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(mc), "kind: MachineConfig") || strings.Contains(string(mc), "creationTimestamp") {
			t.Errorf("%s MachineConfig:\n%s", pool, mc)
		}
		etc := filepath.Join(root, pool, "etc", "containers")
		cfg, err := registriesconf.LoadFile(filepath.Join(etc, "registries.conf"), filepath.Join(etc, "registries.conf.d"))
		if err != nil {
			t.Fatal(err)
		}
		search, err := cfg.UnqualifiedSearchRegistries()
		cfg.Close()
		if err != nil || len(search) != 1 || search[0] != "quay.io" {
			t.Errorf("%s: the search drop-in does not load as [quay.io]: %v %v", pool, search, err)
		}
		for _, f := range []string{"policy.json", "registries.d/sigstore-registries.yaml"} {
			if _, err := os.Stat(filepath.Join(etc, f)); err != nil {
				t.Errorf("%s: %v", pool, err)
			}
		}
	}
	if !strings.Contains(stdout, "read 1 ClusterImagePolicy, 1 Image, 1 ImageContentSourcePolicy, 1 ImageDigestMirrorSet, 1 ImageTagMirrorSet") {
		t.Errorf("stdout:\n%s", stdout)
	}
}

func TestRenderWithInvalidInputPrintsEveryProblemAndWritesNothing(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "in", "bad.yaml"), `apiVersion: operator.openshift.io/v1alpha1
kind: ImageContentSourcePolicy
metadata: {name: bad}
spec:
  repositoryDigestMirrors:
  - source: quay.io/a/
    mirrors: [https://m.local/a]
`)
	out := filepath.Join(dir, "out")
	_, stderr, code := runCLI(t, "render", "--manifests", filepath.Join(dir, "in"), "--output", out, "--node-root", filepath.Join(dir, "root"))
	if code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	for _, want := range []string{"2 problems", `spec.repositoryDigestMirrors[0].source: "quay.io/a/"`, `spec.repositoryDigestMirrors[0].mirrors[0]: "https://m.local/a"`, "nothing written"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	for _, d := range []string{out, filepath.Join(dir, "root")} {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s was written", d)
		}
	}
}

func TestRenderOfAnUnreadableDirectoryNamesIt(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nowhere")
	_, stderr, code := runCLI(t, "render", "--manifests", missing, "--output", t.TempDir())
	if code == 0 || !strings.Contains(stderr, missing) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	_, stderr, code = runCLI(t, "render", "--output", t.TempDir())
	if code == 0 || !strings.Contains(stderr, "manifests") {
		t.Errorf("a missing flag: exit %d, stderr %q", code, stderr)
	}
}

func TestRenderGroupsRepeatedWarningsAndVerboseListsThemAll(t *testing.T) {
	dir := t.TempDir()
	var blocked strings.Builder
	for i := range 100 {
		fmt.Fprintf(&blocked, "    - blocked-%03d.example.com\n", i)
	}
	writeFile(t, filepath.Join(dir, "in", "image.yaml"), `apiVersion: config.openshift.io/v1
kind: Image
metadata: {name: cluster}
spec:
  registrySources:
    blockedRegistries:
`+blocked.String())
	_, stderr, code := runCLI(t, "render", "--manifests", filepath.Join(dir, "in"), "--output", filepath.Join(dir, "out"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 7 || !strings.HasPrefix(lines[0], "warning: not applied: the release payload is unknown") ||
		!strings.HasSuffix(lines[0], "(100 times):") || lines[6] != "  and 95 more (--verbose lists them all)" ||
		lines[1] != `  Image "cluster": spec.registrySources.blockedRegistries[0]: "blocked-000.example.com"` {
		t.Errorf("grouped warnings:\n%s", stderr)
	}
	_, stderr, code = runCLI(t, "render", "--manifests", filepath.Join(dir, "in"), "--output", filepath.Join(dir, "out"), "--verbose")
	if code != 0 || strings.Count(stderr, "\n") != 101 || !strings.Contains(stderr, `blockedRegistries[99]: "blocked-099.example.com"`) {
		t.Errorf("--verbose: exit %d, %d lines:\n%s", code, strings.Count(stderr, "\n"), stderr)
	}
}

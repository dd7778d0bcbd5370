package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/openshift/registries-controller/pkg/registriesconf"
)

// runRender runs render of manifests (a directory) with --output DIR/out and --node-root DIR/root, DIR a new
// temporary directory, and args added, and fails the test unless it succeeds. It returns the two directories and
// what render printed on stdout.
func runRender(t *testing.T, manifests string, args ...string) (out, root, stdout string) {
	t.Helper()
	dir := t.TempDir()
	out, root = filepath.Join(dir, "out"), filepath.Join(dir, "root")
	stdout, stderr, code := runCLI(t, append([]string{"render", "--manifests", manifests, "--output", out, "--node-root", root}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	return out, root, stdout
}

// renderRefuses runs render with args and checks that it refuses the input: exit status 1, each of wants on stderr,
// and none of notWritten (the directories args names for its output) created.
func renderRefuses(t *testing.T, args, wants []string, notWritten ...string) {
	t.Helper()
	_, stderr, code := runCLI(t, append([]string{"render"}, args...)...)
	if code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	for _, want := range wants {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	for _, d := range notWritten {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s was written", d)
		}
	}
}

func TestRenderWritesOneMachineConfigPerPoolAndTheNodeTree(t *testing.T) {
	out, root, stdout := runRender(t, "../../examples",
		"--release-image", "quay.io/openshift-release-dev/ocp-release@sha256:8f3b4c29e2d1b0a7c6f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a098")
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
	if !strings.Contains(stdout, "read 1 CRIOCredentialProviderConfig, 1 ClusterImagePolicy, 1 Image, 1 ImageContentSourcePolicy, 1 ImageDigestMirrorSet, 1 ImageTagMirrorSet") {
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
	out, root := filepath.Join(dir, "out"), filepath.Join(dir, "root")
	renderRefuses(t, []string{"--manifests", filepath.Join(dir, "in"), "--output", out, "--node-root", root},
		[]string{"2 problems", `spec.repositoryDigestMirrors[0].source: "quay.io/a/"`, `spec.repositoryDigestMirrors[0].mirrors[0]: "https://m.local/a"`, "nothing written"},
		out, root)
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

// TestRenderWritesTheCredentialProvidersOfThePlatform is the offline contract of the CRIOCredentialProviderConfig
// (docs/semantics.md §10): the Infrastructure's platform picks the provider file, without one the generic file and
// the kubelet drop-in are written, and the 97 MachineConfigs beside the 99 ones.
func TestRenderWritesTheCredentialProvidersOfThePlatform(t *testing.T) {
	for _, tc := range []struct {
		name, infrastructure string
		files                []string
	}{
		{"without an Infrastructure, the generic file and the drop-in", "", []string{
			"etc/kubernetes/credential-providers/generic-credential-provider.yaml",
			"etc/systemd/system/kubelet.service.d/40-kubelet-crio-image-credential-provider.conf"}},
		{"on AWS, the ECR provider's file", "apiVersion: config.openshift.io/v1\nkind: Infrastructure\nmetadata: {name: cluster}\nstatus: {platformStatus: {type: AWS}}\n",
			[]string{"etc/kubernetes/credential-providers/ecr-credential-provider.yaml"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "in", "creds.yaml"), "apiVersion: config.openshift.io/v1\nkind: CRIOCredentialProviderConfig\nmetadata: {name: cluster}\nspec: {matchImages: [registry.example.com]}\n")
			if tc.infrastructure != "" {
				writeFile(t, filepath.Join(dir, "in", "infra.yaml"), tc.infrastructure)
			}
			out, root, stdout := runRender(t, filepath.Join(dir, "in"))
			for _, pool := range []string{"master", "worker"} {
				for _, name := range []string{"97-" + pool + "-generated-credentialproviderconfig.yaml", "99-" + pool + "-generated-registries.yaml"} {
					if _, err := os.Stat(filepath.Join(out, name)); err != nil {
						t.Error(err)
					}
				}
				var got []string
				if err := filepath.WalkDir(filepath.Join(root, pool), func(p string, d os.DirEntry, err error) error {
					if err == nil && !d.IsDir() {
						rel, _ := filepath.Rel(filepath.Join(root, pool), p)
						got = append(got, filepath.ToSlash(rel))
					}
					return err
				}); err != nil {
					t.Fatal(err)
				}
				if strings.Join(got, " ") != strings.Join(tc.files, " ") {
					t.Errorf("%s: node files %q, want %q", pool, got, tc.files)
				}
			}
			if !strings.Contains(stdout, "wrote "+filepath.Join(out, "97-worker-generated-credentialproviderconfig.yaml")+"\n  /etc/kubernetes/credential-providers/") {
				t.Errorf("stdout:\n%s", stdout)
			}
		})
	}
}

func TestRenderRefusesWhatTheAPIServerWouldRefuseAndWritesNothing(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "in", "creds.yaml"), `apiVersion: config.openshift.io/v1
kind: CRIOCredentialProviderConfig
metadata: {name: cluster}
spec: {matchImages: [Registry.COM, "*", quay.io]}
---
apiVersion: config.openshift.io/v1
kind: CRIOCredentialProviderConfig
metadata: {name: default}
spec: {matchImages: [quay.io]}
`)
	out := filepath.Join(dir, "out")
	renderRefuses(t, []string{"--manifests", filepath.Join(dir, "in"), "--output", out}, []string{
		`CRIOCredentialProviderConfig "cluster": spec.matchImages[0]: Invalid value: "Registry.COM": invalid matchImages value, must be a valid fully qualified domain name in lowercase with optional wildcard, port, and path; write it as "registry.com" (in `,
		`CRIOCredentialProviderConfig "cluster": spec.matchImages[1]: Invalid value: "*": global wildcard '*' is not allowed; name the registries`,
		`CRIOCredentialProviderConfig "default": Invalid value: criocredentialproviderconfig is a singleton, .metadata.name must be 'cluster'; name the object "cluster"`,
		"creds.yaml (document 2))",
		"nothing written",
	}, out)
}

func TestRenderBudgetsThePoolsRenderedMachineConfig(t *testing.T) {
	dir := t.TempDir()
	writeTeamIDMS(t, filepath.Join(dir, "in", "idms.yaml"), 2600)

	// 2,600 sources: a MachineConfig of about 1.07 MB, which fits etcd, and the rendered one with the largest
	// default base is over 80%.
	_, stderr, code := runCLI(t, "render", "--manifests", filepath.Join(dir, "in"), "--output", filepath.Join(dir, "out"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "warning: the rendered MachineConfig of pool master is ") || strings.Contains(stderr, "etcd accepts") {
		t.Errorf("stderr lacks the rendered budget's warning, or warns of etcd's:\n%s", stderr)
	}

	// The same input on a cluster whose pools already carry 600,000 bytes: refused, nothing written.
	out := filepath.Join(dir, "out-large")
	renderRefuses(t, []string{"--manifests", filepath.Join(dir, "in"), "--output", out, "--rendered-base-bytes", "600000"},
		[]string{`Image "cluster": spec: "master, worker": with this configuration the rendered MachineConfig of pools master, worker is over the 1,572,864 bytes`,
			`ImageDigestMirrorSet "team": spec: "master, worker": contributes about `, "nothing written"},
		out)
}

func TestRenderBudgetsACustomPoolAsMCOMergesIt(t *testing.T) {
	dir := t.TempDir()
	writeTeamIDMS(t, filepath.Join(dir, "in", "idms.yaml"), 2300)
	pools, err := os.ReadFile("../../examples/containerruntime/pools.yaml") // master, worker and infra (role in (worker, infra))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "in", "pools.yaml"), string(pools))
	// An installer's MachineConfig of the custom pool: 400,000 bytes of a file only infra's nodes get.
	writeFile(t, filepath.Join(dir, "in", "infra-mc.yaml"), "apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\n"+
		"metadata:\n  name: 50-infra-tuning\n  labels: {machineconfiguration.openshift.io/role: infra}\n"+
		`spec: {config: {ignition: {version: 3.5.0}, storage: {files: [{path: /etc/tuning, mode: 420, contents: {source: "data:,`+
		strings.Repeat("x", 400000)+`"}}]}}}`+"\n")

	// The worker's registries.conf on the default base fits the worker (about 1.19 MB, under 80%); infra merges it too, plus its
	// own 400,000 bytes: refused, nothing written.
	out := filepath.Join(dir, "out")
	_, stderr, code := runCLI(t, "render", "--manifests", filepath.Join(dir, "in"), "--output", out)
	if code != 1 {
		t.Fatalf("exit status %d, want 1:\n%s", code, stderr)
	}
	for _, want := range []string{`Image "cluster": spec: "infra": with this configuration the rendered MachineConfig of pool infra is over the 1,572,864 bytes`,
		"its largest other MachineConfigs: 50-infra-tuning (", "nothing written"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s was written", out)
	}

	// Without the custom pool's MachineConfig, infra is the worker's rendered MachineConfig: written, and no pool warned of.
	if err := os.Remove(filepath.Join(dir, "in", "infra-mc.yaml")); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = runCLI(t, "render", "--manifests", filepath.Join(dir, "in"), "--output", out)
	if code != 0 || strings.Contains(stderr, "rendered MachineConfig of pool") {
		t.Errorf("exit status %d, want 0 and no rendered-budget warning:\n%s", code, stderr)
	}
}

// marshalYAML must write what sigs.k8s.io/yaml.Marshal writes: objects with integers (its fast path), with other
// numbers (sigs.k8s.io/yaml's path), and the strings YAML must quote.
func TestMarshalYAMLIsSigsYAML(t *testing.T) {
	objs := []any{
		map[string]any{"b": 1, "a": []any{"x", "null", "1", "true", "a: b", "#c", "", " lead", "é\u2028<>&", "data:text/plain;charset=utf-8;base64,QUJD"},
			"c": map[string]any{"mode": 420, "overwrite": true, "none": nil, "neg": -7, "big": int64(1) << 40}, "10": "ten", "9": "nine"},
		map[string]any{"f": 1.5, "e": 1e21, "i": 3},
		[]any{map[string]any{}, []any{}, "x\ny", strings.Repeat("QUJD", 100000)},
		// Data URLs long enough for the placeholder: base64, percent-encoded, and ones the emitter must quote or
		// fold (a space, a '#', a non-ASCII character, a quote), which keep the emitter's own path.
		map[string]any{"spec": map[string]any{"config": map[string]any{"storage": map[string]any{"files": []any{
			map[string]any{"contents": map[string]any{"source": "data:text/plain;charset=utf-8;base64," + strings.Repeat("QUJD+/9=", 2000)}, "mode": 420},
			map[string]any{"contents": map[string]any{"source": "data:," + strings.Repeat("%5Bregistry%5D%0Alocation%20%3D%20%22a.b%3A5000%2Fc_d-e.f~%22%0A", 200)}},
			map[string]any{"contents": map[string]any{"source": "data:," + strings.Repeat("a b ", 2000)}},
			map[string]any{"contents": map[string]any{"source": "data:," + strings.Repeat("a#b", 2000)}},
			map[string]any{"contents": map[string]any{"source": "data:," + strings.Repeat("é'\"", 2000)}},
			map[string]any{"contents": map[string]any{"source": "data:," + strings.Repeat("x", 5000)}},
		}}}}},
		map[string]any{"a": "registriescontrollerlongscalar0z", "b": "data:," + strings.Repeat("y", 5000)},
	}
	for i, obj := range objs {
		want, err := yaml.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		got, err := marshalYAML(obj)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("object %d: marshalYAML wrote\n%.2000s\nsigs.k8s.io/yaml\n%.2000s", i, got, want)
		}
	}
}

// writeTeamIDMS writes an ImageDigestMirrorSet "team" of n distinct sources with two mirrors each to path.
func writeTeamIDMS(t *testing.T, path string, n int) {
	t.Helper()
	var b strings.Builder
	b.WriteString("apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {name: team}\nspec:\n  imageDigestMirrors:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - source: registry.example.com/team/app-%05d\n    mirrors: [mirror-one.example.net/team/app-%05d, mirror-two.example.net/team/app-%05d]\n", i, i, i)
	}
	writeFile(t, path, b.String())
}

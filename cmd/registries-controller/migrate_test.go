package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift/registries-controller/pkg/inputfiles"
	"github.com/openshift/registries-controller/pkg/migrate"
)

// renderedConfigs renders the manifests of dirs (copied into one directory) with the real render command and
// returns the MachineConfig files it writes, by name.
func renderedConfigs(t *testing.T, dirs ...string) map[string]string {
	t.Helper()
	in := t.TempDir()
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(in, filepath.Base(dir)+"-"+e.Name()), string(data))
		}
	}
	out := t.TempDir()
	if _, stderr, code := runCLI(t, "render", "--manifests", in, "--output", out, "--release-image", releaseImage); code != 0 {
		t.Fatalf("render: exit %d: %s", code, stderr)
	}
	files := map[string]string{}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(out, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(data)
	}
	return files
}

const releaseImage = "quay.io/openshift-release-dev/ocp-release@sha256:8f3b4c29e2d1b0a7c6f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a098"

// sameConfigs fails unless the written ImageDigestMirrorSets, in place of the ImageContentSourcePolicies of
// icsps, render byte for byte what the inputs render as they are: a check of the files written, independent of
// the proof.
func sameConfigs(t *testing.T, icsps, others, written string) {
	t.Helper()
	before, after := renderedConfigs(t, icsps, others), renderedConfigs(t, others, written)
	if len(before) == 0 || len(before) != len(after) {
		t.Fatalf("rendered %d MachineConfigs before, %d after", len(before), len(after))
	}
	for name, data := range before {
		if after[name] != data {
			t.Errorf("%s differs once migrated", name)
		}
	}
}

func TestMigrateICSPOfTheExamplesWritesAnIDMSThatRendersTheSame(t *testing.T) {
	dir := t.TempDir()
	icsps, others, out := filepath.Join(dir, "icsps"), filepath.Join(dir, "others"), filepath.Join(dir, "out", "new")
	for _, name := range []string{"icsp-legacy.yaml", "idms-release.yaml", "image-cluster.yaml", "itms-tools.yaml"} {
		data, err := os.ReadFile(filepath.Join("../../examples", name))
		if err != nil {
			t.Fatal(err)
		}
		to := others
		if strings.HasPrefix(name, "icsp-") {
			to = icsps
		}
		writeFile(t, filepath.Join(to, name), string(data))
	}
	stdout, stderr, code := runCLI(t, "migrate-icsp", "-f", "../../examples", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d:\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		`ImageContentSourcePolicy "legacy-ubi" -> ImageDigestMirrorSet "legacy-ubi" (1 entry, AllowContactingSource)`,
		"proven neutral, no node rolls: for pools master, worker, the controller's comparison finds nothing",
		"wrote " + filepath.Join(out, "legacy-ubi.yaml"),
		"  kubectl apply -f " + out,
		"  kubectl delete imagecontentsourcepolicy legacy-ubi",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	objs, err := inputfiles.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs.ImageDigestMirrorSets) != 1 || len(objs.Objects) != 1 {
		t.Fatalf("wrote %s", objs.Summary())
	}
	e := objs.ImageDigestMirrorSets[0].Spec.ImageDigestMirrors
	if len(e) != 1 || e[0].Source != "registry.redhat.io/ubi9" || e[0].MirrorSourcePolicy != configv1.AllowContactingSource ||
		len(e[0].Mirrors) != 1 || e[0].Mirrors[0] != "mirror.example.com/ubi9" {
		t.Errorf("entries %+v", e)
	}
	sameConfigs(t, icsps, others, out)
}

// generatedSet writes hundreds of ImageContentSourcePolicy entries that overlap each other and the other objects:
// shared sources (also in ImageDigestMirrorSets), repeated mirrors, orders that conflict into cycles, the source
// amid its mirrors, nested sources under blocked and insecure scopes, entries without mirrors. It also writes an
// ImageDigestMirrorSet "shared" unrelated to the ImageContentSourcePolicy "shared", and one "done" that is the
// migration of the ImageContentSourcePolicy "done".
func generatedSet(t *testing.T, icsps, others string) (entries int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	source := func() string {
		if rng.IntN(4) == 0 {
			return fmt.Sprintf("quay.io/org%d", rng.IntN(8))
		}
		return fmt.Sprintf("quay.io/org%d/app%d", rng.IntN(8), rng.IntN(30))
	}
	mirror := func() string { return fmt.Sprintf("mirror%d.local/ns%d", rng.IntN(6), rng.IntN(5)) }
	var all strings.Builder
	var done []string
	for i := range 60 {
		name := fmt.Sprintf("team-%02d", i)
		switch i {
		case 0:
			name = "shared"
		case 1:
			name = "done"
		}
		fmt.Fprintf(&all, "---\napiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata: {name: %s}\nspec:\n  repositoryDigestMirrors:\n", name)
		n := 5 + rng.IntN(6)
		if name == "done" {
			n = 2
		}
		for range n {
			entries++
			src := source()
			var ms []string
			switch k := rng.IntN(10); {
			case k == 0: // without mirrors: ignored
			case k == 1: // a repeated mirror
				m := mirror()
				ms = []string{m, mirror(), m}
			case k == 2: // the source amid its mirrors
				ms = []string{mirror(), src, mirror()}
			default:
				for range 1 + rng.IntN(4) {
					ms = append(ms, mirror())
				}
			}
			if name == "done" {
				src, ms = fmt.Sprintf("quay.io/done/app%d", entries), []string{"mirror0.local/done", "mirror0.local/done"}
				done = append(done, src)
			}
			fmt.Fprintf(&all, "  - source: %s\n    mirrors: [%s]\n", src, strings.Join(ms, ", "))
		}
	}
	writeFile(t, filepath.Join(icsps, "icsps.yaml"), all.String())

	var idms strings.Builder
	idms.WriteString("apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {name: shared}\nspec:\n  imageDigestMirrors:\n")
	for i := range 20 {
		fmt.Fprintf(&idms, "  - source: quay.io/org%d/app%d\n    mirrors: [%s, %s]\n", i%8, i, mirror(), mirror())
	}
	idms.WriteString("---\napiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {name: done}\nspec:\n  imageDigestMirrors:\n")
	for _, src := range done {
		fmt.Fprintf(&idms, "  - source: %s\n    mirrors: [mirror0.local/done]\n    mirrorSourcePolicy: AllowContactingSource\n", src)
	}
	writeFile(t, filepath.Join(others, "idms.yaml"), idms.String())
	writeFile(t, filepath.Join(others, "image.yaml"), `apiVersion: config.openshift.io/v1
kind: Image
metadata: {name: cluster}
spec:
  registrySources:
    insecureRegistries: [mirror3.local, quay.io/org2/app7]
    blockedRegistries: [quay.io/org1/app3/sub, quay.io/org4/app9]
`)
	writeFile(t, filepath.Join(others, "clusterversion.yaml"), `apiVersion: config.openshift.io/v1
kind: ClusterVersion
metadata: {name: version}
status:
  desired: {image: "`+releaseImage+`"}
`)
	return entries
}

func TestMigrateICSPOfHundredsOfOverlappingEntriesIsNeutral(t *testing.T) {
	dir := t.TempDir()
	icsps, others, out := filepath.Join(dir, "icsps"), filepath.Join(dir, "others"), filepath.Join(dir, "out")
	entries := generatedSet(t, icsps, others)
	all := filepath.Join(dir, "all")
	for _, d := range []string{icsps, others} {
		files, _ := os.ReadDir(d)
		for _, f := range files {
			data, _ := os.ReadFile(filepath.Join(d, f.Name()))
			writeFile(t, filepath.Join(all, f.Name()), string(data))
		}
	}
	stdout, stderr, code := runCLI(t, "migrate-icsp", "-f", all, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d:\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		`ImageContentSourcePolicy "shared" -> ImageDigestMirrorSet "shared-icsp"`,
		`ImageDigestMirrorSet "shared" exists with other entries and was not migrated from it`,
		`ImageContentSourcePolicy "done": already migrated (ImageDigestMirrorSet "done" exists with the same entries)`,
		"proven neutral",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	written, err := inputfiles.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(written.ImageDigestMirrorSets) != 59 || len(written.Objects) != 59 {
		t.Errorf("wrote %s, want 59 ImageDigestMirrorSets (60 policies, one already migrated)", written.Summary())
	}
	for _, idms := range written.ImageDigestMirrorSets {
		for i, e := range idms.Spec.ImageDigestMirrors {
			seen := map[configv1.ImageMirror]bool{}
			for _, m := range e.Mirrors {
				if seen[m] {
					t.Errorf("%s entry %d repeats mirror %s: the API server refuses it (a set)", idms.Name, i, m)
				}
				seen[m] = true
			}
		}
	}
	sameConfigs(t, icsps, others, out)
	t.Logf("%d entries in 60 ImageContentSourcePolicies migrated", entries)
}

func TestMigrateICSPThatWouldChangeNodesPrintsWhatDiffersAndWritesNothing(t *testing.T) {
	// An earlier migration wrote ImageDigestMirrorSet "team"; the policy lost a mirror since. Replacing the
	// stale ImageDigestMirrorSet would drop that mirror from every node.
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "in", "objects.yaml"), `apiVersion: operator.openshift.io/v1alpha1
kind: ImageContentSourcePolicy
metadata: {name: team}
spec:
  repositoryDigestMirrors:
  - source: quay.io/team
    mirrors: [m1.local/team]
---
apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
  name: team
  annotations: {`+migrate.MigratedFromAnnotation+`: team}
spec:
  imageDigestMirrors:
  - source: quay.io/team
    mirrors: [m1.local/team, m2.local/team]
    mirrorSourcePolicy: AllowContactingSource
`)
	out := filepath.Join(dir, "out")
	stdout, stderr, code := runCLI(t, "migrate-icsp", "-f", filepath.Join(dir, "in"), "-o", out)
	if code != exitNo {
		t.Fatalf("exit %d, want 3:\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		`ImageContentSourcePolicy "team" -> ImageDigestMirrorSet "team" (1 entry, AllowContactingSource): replaces ImageDigestMirrorSet "team", written by an earlier migration`,
		"NOT neutral: nodes would roll; nothing written",
		"with the ImageDigestMirrorSets added, MachineConfig 99-worker-generated-registries: file /etc/containers/registries.conf: contents differ",
		`  /etc/containers/registries.conf: - location = "m2.local/team"`,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s was created", out)
	}
}

func TestMigrateICSPWithoutOutputPrintsTheManifests(t *testing.T) {
	stdout, stderr, code := runCLI(t, "migrate-icsp", "-f", "../../examples")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	objs, err := inputfiles.Decode("stdout", []byte(stdout))
	if err != nil || len(objs.ImageDigestMirrorSets) != 1 || objs.ImageDigestMirrorSets[0].Name != "legacy-ubi" {
		t.Errorf("stdout is not the manifest: %v\n%s", err, stdout)
	}
	if !strings.Contains(stderr, "proven neutral") || !strings.Contains(stderr, "kubectl apply -f -") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

func TestMigrateICSPOfInvalidOrEmptyInputs(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "bad", "icsp.yaml"), `apiVersion: operator.openshift.io/v1alpha1
kind: ImageContentSourcePolicy
metadata: {name: bad}
spec:
  repositoryDigestMirrors:
  - source: quay.io/bad
    mirrors: [https://m.local/bad]
`)
	_, stderr, code := runCLI(t, "migrate-icsp", "-f", filepath.Join(dir, "bad"), "-o", filepath.Join(dir, "out"))
	if code != exitInvalid || !strings.Contains(stderr, "must not carry a scheme") || !strings.Contains(stderr, "nothing written") {
		t.Errorf("invalid inputs: exit %d:\n%s", code, stderr)
	}
	writeFile(t, filepath.Join(dir, "none", "idms.yaml"), teamIDMS)
	stdout, _, code := runCLI(t, "migrate-icsp", "-f", filepath.Join(dir, "none"), "-o", filepath.Join(dir, "out"))
	if code != 0 || !strings.Contains(stdout, "nothing to migrate") {
		t.Errorf("no policy: exit %d:\n%s", code, stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
		t.Errorf("out was created")
	}
	_, stderr, code = runCLI(t, "migrate-icsp")
	if code != 2 || !bytes.Contains([]byte(stderr), []byte("filename")) {
		t.Errorf("no input: exit %d: %s", code, stderr)
	}
}

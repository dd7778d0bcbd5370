// Package image proves the container image `make image` builds: pushed to a real registry on loopback
// (framework.StartRegistry), its manifest, config and layer are read back over the registry API with plain HTTP
// requests and checked against hand-written expectations, the binary taken from the layer runs, and the
// Dockerfile, the Deployment and manifests/image-references agree with it.
package image

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/containers/image/v5/copy"
	"github.com/containers/image/v5/docker"
	"github.com/containers/image/v5/oci/layout"
	"github.com/containers/image/v5/signature"
	"github.com/containers/image/v5/types"
	"github.com/opencontainers/go-digest"
	imgspecv1 "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/openshift/registries-controller/test/framework"
)

// What the image must be, written by hand: the Dockerfile and the Deployment say the same.
const (
	wantEntrypoint = "/usr/bin/registries-controller"
	wantUser       = "1001"
	// releaseOperatorLabel=true makes the CVO apply the image's /manifests.
	releaseOperatorLabel = "io.openshift.release.operator"
	// versionLabel holds the version the binary reports with --version.
	versionLabel = "org.opencontainers.image.version"
	// layoutTag names the image in the OCI layout make image writes.
	layoutTag = "latest"
	// pushedRepo is where the test pushes it.
	pushedRepo = "openshift/registries-controller"
	pushedTag  = "e2e"
)

// TestTheImagePushedToARegistryHoldsTheBinaryAndManifests pushes the image to a registry and reads it back: an
// OCI manifest with one gzip layer; a config with the entrypoint, a non-root user, the labels of the Dockerfile
// and the version; a layer holding exactly the static binary at /usr/bin/registries-controller, every file of
// manifests/ under /manifests, and /tmp; and a binary that runs and reports the labelled version.
func TestTheImagePushedToARegistryHoldsTheBinaryAndManifests(t *testing.T) {
	dir := imageLayout(t)
	reg := framework.StartRegistry(t, framework.RegistryOptions{})
	layoutDigest := pushLayout(t, dir, reg.Host+"/"+pushedRepo+":"+pushedTag)
	api := &registryAPI{t: t, base: reg.URL() + "/v2/" + pushedRepo}

	manifestBytes := api.manifest(pushedTag, layoutDigest)
	var manifest imgspecv1.Manifest
	mustUnmarshal(t, manifestBytes, &manifest)
	if manifest.SchemaVersion != 2 || manifest.MediaType != imgspecv1.MediaTypeImageManifest {
		t.Errorf("manifest: schemaVersion %d, mediaType %q, want 2 and %q", manifest.SchemaVersion, manifest.MediaType, imgspecv1.MediaTypeImageManifest)
	}
	if manifest.Config.MediaType != imgspecv1.MediaTypeImageConfig {
		t.Errorf("config media type %q, want %q", manifest.Config.MediaType, imgspecv1.MediaTypeImageConfig)
	}
	if len(manifest.Layers) != 1 || manifest.Layers[0].MediaType != imgspecv1.MediaTypeImageLayerGzip {
		t.Fatalf("layers %+v, want one %s", manifest.Layers, imgspecv1.MediaTypeImageLayerGzip)
	}

	var config imgspecv1.Image
	mustUnmarshal(t, api.blob(manifest.Config), &config)
	checkConfig(t, &config)

	layer := readLayer(t, api.blob(manifest.Layers[0]))
	if len(config.RootFS.DiffIDs) != 1 || config.RootFS.DiffIDs[0] != layer.diffID {
		t.Errorf("config rootfs diff_ids %v, the layer's uncompressed digest is %s", config.RootFS.DiffIDs, layer.diffID)
	}
	checkLayerFiles(t, layer)

	binary := filepath.Join(t.TempDir(), "registries-controller")
	if err := os.WriteFile(binary, layer.files[strings.TrimPrefix(wantEntrypoint, "/")].data, 0o755); err != nil {
		t.Fatal(err)
	}
	checkStatic(t, binary)
	out, err := exec.Command(binary, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v: %s", wantEntrypoint, err, out)
	}
	if want := "registries-controller version " + config.Config.Labels[versionLabel] + "\n"; string(out) != want {
		t.Errorf("%s --version printed %q, want %q (the %s label)", wantEntrypoint, out, want, versionLabel)
	}
}

// checkConfig checks the image config against the hand-written expectations and the Dockerfile's labels.
func checkConfig(t *testing.T, config *imgspecv1.Image) {
	t.Helper()
	if config.OS != "linux" || config.Architecture != runtime.GOARCH {
		t.Errorf("platform %s/%s, want linux/%s", config.OS, config.Architecture, runtime.GOARCH)
	}
	if !slices.Equal(config.Config.Entrypoint, []string{wantEntrypoint}) || len(config.Config.Cmd) != 0 {
		t.Errorf("entrypoint %q, cmd %q, want [%q] and none", config.Config.Entrypoint, config.Config.Cmd, wantEntrypoint)
	}
	if config.Config.User != wantUser {
		t.Errorf("user %q, want %q (numeric, not root)", config.Config.User, wantUser)
	}
	labels := config.Config.Labels
	if labels[releaseOperatorLabel] != "true" {
		t.Errorf("label %s=%q, want true", releaseOperatorLabel, labels[releaseOperatorLabel])
	}
	if labels[versionLabel] == "" {
		t.Errorf("no %s label", versionLabel)
	}
	want := readDockerfile(t).labels
	want[versionLabel] = labels[versionLabel]
	if !maps.Equal(labels, want) {
		t.Errorf("labels %q, want the Dockerfile's and the version: %q", labels, want)
	}
}

// checkStatic fails the test when the binary asks for a dynamic loader (a cgo build): the image has no libc.
func checkStatic(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatalf("%s: %v", wantEntrypoint, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s is dynamically linked (it has a PT_INTERP program header); the image has no libc", wantEntrypoint)
		}
	}
}

// pushLayout pushes the image of the OCI layout dir to dest ("host/repo:tag", plain HTTP) with containers/image's
// copy package, and returns the digest of the manifest in the layout, which the push must keep.
func pushLayout(t *testing.T, dir, dest string) digest.Digest {
	t.Helper()
	var index imgspecv1.Index
	mustUnmarshal(t, readFile(t, filepath.Join(dir, "index.json")), &index)
	if len(index.Manifests) != 1 || index.Manifests[0].Annotations[imgspecv1.AnnotationRefName] != layoutTag {
		t.Fatalf("%s/index.json: %+v, want one manifest named %q", dir, index.Manifests, layoutTag)
	}
	src, err := layout.NewReference(dir, layoutTag)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := docker.ParseReference("//" + dest)
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(t.TempDir(), "registries.conf")
	if err := os.WriteFile(conf, nil, 0o600); err != nil { // no mirrors: the machine's configuration plays no part
		t.Fatal(err)
	}
	sys := &types.SystemContext{
		SystemRegistriesConfPath:    conf,
		SystemRegistriesConfDirPath: filepath.Join(t.TempDir(), "none"),
		AuthFilePath:                filepath.Join(t.TempDir(), "auth.json"),
		DockerInsecureSkipTLSVerify: types.OptionalBoolTrue, // the registry serves plain HTTP
	}
	pc, err := signature.NewPolicyContext(&signature.Policy{Default: signature.PolicyRequirements{signature.NewPRInsecureAcceptAnything()}})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Destroy()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	written, err := copy.Image(ctx, pc, dst, src, &copy.Options{DestinationCtx: sys, SourceCtx: sys})
	if err != nil {
		t.Fatalf("pushing %s to %s: %v", dir, dest, err)
	}
	if got := digest.FromBytes(written); got != index.Manifests[0].Digest {
		t.Fatalf("the push wrote manifest %s, the layout holds %s", got, index.Manifests[0].Digest)
	}
	return index.Manifests[0].Digest
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustUnmarshal(t *testing.T, data []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decoding %T: %v: %s", v, err, data)
	}
}

package pulls

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/containers/image/v5/copy"
	"github.com/containers/image/v5/docker"
	"github.com/containers/image/v5/oci/layout"
	"github.com/containers/image/v5/signature"
	"github.com/containers/image/v5/transports"
	"github.com/containers/image/v5/types"
	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	imgspecv1 "github.com/opencontainers/image-spec/specs-go/v1"
)

// testImage is a small image made by the test, held in an OCI layout directory: one layer with a file
// of random bytes, so that every run pushes a new digest.
type testImage struct {
	layoutDir string
	// Digest is the manifest digest, the one digest pulls name.
	Digest digest.Digest
}

const layoutTag = "v1"

func newTestImage(t *testing.T) *testImage {
	t.Helper()
	content := make([]byte, 1024)
	if _, err := rand.Read(content); err != nil {
		t.Fatal(err)
	}
	var tarBuf bytes.Buffer
	tw := tar.NewWriter(&tarBuf)
	if err := tw.WriteHeader(&tar.Header{Name: "data", Mode: 0o644, Size: int64(len(content)), ModTime: time.Unix(0, 0)}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(content); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	var layer bytes.Buffer
	gz := gzip.NewWriter(&layer)
	if _, err := gz.Write(tarBuf.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	config := mustJSON(t, imgspecv1.Image{
		Platform: imgspecv1.Platform{Architecture: "amd64", OS: "linux"},
		RootFS:   imgspecv1.RootFS{Type: "layers", DiffIDs: []digest.Digest{digest.FromBytes(tarBuf.Bytes())}},
	})
	manifest := mustJSON(t, imgspecv1.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: imgspecv1.MediaTypeImageManifest,
		Config:    descriptor(imgspecv1.MediaTypeImageConfig, config),
		Layers:    []imgspecv1.Descriptor{descriptor(imgspecv1.MediaTypeImageLayerGzip, layer.Bytes())},
	})
	dir := t.TempDir()
	for _, blob := range [][]byte{layer.Bytes(), config, manifest} {
		writeTestFile(t, filepath.Join(dir, "blobs", "sha256", digest.FromBytes(blob).Encoded()), blob)
	}
	index := imgspecv1.Index{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: imgspecv1.MediaTypeImageIndex,
		Manifests: []imgspecv1.Descriptor{descriptor(imgspecv1.MediaTypeImageManifest, manifest)},
	}
	index.Manifests[0].Annotations = map[string]string{imgspecv1.AnnotationRefName: layoutTag}
	writeTestFile(t, filepath.Join(dir, "index.json"), mustJSON(t, index))
	writeTestFile(t, filepath.Join(dir, imgspecv1.ImageLayoutFile), mustJSON(t, imgspecv1.ImageLayout{Version: imgspecv1.ImageLayoutVersion}))
	return &testImage{layoutDir: dir, Digest: digest.FromBytes(manifest)}
}

func descriptor(mediaType string, blob []byte) imgspecv1.Descriptor {
	return imgspecv1.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(blob), Size: int64(len(blob))}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// acceptAnything is the signature policy of pushes.
func acceptAnything(t *testing.T) *signature.PolicyContext {
	t.Helper()
	pc, err := signature.NewPolicyContext(&signature.Policy{Default: signature.PolicyRequirements{signature.NewPRInsecureAcceptAnything()}})
	if err != nil {
		t.Fatal(err)
	}
	return pc
}

// push copies the image into a registry with containers/image's copy package, as "repo:tag" (e.g.
// "127.0.0.1:5000/mirror/team/app:v1"). sys must reach the registry (trusted CA, or insecure for HTTP).
func (img *testImage) push(t *testing.T, sys *types.SystemContext, dest string) {
	t.Helper()
	m := copyAccepting(t, img.layoutRef(t), dockerRef(t, "//"+dest), &copy.Options{DestinationCtx: sys})
	if got := digest.FromBytes(m); got != img.Digest {
		t.Fatalf("pushing %s changed the manifest: digest %s, want %s", dest, got, img.Digest)
	}
}

// layoutRef is the image in its OCI layout.
func (img *testImage) layoutRef(t *testing.T) types.ImageReference {
	t.Helper()
	ref, err := layout.NewReference(img.layoutDir, layoutTag)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

// dockerRef parses a docker transport reference ("//host/repo:tag").
func dockerRef(t *testing.T, s string) types.ImageReference {
	t.Helper()
	ref, err := docker.ParseReference(s)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

// copyAccepting copies src to dst with containers/image's copy package under a policy that accepts anything, and
// returns the manifest written.
func copyAccepting(t *testing.T, src, dst types.ImageReference, opts *copy.Options) []byte {
	t.Helper()
	pc := acceptAnything(t)
	defer pc.Destroy()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := copy.Image(ctx, pc, dst, src, opts)
	if err != nil {
		t.Fatalf("copying %s to %s: %v", transports.ImageName(src), transports.ImageName(dst), err)
	}
	return m
}

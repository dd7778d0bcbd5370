package framework

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
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

// LayoutImage is a one-layer image assembled by a test in an OCI layout directory: a file of random bytes (so
// that every image has its own digest) and the files given.
type LayoutImage struct {
	Dir string
	// Digest is the manifest digest, which a push keeps.
	Digest digest.Digest
}

// layoutImageTag is the tag of the image in its layout.
const layoutImageTag = "latest"

// NewLayoutImage assembles an image whose layer holds "data" (random) and files (path -> content).
func NewLayoutImage(t testing.TB, files map[string][]byte) *LayoutImage {
	t.Helper()
	random := make([]byte, 512)
	if _, err := rand.Read(random); err != nil {
		t.Fatal(err)
	}
	all := map[string][]byte{"data": random}
	for name, content := range files {
		all[name] = content
	}
	names := make([]string, 0, len(all))
	for name := range all {
		names = append(names, name)
	}
	sort.Strings(names)
	var tarBuf bytes.Buffer
	tw := tar.NewWriter(&tarBuf)
	for _, name := range names {
		mustPayload(t, tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(all[name])), ModTime: time.Unix(0, 0)}))
		_, err := tw.Write(all[name])
		mustPayload(t, err)
	}
	mustPayload(t, tw.Close())
	var layer bytes.Buffer
	gz := gzip.NewWriter(&layer)
	_, err := gz.Write(tarBuf.Bytes())
	mustPayload(t, err)
	mustPayload(t, gz.Close())
	config := payloadJSON(t, imgspecv1.Image{
		Platform: imgspecv1.Platform{Architecture: "amd64", OS: "linux"},
		RootFS:   imgspecv1.RootFS{Type: "layers", DiffIDs: []digest.Digest{digest.FromBytes(tarBuf.Bytes())}},
	})
	manifest := payloadJSON(t, imgspecv1.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: imgspecv1.MediaTypeImageManifest,
		Config:    payloadDescriptor(imgspecv1.MediaTypeImageConfig, config),
		Layers:    []imgspecv1.Descriptor{payloadDescriptor(imgspecv1.MediaTypeImageLayerGzip, layer.Bytes())},
	})
	dir := t.TempDir()
	for _, blob := range [][]byte{layer.Bytes(), config, manifest} {
		writePayloadFile(t, filepath.Join(dir, "blobs", "sha256", digest.FromBytes(blob).Encoded()), blob)
	}
	index := imgspecv1.Index{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: imgspecv1.MediaTypeImageIndex,
		Manifests: []imgspecv1.Descriptor{payloadDescriptor(imgspecv1.MediaTypeImageManifest, manifest)},
	}
	index.Manifests[0].Annotations = map[string]string{imgspecv1.AnnotationRefName: layoutImageTag}
	writePayloadFile(t, filepath.Join(dir, "index.json"), payloadJSON(t, index))
	writePayloadFile(t, filepath.Join(dir, imgspecv1.ImageLayoutFile), payloadJSON(t, imgspecv1.ImageLayout{Version: imgspecv1.ImageLayoutVersion}))
	return &LayoutImage{Dir: dir, Digest: digest.FromBytes(manifest)}
}

// Reference is the image in its OCI layout, for a copy with options Push does not give (e.g. signing).
func (img *LayoutImage) Reference(t testing.TB) types.ImageReference {
	t.Helper()
	ref, err := layout.NewReference(img.Dir, layoutImageTag)
	mustPayload(t, err)
	return ref
}

// Push copies the image to dest ("host:port/repo:tag") with containers/image, through sys (which must trust the
// registry), and fails the test when the pushed manifest's digest differs.
func (img *LayoutImage) Push(t testing.TB, sys *types.SystemContext, dest string) {
	t.Helper()
	dst, err := docker.ParseReference("//" + dest)
	mustPayload(t, err)
	m := CopyAccepting(t, img.Reference(t), dst, &copy.Options{DestinationCtx: sys})
	if got := digest.FromBytes(m); got != img.Digest {
		t.Fatalf("pushing to %s changed the manifest: digest %s, want %s", dest, got, img.Digest)
	}
}

// AcceptAnything returns the signature policy of pushes: anything is accepted. The caller destroys it.
func AcceptAnything(t testing.TB) *signature.PolicyContext {
	t.Helper()
	pc, err := signature.NewPolicyContext(&signature.Policy{Default: signature.PolicyRequirements{signature.NewPRInsecureAcceptAnything()}})
	if err != nil {
		t.Fatal(err)
	}
	return pc
}

// CopyAccepting copies src to dst with containers/image's copy package under AcceptAnything, within 30 s, and returns
// the manifest written.
func CopyAccepting(t testing.TB, src, dst types.ImageReference, opts *copy.Options) []byte {
	t.Helper()
	pc := AcceptAnything(t)
	defer pc.Destroy()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := copy.Image(ctx, pc, dst, src, opts)
	if err != nil {
		t.Fatalf("copying %s to %s: %v", transports.ImageName(src), transports.ImageName(dst), err)
	}
	return m
}

// ReleaseMirror is a release payload assembled by a test, as a disconnected cluster's mirror holds it: a TLS
// registry on loopback (trusted through CertsDir, a certs.d directory as a node's /etc/containers/certs.d) with the
// release image under Mirror/ocp/release and its images under Mirror/ocp/art, referenced at a source host on which
// nothing listens.
type ReleaseMirror struct {
	Mirror *Registry
	// CertsDir trusts the mirror's CA: CertsDir/HOST:PORT/ca.crt.
	CertsDir string
	// Source is the host:port the references name; nothing listens there.
	Source string
	// Release is the release image by digest at the source, e.g. "127.0.0.1:40001/ocp/release@sha256:…".
	Release string
	// Images are the payload's references at the source, per image-references tag name.
	Images map[string]string
	// Push pushes through the mirror's trust.
	Push *types.SystemContext
	art  map[string]*LayoutImage
}

// StartReleaseMirror assembles a release payload of the images named (image-references tags, each its own image)
// and pushes the release image and every image but those of missing to a new mirror.
func StartReleaseMirror(t testing.TB, names []string, missing ...string) *ReleaseMirror {
	t.Helper()
	ca, err := NewCA("registries-controller test mirror CA")
	mustPayload(t, err)
	certPEM, keyPEM, err := ca.IssueServing("localhost")
	mustPayload(t, err)
	pool, err := payloadCertPool(ca.CertPEM)
	mustPayload(t, err)
	mirror := StartRegistry(t, RegistryOptions{CertPEM: certPEM, KeyPEM: keyPEM, RootCAs: pool})
	m := &ReleaseMirror{Mirror: mirror, CertsDir: t.TempDir(), Source: fmt.Sprintf("127.0.0.1:%d", FreePort(t)), Images: map[string]string{}, art: map[string]*LayoutImage{}}
	writePayloadFile(t, filepath.Join(m.CertsDir, mirror.Host, "ca.crt"), ca.CertPEM)
	empty := filepath.Join(t.TempDir(), "registries.conf")
	writePayloadFile(t, empty, nil)
	m.Push = &types.SystemContext{
		SystemRegistriesConfPath:    empty,
		SystemRegistriesConfDirPath: filepath.Join(t.TempDir(), "none"),
		DockerPerHostCertDirPath:    m.CertsDir,
		AuthFilePath:                filepath.Join(t.TempDir(), "auth.json"),
	}
	var tags []string
	for _, name := range names {
		img := NewLayoutImage(t, nil)
		m.art[name] = img
		m.Images[name] = m.Source + "/ocp/art@" + img.Digest.String()
		tags = append(tags, fmt.Sprintf(`{"name": %q, "from": {"kind": "DockerImage", "name": %q}}`, name, m.Images[name]))
		if !payloadContains(missing, name) {
			img.Push(t, m.Push, mirror.Host+"/ocp/art:"+name)
		}
	}
	refs := `{"kind": "ImageStream", "apiVersion": "image.openshift.io/v1", "metadata": {"name": "4.22.0"}, "spec": {"tags": [` + strings.Join(tags, ", ") + `]}}`
	release := NewLayoutImage(t, map[string][]byte{"release-manifests/image-references": []byte(refs)})
	release.Push(t, m.Push, mirror.Host+"/ocp/release:4.22.0")
	m.Release = m.Source + "/ocp/release@" + release.Digest.String()
	return m
}

// PushMissing pushes the image of name, left out by StartReleaseMirror, to the mirror.
func (m *ReleaseMirror) PushMissing(t testing.TB, name string) {
	t.Helper()
	m.art[name].Push(t, m.Push, m.Mirror.Host+"/ocp/art:"+name)
}

// MirrorSet is an ImageDigestMirrorSet named name that mirrors the release and its images to the mirror, with
// NeverContactSource, as a disconnected cluster has it.
func (m *ReleaseMirror) MirrorSet(name string) string {
	return strings.NewReplacer("{{NAME}}", name, "{{SOURCE}}", m.Source, "{{MIRROR}}", m.Mirror.Host).Replace(`apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
  name: {{NAME}}
spec:
  imageDigestMirrors:
  - source: {{SOURCE}}/ocp/release
    mirrors: [{{MIRROR}}/ocp/release]
    mirrorSourcePolicy: NeverContactSource
  - source: {{SOURCE}}/ocp/art
    mirrors: [{{MIRROR}}/ocp/art]
    mirrorSourcePolicy: NeverContactSource
`)
}

func payloadContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func payloadDescriptor(mediaType string, blob []byte) imgspecv1.Descriptor {
	return imgspecv1.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(blob), Size: int64(len(blob))}
}

func payloadJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	mustPayload(t, err)
	return b
}

func writePayloadFile(t testing.TB, path string, data []byte) {
	t.Helper()
	mustPayload(t, os.MkdirAll(filepath.Dir(path), 0o755))
	mustPayload(t, os.WriteFile(path, data, 0o600))
}

func mustPayload(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func payloadCertPool(pemCerts []byte) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemCerts) {
		return nil, errors.New("no certificate in the CA's PEM")
	}
	return pool, nil
}

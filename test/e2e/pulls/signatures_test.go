package pulls

import (
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"

	"github.com/containers/image/v5/copy"
	"github.com/containers/image/v5/docker"
	"github.com/containers/image/v5/signature/signer"
	"github.com/containers/image/v5/signature/sigstore"
	"github.com/containers/image/v5/types"
	"github.com/opencontainers/go-digest"
	"sigs.k8s.io/yaml"

	"github.com/openshift/registries-controller/pkg/explain"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/test/framework"
)

// signedEnv holds what the signature scenarios share: a source registry that is stopped once the images are
// mirrored, the mirror registry, and three images pushed to the source and copied, signatures included, to
// the mirror: one signed with the key the policies trust, one unsigned, one signed with another key.
type signedEnv struct {
	source, mirror *framework.Registry
	certDir        string
	// publicKey is the PEM public key the policies trust.
	publicKey []byte
	// digests of the images, by repository name under source/team and mirror/team.
	digests map[string]digest.Digest
}

// attachmentsFor returns a registries.d directory turning sigstore attachments on for every host given.
func attachmentsFor(t *testing.T, hosts ...string) string {
	t.Helper()
	f := map[string]map[string]map[string]bool{"docker": {}}
	for _, h := range hosts {
		f["docker"][h] = map[string]bool{"use-sigstore-attachments": true}
	}
	data, err := yaml.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "attachments.yaml"), data)
	return dir
}

func newSigner(t *testing.T) (*signer.Signer, []byte) {
	t.Helper()
	passphrase := []byte("e2e")
	keys, err := sigstore.GenerateKeyPair(passphrase)
	if err != nil {
		t.Fatal(err)
	}
	private := filepath.Join(t.TempDir(), "key.private")
	writeTestFile(t, private, keys.PrivateKey)
	s, err := sigstore.NewSigner(sigstore.WithPrivateKeyFile(private, passphrase))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, keys.PublicKey
}

func newSignedEnv(t *testing.T) *signedEnv {
	cert := newServerCert(t)
	e := &signedEnv{
		source:  startRegistry(t, cert),
		mirror:  startRegistry(t, cert),
		certDir: t.TempDir(),
		digests: map[string]digest.Digest{},
	}
	writeTestFile(t, filepath.Join(e.certDir, "ca.crt"), cert.certPEM)
	trusted, public := newSigner(t)
	other, _ := newSigner(t)
	e.publicKey = public

	conf := filepath.Join(t.TempDir(), "registries.conf")
	writeTestFile(t, conf, nil) // no mirrors while the images are made
	sys := &types.SystemContext{
		SystemRegistriesConfPath:    conf,
		SystemRegistriesConfDirPath: filepath.Join(t.TempDir(), "none"),
		RegistriesDirPath:           attachmentsFor(t, e.source.Host, e.mirror.Host),
		DockerCertPath:              e.certDir,
		AuthFilePath:                filepath.Join(t.TempDir(), "auth.json"),
	}
	for name, signers := range map[string][]*signer.Signer{"signed": {trusted}, "unsigned": nil, "otherkey": {other}} {
		img := framework.NewLayoutImage(t, nil)
		e.digests[name] = img.Digest
		src := e.source.Host + "/source/team/" + name + ":v1"
		pushSigned(t, img, sys, src, signers)
		copyImage(t, sys, "//"+src, "//"+e.mirror.Host+"/mirror/team/"+name+":v1")
	}
	e.source.Stop()
	return e
}

// pushSigned pushes img to dest ("host/repo:tag"), signed by signers with sigstore attachments.
func pushSigned(t *testing.T, img *framework.LayoutImage, sys *types.SystemContext, dest string, signers []*signer.Signer) {
	t.Helper()
	framework.CopyAccepting(t, img.Reference(t), dockerRef(t, "//"+dest), &copy.Options{DestinationCtx: sys, Signers: signers})
}

// copyImage copies an image between registries with its signatures, as `skopeo copy` mirrors a repository.
func copyImage(t *testing.T, sys *types.SystemContext, from, to string) {
	t.Helper()
	framework.CopyAccepting(t, dockerRef(t, from), dockerRef(t, to), &copy.Options{SourceCtx: sys, DestinationCtx: sys})
}

// registriesD writes a node's /etc/containers/registries.d: the OS's base files and the rendered ones, with
// edit applied to the rendered sigstore-registries.yaml.
func registriesD(t *testing.T, files nodefiles.Files, edit func(map[string]any)) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range nodefiles.BaseRegistriesDFiles {
		writeTestFile(t, filepath.Join(dir, name), data)
	}
	for _, f := range files.Under(nodefiles.RegistriesDir) {
		data := f.Data
		if edit != nil {
			var doc map[string]map[string]any
			if err := yaml.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			edit(doc["docker"])
			var err error
			if data, err = yaml.Marshal(doc); err != nil {
				t.Fatal(err)
			}
		}
		writeTestFile(t, filepath.Join(dir, filepath.Base(f.Path)), data)
	}
	return dir
}

const signedIDMS = `
apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
  name: team
spec:
  imageDigestMirrors:
  - source: {{SOURCE}}/source/team
    mirrorSourcePolicy: NeverContactSource
    mirrors:
    - {{MIRROR}}/mirror/team
`

const signedCIP = `
---
apiVersion: config.openshift.io/v1
kind: ClusterImagePolicy
metadata:
  name: team
spec:
  scopes:
  - {{SOURCE}}/source/team
  policy:
    rootOfTrust:
      policyType: PublicKey
      publicKey:
        keyData: {{KEY}}
`

const signedIP = `
---
apiVersion: config.openshift.io/v1
kind: ImagePolicy
metadata:
  name: team
  namespace: team-a
spec:
  scopes:
  - {{SOURCE}}/source/team
  policy:
    rootOfTrust:
      policyType: PublicKey
      publicKey:
        keyData: {{KEY}}
`

// TestSignedPullsThroughMirrors proves the signature files with real signed images (docs/semantics.md §9): the
// source registry is gone, the IDMS sends digest pulls to the mirror, and the rendered policy demands a
// signature by the trusted key. containers/image reads the signatures from the mirror the image comes from,
// so it needs sigstore attachments turned on for the mirror, which sigstore-registries.yaml does.
func TestSignedPullsThroughMirrors(t *testing.T) {
	e := newSignedEnv(t)
	expand := strings.NewReplacer("{{SOURCE}}", e.source.Host, "{{MIRROR}}", e.mirror.Host, "{{KEY}}", base64.StdEncoding.EncodeToString(e.publicKey)).Replace
	mirrorRepo := e.mirror.Host + "/mirror/team"

	for _, sc := range []struct {
		name      string
		manifests string
		// policyPath is the rendered file the pull enforces: policy.json or a namespace's file.
		policyPath string
		image      string
		// edit changes the rendered sigstore-registries.yaml before the pull.
		edit func(map[string]any)
		// errContains is part of the pull error; "" when the pull must succeed.
		errContains string
	}{
		{name: "a ClusterImagePolicy: the signed image is pulled from the mirror",
			manifests: signedIDMS + signedCIP, policyPath: nodefiles.PolicyJSON, image: "signed"},
		{name: "a ClusterImagePolicy: an unsigned image is refused",
			manifests: signedIDMS + signedCIP, policyPath: nodefiles.PolicyJSON, image: "unsigned", errContains: "A signature was required, but no signature exists"},
		{name: "a ClusterImagePolicy: an image signed with another key is refused",
			manifests: signedIDMS + signedCIP, policyPath: nodefiles.PolicyJSON, image: "otherkey", errContains: "cryptographic signature verification failed"},
		{name: "without the mirror in registries.d, as MCO wrote it before it listed mirrors, the signed image is refused",
			manifests: signedIDMS + signedCIP, policyPath: nodefiles.PolicyJSON, image: "signed",
			edit:        func(keys map[string]any) { delete(keys, mirrorRepo) },
			errContains: "A signature was required, but no signature exists"},
		{name: "an ImagePolicy: the namespace's policy accepts the signed image from the mirror",
			manifests: signedIDMS + signedIP, policyPath: nodefiles.NamespacePolicy("team-a"), image: "signed"},
		{name: "an ImagePolicy: the namespace's policy refuses an unsigned image",
			manifests: signedIDMS + signedIP, policyPath: nodefiles.NamespacePolicy("team-a"), image: "unsigned", errContains: "A signature was required, but no signature exists"},
		{name: "an ImagePolicy: the cluster's policy.json still accepts the unsigned image in other namespaces",
			manifests: signedIDMS + signedIP, policyPath: nodefiles.PolicyJSON, image: "unsigned"},
	} {
		t.Run(sc.name, func(t *testing.T) {
			r := renderScenario(t, expand(sc.manifests))
			policy, ok := r.Files.Get(sc.policyPath)
			if !ok {
				t.Fatalf("%s was not rendered; files %v", sc.policyPath, r.Files.Paths())
			}
			keys := string(mustGet(t, r.Files, nodefiles.SigstoreRegistries))
			if !strings.Contains(keys, mirrorRepo+":") {
				t.Fatalf("sigstore-registries.yaml does not list the mirror %s:\n%s", mirrorRepo, keys)
			}
			sys := *r.Config.SystemContext()
			sys.DockerCertPath = e.certDir
			sys.AuthFilePath = filepath.Join(t.TempDir(), "auth.json")
			sys.RegistriesDirPath = registriesD(t, r.Files, sc.edit)
			ref := e.source.Host + "/source/team/" + sc.image + "@" + e.digests[sc.image].String()
			res := pull(t, &sys, policy, ref)
			if sc.edit == nil {
				explainAgrees(t, r, ref, sc.policyPath, mirrorRepo)
			}
			if sc.errContains == "" {
				if res.Err != nil {
					t.Fatalf("pull of %s: %v", ref, res.Err)
				}
				if want := mirrorRepo + "/" + sc.image + "@" + e.digests[sc.image].String(); res.Served() != want {
					t.Errorf("served by %q, want the mirror %q (tried %q)", res.Served(), want, res.Tried)
				}
				return
			}
			if res.Err == nil || !strings.Contains(res.Err.Error(), sc.errContains) {
				t.Fatalf("pull of %s: error %v, want one containing %q", ref, res.Err, sc.errContains)
			}
		})
	}
}

func mustGet(t *testing.T, files nodefiles.Files, p string) []byte {
	t.Helper()
	data, ok := files.Get(p)
	if !ok {
		t.Fatalf("%s was not rendered; files %v", p, files.Paths())
	}
	return data
}

// explainAgrees checks that explain names the policy file the pull enforced, and says that signatures are read
// from sigstore attachments on the mirror that serves the pull.
func explainAgrees(t *testing.T, r *explain.Rendered, ref, policyPath, mirrorRepo string) {
	t.Helper()
	x, err := explain.Explain(r.Config, ref, r.Provenance)
	if err != nil {
		t.Fatal(err)
	}
	ns, _ := nodefiles.IsNamespacePolicy(policyPath)
	if err := explain.ExplainSignatures(x, r.Files, ns, r.Provenance); err != nil {
		t.Fatal(err)
	}
	s := x.Signatures
	if s.PolicyFile != policyPath || len(s.Locations) == 0 || !s.Locations[0].Attachments || s.Locations[0].Key != mirrorRepo {
		t.Errorf("explain's signatures: %+v", s)
	}
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

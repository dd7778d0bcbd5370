package integration

import (
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/containers/image/v5/types"
	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

const (
	// verifyUser may pull from the authenticating mirror; the bcrypt hash is of verifyPassword.
	verifyUser     = "e2e"
	verifyPassword = "e2e-secret"
	verifyHtpasswd = verifyUser + ":$2y$05$abcdefghijklmnopqrstuuXhuQfUCIGXEofofqdBR6RB.MmW6ruHS\n"
)

// TestVerifyNamespaceAsksTheMirrorWithTheSecretsKeyExplainNames: a mirror on loopback (TLS, a login) behind an
// ImageDigestMirrorSet, a CRIOCredentialProviderConfig for the source on a BareMetal cluster, and a namespace
// whose pull secret, created with kubectl, has the mirror's key. The node's global pull secret has no key for the
// mirror. verify --kubeconfig: the mirror answers 401 and the pull fails. verify --namespace: while the pods'
// service account may not list secrets the plugin writes no file (still 401); once a Role lets it, the mirror
// serves the image with the key explain --namespace names; without that secret (another one with a key for
// another registry left) 401 again. No run prints a secret's value.
func TestVerifyNamespaceAsksTheMirrorWithTheSecretsKeyExplainNames(t *testing.T) {
	cp.Reset(t)
	const ns = "verify-creds"
	ca, err := framework.NewCA("verify --namespace test mirror CA")
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := ca.IssueServing("localhost")
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.CertPEM)
	mirror := framework.StartRegistry(t, framework.RegistryOptions{CertPEM: certPEM, KeyPEM: keyPEM, RootCAs: roots, Htpasswd: verifyHtpasswd})
	certsDir := t.TempDir()
	writeVerifyFile(t, filepath.Join(certsDir, mirror.Host, "ca.crt"), ca.CertPEM)
	login := base64.StdEncoding.EncodeToString([]byte(verifyUser + ":" + verifyPassword))
	push := &types.SystemContext{
		SystemRegistriesConfPath:    filepath.Join(t.TempDir(), "registries.conf"),
		SystemRegistriesConfDirPath: filepath.Join(t.TempDir(), "none"),
		DockerPerHostCertDirPath:    certsDir,
		AuthFilePath:                filepath.Join(t.TempDir(), "push.json"),
	}
	writeVerifyFile(t, push.SystemRegistriesConfPath, nil)
	writeVerifyFile(t, push.AuthFilePath, []byte(`{"auths":{"`+mirror.Host+`":{"auth":"`+login+`"}}}`))
	img := framework.NewLayoutImage(t, nil)
	img.Push(t, push, mirror.Host+"/mirror/team/app:v1")

	source := fmt.Sprintf("127.0.0.1:%d", framework.FreePort(t)) // nothing listens there
	setPlatform(t, configv1.BareMetalPlatformType)               // whose worker kubelets read the generic provider file
	apply(t, fixtures.IDMS("verify-creds", fixtures.Mirror(source+"/team", mirror.Host+"/mirror/team").Never()),
		fixtures.CRIOCredentialProviderConfig(source))
	startSim(t)
	startInProcess(t, cp.RESTConfig, fastSettle, 0)
	if _, _, code := runWait(t, "--kubeconfig", cp.KubeconfigPath, "--timeout", "60s"); code != 0 {
		t.Fatalf("wait: exit %d", code)
	}
	cp.RunKubectl(t, "create", "namespace", ns)
	t.Cleanup(func() { cp.RunKubectl(t, "delete", "namespace", ns, "--wait=false") })
	cp.RunKubectl(t, "create", "secret", "docker-registry", "mirror-pull", "-n", ns, "--docker-server=https://"+mirror.Host,
		"--docker-username="+verifyUser, "--docker-password="+verifyPassword)
	cp.RunKubectl(t, "create", "secret", "docker-registry", "other-registry", "-n", ns, "--docker-server=quay.io",
		"--docker-username="+verifyUser, "--docker-password="+verifyPassword)

	// The node's global pull secret: a key for the source only.
	global := filepath.Join(t.TempDir(), "config.json")
	writeVerifyFile(t, global, []byte(`{"auths":{"`+source+`":{"auth":"`+login+`"}}}`))
	ref := source + "/team/app@" + img.Digest.String()
	list := filepath.Join(t.TempDir(), "images.txt")
	writeVerifyFile(t, list, []byte(ref+"\n"))
	mirrored := mirror.Host + "/mirror/team/app@" + img.Digest.String()
	verify := func(t *testing.T, args ...string) (string, int) {
		t.Helper()
		stdout, stderr, code := runBinary(t, append([]string{"verify", "--kubeconfig", cp.KubeconfigPath, "-f", list,
			"--certs-dir", certsDir, "--authfile", global}, args...)...)
		t.Logf("verify %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, stdout, stderr)
		for _, v := range []string{verifyPassword, login} {
			if strings.Contains(stdout+stderr, v) {
				t.Errorf("a secret's value is printed: %q", v)
			}
		}
		return stdout, code
	}
	unauthorized := "  1. mirror " + mirrored + ": unauthorized (HTTP 401: the registry requires authentication and there are no credentials for it), without credentials\n"

	t.Run("the global pull secret alone: 401 at the mirror, the pull fails", func(t *testing.T) {
		stdout, code := verify(t)
		if code != 1 || !strings.Contains(stdout, unauthorized) {
			t.Errorf("exit %d, want 1 and %q", code, unauthorized)
		}
	})

	t.Run("a service account that may not list secrets: the plugin writes no file, 401", func(t *testing.T) {
		stdout, code := verify(t, "--namespace", ns)
		if code != 1 || !strings.Contains(stdout, unauthorized) {
			t.Errorf("exit %d, want 1 and %q", code, unauthorized)
		}
	})

	t.Run("a Role to list secrets: the key explain --namespace names serves the mirror", func(t *testing.T) {
		cp.RunKubectl(t, "create", "role", "dockerconfigjson-reader", "-n", ns, "--verb=list", "--resource=secrets")
		cp.RunKubectl(t, "create", "rolebinding", "dockerconfigjson-reader", "-n", ns, "--role=dockerconfigjson-reader", "--serviceaccount="+ns+":default")
		explained, _, code := runExplain(t, "--namespace", ns, "--authfile", global, ref)
		named := "    1. " + mirror.Host + "/mirror/team/app: key \"" + mirror.Host + "\" of secret \"mirror-pull\"\n"
		if code != 0 || !strings.Contains(explained, named) {
			t.Fatalf("explain: exit %d, want 0 and %q", code, named)
		}
		// The text report lists the failing pulls only; -o json says, per place, which credentials were sent.
		stdout, code := verify(t, "--namespace", ns, "-o", "json")
		want := `"credentials": "key \"` + mirror.Host + `\" of secret \"mirror-pull\" of namespace ` + ns + `"`
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("-o json: exit %d, want 0 and %s", code, want)
		}
	})

	t.Run("preview --verify --namespace: the same key, under the provider files the changes would give", func(t *testing.T) {
		// Without a ClusterVersion, whose release image (unreachable here) --verify would check too; cp.Reset
		// creates it again for the next test.
		cp.RunKubectl(t, "delete", "clusterversion", framework.ClusterVersionName)
		// The cluster's CRIOCredentialProviderConfig, unchanged, as the manifest previewed.
		file := filepath.Join(t.TempDir(), "providers.yaml")
		writeVerifyFile(t, file, []byte("apiVersion: config.openshift.io/v1\nkind: CRIOCredentialProviderConfig\nmetadata:\n  name: cluster\nspec:\n  matchImages:\n  - "+source+"\n"))
		stdout, stderr, code := runBinary(t, "preview", "--kubeconfig", cp.KubeconfigPath, "-f", file, "--verify", "--verify-images", list,
			"--certs-dir", certsDir, "--authfile", global, "--namespace", ns)
		t.Logf("preview: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		if want := "summary: 1 images: 1 served, 0 served only by the source, 0 fail\n"; code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("exit %d, want 0 (no change, every pull works) and %q", code, want)
		}
		for _, v := range []string{verifyPassword, login} {
			if strings.Contains(stdout+stderr, v) {
				t.Errorf("a secret's value is printed: %q", v)
			}
		}
	})

	t.Run("without that secret: the other registry's key is not copied, 401", func(t *testing.T) {
		cp.RunKubectl(t, "delete", "secret", "mirror-pull", "-n", ns)
		stdout, code := verify(t, "--namespace", ns)
		if code != 1 || !strings.Contains(stdout, unauthorized) {
			t.Errorf("exit %d, want 1 and %q", code, unauthorized)
		}
	})
}

func writeVerifyFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

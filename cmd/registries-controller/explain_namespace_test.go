package main

import (
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"
)

// namespaceManifests: the team's mirror, a CRIOCredentialProviderConfig for quay.io, on bare metal, whose worker
// kubelets read the generic provider file.
const namespaceManifests = teamIDMS + `---
apiVersion: config.openshift.io/v1
kind: CRIOCredentialProviderConfig
metadata:
  name: cluster
spec:
  matchImages:
  - quay.io
---
apiVersion: config.openshift.io/v1
kind: Infrastructure
metadata:
  name: cluster
spec: {}
status:
  platform: BareMetal
  platformStatus:
    type: BareMetal
`

// mirrorCredentials are the namespace secret's credentials, which must never be printed.
const mirrorCredentials = "team-a-puller:hunter2-Pa55"

// teamSecrets is `kubectl get secret -n team-a -o yaml` of a namespace with a pull secret for the mirror, a
// service account token and, from another namespace, a pull secret that must not count.
func teamSecrets() string {
	data := base64.StdEncoding.EncodeToString([]byte(`{"auths":{"https://mirror.local":{"auth":"` +
		base64.StdEncoding.EncodeToString([]byte(mirrorCredentials)) + `"}}}`))
	return `apiVersion: v1
items:
- apiVersion: v1
  data:
    .dockerconfigjson: ` + data + `
  kind: Secret
  metadata:
    name: mirror-pull
    namespace: team-a
  type: kubernetes.io/dockerconfigjson
- apiVersion: v1
  data:
    token: dG9rZW4=
  kind: Secret
  metadata:
    name: builder-token
    namespace: team-a
  type: kubernetes.io/service-account-token
- apiVersion: v1
  data:
    .dockerconfigjson: ` + data + `
  kind: Secret
  metadata:
    name: elsewhere
    namespace: team-b
  type: kubernetes.io/dockerconfigjson
kind: List
metadata:
  resourceVersion: ""
`
}

const namespaceRef = "quay.io/team/app@sha256:1111111111111111111111111111111111111111111111111111111111111111"

func TestExplainNamespaceOfflineNamesTheSecretKeyEachMirrorUses(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "objects.yaml"), namespaceManifests)
	secrets := writeFile(t, filepath.Join(t.TempDir(), "secrets.yaml"), teamSecrets())
	auth := writeFile(t, filepath.Join(t.TempDir(), "config.json"), `{"auths": {"quay.io": {"auth": "dXNlcjpzZWNyZXQ="}}}`)
	stdout, stderr, code := runCLI(t, "explain", "--manifests", dir, "--namespace", "team-a", "-f", secrets, "--authfile", auth, namespaceRef)
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr)
	}
	want := `credentials for pods of namespace team-a (CRI-O's crio-credential-provider):
  provider file: /etc/kubernetes/credential-providers/generic-credential-provider.yaml (platform BareMetal), read by the kubelet of pool worker
  sent to crio-credential-provider: quay.io/team/app matches its matchImages entry "quay.io"
  mirrors the plugin takes, all of entry "quay.io/team", whatever pull-from-mirror says:
    1. mirror.local/team
  secrets of team-a (kubernetes.io/dockerconfigjson, from ` + secrets + `): mirror-pull
    left out: 1 secret of namespace team-b: not counted for namespace team-a
  service account team-a/default: not checked whether it may list secrets (offline: there is no API server to ask); the plugin needs it, and nothing grants it by default
  the plugin writes /etc/crio/auth/team-a-3aec51a61d13d17bb49232c144638bcd4f6c5a35e648122f2e633dd5c634e76b.json: the global pull secret's keys, and over them:
    "mirror.local" of secret "mirror-pull" (written "https://mirror.local"), a string prefix of mirror.local/team
  credentials each place uses (CRI-O pulls with that file as its only auth file):
    1. mirror.local/team/app: key "mirror.local" of secret "mirror-pull"
    2. quay.io/team/app: no key of the namespace's secrets; the global pull secret's key "quay.io"; credentials passed with the pull (the pod's imagePullSecrets) win here
`
	i := strings.Index(stdout, "credentials for pods of namespace")
	if i < 0 || stdout[i:] != want {
		t.Errorf("got\n%s\nwant the output to end with\n%s", stdout, want)
	}
	// The global pull secret has no entry for the mirror, but for the pods of team-a the namespace's key serves it.
	if !strings.Contains(stdout, "credentials: looked up in "+auth+", as CRI-O looks them up in its global_auth_file; "+
		"for pods of namespace team-a the plugin's file replaces it (below)\n") {
		t.Errorf("the attempts' credentials do not say the plugin's file replaces the global pull secret for team-a")
	}
	if strings.Contains(stdout, "warning:") {
		t.Errorf("a warning where the namespace's key serves the mirror")
	}
	for _, v := range []string{mirrorCredentials, "hunter2", base64.StdEncoding.EncodeToString([]byte(mirrorCredentials)), "dG9rZW4"} {
		if strings.Contains(stdout+stderr, v) {
			t.Errorf("a secret's value is printed: %q", v)
		}
	}
	if !strings.Contains(stderr, "files of pool worker") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("stderr: %q", stderr)
	}
}

func TestExplainNamespaceWithoutSecretsSaysTheyAreNotKnown(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "objects.yaml"), namespaceManifests)
	stdout, stderr, code := runCLI(t, "explain", "--manifests", dir, "--namespace", "team-a", "--service-account", "builder", namespaceRef)
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr)
	}
	for _, line := range []string{
		"  secrets of team-a: not known: none given: pass them with -f (e.g. kubectl get secret -n team-a -o yaml > secrets.yaml)\n",
		"  service account team-a/builder: not checked whether it may list secrets (offline: there is no API server to ask)",
		"    1. mirror.local/team/app: a key of the namespace's secrets, if one serves it (they are not known); else the global pull secret's entry for it, if it has one (its keys are not known: give --authfile)\n",
	} {
		if !strings.Contains(stdout, line) {
			t.Errorf("no line %q in\n%s", line, stdout)
		}
	}
}

func TestExplainNamespaceFlagsNeedANamespaceAndAFileOffline(t *testing.T) {
	dir := t.TempDir()
	manifests := filepath.Dir(writeFile(t, filepath.Join(dir, "m", "objects.yaml"), namespaceManifests))
	secrets := writeFile(t, filepath.Join(dir, "secrets.yaml"), teamSecrets())
	bad := writeFile(t, filepath.Join(dir, "bad.yaml"), "apiVersion: v1\nkind: Secret\nmetadata: {name: x, namespace: team-a}\ndata: {a: "+mirrorCredentials+"}\n")
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"secrets without a namespace":        {[]string{"--manifests", manifests, "-f", secrets}, "-f/--filename (the namespace's secrets) needs --namespace"},
		"a service account without one":      {[]string{"--manifests", manifests, "--service-account", "builder"}, "--service-account needs --namespace"},
		"secrets from a file with a cluster": {[]string{"--kubeconfig", filepath.Join(dir, "kubeconfig"), "--namespace", "a", "-f", secrets}, "[filename kubeconfig]"},
		"unreadable secrets":                 {[]string{"--manifests", manifests, "--namespace", "team-a", "-f", filepath.Join(dir, "none.yaml")}, "reading secrets"},
		"a secret that does not decode":      {[]string{"--manifests", manifests, "--namespace", "team-a", "-f", bad}, `Secret "x" does not decode as a v1 Secret`},
	} {
		t.Run(name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, append([]string{"explain"}, append(tc.args, namespaceRef)...)...)
			if code == 0 || stdout != "" || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "hunter2") {
				t.Errorf("status %d, stdout %q, stderr %q; want an error containing %q", code, stdout, stderr, tc.want)
			}
		})
	}
}

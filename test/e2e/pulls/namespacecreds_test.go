package pulls

import (
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/pkg/explain"
)

// authEntries is the "auths" object of a docker config JSON.
type authEntries map[string]struct {
	Auth string `json:"auth"`
}

// pluginAuthFile writes the auth file crio-credential-provider writes for a pull of image by a pod of a namespace
// whose one dockerconfigjson secret is secret, on a node whose global pull secret is global. It follows the
// plugin's description (docs/semantics.md §10.7; written here from it, not from the code under test): every key of
// the secret that, without "http://" or "https://", is a string prefix of one of mirrors or of image, with its auth
// decoded to user:password and encoded again, over the global file's keys; only auths.<key>.auth; indented with
// tabs. Keys in drop are left out, to prove the others do not serve.
func pluginAuthFile(t *testing.T, global, secret []byte, image string, mirrors []string, drop ...string) string {
	t.Helper()
	var g, s struct {
		Auths authEntries `json:"auths"`
	}
	if err := json.Unmarshal(global, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(secret, &s); err != nil {
		t.Fatal(err)
	}
	out := authEntries{}
	for k, v := range g.Auths {
		out[k] = v
	}
	for k, v := range s.Auths {
		key := strings.TrimPrefix(strings.TrimPrefix(k, "http://"), "https://")
		if slices.Contains(drop, key) || !slices.ContainsFunc(append(slices.Clone(mirrors), image), func(l string) bool { return strings.HasPrefix(l, key) }) {
			continue
		}
		decoded, err := base64.StdEncoding.DecodeString(v.Auth)
		if err != nil {
			continue
		}
		user, password, _ := strings.Cut(string(decoded), ":")
		v.Auth = base64.StdEncoding.EncodeToString([]byte(user + ":" + strings.Trim(password, "\x00")))
		out[key] = v
	}
	data, err := json.MarshalIndent(map[string]authEntries{"auths": out}, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "team-a-plugin.json")
	writeTestFile(t, path, data)
	return path
}

// TestANamespaceSecretsKeyServesTheMirrorAsExplainNamespaceSays checks explain --namespace's answer with real
// pulls: a mirror that requires a login, a source that is never contacted (NeverContactSource), and a namespace
// secret with the mirror's key, a key that is only a string prefix of the mirror's host (which the plugin copies
// too) and one for another registry. Pulled with the plugin's file as the only auth file, the mirror serves the
// image with the key explain names; without that key (only the prefix key, or only the global pull secret) the
// mirror answers 401 and the pull fails.
func TestANamespaceSecretsKeyServesTheMirrorAsExplainNamespaceSays(t *testing.T) {
	mirror, source := startLoginMirror(t), newCountingListener(t)
	image, certDir := mirror.image, mirror.certDir

	r := renderScenario(t, strings.NewReplacer("{{SOURCE}}", source.Host, "{{MIRROR}}", mirror.Host).Replace(`
apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
  name: team
spec:
  imageDigestMirrors:
  - source: {{SOURCE}}/team
    mirrorSourcePolicy: NeverContactSource
    mirrors:
    - {{MIRROR}}/mirror/team
---
apiVersion: config.openshift.io/v1
kind: CRIOCredentialProviderConfig
metadata:
  name: cluster
spec:
  matchImages:
  - {{SOURCE}}
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
`))
	// The namespace's secret: the mirror's key (written with a scheme, as `kubectl create secret docker-registry
	// --docker-server=https://...` writes it), a key that is only a string prefix of the mirror's host, with the
	// right credentials too, and a key for another registry. The node's pull secret has the source only.
	login := base64.StdEncoding.EncodeToString([]byte(mirrorUser + ":" + mirrorPassword))
	prefixOnly := mirror.Host[:len(mirror.Host)-1] // "127.0.0.1:4123" for "127.0.0.1:41234"
	secretData := []byte(`{"auths":{"https://` + mirror.Host + `":{"auth":"` + login + `"},"` + prefixOnly + `":{"auth":"` + login +
		`"},"quay.io":{"auth":"` + login + `"}}}`)
	global := []byte(`{"auths":{"` + source.Host + `":{"auth":"` + login + `","email":"dropped@example.com"}}}`)
	globalPath := filepath.Join(t.TempDir(), "config.json")
	writeTestFile(t, globalPath, global)

	ref := source.Host + "/team/app@" + image.Digest.String()
	x, err := explain.Explain(r.Config, ref, r.Provenance)
	if err != nil {
		t.Fatal(err)
	}
	err = explain.ExplainNamespaceCredentials(x, r.Config, explain.NamespaceInput{
		Namespace: "team-a", Pool: r.Pool, Platform: configv1.BareMetalPlatformType, Files: r.Files,
		Secrets: explain.SecretsOf("team-a", "secrets.yaml", []corev1.Secret{{
			ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "mirror-pull"},
			Type:       corev1.SecretTypeDockerConfigJson,
			Data:       map[string][]byte{corev1.DockerConfigJsonKey: secretData},
		}}),
		ServiceAccount: explain.ServiceAccountAccess{Name: "default", Checked: true, CanList: true},
		GlobalKnown:    true, GlobalKeys: []string{source.Host},
	})
	if err != nil {
		t.Fatal(err)
	}
	n := x.NamespaceCredentials
	if !n.Sent() || len(n.Locations) != 1 {
		t.Fatalf("explain: sent %t, locations %+v; want sent, and the mirror only (the source is blocked)", n.Sent(), n.Locations)
	}
	served := n.Locations[0]
	if !served.Mirror || served.Key != mirror.Host || served.Secret != "mirror-pull" || served.Repository != mirror.Host+"/mirror/team/app" {
		t.Fatalf("explain says the mirror uses %+v, want key %q of secret mirror-pull", served.PullAuth, mirror.Host)
	}
	var copied []string
	for _, c := range n.Copy.Copied {
		copied = append(copied, c.Key)
		if c.Key == prefixOnly && len(c.UsedBy) != 0 {
			t.Errorf("explain says the prefix-only key %q serves %q", prefixOnly, c.UsedBy)
		}
	}
	if want := []string{prefixOnly, mirror.Host}; !slices.Equal(copied, want) {
		t.Errorf("explain says the plugin copies %q, want %q", copied, want)
	}
	if len(x.Warnings) != 0 {
		t.Errorf("warnings %q", x.Warnings)
	}

	mirrors := []string{mirror.Host + "/mirror/team"}
	image0 := source.Host + "/team/app"
	for _, tc := range []struct {
		name     string
		authFile string
		served   int
	}{
		{"the plugin's file: the key explain names serves the mirror", pluginAuthFile(t, global, secretData, image0, mirrors), 0},
		{"the plugin's file without that key: the prefix-only key does not serve, 401", pluginAuthFile(t, global, secretData, image0, mirrors, served.Key), -1},
		{"the global pull secret alone, as for a pod of another namespace: 401", globalPath, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sys := *r.Config.SystemContext()
			sys.DockerCertPath = certDir
			sys.AuthFilePath = tc.authFile // CRI-O's only auth file for this pull
			res := pull(t, &sys, nil, ref)
			agree(t, x, res, tc.served)
			if failure := res.Failed[x.Attempts[0].Reference]; tc.served < 0 && !strings.HasSuffix(failure, "/mirror/team/app: authentication required") {
				t.Errorf("the mirror attempt failed with %q, want authentication required (401)", failure)
			}
		})
	}
	if c := source.Connections(); c != 0 {
		t.Errorf("the source was contacted %d times", c)
	}
}

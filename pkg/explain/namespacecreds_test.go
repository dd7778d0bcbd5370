package explain_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/pkg/explain"
	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// Node paths, written out here rather than taken from the code under test.
const (
	genericFile = "/etc/kubernetes/credential-providers/generic-credential-provider.yaml"
	ecrFile     = "/etc/kubernetes/credential-providers/ecr-credential-provider.yaml"
	dropInFile  = "/etc/systemd/system/kubelet.service.d/40-kubelet-crio-image-credential-provider.conf"
)

// pluginProvider is the crio-credential-provider entry of a provider file, for the patterns given.
func pluginProvider(patterns ...string) string {
	out := "- apiVersion: credentialprovider.kubelet.k8s.io/v1\n  defaultCacheDuration: 1s\n  matchImages:\n"
	for _, p := range patterns {
		out += "  - '" + p + "'\n"
	}
	return out + "  name: crio-credential-provider\n  tokenAttributes:\n    cacheType: Token\n    requireServiceAccount: false\n" +
		"    serviceAccountTokenAudience: https://kubernetes.default.svc\n"
}

const providerHeader = "apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\nproviders:\n"

// genericFiles are the node files of a platform without a cloud provider: the generic file with the plugin's
// patterns, and the drop-in that points the kubelet at it.
func genericFiles(patterns ...string) nodefiles.Files {
	return nodefiles.Files{
		{Path: genericFile, Data: []byte(providerHeader + pluginProvider(patterns...))},
		{Path: dropInFile, Data: []byte("[Service]\nEnvironment=\"KUBELET_CRIO_IMAGE_CREDENTIAL_PROVIDER_FLAGS=...\"\n")},
	}
}

// awsFiles is the ECR provider file of an AWS node, extended by the plugin's patterns.
func awsFiles(patterns ...string) nodefiles.Files {
	ecr := "- apiVersion: credentialprovider.kubelet.k8s.io/v1\n  defaultCacheDuration: 12h0m0s\n  matchImages:\n" +
		"  - '*.dkr.ecr.*.amazonaws.com'\n  - '*.dkr.ecr.*.amazonaws.com.cn'\n  name: ecr-credential-provider\n"
	return nodefiles.Files{{Path: ecrFile, Data: []byte(providerHeader + ecr + pluginProvider(patterns...))}}
}

// dockerSecret is a kubernetes.io/dockerconfigjson secret whose auths map each key to "user:password".
func dockerSecret(t *testing.T, namespace, name string, auths map[string]string) corev1.Secret {
	t.Helper()
	entries := map[string]map[string]string{}
	for k, userPassword := range auths {
		entries[k] = map[string]string{"auth": base64.StdEncoding.EncodeToString([]byte(userPassword))}
	}
	data, err := json.Marshal(map[string]any{"auths": entries})
	if err != nil {
		t.Fatal(err)
	}
	return corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Type:       corev1.SecretTypeDockerConfigJson,
		Data:       map[string][]byte{corev1.DockerConfigJsonKey: data},
	}
}

// offline is how a service account's access reads without a cluster.
var offline = explain.ServiceAccountAccess{Name: "default", Why: "offline"}

// explainNamespace explains ref under conf for the namespace input in, after ExplainCredentials with authFile
// when it is not "", and returns the explanation and its text.
func explainNamespace(t *testing.T, conf, ref, authFile string, in explain.NamespaceInput) (*explain.Explanation, string) {
	t.Helper()
	cfg := load(t, conf)
	e, err := explain.Explain(cfg, ref, nil)
	if err != nil {
		t.Fatal(err)
	}
	if authFile != "" {
		if err := explain.ExplainCredentials(e, cfg, authFile); err != nil {
			t.Fatal(err)
		}
	}
	if err := explain.ExplainNamespaceCredentials(e, cfg, in); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := e.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	return e, buf.String()
}

// namespaceSection returns the namespace section of an explanation's text, up to the warnings.
func namespaceSection(t *testing.T, text string) string {
	t.Helper()
	i := strings.Index(text, "credentials for pods of namespace ")
	if i < 0 {
		t.Fatalf("no namespace section in\n%s", text)
	}
	out := text[i:]
	if j := strings.Index(out, "\nwarning: "); j >= 0 {
		out = out[:j+1]
	}
	return out
}

// teamConf mirrors registry.example.com/team-a to two mirrors, for digest pulls.
const teamConf = `[[registry]]
location = "registry.example.com/team-a"
[[registry.mirror]]
location = "mirror.example.com/team-a"
pull-from-mirror = "digest-only"
[[registry.mirror]]
location = "backup.example.com:5000/team-a"
pull-from-mirror = "digest-only"
`

func TestANamespaceKeyServesEachMirrorAndTheSourceFallsBackToTheGlobalPullSecret(t *testing.T) {
	secrets := explain.SecretsOf("team-a", "secrets.yaml", []corev1.Secret{
		dockerSecret(t, "team-a", "z-backup", map[string]string{"backup.example.com:5000/team-a": "b:b"}),
		dockerSecret(t, "team-a", "mirror-pull", map[string]string{"https://mirror.example.com": "m:m", "quay.io": "q:q"}),
	})
	e, text := explainNamespace(t, teamConf, "registry.example.com/team-a/app@"+dgst, "", explain.NamespaceInput{
		Namespace: "team-a", Pool: "worker", Platform: configv1.BareMetalPlatformType, Files: genericFiles("registry.example.com"),
		Secrets: secrets, ServiceAccount: offline, GlobalKnown: true, GlobalKeys: []string{"registry.example.com"},
	})
	want := `credentials for pods of namespace team-a (CRI-O's crio-credential-provider):
  provider file: /etc/kubernetes/credential-providers/generic-credential-provider.yaml (platform BareMetal), read by the kubelet of pool worker
  sent to crio-credential-provider: registry.example.com/team-a/app matches its matchImages entry "registry.example.com"
  mirrors the plugin takes, all of entry "registry.example.com/team-a", whatever pull-from-mirror says:
    1. mirror.example.com/team-a
    2. backup.example.com:5000/team-a
  secrets of team-a (kubernetes.io/dockerconfigjson, from secrets.yaml): mirror-pull, z-backup
  service account team-a/default: not checked whether it may list secrets (offline); the plugin needs it, and nothing grants it by default
  the plugin writes /etc/crio/auth/team-a-2d2202e26577c96c6609e3b7c396c2bbedbaef158e6a70741093f6b247d1069e.json: the global pull secret's keys, and over them:
    "backup.example.com:5000/team-a" of secret "z-backup", a string prefix of backup.example.com:5000/team-a
    "mirror.example.com" of secret "mirror-pull" (written "https://mirror.example.com"), a string prefix of mirror.example.com/team-a
  not copied, since no mirror location nor the image starts with it: "quay.io" of secret "mirror-pull"
  credentials each place uses (CRI-O pulls with that file as its only auth file):
    1. mirror.example.com/team-a/app: key "mirror.example.com" of secret "mirror-pull"
    2. backup.example.com:5000/team-a/app: key "backup.example.com:5000/team-a" of secret "z-backup"
    3. registry.example.com/team-a/app: no key of the namespace's secrets; the global pull secret's key "registry.example.com"; credentials passed with the pull (the pod's imagePullSecrets) win here
`
	if got := namespaceSection(t, text); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if len(e.Warnings) != 0 {
		t.Errorf("warnings where every mirror has a key: %q", e.Warnings)
	}
}

func TestAnImageNoEntryMatchesIsNotSentToThePlugin(t *testing.T) {
	_, text := explainNamespace(t, teamConf, "quay.io/other/app:v1", "", explain.NamespaceInput{
		Namespace: "team-a", Pool: "worker", Platform: configv1.OpenStackPlatformType, Files: genericFiles("registry.example.com", "*.example.com"),
		ServiceAccount: offline,
	})
	want := `credentials for pods of namespace team-a (CRI-O's crio-credential-provider):
  provider file: /etc/kubernetes/credential-providers/generic-credential-provider.yaml (platform OpenStack), read by the kubelet of pool worker
  not sent to crio-credential-provider: no entry of its matchImages matches quay.io/other/app
  the namespace's secrets are not used: every place uses the global pull secret (CRI-O's global_auth_file)
`
	if got := namespaceSection(t, text); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestOnAWSTheECRProviderRunsTooAndWinsAtTheImagesHost(t *testing.T) {
	const ecr = "123456789012.dkr.ecr.us-east-1.amazonaws.com"
	conf := `[[registry]]
location = "` + ecr + `/team"
[[registry.mirror]]
location = "mirror.example.com/team"
`
	secrets := explain.SecretsOf("team-a", "secrets.yaml", []corev1.Secret{
		dockerSecret(t, "team-a", "mirror-pull", map[string]string{"mirror.example.com": "m:m"}),
	})
	in := explain.NamespaceInput{Namespace: "team-a", Pool: "worker", Platform: configv1.AWSPlatformType, Files: awsFiles(ecr),
		Secrets: secrets, ServiceAccount: offline}
	e, text := explainNamespace(t, conf, ecr+"/team/app:v1", "", in)
	for _, line := range []string{
		"  provider file: /etc/kubernetes/credential-providers/ecr-credential-provider.yaml (platform AWS), read by the kubelet of pool worker\n",
		"  sent to crio-credential-provider: " + ecr + "/team/app matches its matchImages entry \"" + ecr + "\"\n",
		"  also run for it: ecr-credential-provider, whose credentials the kubelet passes with the pull\n",
		"    1. mirror.example.com/team/app: key \"mirror.example.com\" of secret \"mirror-pull\"\n",
		"    2. " + ecr + "/team/app: no key of the namespace's secrets; the global pull secret's entry for it, if it has one (its keys are not known: " +
			"give --authfile); credentials passed with the pull (ecr-credential-provider's and the pod's imagePullSecrets) win here\n",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("no line %q in\n%s", line, text)
		}
	}
	if got := e.NamespaceCredentials.Providers; !slices.Equal(got, []string{"ecr-credential-provider", "crio-credential-provider"}) {
		t.Errorf("providers run: %q", got)
	}
	want := "ecr-credential-provider also runs for " + ecr + "/team/app and wins: it returns credentials, which the kubelet passes with the pull " +
		"(crio-credential-provider returns none), and they are used at the image's own host " + ecr + " instead of any auth file; the namespace's " +
		"keys serve only the mirrors on other hosts; leave \"" + ecr + "\" out of the CRIOCredentialProviderConfig if the cloud provider is meant to serve it"
	if !slices.Equal(e.Warnings, []string{want}) {
		t.Errorf("warnings %q, want the ECR one", e.Warnings)
	}

	// Another ECR registry, which the plugin's entry does not list: only the cloud provider runs.
	_, text = explainNamespace(t, conf, "999999999999.dkr.ecr.eu-west-1.amazonaws.com/x/app:v1", "", in)
	for _, line := range []string{
		"  not sent to crio-credential-provider: no entry of its matchImages matches 999999999999.dkr.ecr.eu-west-1.amazonaws.com/x/app\n",
		"  also run for it: ecr-credential-provider, whose credentials the kubelet passes with the pull\n",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("no line %q in\n%s", line, text)
		}
	}
}

func TestAKeyThatIsOnlyAStringPrefixOfTheMirrorIsCopiedButServesNothing(t *testing.T) {
	conf := `[[registry]]
location = "quay.io/team"
[[registry.mirror]]
location = "mirror.localhost:5000/team"
`
	secrets := explain.SecretsOf("team-a", "secrets.yaml", []corev1.Secret{
		dockerSecret(t, "team-a", "decoy", map[string]string{"mirror.local": "d:d"}),
	})
	e, text := explainNamespace(t, conf, "quay.io/team/app:v1", "", explain.NamespaceInput{
		Namespace: "team-a", Pool: "worker", Platform: configv1.VSpherePlatformType, Files: genericFiles("quay.io"),
		Secrets: secrets, ServiceAccount: offline, GlobalKnown: true,
	})
	for _, line := range []string{
		`    "mirror.local" of secret "decoy", a string prefix of mirror.localhost:5000/team: a match of the plugin's plain string-prefix rule only; ` +
			"containers/image looks keys up by repository and host, and uses it for none of them\n",
		"    1. mirror.localhost:5000/team/app: no key of the namespace's secrets; none: anonymous\n",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("no line %q in\n%s", line, text)
		}
	}
	want := `mirror "mirror.localhost:5000/team": pods of namespace team-a have no credentials for it: no key of the namespace's secrets nor of the ` +
		`global pull secret serves mirror.localhost:5000/team/app; if the mirror requires authentication, the attempt fails with 401 Unauthorized ` +
		`("authentication required"); add a key "mirror.localhost:5000", or a repository under it, to a kubernetes.io/dockerconfigjson secret of ` +
		`team-a (the plugin copies "mirror.local" of secret "decoy" for it, a string prefix of "mirror.localhost:5000/team", but containers/image ` +
		`looks keys up by repository and host and does not use it there)`
	if !slices.Equal(e.Warnings, []string{want}) {
		t.Errorf("warnings %q, want\n%q", e.Warnings, want)
	}
}

func TestTheGlobalPullSecretServesAMirrorNoNamespaceKeyServes(t *testing.T) {
	secrets := explain.SecretsOf("team-a", "secrets.yaml", []corev1.Secret{
		dockerSecret(t, "team-a", "mirror-pull", map[string]string{"mirror.example.com/team-a": "m:m"}),
	})
	// The node's pull secret has the source and the backup mirror, not the first mirror.
	auth := authFile(t, "registry.example.com", "backup.example.com:5000")
	e, text := explainNamespace(t, teamConf, "registry.example.com/team-a/app@"+dgst, auth, explain.NamespaceInput{
		Namespace: "team-a", Pool: "worker", Platform: configv1.BareMetalPlatformType, Files: genericFiles("registry.example.com"),
		Secrets: secrets, ServiceAccount: offline, GlobalKnown: true, GlobalKeys: []string{"backup.example.com:5000", "registry.example.com"},
	})
	for _, line := range []string{
		"    1. mirror.example.com/team-a/app: key \"mirror.example.com/team-a\" of secret \"mirror-pull\"\n",
		"    2. backup.example.com:5000/team-a/app: no key of the namespace's secrets; the global pull secret's key \"backup.example.com:5000\"\n",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("no line %q in\n%s", line, text)
		}
	}
	// The global pull secret lacks the first mirror, but for the pods of team-a the namespace's key serves it:
	// ExplainCredentials' warning about it gives way.
	if len(e.Warnings) != 0 {
		t.Errorf("warnings %q, want none", e.Warnings)
	}
}

func TestAMirrorWithNoCredentialAtAllIsAWarningAndAnEmptyKeyToo(t *testing.T) {
	empty := dockerSecret(t, "team-a", "empty", nil)
	empty.Data[corev1.DockerConfigJsonKey] = []byte(`{"auths":{"backup.example.com:5000":{"auth":""}}}`)
	secrets := explain.SecretsOf("team-a", "secrets.yaml", []corev1.Secret{empty})
	e, text := explainNamespace(t, teamConf, "registry.example.com/team-a/app@"+dgst, "", explain.NamespaceInput{
		Namespace: "team-a", Pool: "worker", Platform: configv1.BareMetalPlatformType, Files: genericFiles("registry.example.com"),
		Secrets: secrets, ServiceAccount: offline, GlobalKnown: true, GlobalKeys: []string{"registry.example.com"},
	})
	for _, line := range []string{
		`    "backup.example.com:5000" of secret "empty", holding no user name or password, a string prefix of backup.example.com:5000/team-a` + "\n",
		"    1. mirror.example.com/team-a/app: no key of the namespace's secrets; none: anonymous\n",
		"    2. backup.example.com:5000/team-a/app: key \"backup.example.com:5000\" of secret \"empty\", which holds no user name or password: anonymous\n",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("no line %q in\n%s", line, text)
		}
	}
	if len(e.Warnings) != 2 || !strings.HasPrefix(e.Warnings[0], `mirror "mirror.example.com/team-a": pods of namespace team-a have no credentials for it`) ||
		e.Warnings[1] != `mirror "backup.example.com:5000/team-a": key "backup.example.com:5000" of secret "empty" holds no user name or password; `+
			`crio-credential-provider copies it as it is, so the attempt is anonymous and fails with 401 Unauthorized if the mirror requires authentication` {
		t.Errorf("warnings %q", e.Warnings)
	}
}

func TestWithoutTheGlobalKeysAMirrorWithoutANamespaceKeyFallsBackWithoutAWarning(t *testing.T) {
	e, text := explainNamespace(t, teamConf, "registry.example.com/team-a/app@"+dgst, "", explain.NamespaceInput{
		Namespace: "team-a", Pool: "worker", Platform: configv1.BareMetalPlatformType, Files: genericFiles("registry.example.com"),
		Secrets: explain.SecretsOf("team-a", "secrets.yaml", nil), ServiceAccount: offline,
	})
	for _, line := range []string{
		"  secrets of team-a (kubernetes.io/dockerconfigjson, from secrets.yaml): none\n",
		"  the plugin writes /etc/crio/auth/team-a-2d2202e26577c96c6609e3b7c396c2bbedbaef158e6a70741093f6b247d1069e.json: the global pull secret's keys (not known: give --authfile), and over them:\n    no key of the namespace's secrets\n",
		"    1. mirror.example.com/team-a/app: no key of the namespace's secrets; the global pull secret's entry for it, if it has one (its keys are not known: give --authfile)\n",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("no line %q in\n%s", line, text)
		}
	}
	if len(e.Warnings) != 0 {
		t.Errorf("warnings %q", e.Warnings)
	}
}

func TestTheKubeletOfAWorkerOnPlatformNoneNeverReadsTheFileButTheArbitersDoes(t *testing.T) {
	in := explain.NamespaceInput{Namespace: "team-a", Pool: "worker", Platform: configv1.NonePlatformType, Files: genericFiles("registry.example.com"),
		ServiceAccount: offline}
	e, text := explainNamespace(t, teamConf, "registry.example.com/team-a/app@"+dgst, "", in)
	want := `credentials for pods of namespace team-a (CRI-O's crio-credential-provider):
  provider file: /etc/kubernetes/credential-providers/generic-credential-provider.yaml (platform None): the kubelet of pool worker never reads it
  not sent to crio-credential-provider: registry.example.com/team-a/app matches its matchImages entry "registry.example.com", but the kubelet never reads the file
  the namespace's secrets are not used: every place uses the global pull secret (CRI-O's global_auth_file)
`
	if got := namespaceSection(t, text); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if len(e.Warnings) != 1 || !strings.HasPrefix(e.Warnings[0], "the kubelet of pool worker never reads "+genericFile+" on platform None: ") ||
		!strings.HasSuffix(e.Warnings[0], "so no image is sent to crio-credential-provider, and the secrets of namespace team-a are never used for mirrors") {
		t.Errorf("warnings %q", e.Warnings)
	}

	in.Pool = "arbiter"
	e, text = explainNamespace(t, teamConf, "registry.example.com/team-a/app@"+dgst, "", in)
	if !strings.Contains(text, "(platform None), read by the kubelet of pool arbiter\n") || len(e.Warnings) != 0 {
		t.Errorf("arbiter: warnings %q\n%s", e.Warnings, text)
	}

	// Without an Infrastructure the platform is None too; without the drop-in even an on-premise kubelet reads nothing.
	in.Pool, in.Platform = "worker", ""
	if _, text = explainNamespace(t, teamConf, "registry.example.com/team-a/app@"+dgst, "", in); !strings.Contains(text, "(platform None (no Infrastructure names one)): the kubelet of pool worker never reads it\n") {
		t.Errorf("no platform:\n%s", text)
	}
	in.Platform, in.Files = configv1.BareMetalPlatformType, in.Files[:1]
	if _, text = explainNamespace(t, teamConf, "registry.example.com/team-a/app@"+dgst, "", in); !strings.Contains(text, "(platform BareMetal): the kubelet of pool worker never reads it\n") {
		t.Errorf("no drop-in:\n%s", text)
	}
}

func TestAServiceAccountThatMayNotListSecretsLeavesThePullToTheGlobalPullSecret(t *testing.T) {
	secrets := explain.SecretsOf("team-a", "the API server", []corev1.Secret{
		dockerSecret(t, "team-a", "mirror-pull", map[string]string{"mirror.example.com": "m:m"}),
	})
	e, text := explainNamespace(t, teamConf, "registry.example.com/team-a/app@"+dgst, "", explain.NamespaceInput{
		Namespace: "team-a", Pool: "worker", Platform: configv1.BareMetalPlatformType, Files: genericFiles("registry.example.com"),
		Secrets: secrets, ServiceAccount: explain.ServiceAccountAccess{Name: "builder", Checked: true}, GlobalKnown: true,
		GlobalKeys: []string{"mirror.example.com"},
	})
	for _, line := range []string{
		"  service account team-a/builder: may not list secrets (SubjectAccessReview): the plugin's list is refused\n",
		"  keys the plugin would copy into /etc/crio/auth/team-a-2d2202e26577c96c6609e3b7c396c2bbedbaef158e6a70741093f6b247d1069e.json, over the global pull secret's keys, once the service account may list secrets:\n" +
			`    "mirror.example.com" of secret "mirror-pull", a string prefix of mirror.example.com/team-a` + "\n",
		"  credentials each place uses (the plugin writes no file: CRI-O uses the global pull secret):\n" +
			"    1. mirror.example.com/team-a/app: the global pull secret's key \"mirror.example.com\"\n" +
			"    2. backup.example.com:5000/team-a/app: none: anonymous\n",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("no line %q in\n%s", line, text)
		}
	}
	want := "service account team-a/builder may not list secrets in namespace team-a (SubjectAccessReview): crio-credential-provider lists the " +
		"namespace's kubernetes.io/dockerconfigjson secrets with the pod's service account token, is refused and writes no auth file, so the pull " +
		"uses the global pull secret alone; nothing grants it by default: kubectl create role dockerconfigjson-reader -n team-a --verb=list " +
		"--resource=secrets && kubectl create rolebinding dockerconfigjson-reader -n team-a --role=dockerconfigjson-reader --serviceaccount=team-a:builder"
	if !slices.Equal(e.Warnings, []string{want}) {
		t.Errorf("warnings %q", e.Warnings)
	}

	// Allowed: said so, no warning, and the namespace's key serves the mirror.
	e, text = explainNamespace(t, teamConf, "registry.example.com/team-a/app@"+dgst, "", explain.NamespaceInput{
		Namespace: "team-a", Pool: "worker", Platform: configv1.BareMetalPlatformType, Files: genericFiles("registry.example.com"),
		Secrets: secrets, ServiceAccount: explain.ServiceAccountAccess{Name: "builder", Checked: true, CanList: true},
	})
	if !strings.Contains(text, "  service account team-a/builder: may list secrets (SubjectAccessReview), as the plugin needs\n") ||
		!strings.Contains(text, "    1. mirror.example.com/team-a/app: key \"mirror.example.com\" of secret \"mirror-pull\"\n") || len(e.Warnings) != 0 {
		t.Errorf("warnings %q\n%s", e.Warnings, text)
	}
}

func TestSecretsThatAreNotKnownAreSaidSo(t *testing.T) {
	_, text := explainNamespace(t, teamConf, "registry.example.com/team-a/app@"+dgst, "", explain.NamespaceInput{
		Namespace: "team-a", Pool: "worker", Platform: configv1.BareMetalPlatformType, Files: genericFiles("registry.example.com"),
		Secrets: explain.NamespaceSecrets{Unknown: "you may not list secrets in namespace team-a (Forbidden)"}, ServiceAccount: offline,
	})
	for _, line := range []string{
		"  secrets of team-a: not known: you may not list secrets in namespace team-a (Forbidden)\n",
		"    the namespace's keys, which are not known\n",
		"    1. mirror.example.com/team-a/app: a key of the namespace's secrets, if one serves it (they are not known); else the global pull " +
			"secret's entry for it, if it has one (its keys are not known: give --authfile)\n",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("no line %q in\n%s", line, text)
		}
	}
}

func TestALaterSecretReplacesAKeyAndAMirrorThePullDoesNotTryStillCounts(t *testing.T) {
	conf := `[[registry]]
location = "registry.example.com/team-a"
[[registry.mirror]]
location = "digests.example.com/team-a"
pull-from-mirror = "digest-only"
[[registry.mirror]]
location = "tags.example.com/team-a"
pull-from-mirror = "tag-only"
`
	secrets := explain.SecretsOf("team-a", "secrets.yaml", []corev1.Secret{
		dockerSecret(t, "team-a", "b", map[string]string{"tags.example.com": "b:b"}),
		dockerSecret(t, "team-a", "a", map[string]string{"https://tags.example.com": "a:a", "digests.example.com": "d:d"}),
	})
	_, text := explainNamespace(t, conf, "registry.example.com/team-a/app:v1", "", explain.NamespaceInput{
		Namespace: "team-a", Pool: "worker", Platform: configv1.BareMetalPlatformType, Files: genericFiles("registry.example.com"),
		Secrets: secrets, ServiceAccount: offline,
	})
	for _, line := range []string{
		"    1. digests.example.com/team-a (this pull does not try it)\n    2. tags.example.com/team-a\n",
		`    "digests.example.com" of secret "a", a string prefix of digests.example.com/team-a: used only at mirrors this pull does not try` + "\n",
		`    "tags.example.com" of secret "b", a string prefix of tags.example.com/team-a` + "\n",
		`  not copied: "https://tags.example.com" of secret "a", replaced by "tags.example.com" of secret "b"` + "\n",
		"    1. tags.example.com/team-a/app: key \"tags.example.com\" of secret \"b\"\n",
		"    2. registry.example.com/team-a/app: no key",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("no line %q in\n%s", line, text)
		}
	}
}

func TestWithoutAMirrorThePluginWritesNothing(t *testing.T) {
	in := explain.NamespaceInput{Namespace: "team-a", Pool: "worker", Platform: configv1.BareMetalPlatformType,
		Files: genericFiles("registry.example.com", "quay.io"), ServiceAccount: offline}
	_, text := explainNamespace(t, teamConf+"[[registry]]\nlocation = \"quay.io/plain\"\ninsecure = true\n", "quay.io/plain/app:v1", "", in)
	if !strings.Contains(text, "  mirrors: none in entry \"quay.io/plain\": the plugin writes no auth file, and every place uses the global pull secret\n") {
		t.Errorf("an entry without mirrors:\n%s", text)
	}
	_, text = explainNamespace(t, teamConf, "registry.example.com/other/app:v1", "", in)
	if !strings.Contains(text, "  mirrors: none, no registries.conf entry governs registry.example.com/other/app: the plugin writes no auth file, and every place uses the global pull secret\n") {
		t.Errorf("no entry:\n%s", text)
	}
}

// recognisable are credentials a leak would show: a user, a password, a token, and their base64.
var recognisable = []string{"alice", "s3cr3t-Pa55w0rd", "tok-XYZZY", base64.StdEncoding.EncodeToString([]byte("alice:s3cr3t-Pa55w0rd"))}

func TestNoSecretValueIsEverPrinted(t *testing.T) {
	full := dockerSecret(t, "team-a", "full", nil)
	full.Data[corev1.DockerConfigJsonKey] = []byte(`{"auths":{"mirror.example.com":{"auth":"` + recognisable[3] +
		`","username":"alice","password":"s3cr3t-Pa55w0rd","identitytoken":"tok-XYZZY","email":"alice@example.com"}}}`)
	broken := dockerSecret(t, "team-a", "broken", nil)
	broken.Data[corev1.DockerConfigJsonKey] = []byte(`{"auths":{"mirror.example.com":{"auth":alice:s3cr3t-Pa55w0rd}}}`)
	typed := dockerSecret(t, "team-a", "typed", nil)
	typed.Data[corev1.DockerConfigJsonKey] = []byte(`{"auths":{"mirror.example.com":{"auth":["alice","s3cr3t-Pa55w0rd"]}}}`)
	secrets := explain.SecretsOf("team-a", "secrets.yaml", []corev1.Secret{full, broken, typed})
	e, text := explainNamespace(t, teamConf, "registry.example.com/team-a/app@"+dgst, authFile(t, "registry.example.com"), explain.NamespaceInput{
		Namespace: "team-a", Pool: "worker", Platform: configv1.BareMetalPlatformType, Files: genericFiles("registry.example.com"),
		Secrets: secrets, ServiceAccount: offline, GlobalKnown: true, GlobalKeys: []string{"registry.example.com"},
	})
	for _, line := range []string{
		`    left out: secret "broken": its .dockerconfigjson is not a docker config JSON with "auths": the plugin skips it` + "\n",
		`    left out: secret "typed": its .dockerconfigjson is not a docker config JSON with "auths": the plugin skips it` + "\n",
		"    1. mirror.example.com/team-a/app: key \"mirror.example.com\" of secret \"full\"\n",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("no line %q in\n%s", line, text)
		}
	}
	for _, v := range recognisable {
		if strings.Contains(text, v) || strings.Contains(strings.Join(e.Warnings, "\n"), v) {
			t.Errorf("%q printed:\n%s", v, text)
		}
	}
}

func TestSecretsOfCountsOnlyTheNamespacesDockerConfigJSONSecretsByName(t *testing.T) {
	dockercfg := dockerSecret(t, "team-a", "legacy", map[string]string{"mirror.example.com": "l:l"})
	dockercfg.Type = corev1.SecretTypeDockercfg
	opaque := dockerSecret(t, "team-a", "opaque", map[string]string{"mirror.example.com": "o:o"})
	opaque.Type = corev1.SecretTypeOpaque
	written := corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "as-string-data"}, Type: corev1.SecretTypeDockerConfigJson,
		StringData: map[string]string{corev1.DockerConfigJsonKey: `{"auths":{"https://quay.io":{"auth":"cTpx"}}}`}}
	got := explain.SecretsOf("team-a", "f.yaml", []corev1.Secret{
		dockerSecret(t, "team-a", "zeta", map[string]string{"b.example.com": "z:z", "a.example.com": "z:z"}),
		dockerSecret(t, "team-b", "other", map[string]string{"x": "x:x"}),
		dockerSecret(t, "team-b", "other2", map[string]string{"x": "x:x"}),
		dockerSecret(t, "", "nowhere", map[string]string{"x": "x:x"}),
		dockercfg, opaque, written,
	})
	var names []string
	for _, s := range got.Secrets {
		var keys []string
		for _, k := range s.Keys {
			keys = append(keys, k.Key)
		}
		names = append(names, s.Secret+"="+strings.Join(keys, ","))
	}
	if want := []string{"as-string-data=https://quay.io", "zeta=a.example.com,b.example.com"}; !slices.Equal(names, want) {
		t.Errorf("secrets %q, want %q", names, want)
	}
	wantLeft := []string{
		`secret "legacy" (kubernetes.io/dockercfg): the plugin lists only kubernetes.io/dockerconfigjson secrets`,
		`secret "nowhere": no metadata.namespace, so not counted for namespace team-a`,
		"2 secrets of namespace team-b: not counted for namespace team-a",
	}
	if !slices.Equal(got.Left, wantLeft) || got.From != "f.yaml" || !got.Known() {
		t.Errorf("left %q, want %q; from %q", got.Left, wantLeft, got.From)
	}
}

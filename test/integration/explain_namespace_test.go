package integration

import (
	"encoding/base64"
	"regexp"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift/registries-controller/test/fixtures"
)

// TestExplainNamespaceReadsTheSecretsAndAsksWhetherTheServiceAccountMayListThem runs the real binary's explain
// --namespace against the API server: the namespace's pull secret, created with kubectl, names the key the plugin
// copies for the mirror; a SubjectAccessReview says whether the pods' service account may list secrets (a warning
// until a Role grants it); a user who may neither list secrets nor create reviews gets a clear note, not an error.
func TestExplainNamespaceReadsTheSecretsAndAsksWhetherTheServiceAccountMayListThem(t *testing.T) {
	cp.Reset(t)
	const (
		ns       = "explain-creds"
		password = "S3cr3t-mirror-Pa55"
	)
	setPlatform(t, configv1.BareMetalPlatformType) // whose worker kubelets read the generic provider file
	apply(t, fixtures.IDMS("explain-creds", fixtures.Mirror("quay.io/explain-creds", "mirror.creds.local/x")),
		fixtures.CRIOCredentialProviderConfig("quay.io"))
	sim := startSim(t)
	startInProcess(t, cp.RESTConfig, fastSettle, 0)
	if _, _, code := runWait(t, "--kubeconfig", cp.KubeconfigPath, "--timeout", "60s"); code != 0 {
		t.Fatalf("wait: exit %d", code)
	}
	cp.RunKubectl(t, "create", "namespace", ns)
	t.Cleanup(func() { cp.RunKubectl(t, "delete", "namespace", ns, "--wait=false") })
	cp.RunKubectl(t, "create", "secret", "docker-registry", "mirror-pull", "-n", ns, "--docker-server=https://mirror.creds.local",
		"--docker-username=team", "--docker-password="+password)
	cp.RunKubectl(t, "create", "secret", "generic", "unrelated", "-n", ns, "--from-literal=token="+password)
	cp.RunKubectl(t, "create", "serviceaccount", "puller", "-n", ns)
	ref := "quay.io/explain-creds/app@" + explainDigest
	noValues := func(t *testing.T, out string) {
		t.Helper()
		for _, v := range []string{password, base64.StdEncoding.EncodeToString([]byte("team:" + password))} {
			if strings.Contains(out, v) {
				t.Errorf("a secret's value is printed: %q", v)
			}
		}
	}
	sections := []string{
		"  provider file: /etc/kubernetes/credential-providers/generic-credential-provider.yaml (platform BareMetal), read by the kubelet of pool worker\n",
		"  sent to crio-credential-provider: quay.io/explain-creds/app matches its matchImages entry \"quay.io\"\n",
		"  mirrors the plugin takes, all of entry \"quay.io/explain-creds\", whatever pull-from-mirror says:\n    1. mirror.creds.local/x\n",
		"  secrets of " + ns + " (kubernetes.io/dockerconfigjson, from the API server): mirror-pull\n",
	}
	warning := "warning: service account " + ns + "/puller may not list secrets in namespace " + ns + " (SubjectAccessReview)"

	t.Run("a service account no Role lets list secrets: the plugin would be refused, a warning", func(t *testing.T) {
		stdout, stderr, code := runExplain(t, "--namespace", ns, "--service-account", "puller", ref)
		want := append(sections,
			"  service account "+ns+"/puller: may not list secrets (SubjectAccessReview): the plugin's list is refused\n",
			`    "mirror.creds.local" of secret "mirror-pull" (written "https://mirror.creds.local"), a string prefix of mirror.creds.local/x`+"\n",
			"    1. mirror.creds.local/x/app: the global pull secret's entry for it, if it has one (its keys are not known: give --authfile)\n",
			warning,
		)
		for _, line := range want {
			if code != 0 || !strings.Contains(stdout, line) {
				t.Errorf("exit %d, want 0 and %q", code, line)
			}
		}
		noValues(t, stdout+stderr)
	})

	t.Run("a Role to list secrets, as the warning suggests: allowed, and the namespace's key serves the mirror", func(t *testing.T) {
		cp.RunKubectl(t, "create", "role", "dockerconfigjson-reader", "-n", ns, "--verb=list", "--resource=secrets")
		cp.RunKubectl(t, "create", "rolebinding", "dockerconfigjson-reader", "-n", ns, "--role=dockerconfigjson-reader", "--serviceaccount="+ns+":puller")
		stdout, stderr, code := runExplain(t, "--namespace", ns, "--service-account", "puller", ref)
		want := append(sections,
			"  service account "+ns+"/puller: may list secrets (SubjectAccessReview), as the plugin needs\n",
			"    1. mirror.creds.local/x/app: key \"mirror.creds.local\" of secret \"mirror-pull\"\n",
		)
		for _, line := range want {
			if code != 0 || !strings.Contains(stdout, line) {
				t.Errorf("exit %d, want 0 and %q", code, line)
			}
		}
		if strings.Contains(stdout, "warning:") {
			t.Errorf("a warning once the service account may list secrets")
		}
		noValues(t, stdout+stderr)

		// The default service account has no such Role.
		stdout, _, _ = runExplain(t, "--namespace", ns, ref)
		if !strings.Contains(stdout, "warning: service account "+ns+"/default may not list secrets") {
			t.Errorf("no warning for the default service account")
		}
	})

	t.Run("a user who may not list secrets: a clear note, and the rest of the answer", func(t *testing.T) {
		reader := readOnlyKubeconfig(t, "explain-creds-reader", false)
		stdout, stderr, code := runBinary(t, "explain", "--kubeconfig", reader, "--namespace", ns, "--service-account", "puller", ref)
		t.Logf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
		for _, line := range append(sections[:3],
			"  secrets of "+ns+": not known: you may not list secrets in namespace "+ns+" (Forbidden), so which keys the plugin copies cannot be said; the rest of the answer stands\n",
			"  service account "+ns+"/puller: not checked whether it may list secrets (you may not create SubjectAccessReviews (Forbidden))",
			"    1. mirror.creds.local/x/app: a key of the namespace's secrets, if one serves it (they are not known); else",
		) {
			if code != 0 || !strings.Contains(stdout, line) {
				t.Errorf("exit %d, want 0 and %q", code, line)
			}
		}
	})
	t.Run("a CRIOCredentialProviderConfig change rolling out: the answer once it is live", func(t *testing.T) {
		sim.Pause("worker")
		defer sim.Resume("worker")
		apply(t, fixtures.CRIOCredentialProviderConfig("registry.example.com"))
		waitForCredentialFiles(t, "the new matchImages written", func(f map[string]string) bool {
			return strings.Contains(f["generic-credential-provider.yaml"], "  - registry.example.com\n")
		})
		stdout, _, code := runExplain(t, "--namespace", ns, "--service-account", "puller", ref)
		rolling := regexp.MustCompile(`(?m)^rolling out: [^\n]*97-worker-generated-credentialproviderconfig[^\n]*` +
			`\(/etc/kubernetes/credential-providers/generic-credential-provider.yaml differs\), is not live yet: [^\n]+\n  once it is live, the answer changes:\n`)
		for _, want := range []string{
			sections[1], // the nodes run the old file: still sent
			"  -   sent to crio-credential-provider: quay.io/explain-creds/app matches its matchImages entry \"quay.io\"\n",
			"  +   not sent to crio-credential-provider: no entry of its matchImages matches quay.io/explain-creds/app\n",
		} {
			if code != 0 || !strings.Contains(stdout, want) {
				t.Errorf("exit %d, want 0 and %q", code, want)
			}
		}
		if !rolling.MatchString(stdout) {
			t.Errorf("stdout does not match %s", rolling)
		}
	})
}

package integration

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/containers/image/v5/pkg/sysregistriesv2"

	"github.com/openshift/registries-controller/test/fixtures"
)

const explainDigest = "sha256:2222222222222222222222222222222222222222222222222222222222222222"

// runExplain runs the real binary's explain against the control plane.
func runExplain(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	stdout, stderr, code = runBinary(t, append([]string{"explain", "--kubeconfig", cp.KubeconfigPath}, args...)...)
	t.Logf("explain %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, stdout, stderr)
	return stdout, stderr, code
}

func TestExplainAgainstTheFilesAPoolRunsAndARolloutThatChangesTheAnswer(t *testing.T) {
	cp.Reset(t)
	apply(t, fixtures.Image(), fixtures.IDMS("explain-x", fixtures.Mirror("quay.io/explain-x", "m1.local/x")))
	sim := startSim(t)
	startInProcess(t, cp.RESTConfig, fastSettle, 0)
	if _, _, code := runWait(t, "--kubeconfig", cp.KubeconfigPath, "--timeout", "60s"); code != 0 {
		t.Fatalf("wait: exit %d", code)
	}
	ref := "quay.io/explain-x/app@" + explainDigest
	// The pull secret of a cluster that pulled from quay.io before any mirror: the mirrors have no credentials.
	auth := writeTemp(t, "config.json", `{"auths": {"quay.io": {"auth": "dXNlcjpzZWNyZXQ="}}}`)

	t.Run("the files every node runs, with the objects behind each mirror", func(t *testing.T) {
		stdout, stderr, code := runExplain(t, ref)
		for _, want := range []string{
			"pool worker: its nodes run " + statusConfig(t, "worker") + " (the pool's status.configuration)\n",
			"  1. m1.local/x/app@" + explainDigest + "\n",
			`     from ImageDigestMirrorSet "explain-x" spec.imageDigestMirrors[0].mirrors[0]`,
		} {
			if code != 0 || !strings.Contains(stdout, want) {
				t.Errorf("exit %d, want 0 and %q", code, want)
			}
		}
		if strings.Contains(stdout, "rolling out") || stderr != "" {
			t.Errorf("a rollout or a note where every node runs the render")
		}
	})

	t.Run("a rollout in progress that changes the answer", func(t *testing.T) {
		sim.Pause("worker")
		defer sim.Resume("worker")
		running := statusConfig(t, "worker")
		apply(t, fixtures.IDMS("explain-x", fixtures.Mirror("quay.io/explain-x", "m2.local/x")))
		waitForEntry(t, "quay.io/explain-x", "the new mirror written", func(e *sysregistriesv2.Registry) bool {
			return slices.Equal(mirrorLocations(e), []string{"m2.local/x(digest-only)"})
		})
		stdout, stderr, code := runExplain(t, "--authfile", auth, ref)
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
		rolling := regexp.MustCompile(`(?m)^rolling out: 99-worker-generated-registries, whose files differ from what the nodes run ` +
			`\(/etc/containers/registries.conf differs\), is not live yet: [^\n]+\n  once it is live, the answer changes:\n`)
		for _, want := range []string{
			"pool worker: its nodes run " + running + " (the pool's status.configuration)\n",
			"  1. m1.local/x/app@" + explainDigest + "\n     mirror \"m1.local/x\", pull-from-mirror digest-only\n     credentials: none in the auth file (the pull is anonymous)\n",
			`warning: the auth file has credentials for the source (entry "quay.io") but none for mirror "m1.local/x": if the mirror requires authentication, pulls from it fail with 401 Unauthorized`,
			"  -   1. m1.local/x/app@" + explainDigest + "\n  -      mirror \"m1.local/x\", pull-from-mirror digest-only\n",
			"  +   1. m2.local/x/app@" + explainDigest + "\n  +      mirror \"m2.local/x\", pull-from-mirror digest-only\n",
			`  + warning: the auth file has credentials for the source (entry "quay.io") but none for mirror "m2.local/x"`,
		} {
			if !strings.Contains(stdout, want) {
				t.Errorf("stdout lacks %q", want)
			}
		}
		if !rolling.MatchString(stdout) {
			t.Errorf("stdout does not match %s", rolling)
		}
		if !strings.Contains(stderr, "note: the objects behind each mirror are not named: the nodes run files rendered from other objects than the cluster holds now") {
			t.Errorf("no note that provenance is left out")
		}

		// master is not held: once it is live there, nothing rolls out and the answer is the new one.
		if _, _, code := runWait(t, "--kubeconfig", cp.KubeconfigPath, "--pool", "master", "--timeout", "60s"); code != 0 {
			t.Fatalf("wait --pool master: exit %d", code)
		}
		stdout, _, code = runExplain(t, "--pool", "master", ref)
		if code != 0 || !strings.Contains(stdout, "  1. m2.local/x/app@"+explainDigest) || strings.Contains(stdout, "rolling out") {
			t.Errorf("pool master: exit %d", code)
		}
	})

	t.Run("once live, the new answer and no rollout", func(t *testing.T) {
		if _, _, code := runWait(t, "--kubeconfig", cp.KubeconfigPath, "--timeout", "60s"); code != 0 {
			t.Fatalf("wait: exit %d", code)
		}
		stdout, _, code := runExplain(t, ref)
		if code != 0 || !strings.Contains(stdout, `     from ImageDigestMirrorSet "explain-x" spec.imageDigestMirrors[0].mirrors[0]`) ||
			!strings.Contains(stdout, "  1. m2.local/x/app@"+explainDigest) || strings.Contains(stdout, "rolling out") {
			t.Errorf("exit %d", code)
		}
	})

	t.Run("a read-only user may run it", func(t *testing.T) {
		reader := readOnlyKubeconfig(t, "explain-reader", false)
		stdout, stderr, code := runBinary(t, "explain", "--kubeconfig", reader, ref)
		if code != 0 || !strings.Contains(stdout, "  1. m2.local/x/app@"+explainDigest) {
			t.Errorf("exit %d:\n%s%s", code, stdout, stderr)
		}
	})

	t.Run("2 on an error: a pool that does not exist", func(t *testing.T) {
		_, stderr, code := runExplain(t, "--pool", "infra", ref)
		if code != 2 || !strings.Contains(stderr, "MachineConfigPool infra does not exist") {
			t.Errorf("exit %d, want 2", code)
		}
	})
}

package integration

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

// runWait runs the real binary's wait against the control plane and returns its output and exit status.
func runWait(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	stdout, stderr, code = runBinary(t, append([]string{"wait"}, args...)...)
	t.Logf("wait %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, stdout, stderr)
	return stdout, stderr, code
}

func lines(s string) []string { return strings.Split(strings.TrimSpace(s), "\n") }

// matching returns the lines of s that match re.
func matching(s string, re *regexp.Regexp) []string {
	var out []string
	for _, l := range lines(s) {
		if re.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

var (
	progressLine = regexp.MustCompile(`^worker: [0-2]/3 nodes updated to rendered-worker-[0-9a-f]{32}$`)
	liveLine     = regexp.MustCompile(`^worker: live: 3/3 nodes on rendered-worker-[0-9a-f]{32}$`)
)

func TestWaitExitsWithTheStatusOfTheRollout(t *testing.T) {
	cp.Reset(t)
	apply(t, fixtures.Image())
	sim := startSim(t)
	startInProcess(t, cp.RESTConfig, fastSettle, 0)
	kubeconfig := cp.KubeconfigPath

	t.Run("0 once every node of every built-in pool runs the change, with a line per state", func(t *testing.T) {
		sim.SetStepDelay(300 * time.Millisecond)
		defer sim.SetStepDelay(simStep)
		apply(t, fixtures.IDMS("wait-a", fixtures.Mirror("quay.io/wait-a", "m.local/wait-a")))
		stdout, _, code := runWait(t, "--kubeconfig", kubeconfig, "--timeout", "60s")
		if code != 0 {
			t.Fatalf("exit %d, want 0", code)
		}
		all := lines(stdout)
		if !strings.HasPrefix(all[0], "rendered ") || !strings.HasSuffix(all[0], "; waiting until every node of master, worker runs it") {
			t.Errorf("first line %q", all[0])
		}
		if !strings.HasPrefix(all[len(all)-1], "live on every pool (master, worker), ") {
			t.Errorf("last line %q", all[len(all)-1])
		}
		progress, live := matching(stdout, progressLine), matching(stdout, liveLine)
		if len(progress) < 2 || len(live) != 1 {
			t.Errorf("progress lines %q and live lines %q: want at least two and one", progress, live)
		}
		for i := 1; i < len(all); i++ {
			if all[i] == all[i-1] {
				t.Errorf("line %q printed twice in a row", all[i])
			}
		}
		if live := liveLine.FindString(stdout); live != "" && !strings.HasSuffix(live, statusConfig(t, framework.PoolWorker)) {
			t.Errorf("%q is not the pool's status.configuration %s", live, statusConfig(t, framework.PoolWorker))
		}
	})

	t.Run("1 on timeout, naming the pools not live and where they stand", func(t *testing.T) {
		cp.RunKubectl(t, "patch", "machineconfigpool", "worker", "--type=merge", "-p", `{"spec":{"paused":true}}`)
		defer cp.RunKubectl(t, "patch", "machineconfigpool", "worker", "--type=merge", "-p", `{"spec":{"paused":false}}`)
		apply(t, fixtures.IDMS("wait-b", fixtures.Mirror("quay.io/wait-b", "m.local/wait-b")))
		_, stderr, code := runWait(t, "--kubeconfig", kubeconfig, "--timeout", "4s", "--pool", "worker")
		if code != 3 {
			t.Fatalf("exit %d, want 3", code)
		}
		want := regexp.MustCompile(`(?m)^timed out after 4s; not live on 1 of 1 pools:\n  worker: (0/3 nodes updated to rendered-worker-[0-9a-f]{32}|waiting for a rendered config with the change .*) \(the pool is paused\)$`)
		if !want.MatchString(stderr) {
			t.Errorf("stderr does not match %q", want)
		}
	})

	t.Run("2 on a kubeconfig that cannot be read", func(t *testing.T) {
		missing := filepath.Join(t.TempDir(), "kubeconfig")
		_, stderr, code := runWait(t, "--kubeconfig", missing, "--timeout", "10s")
		if code != 2 || !strings.Contains(stderr, missing) {
			t.Errorf("exit %d, want 2 naming the file", code)
		}
	})

	t.Run("3 on invalid inputs, printing the problems", func(t *testing.T) {
		apply(t, fixtures.ICSP("wait-bad", fixtures.Mirror("quay.io/wait-bad", "https://m.local/wait-bad")))
		defer cp.RunKubectl(t, "delete", "imagecontentsourcepolicy", "wait-bad")
		_, stderr, code := runWait(t, "--kubeconfig", kubeconfig, "--timeout", "60s")
		if code != 4 || !strings.Contains(stderr, `ImageContentSourcePolicy "wait-bad": spec.repositoryDigestMirrors[0].mirrors[0]: "https://m.local/wait-bad": a mirror must not carry a scheme`) {
			t.Errorf("exit %d, want 4 with the problem", code)
		}
	})

	t.Run("3 on a degraded pool, printing its condition", func(t *testing.T) {
		_, _, code := runWait(t, "--kubeconfig", kubeconfig, "--timeout", "60s")
		if code != 0 {
			t.Fatalf("before: exit %d, want 0", code)
		}
		sim.Degrade(framework.PoolWorker, "", "disk full")
		defer sim.Heal(framework.PoolWorker)
		apply(t, fixtures.IDMS("wait-c", fixtures.Mirror("quay.io/wait-c", "m.local/wait-c")))
		stdout, stderr, code := runWait(t, "--kubeconfig", kubeconfig, "--timeout", "60s")
		want := `worker: degraded: NodeDegraded: Node worker-0 is reporting: "disk full"`
		if code != 4 || !strings.Contains(stdout, want) || !strings.Contains(stderr, "MachineConfigPool worker is degraded") {
			t.Errorf("exit %d, want 4 with %q", code, want)
		}
	})
}

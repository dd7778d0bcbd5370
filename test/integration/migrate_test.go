package integration

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/containers/image/v5/pkg/sysregistriesv2"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

// runBinary runs the real binary with args and returns its output and exit status.
func runBinary(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := exec.Command(controllerBinary(t), args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

func TestMigrateICSPOnAClusterIsAppliedWithoutAWrite(t *testing.T) {
	cp.Reset(t)
	// Policies that overlap each other and an ImageDigestMirrorSet: shared sources, a repeated mirror (which the
	// ImageDigestMirrorSet CRD refuses), conflicting orders, and a name an ImageDigestMirrorSet already has.
	objs := []runtime.Object{fixtures.Image(fixtures.Insecure("m1.local")), fixtures.IDMS("team-00", fixtures.Mirror("quay.io/org0/app0", "m9.local/x"))}
	for i := range 30 {
		var entries []fixtures.MirrorEntry
		for j := range 8 {
			src := fmt.Sprintf("quay.io/org%d/app%d", (i+j)%5, j)
			m1, m2 := fmt.Sprintf("m%d.local/ns", i%3), fmt.Sprintf("m%d.local/ns", (i+1)%3)
			if j%3 == 0 {
				m1, m2 = m2, m1
			}
			entries = append(entries, fixtures.Mirror(src, m1, m2, m1))
		}
		objs = append(objs, fixtures.ICSP(fmt.Sprintf("team-%02d", i), entries...))
	}
	apply(t, objs...)
	ctrl := startInProcess(t, cp.RESTConfig, fastSettle, 0)
	waitForEntry(t, "quay.io/org0/app0", "the policies applied", func(e *sysregistriesv2.Registry) bool { return e != nil && len(e.Mirrors) == 4 })
	ctrl.settle(t) // the first writes' own events are over
	writes := countWrites(t)
	before := ctrl.counter(t, "registries_controller_machineconfig_writes_total", nil)

	out := filepath.Join(t.TempDir(), "idms")
	stdout, stderr, code := runBinary(t, "migrate-icsp", "--kubeconfig", cp.KubeconfigPath, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d:\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"read 1 ClusterVersion, 1 Image, 1 ImageDigestMirrorSet, 2 MachineConfigPool, 30 ImageContentSourcePolicy from the cluster at ",
		`ImageContentSourcePolicy "team-00" -> ImageDigestMirrorSet "team-00-icsp" (8 entries, AllowContactingSource)`,
		"proven neutral",
		"  kubectl apply -f " + out,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}

	// What it says to do: the API server takes the ImageDigestMirrorSets, and neither step writes a MachineConfig.
	cp.RunKubectl(t, "apply", "-f", out)
	noWrite := func() (bool, string) {
		m, w := writes.get(masterMC), writes.get(workerMC)
		return m+w != 0, fmt.Sprintf("writes: master %d, worker %d", m, w)
	}
	framework.Quiet(t, 2*time.Second, "a write after applying the ImageDigestMirrorSets", ctrl.pokedSync(t), noWrite)
	var icsps []string
	for i := range 30 {
		icsps = append(icsps, fmt.Sprintf("team-%02d", i))
	}
	cp.RunKubectl(t, append([]string{"delete", "imagecontentsourcepolicy"}, icsps...)...)
	framework.Quiet(t, 2*time.Second, "a write after deleting the ImageContentSourcePolicies", ctrl.pokedSync(t), noWrite)
	if n := cp.RunKubectl(t, "get", "imagedigestmirrorsets", "-o", "name"); strings.Count(n, "\n") != 31 {
		t.Errorf("ImageDigestMirrorSets after the migration:\n%s", n)
	}
	for _, name := range []string{masterMC, workerMC} {
		if n := writes.get(name); n != 0 {
			t.Errorf("%s was written %d times by the migration", name, n)
		}
	}
	if n := ctrl.counter(t, "registries_controller_machineconfig_writes_total", nil) - before; n != 0 {
		t.Errorf("the controller counted %v writes during the migration", n)
	}
	_, stderr, code = runBinary(t, "migrate-icsp", "--kubeconfig", cp.KubeconfigPath)
	if code != 0 || !strings.Contains(stderr, "no ImageContentSourcePolicy: nothing to migrate") {
		t.Errorf("after the migration: exit %d:\n%s", code, stderr)
	}
}

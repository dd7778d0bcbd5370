package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/containers/image/v5/pkg/sysregistriesv2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

const fastSettle = 100 * time.Millisecond

func TestEachKindIsAppliedOnCreateUpdateAndDelete(t *testing.T) {
	cp.Reset(t)
	startInProcess(t, cp.RESTConfig, fastSettle, 0)
	// object returns a one-entry mirror object of the given kind, named crud.
	object := func(kind, source, mirror string) runtime.Object {
		entry := fixtures.Mirror(source, mirror)
		switch kind {
		case "imagecontentsourcepolicy":
			return fixtures.ICSP("crud", entry)
		case "imagetagmirrorset":
			return fixtures.ITMS("crud", entry)
		default:
			return fixtures.IDMS("crud", entry)
		}
	}
	cases := []struct {
		kind, scope, pullFrom string
	}{
		{"imagedigestmirrorset", "quay.io/crud-idms", "digest-only"},
		{"imagetagmirrorset", "quay.io/crud-itms", "tag-only"},
		{"imagecontentsourcepolicy", "quay.io/crud-icsp", "digest-only"},
	}
	firstMirror := func(want string) func(*sysregistriesv2.Registry) bool {
		return func(e *sysregistriesv2.Registry) bool {
			ms := mirrorLocations(e)
			return len(ms) == 1 && ms[0] == want
		}
	}
	for _, tc := range cases {
		t.Run(tc.kind, func(t *testing.T) {
			apply(t, object(tc.kind, tc.scope, "m1.local/crud"))
			waitForEntry(t, tc.scope, "the created mirror", firstMirror("m1.local/crud("+tc.pullFrom+")"))
			apply(t, object(tc.kind, tc.scope, "m2.local/crud"))
			waitForEntry(t, tc.scope, "the updated mirror", firstMirror("m2.local/crud("+tc.pullFrom+")"))
			cp.RunKubectl(t, "delete", tc.kind, "crud")
			waitForEntry(t, tc.scope, "the entry to go", func(e *sysregistriesv2.Registry) bool { return e == nil })
		})
	}
	t.Run("image", func(t *testing.T) {
		apply(t, fixtures.Image(fixtures.Insecure("lab.local:5000")))
		waitForEntry(t, "lab.local:5000", "the insecure registry", func(e *sysregistriesv2.Registry) bool { return e != nil && e.Insecure })
		apply(t, fixtures.Image(fixtures.Insecure("lab2.local")))
		waitForEntry(t, "lab2.local", "the new insecure registry", func(e *sysregistriesv2.Registry) bool { return e != nil && e.Insecure })
		waitForEntry(t, "lab.local:5000", "the old one to go", func(e *sysregistriesv2.Registry) bool { return e == nil })
		mc, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Get(context.Background(), workerMC, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(mc.OwnerReferences) != 1 || mc.OwnerReferences[0].Kind != "Image" || mc.OwnerReferences[0].Name != "cluster" {
			t.Errorf("owner references = %+v, want the Image cluster", mc.OwnerReferences)
		}
		cp.RunKubectl(t, "delete", "images.config.openshift.io", "cluster")
		waitForEntry(t, "lab2.local", "the insecure registry to go", func(e *sysregistriesv2.Registry) bool { return e == nil })
	})
}

func TestResyncsAndUnrelatedEventsWriteNothing(t *testing.T) {
	cp.Reset(t)
	apply(t, fixtures.IDMS("steady", fixtures.Mirror("quay.io/steady", "m.local/steady")))
	ctrl := startInProcess(t, cp.RESTConfig, fastSettle, 200*time.Millisecond)
	waitForEntry(t, "quay.io/steady", "the mirror", func(e *sysregistriesv2.Registry) bool { return e != nil })
	ctrl.settle(t) // the writes' own events are over
	writes := countWrites(t)

	// Unrelated changes: metadata only, another MachineConfig, a pool status.
	cp.RunKubectl(t, "annotate", "imagedigestmirrorset", "steady", "note=unrelated")
	cp.RunKubectl(t, "label", "machineconfigpool", "worker", "team=unrelated", "--overwrite")
	kubectlApply(t, `
apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfig
metadata:
  name: 50-unrelated
  labels: {machineconfiguration.openshift.io/role: worker}
spec: {}
`)
	noOpSyncs := framework.Witness{What: "no-op syncs", Need: 3, Count: func() float64 {
		return ctrl.counter(t, "registries_controller_syncs_total", map[string]string{"result": "unchanged"})
	}}
	syncs := framework.Quiet(t, 3*time.Second, "a write by a resync or an unrelated change", noOpSyncs, func() (bool, string) { // about 15 resyncs of every informer
		m, w := writes.get(masterMC), writes.get(workerMC)
		return m+w != 0, fmt.Sprintf("writes: master %d, worker %d", m, w)
	})
	for _, name := range []string{masterMC, workerMC} {
		if n := writes.get(name); n != 0 {
			t.Errorf("%s was written %d times by %v no-op syncs, want 0", name, n, syncs)
		}
	}
	if n := ctrl.counter(t, "registries_controller_machineconfig_writes_total", nil); n != 2 {
		t.Errorf("controller counted %v writes in all, want the 2 creates", n)
	}
	t.Logf("%v no-op syncs, 0 writes", syncs)
	cp.RunKubectl(t, "label", "machineconfigpool", "worker", "team-")
}

func TestBurstOfHundredObjectsIsAtMostTwoWritesPerPool(t *testing.T) {
	cp.Reset(t)
	ctrl := startInProcess(t, cp.RESTConfig, time.Second, 0) // the default settle delay
	framework.Eventually(t, 10*time.Second, "both MachineConfigs", func() (bool, string) {
		_, errM := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Get(context.Background(), masterMC, metav1.GetOptions{})
		_, errW := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Get(context.Background(), workerMC, metav1.GetOptions{})
		return errM == nil && errW == nil, fmt.Sprint(errM, errW)
	})
	ctrl.settle(t) // the creates' own events are over
	writes := countWrites(t)

	dir := t.TempDir()
	for i := range 100 {
		doc := fmt.Sprintf(`apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata: {name: burst-%03d}
spec:
  imageDigestMirrors:
  - source: quay.io/burst/app-%03d
    mirrors: [mirror.local/burst/app-%03d]
`, i, i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("idms-%03d.yaml", i)), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	cp.RunKubectl(t, "apply", "-f", dir)
	applied := time.Since(start)

	framework.Eventually(t, 30*time.Second, "all 100 sources", func() (bool, string) {
		conf := registriesConf(t, workerMC)
		n := 0
		for i := range 100 {
			if e := entry(conf, fmt.Sprintf("quay.io/burst/app-%03d", i)); e != nil && len(e.Mirrors) == 1 {
				n++
			}
		}
		return n == 100, fmt.Sprintf("%d of 100", n)
	})
	framework.Quiet(t, 2*time.Second, "a third write of a pool", ctrl.pokedSync(t), func() (bool, string) {
		m, w := writes.get(masterMC), writes.get(workerMC)
		return m > 2 || w > 2, fmt.Sprintf("writes: master %d, worker %d", m, w)
	})
	for _, name := range []string{masterMC, workerMC} {
		if n := writes.get(name); n > 2 || n == 0 {
			t.Errorf("%s: %d writes for a burst of 100 objects applied in %s, want 1 or 2", name, n, applied.Round(time.Millisecond))
		}
	}
	t.Logf("kubectl applied 100 objects in %s; writes: master %d, worker %d", applied.Round(time.Millisecond), writes.get(masterMC), writes.get(workerMC))
}

func TestHandEditsAreRevertedAndDeletionsRecreated(t *testing.T) {
	cp.Reset(t)
	apply(t, fixtures.IDMS("guarded", fixtures.Mirror("quay.io/guarded", "m.local/guarded")))
	startInProcess(t, cp.RESTConfig, fastSettle, 0)
	waitForEntry(t, "quay.io/guarded", "the mirror", func(e *sysregistriesv2.Registry) bool { return e != nil })
	ctx := context.Background()
	mcs := cp.MachineConfig.MachineconfigurationV1().MachineConfigs()

	// A hand edit of the files is reverted; a label someone else added stays.
	cp.RunKubectl(t, "label", "machineconfig", workerMC, "owner=someone-else")
	before, err := mcs.Get(ctx, workerMC, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cp.RunKubectl(t, "patch", "machineconfig", workerMC, "--type=json", "-p", `[{"op":"replace","path":"/spec/config","value":{"ignition":{"version":"3.5.0"}}}]`)
	framework.Eventually(t, 10*time.Second, "the reverted file", func() (bool, string) {
		mc, err := mcs.Get(ctx, workerMC, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		files := framework.MustNodeFiles(t, mc)
		return mc.ResourceVersion != before.ResourceVersion && files["/etc/containers/registries.conf"] == framework.MustNodeFiles(t, before)["/etc/containers/registries.conf"], fmt.Sprint(len(files), " files")
	})
	mc, err := mcs.Get(ctx, workerMC, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if mc.Labels["owner"] != "someone-else" {
		t.Errorf("foreign label lost on revert: %v", mc.Labels)
	}
	if len(mc.ManagedFields) == 0 {
		t.Errorf("no managed fields recorded")
	}

	// A deleted MachineConfig comes back.
	cp.RunKubectl(t, "delete", "machineconfig", masterMC)
	waitForEntry(t, "quay.io/guarded", "the recreated MachineConfig", func(e *sysregistriesv2.Registry) bool { return e != nil })
}

func TestInvalidInputIsReportedOnTheObjectAndWritesNothing(t *testing.T) {
	cp.Reset(t)
	apply(t, fixtures.IDMS("good", fixtures.Mirror("quay.io/good", "m.local/good")))
	ctrl := startInProcess(t, cp.RESTConfig, fastSettle, 0)
	waitForEntry(t, "quay.io/good", "the good mirror", func(e *sysregistriesv2.Registry) bool { return e != nil })
	ctrl.settle(t) // the first writes' own events are over
	writes := countWrites(t)

	// ImageContentSourcePolicy has no API validation: the API server takes a scheme in a mirror.
	apply(t, fixtures.ICSP("team-a", fixtures.Mirror("quay.io/team-a", "https://m.local/team-a")))
	framework.Eventually(t, 10*time.Second, "a Warning event on the ImageContentSourcePolicy", func() (bool, string) {
		evs := events(t, "team-a", "InvalidMirrorConfiguration")
		if len(evs) == 0 {
			return false, "no event"
		}
		e := evs[0]
		want := `spec.repositoryDigestMirrors[0].mirrors[0]: "https://m.local/team-a": a mirror must not carry a scheme`
		ok := e.Type == "Warning" && e.InvolvedObject.Kind == "ImageContentSourcePolicy" && strings.Contains(e.Message, want)
		return ok, e.Type + " " + e.Message
	})
	out := cp.RunKubectl(t, "describe", "imagecontentsourcepolicy", "team-a")
	if !strings.Contains(out, "InvalidMirrorConfiguration") || !strings.Contains(out, "must not carry a scheme") {
		t.Errorf("kubectl describe does not show the problem:\n%s", out)
	}
	// More syncs (an unrelated change) do not repeat the event or write anything.
	apply(t, fixtures.IDMS("good", fixtures.Mirror("quay.io/good", "m.local/good", "m2.local/good")))
	framework.Quiet(t, 2*time.Second, "a write while the input is invalid", ctrl.pokedSync(t), func() (bool, string) {
		m, w := writes.get(masterMC), writes.get(workerMC)
		return m+w != 0, fmt.Sprintf("writes: master %d, worker %d", m, w)
	})
	for _, name := range []string{masterMC, workerMC} {
		if n := writes.get(name); n != 0 {
			t.Fatalf("%s written %d times while the input was invalid", name, n)
		}
	}
	if e := events(t, "team-a", "InvalidMirrorConfiguration"); len(e) != 1 || e[0].Count != 1 {
		t.Errorf("the unchanged problem was reported again: %+v", e)
	}
	if conf := registriesConf(t, workerMC); entry(conf, "quay.io/team-a") != nil || len(entry(conf, "quay.io/good").Mirrors) != 1 {
		t.Errorf("the last good content was not kept: %+v", conf)
	}

	// Fixing it applies everything that waited and says so on the object.
	cp.RunKubectl(t, "patch", "imagecontentsourcepolicy", "team-a", "--type=json", "-p", `[{"op":"replace","path":"/spec/repositoryDigestMirrors/0/mirrors/0","value":"m.local/team-a"}]`)
	waitForEntry(t, "quay.io/team-a", "the fixed mirror", func(e *sysregistriesv2.Registry) bool { return e != nil })
	waitForEntry(t, "quay.io/good", "the change made meanwhile", func(e *sysregistriesv2.Registry) bool { return e != nil && len(e.Mirrors) == 2 })
	framework.Eventually(t, 10*time.Second, "a Normal event on the fixed object", func() (bool, string) {
		evs := events(t, "team-a", "MirrorConfigurationApplied")
		return len(evs) == 1 && evs[0].Type == "Normal", fmt.Sprint(len(evs))
	})
}

func TestPoolsGetMachineConfigsAndLoseThemWhenRemoved(t *testing.T) {
	cp.Reset(t)
	// With a CRIOCredentialProviderConfig, each built-in pool has both outputs: both go with the pool. The Image
	// "cluster", which every cluster has, controls the registries MachineConfigs: that reference says they are ours
	// (without it, they would be taken for an admin's and left alone).
	apply(t, fixtures.Image(), fixtures.CRIOCredentialProviderConfig("example.com"))
	ctrl := startInProcess(t, cp.RESTConfig, fastSettle, 0)
	ctx := context.Background()
	mcs := cp.MachineConfig.MachineconfigurationV1().MachineConfigs()
	exists := func(name string) func() (bool, string) {
		return func() (bool, string) {
			_, err := mcs.Get(ctx, name, metav1.GetOptions{})
			return err == nil, fmt.Sprint(err)
		}
	}
	gone := func(name string) func() (bool, string) {
		return func() (bool, string) { ok, s := exists(name)(); return !ok, s }
	}
	framework.Eventually(t, 10*time.Second, "the worker MachineConfig", exists(workerMC))

	arbiter := fixtures.Pool("arbiter", true)
	if _, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigPools().Create(ctx, arbiter, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	infra := fixtures.Pool("infra", false)
	infra.Labels = map[string]string{fixtures.LabelPoolPrefix + "infra": ""} // a custom pool: inherits worker
	if _, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigPools().Create(ctx, infra, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 10*time.Second, "the new built-in pool's MachineConfig", exists("99-arbiter-generated-registries"))
	framework.Eventually(t, 10*time.Second, "the new built-in pool's credential providers MachineConfig", exists("97-arbiter-generated-credentialproviderconfig"))
	infraMCs := []string{"99-infra-generated-registries", "97-infra-generated-credentialproviderconfig"}
	framework.Quiet(t, time.Second, "a MachineConfig of the custom pool", ctrl.pokedSync(t), func() (bool, string) {
		for _, name := range infraMCs {
			if ok, _ := exists(name)(); ok {
				return true, name + " exists"
			}
		}
		return false, "none"
	})
	for _, name := range infraMCs {
		if ok, _ := exists(name)(); ok {
			t.Errorf("a custom pool got its own MachineConfig %s; it should inherit the worker one", name)
		}
	}
	cp.RunKubectl(t, "delete", "machineconfigpool", "arbiter")
	framework.Eventually(t, 10*time.Second, "the removed pool's MachineConfig to be deleted", gone("99-arbiter-generated-registries"))
	framework.Eventually(t, 10*time.Second, "the removed pool's credential providers MachineConfig to be deleted", gone("97-arbiter-generated-credentialproviderconfig"))
	if ok, _ := exists(workerMC)(); !ok {
		t.Errorf("the worker MachineConfig went too")
	}
}

func TestWithoutClusterVersionBlockedRegistriesAreNotApplied(t *testing.T) {
	cp.Reset(t)
	cp.RunKubectl(t, "delete", "clusterversion", "version")
	apply(t, fixtures.Image(fixtures.Blocked("docker.io")))
	startInProcess(t, cp.RESTConfig, fastSettle, 0)
	framework.Eventually(t, 10*time.Second, "a Warning event on the Image", func() (bool, string) {
		evs := events(t, "cluster", "MirrorConfigurationNotApplied")
		return len(evs) == 1 && strings.Contains(evs[0].Message, "release payload is unknown"), fmt.Sprint(evs)
	})
	waitForEntry(t, "docker.io", "no blocked entry", func(e *sysregistriesv2.Registry) bool { return e == nil })
	if _, err := cp.CreateClusterVersion(context.Background(), fixtures.ReleaseImage); err != nil {
		t.Fatal(err)
	}
	waitForEntry(t, "docker.io", "docker.io blocked once the payload is known", func(e *sysregistriesv2.Registry) bool { return e != nil && e.Blocked })
}

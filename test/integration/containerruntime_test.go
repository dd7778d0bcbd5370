package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/openshift/registries-controller/pkg/containerruntime"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

// ctrcfgFor returns a ContainerRuntimeConfig selecting the MCO pool named pool by its label.
func ctrcfgFor(name, pool string, spec mcfgv1.ContainerRuntimeConfiguration) *mcfgv1.ContainerRuntimeConfig {
	return &mcfgv1.ContainerRuntimeConfig{
		TypeMeta:   metav1.TypeMeta{APIVersion: "machineconfiguration.openshift.io/v1", Kind: "ContainerRuntimeConfig"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: mcfgv1.ContainerRuntimeConfigSpec{
			MachineConfigPoolSelector: &metav1.LabelSelector{MatchLabels: map[string]string{fixtures.LabelPoolPrefix + pool: ""}},
			ContainerRuntimeConfig:    &spec,
		},
	}
}

// ctrcfgState says what the API server holds of a ContainerRuntimeConfig: its suffix annotation, finalizers and
// last condition.
func ctrcfgState(t *testing.T, name string) string {
	t.Helper()
	crc, err := cp.MachineConfig.MachineconfigurationV1().ContainerRuntimeConfigs().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return err.Error()
	}
	suffix, ok := crc.Annotations[containerruntime.SuffixAnnotation]
	last := "no condition"
	if n := len(crc.Status.Conditions); n > 0 {
		c := crc.Status.Conditions[n-1]
		last = fmt.Sprintf("%s/%s %q gen %d/%d (%d conditions)", c.Type, c.Status, c.Message, crc.Status.ObservedGeneration, crc.Generation, n)
	}
	return fmt.Sprintf("suffix %q (%v), finalizers %v, %s", suffix, ok, crc.Finalizers, last)
}

// crcMachineConfigFiles returns the paths and contents of a MachineConfig's files, or why there are none.
func crcMachineConfigFiles(t *testing.T, name string) (map[string]string, *mcfgv1.MachineConfig, error) {
	t.Helper()
	mc, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return nil, nil, err
	}
	cfg, err := machineconfigs.Decode(mc)
	if err != nil {
		return nil, mc, err
	}
	out := map[string]string{}
	for _, f := range cfg.Files {
		out[f.Path] = string(f.Data)
	}
	return out, mc, nil
}

// Issue 21 §3 against the real API server: create, a second object on the pool (suffix 1), an invalid change (status,
// event, last good content kept), the fix, a resync with no write, and deletion (finalizers removed, MachineConfigs
// gone).
func TestContainerRuntimeConfigsThroughTheAPIServer(t *testing.T) {
	cp.Reset(t)
	writes := countWrites(t)
	ctrl := startInProcess(t, cp.RESTConfig, fastSettle, 2*time.Second)
	crcs := cp.MachineConfig.MachineconfigurationV1().ContainerRuntimeConfigs()
	t.Cleanup(func() {
		// Deleted while the controller runs: it removes the finalizers it added.
		for _, name := range []string{"a", "b"} {
			_ = crcs.Delete(context.Background(), name, metav1.DeleteOptions{})
		}
		framework.Eventually(t, 30*time.Second, "every ContainerRuntimeConfig gone", func() (bool, string) {
			l, err := crcs.List(context.Background(), metav1.ListOptions{})
			return err == nil && len(l.Items) == 0, fmt.Sprint(err, l)
		})
	})
	const base, first = "99-worker-generated-containerruntime", "99-worker-generated-containerruntime-1"

	apply(t, ctrcfgFor("a", "worker", mcfgv1.ContainerRuntimeConfiguration{LogLevel: "debug", PidsLimit: ptr.To[int64](4096)}))
	framework.Eventually(t, 30*time.Second, "a's MachineConfig and its annotation, finalizer and Success", func() (bool, string) {
		files, _, err := crcMachineConfigFiles(t, base)
		st := ctrcfgState(t, "a")
		return err == nil && files[containerruntime.LogLevelDropIn] == "[crio]\n  [crio.runtime]\n    log_level = \"debug\"\n" &&
			st == `suffix "" (true), finalizers [99-worker-generated-containerruntime], Success/True "Success" gen 1/1 (1 conditions)`, fmt.Sprint(err, files, st)
	})
	_, mc, _ := crcMachineConfigFiles(t, base)
	if o := mc.OwnerReferences; len(o) != 1 || o[0].Kind != "ContainerRuntimeConfig" || o[0].Name != "a" || !*o[0].Controller ||
		mc.Labels[mcfgv1.MachineConfigRoleLabelKey] != "worker" || len(mc.Annotations) != 0 {
		t.Errorf("owners %+v, labels %v, annotations %v", o, mc.Labels, mc.Annotations)
	}
	if _, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Get(context.Background(), "99-master-generated-containerruntime", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a MachineConfig for master, which a does not select: %v", err)
	}

	// A second object on the pool: suffix 1, merged after a's.
	time.Sleep(1100 * time.Millisecond) // creation timestamps have second resolution
	apply(t, ctrcfgFor("b", "worker", mcfgv1.ContainerRuntimeConfiguration{LogLevel: "info"}))
	framework.Eventually(t, 30*time.Second, "b's MachineConfig -1", func() (bool, string) {
		files, _, err := crcMachineConfigFiles(t, first)
		st := ctrcfgState(t, "b")
		return err == nil && strings.Contains(files[containerruntime.LogLevelDropIn], `"info"`) &&
			st == `suffix "1" (true), finalizers [99-worker-generated-containerruntime-1], Success/True "Success" gen 1/1 (1 conditions)`, fmt.Sprint(err, files, st)
	})

	// An invalid change: Failure on the object, a Warning event, every MachineConfig keeps its content.
	apply(t, ctrcfgFor("a", "worker", mcfgv1.ContainerRuntimeConfiguration{LogLevel: "debug", PidsLimit: ptr.To[int64](10)}))
	framework.Eventually(t, 30*time.Second, "a's Failure", func() (bool, string) {
		st := ctrcfgState(t, "a")
		return strings.HasSuffix(st, `Failure/True "Error: invalid PidsLimit 10" gen 2/2 (2 conditions)`), st
	})
	if files, _, err := crcMachineConfigFiles(t, base); err != nil || !strings.Contains(files[containerruntime.PidsLimitDropIn], "pids_limit = 4096") {
		t.Errorf("the last good content is not kept: %v %v", files, err)
	}
	framework.Eventually(t, 20*time.Second, "a Warning event on a", func() (bool, string) {
		evs, err := cp.Kube.CoreV1().Events("").List(context.Background(), metav1.ListOptions{FieldSelector: "involvedObject.kind=ContainerRuntimeConfig,involvedObject.name=a,type=Warning"})
		if err != nil {
			return false, err.Error()
		}
		for _, e := range evs.Items {
			if strings.Contains(e.Message, "invalid PidsLimit 10") {
				return true, ""
			}
		}
		return false, fmt.Sprint(evs.Items)
	})

	// Fixed: Success again, and a resync writes nothing.
	apply(t, ctrcfgFor("a", "worker", mcfgv1.ContainerRuntimeConfiguration{LogLevel: "debug", PidsLimit: ptr.To[int64](2048)}))
	framework.Eventually(t, 30*time.Second, "a's Success of generation 3", func() (bool, string) {
		files, _, _ := crcMachineConfigFiles(t, base)
		st := ctrcfgState(t, "a")
		return strings.Contains(files[containerruntime.PidsLimitDropIn], "pids_limit = 2048") && strings.HasSuffix(st, `Success/True "Success" gen 3/3 (3 conditions)`), st
	})
	before, err := crcs.Get(context.Background(), "a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mcWrites := writes.get(base)
	framework.Quiet(t, 5*time.Second, "a write by a resync", ctrl.syncs(t, 2), func() (bool, string) { // resyncs every 2 s
		now, err := crcs.Get(context.Background(), "a", metav1.GetOptions{})
		if err != nil {
			return true, err.Error()
		}
		return now.ResourceVersion != before.ResourceVersion || writes.get(base) != mcWrites,
			fmt.Sprintf("object resourceVersion %s -> %s, MachineConfig writes %d -> %d", before.ResourceVersion, now.ResourceVersion, mcWrites, writes.get(base))
	})
	after, err := crcs.Get(context.Background(), "a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if after.ResourceVersion != before.ResourceVersion || writes.get(base) != mcWrites {
		t.Errorf("resyncs wrote: object resourceVersion %s -> %s, MachineConfig writes %d -> %d", before.ResourceVersion, after.ResourceVersion, mcWrites, writes.get(base))
	}

	// Deleting b: its MachineConfig goes, then its finalizer, then the object.
	if err := crcs.Delete(context.Background(), "b", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, "b and its MachineConfig gone", func() (bool, string) {
		_, errMC := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Get(context.Background(), first, metav1.GetOptions{})
		_, errObj := crcs.Get(context.Background(), "b", metav1.GetOptions{})
		return apierrors.IsNotFound(errMC) && apierrors.IsNotFound(errObj), fmt.Sprint(errMC, errObj)
	})
	if files, _, err := crcMachineConfigFiles(t, base); err != nil || files[containerruntime.LogLevelDropIn] == "" {
		t.Errorf("a's MachineConfig is touched by b's deletion: %v %v", files, err)
	}
}

// deleteContainerRuntimeConfigsOnCleanup deletes every ContainerRuntimeConfig while the controller still runs (it
// removes the finalizers it added) and waits until they are gone.
func deleteContainerRuntimeConfigsOnCleanup(t *testing.T) {
	t.Helper()
	crcs := cp.MachineConfig.MachineconfigurationV1().ContainerRuntimeConfigs()
	t.Cleanup(func() {
		_ = crcs.DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{})
		framework.Eventually(t, 30*time.Second, "every ContainerRuntimeConfig gone", func() (bool, string) {
			l, err := crcs.List(context.Background(), metav1.ListOptions{})
			return err == nil && len(l.Items) == 0, fmt.Sprint(err, l)
		})
	})
}

// containerRuntimeMachineConfigs lists the names of the MachineConfigs of the ContainerRuntimeConfigs.
func containerRuntimeMachineConfigs(t *testing.T) []string {
	t.Helper()
	l, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, mc := range l.Items {
		if strings.Contains(mc.Name, "-generated-containerruntime") {
			names = append(names, mc.Name)
		}
	}
	slices.Sort(names)
	return names
}

// Issue 21 §3 against the real API server: a custom pool, a selector change and one object selecting several pools
// (docs/semantics.md §11.1, §11.3, §11.5).
func TestContainerRuntimeConfigsOnCustomAndSeveralPoolsAndASelectorChange(t *testing.T) {
	cp.Reset(t)
	startInProcess(t, cp.RESTConfig, fastSettle, 2*time.Second)
	deleteContainerRuntimeConfigsOnCleanup(t)
	crcs := cp.MachineConfig.MachineconfigurationV1().ContainerRuntimeConfigs()

	// A custom pool with labels of its own, selected by them.
	infra := fixtures.Pool("infra", false)
	infra.Labels = map[string]string{"example.com/tier": "infra"}
	apply(t, infra)
	custom := ctrcfgFor("custom", "infra", mcfgv1.ContainerRuntimeConfiguration{LogLevel: "warn"})
	custom.Spec.MachineConfigPoolSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"example.com/tier": "infra"}}
	apply(t, custom)
	const infraMC = "99-infra-generated-containerruntime"
	framework.Eventually(t, 30*time.Second, "the custom pool's MachineConfig and custom's Success", func() (bool, string) {
		files, _, err := crcMachineConfigFiles(t, infraMC)
		st := ctrcfgState(t, "custom")
		return err == nil && files[containerruntime.LogLevelDropIn] == "[crio]\n  [crio.runtime]\n    log_level = \"warn\"\n" &&
			st == `suffix "" (true), finalizers [99-infra-generated-containerruntime], Success/True "Success" gen 1/1 (1 conditions)`, fmt.Sprint(err, files, st)
	})
	_, mc, _ := crcMachineConfigFiles(t, infraMC)
	if mc.Labels[mcfgv1.MachineConfigRoleLabelKey] != "infra" || len(mc.OwnerReferences) != 1 || mc.OwnerReferences[0].Name != "custom" {
		t.Errorf("%s: labels %v, owners %+v", infraMC, mc.Labels, mc.OwnerReferences)
	}
	if got := containerRuntimeMachineConfigs(t); !slices.Equal(got, []string{infraMC}) {
		t.Errorf("MachineConfigs %q, want only %s", got, infraMC)
	}

	// A selector change: from worker to master, the worker MachineConfig goes, the master one comes, the finalizer
	// follows and the suffix stays.
	apply(t, ctrcfgFor("mover", "worker", mcfgv1.ContainerRuntimeConfiguration{PidsLimit: ptr.To[int64](2048)}))
	framework.Eventually(t, 30*time.Second, "mover's worker MachineConfig", func() (bool, string) {
		files, _, err := crcMachineConfigFiles(t, "99-worker-generated-containerruntime")
		st := ctrcfgState(t, "mover")
		return err == nil && strings.Contains(files[containerruntime.PidsLimitDropIn], "pids_limit = 2048") &&
			st == `suffix "" (true), finalizers [99-worker-generated-containerruntime], Success/True "Success" gen 1/1 (1 conditions)`, fmt.Sprint(err, files, st)
	})
	apply(t, ctrcfgFor("mover", "master", mcfgv1.ContainerRuntimeConfiguration{PidsLimit: ptr.To[int64](2048)}))
	framework.Eventually(t, 30*time.Second, "mover's MachineConfig moved from worker to master", func() (bool, string) {
		files, mc, err := crcMachineConfigFiles(t, "99-master-generated-containerruntime")
		_, errWorker := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Get(context.Background(), "99-worker-generated-containerruntime", metav1.GetOptions{})
		st := ctrcfgState(t, "mover")
		return err == nil && strings.Contains(files[containerruntime.PidsLimitDropIn], "pids_limit = 2048") &&
				mc.Labels[mcfgv1.MachineConfigRoleLabelKey] == "master" && apierrors.IsNotFound(errWorker) &&
				st == `suffix "" (true), finalizers [99-master-generated-containerruntime], Success/True "Success" gen 2/2 (1 conditions)`,
			fmt.Sprint(err, errWorker, files, st)
	})

	// One object selecting several pools (every built-in one): one MachineConfig per pool, one suffix on all of them,
	// one more than mover's on master (so not the free worker name without suffix).
	time.Sleep(1100 * time.Millisecond) // creation timestamps have second resolution
	several := ctrcfgFor("several", "", mcfgv1.ContainerRuntimeConfiguration{LogLevel: "error"})
	several.Spec.MachineConfigPoolSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: fixtures.LabelBuiltInPool, Operator: metav1.LabelSelectorOpExists},
	}}
	apply(t, several)
	framework.Eventually(t, 30*time.Second, "several's MachineConfigs on master and worker", func() (bool, string) {
		st := ctrcfgState(t, "several")
		var why []string
		ok := st == `suffix "1" (true), finalizers [99-master-generated-containerruntime-1 99-worker-generated-containerruntime-1], Success/True "Success" gen 1/1 (1 conditions)`
		for _, pool := range []string{"master", "worker"} {
			files, mc, err := crcMachineConfigFiles(t, "99-"+pool+"-generated-containerruntime-1")
			ok = ok && err == nil && strings.Contains(files[containerruntime.LogLevelDropIn], `"error"`) && mc.Labels[mcfgv1.MachineConfigRoleLabelKey] == pool
			why = append(why, fmt.Sprint(pool, err, files))
		}
		return ok, fmt.Sprint(st, why)
	})
	if got, want := containerRuntimeMachineConfigs(t), []string{
		"99-infra-generated-containerruntime", "99-master-generated-containerruntime", "99-master-generated-containerruntime-1", "99-worker-generated-containerruntime-1",
	}; !slices.Equal(got, want) {
		t.Errorf("MachineConfigs %q, want %q", got, want)
	}

	// several deleted: both its MachineConfigs go, the others stay.
	if err := crcs.Delete(context.Background(), "several", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, "several's MachineConfigs gone", func() (bool, string) {
		got := containerRuntimeMachineConfigs(t)
		return slices.Equal(got, []string{"99-infra-generated-containerruntime", "99-master-generated-containerruntime"}), fmt.Sprint(got)
	})
}

// Issue 21 §3, the gate off (docs/semantics.md §11.1): the kind is not gated, the feature gate
// AdditionalStorageConfig is. Off, the store lists are left out of the object's MachineConfig; on, they are written,
// without a restart; off again, they go.
func TestContainerRuntimeConfigStoresFollowTheFeatureGate(t *testing.T) {
	cp.Reset(t)
	kubectlApply(t, "apiVersion: config.openshift.io/v1\nkind: FeatureGate\nmetadata:\n  name: cluster\nspec:\n  featureSet: CustomNoUpgrade\n  customNoUpgrade:\n    disabled: [AdditionalStorageConfig]\n")
	ctrl := startInProcess(t, cp.RESTConfig, fastSettle, 0)
	deleteContainerRuntimeConfigsOnCleanup(t)
	const name = "99-worker-generated-containerruntime"
	apply(t, ctrcfgFor("stores", "worker", mcfgv1.ContainerRuntimeConfiguration{
		LogLevel:                 "info",
		AdditionalLayerStores:    []mcfgv1.AdditionalLayerStore{{Path: "/var/lib/layers"}},
		AdditionalArtifactStores: []mcfgv1.AdditionalArtifactStore{{Path: "/var/lib/artifacts"}},
	}))
	withoutStores := func() (bool, string) {
		files, _, err := crcMachineConfigFiles(t, name)
		_, storage := files[containerruntime.StorageConf]
		_, artifacts := files[containerruntime.ArtifactStoresDropIn]
		return err == nil && files[containerruntime.LogLevelDropIn] != "" && !storage && !artifacts, fmt.Sprint(err, files)
	}
	framework.Eventually(t, 30*time.Second, "the log level alone, the gate off", withoutStores)
	framework.Quiet(t, 2*time.Second, "a store written with the gate off", ctrl.pokedSync(t), func() (bool, string) {
		ok, why := withoutStores()
		return !ok, why
	})
	if st := ctrcfgState(t, "stores"); st != `suffix "" (true), finalizers [99-worker-generated-containerruntime], Success/True "Success" gen 1/1 (1 conditions)` {
		t.Errorf("the object with the gate off: %s", st)
	}

	cp.RunKubectl(t, "patch", "featuregate", "cluster", "--type=merge", "-p", `{"spec":{"customNoUpgrade":{"disabled":[]}}}`)
	framework.Eventually(t, 30*time.Second, "the stores written once the gate is on", func() (bool, string) {
		files, _, err := crcMachineConfigFiles(t, name)
		return err == nil && strings.Contains(files[containerruntime.StorageConf], `additionallayerstores = ["/var/lib/layers:ref"]`) &&
			files[containerruntime.ArtifactStoresDropIn] == "[crio]\n  [crio.runtime]\n    additional_artifact_stores = [\"/var/lib/artifacts\"]\n" &&
			files[containerruntime.LogLevelDropIn] != "", fmt.Sprint(err, files)
	})

	cp.RunKubectl(t, "patch", "featuregate", "cluster", "--type=merge", "-p", `{"spec":{"customNoUpgrade":{"disabled":["AdditionalStorageConfig"]}}}`)
	framework.Eventually(t, 30*time.Second, "the stores gone once the gate is off again", withoutStores)
}

package integration

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/containers/image/v5/pkg/sysregistriesv2"
	configv1 "github.com/openshift/api/config/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

const (
	masterCredsMC = "97-master-generated-credentialproviderconfig"
	workerCredsMC = "97-worker-generated-credentialproviderconfig"
	credsDir      = "/etc/kubernetes/credential-providers/"
	credsDropIn   = "/etc/systemd/system/kubelet.service.d/40-kubelet-crio-image-credential-provider.conf"
)

// credentialFiles returns the node files of a credential providers MachineConfig, by base name of the provider file
// ("generic-credential-provider.yaml") or "drop-in"; nil when it does not exist.
func credentialFiles(t *testing.T, name string) map[string]string {
	t.Helper()
	mc, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for path, data := range framework.MustNodeFiles(t, mc) {
		switch {
		case path == credsDropIn:
			out["drop-in"] = data
		case strings.HasPrefix(path, credsDir):
			out[filepath.Base(path)] = data
		default:
			t.Fatalf("%s writes %s", name, path)
		}
	}
	return out
}

// credentialConditions returns the CRIOCredentialProviderConfig's conditions as "Type=Status/Reason gen N: message".
func credentialConditions(t *testing.T) []string {
	t.Helper()
	o, err := cp.Config.ConfigV1().CRIOCredentialProviderConfigs().Get(context.Background(), "cluster", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range o.Status.Conditions {
		out = append(out, fmt.Sprintf("%s=%s/%s gen %d: %s", c.Type, c.Status, c.Reason, c.ObservedGeneration, c.Message))
	}
	return out
}

// setPlatform creates or updates the Infrastructure "cluster" with status.platformStatus.type platform.
func setPlatform(t *testing.T, platform configv1.PlatformType) {
	t.Helper()
	if _, err := cp.Config.ConfigV1().Infrastructures().Get(context.Background(), "cluster", metav1.GetOptions{}); apierrors.IsNotFound(err) {
		kubectlApply(t, "apiVersion: config.openshift.io/v1\nkind: Infrastructure\nmetadata:\n  name: cluster\nspec: {}\n")
	}
	cp.RunKubectl(t, "patch", "infrastructure", "cluster", "--subresource=status", "--type=merge", "-p",
		fmt.Sprintf(`{"status":{"platform":%q,"platformStatus":{"type":%q}}}`, platform, platform))
}

// waitForCredentialFiles waits until both pools' credential providers MachineConfig holds exactly want (base
// names and contents checked by check); want nil means the MachineConfig does not exist.
func waitForCredentialFiles(t *testing.T, what string, check func(files map[string]string) bool) {
	t.Helper()
	framework.Eventually(t, 20*time.Second, what, func() (bool, string) {
		var seen []string
		for _, name := range []string{masterCredsMC, workerCredsMC} {
			files := credentialFiles(t, name)
			if !check(files) {
				return false, fmt.Sprintf("%s: %v", name, slices.Sorted(maps.Keys(files)))
			}
			seen = append(seen, fmt.Sprint(slices.Sorted(maps.Keys(files))))
		}
		return true, strings.Join(seen, " ")
	})
}

// TestCredentialProvidersThroughTheAPIServer applies a CRIOCredentialProviderConfig with kubectl and follows the
// 97-<pool>-generated-credentialproviderconfig MachineConfigs and the object's status (docs/semantics.md §10): create,
// change, platform switches, an empty spec, delete; no write on a resync.
func TestCredentialProvidersThroughTheAPIServer(t *testing.T) {
	cp.Reset(t)
	writes := countWrites(t)
	ctrl := startInProcess(t, cp.RESTConfig, fastSettle, 2*time.Second)

	apply(t, fixtures.CRIOCredentialProviderConfig("example.com"))
	waitForCredentialFiles(t, "the generic file and the drop-in (no Infrastructure: platform None)", func(f map[string]string) bool {
		return strings.Contains(f["generic-credential-provider.yaml"], "  - example.com\n  name: crio-credential-provider\n") && strings.Contains(f["drop-in"], "KUBELET_CRIO_IMAGE_CREDENTIAL_PROVIDER_FLAGS")
	})
	framework.Eventually(t, 20*time.Second, "Validated and MachineConfigRendered True", func() (bool, string) {
		got := credentialConditions(t)
		return slices.Equal(got, []string{"Validated=True/Succeeded gen 1: Success", "MachineConfigRendered=True/MachineConfigRenderingSucceeded gen 1: Success"}), fmt.Sprint(got)
	})
	mc, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Get(context.Background(), workerCredsMC, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if o := mc.OwnerReferences; len(o) != 1 || o[0].Kind != "CRIOCredentialProviderConfig" || mc.Labels["machineconfiguration.openshift.io/role"] != "worker" {
		t.Errorf("owner %+v labels %v", o, mc.Labels)
	}

	// A change is one write per pool; a resync (every 2 s here) writes nothing, neither MachineConfigs nor status.
	apply(t, fixtures.CRIOCredentialProviderConfig("example.com", "quay.io"))
	waitForCredentialFiles(t, "both images", func(f map[string]string) bool {
		return strings.Contains(f["generic-credential-provider.yaml"], "  - example.com\n  - quay.io\n")
	})
	framework.Eventually(t, 20*time.Second, "the conditions of generation 2", func() (bool, string) {
		got := credentialConditions(t)
		return len(got) == 2 && strings.Contains(got[0], "gen 2") && strings.Contains(got[1], "gen 2"), fmt.Sprint(got)
	})
	time.Sleep(time.Second) // the change's own writes (MachineConfig, then status) are over: not a negative wait
	before := writes.get(workerCredsMC)
	cfg, err := cp.Config.ConfigV1().CRIOCredentialProviderConfigs().Get(context.Background(), "cluster", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	framework.Quiet(t, 5*time.Second, "a write by a resync", ctrl.syncs(t, 2), func() (bool, string) {
		after, err := cp.Config.ConfigV1().CRIOCredentialProviderConfigs().Get(context.Background(), "cluster", metav1.GetOptions{})
		if err != nil {
			return true, err.Error()
		}
		return writes.get(workerCredsMC) != before || after.ResourceVersion != cfg.ResourceVersion,
			fmt.Sprintf("MachineConfig writes %d -> %d, status resourceVersion %s -> %s", before, writes.get(workerCredsMC), cfg.ResourceVersion, after.ResourceVersion)
	})
	if n := writes.get(workerCredsMC); n != 2 {
		t.Errorf("%d writes of %s, want 2 (create, one change)", n, workerCredsMC)
	}

	// The platform decides the file: the cloud provider's own, extended, and no drop-in.
	for _, tc := range []struct {
		platform configv1.PlatformType
		file     string
		provider string
	}{
		{configv1.AWSPlatformType, "ecr-credential-provider.yaml", "name: ecr-credential-provider"},
		{configv1.GCPPlatformType, "gcr-credential-provider.yaml", "name: gcr-credential-provider"},
		{configv1.AzurePlatformType, "acr-credential-provider.yaml", "name: acr-credential-provider"},
		{configv1.NonePlatformType, "generic-credential-provider.yaml", ""},
	} {
		setPlatform(t, tc.platform)
		waitForCredentialFiles(t, "the file of platform "+string(tc.platform), func(f map[string]string) bool {
			_, dropIn := f["drop-in"]
			return strings.Contains(f[tc.file], "name: crio-credential-provider") && strings.Contains(f[tc.file], tc.provider) &&
				dropIn == (tc.platform == configv1.NonePlatformType) && len(f) == map[bool]int{true: 2, false: 1}[dropIn]
		})
	}

	// On GCP an entry the cloud provider covers is skipped, and the status says so, as MCO's message does.
	setPlatform(t, configv1.GCPPlatformType)
	apply(t, fixtures.CRIOCredentialProviderConfig("quay.io", "gcr.io"))
	framework.Eventually(t, 20*time.Second, "Validated False, naming the skipped entry", func() (bool, string) {
		got := credentialConditions(t)
		want := "Validated=False/ConfigurationPartiallyApplied gen 3: CRIOCredentialProviderConfig has one or multiple entries that overlap " +
			"with the original credential provider config. Skip rendering entries: [gcr.io]."
		return len(got) == 2 && got[0] == want, fmt.Sprint(got)
	})
	framework.Eventually(t, 20*time.Second, "a Warning event naming the skipped entry", func() (bool, string) {
		for _, e := range events(t, "cluster", "MirrorConfigurationNotApplied") {
			if e.InvolvedObject.Kind == "CRIOCredentialProviderConfig" && strings.Contains(e.Message, `"gcr.io"`) {
				return true, e.Message
			}
		}
		return false, "no such event"
	})

	// An empty spec keeps the MachineConfigs, with no file; deleting the object removes them.
	kubectlApply(t, "apiVersion: config.openshift.io/v1\nkind: CRIOCredentialProviderConfig\nmetadata:\n  name: cluster\nspec: {}\n")
	waitForCredentialFiles(t, "MachineConfigs without files", func(f map[string]string) bool { return f != nil && len(f) == 0 })
	cp.RunKubectl(t, "delete", "criocredentialproviderconfig", "cluster", "--wait=true")
	waitForCredentialFiles(t, "no MachineConfig", func(f map[string]string) bool { return f == nil })
	// The counter moves once the delete call returns, which may be after a watch saw the MachineConfig go.
	framework.Eventually(t, 5*time.Second, "two deletes counted", func() (bool, string) {
		got := ctrl.counter(t, "registries_controller_machineconfig_writes_total", map[string]string{"output": "credentialproviderconfig", "operation": "delete"})
		return got == 2, fmt.Sprintf("deletes counted: %v, want 2", got)
	})
	if mcs, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Get(context.Background(), workerMC, metav1.GetOptions{}); err != nil || mcs == nil {
		t.Errorf("the registries MachineConfig went too: %v", err)
	}
}

// TestAGateOffLeavesTheCredentialProvidersAloneAndAMissingCRDStopsNothingElse: with the feature gate off the
// object is not read and its MachineConfigs are left as they are; with the gate on and the CRD missing, /readyz
// names it and the registries MachineConfigs are still written.
func TestAGateOffLeavesTheCredentialProvidersAloneAndAMissingCRDStopsNothingElse(t *testing.T) {
	cp.Reset(t)
	kubectlApply(t, "apiVersion: config.openshift.io/v1\nkind: FeatureGate\nmetadata:\n  name: cluster\nspec:\n  featureSet: CustomNoUpgrade\n  customNoUpgrade:\n    disabled: [CRIOCredentialProviderConfig]\n")
	ctrl := startInProcess(t, cp.RESTConfig, fastSettle, 0)
	apply(t, fixtures.CRIOCredentialProviderConfig("example.com"), fixtures.IDMS("a", fixtures.Mirror("quay.io/a", "m.local/a")))
	waitForEntry(t, "quay.io/a", "the registries MachineConfigs", func(e *sysregistriesv2.Registry) bool { return e != nil })
	framework.Quiet(t, 2*time.Second, "a credential providers MachineConfig written with the gate off", ctrl.pokedSync(t), func() (bool, string) {
		f := credentialFiles(t, workerCredsMC)
		return f != nil, fmt.Sprint(slices.Sorted(maps.Keys(f)))
	})
	if f := credentialFiles(t, workerCredsMC); f != nil {
		t.Fatalf("with the gate off, %s was written: %v", workerCredsMC, slices.Sorted(maps.Keys(f)))
	}

	// The gate on: the object is read from then on, without a restart.
	cp.RunKubectl(t, "patch", "featuregate", "cluster", "--type=merge", "-p", `{"spec":{"customNoUpgrade":{"disabled":[]}}}`)
	waitForCredentialFiles(t, "the MachineConfigs once the gate is on", func(f map[string]string) bool { return f["generic-credential-provider.yaml"] != "" })

	// The object deleted: its MachineConfigs go. (Deleting the CRD deletes the object too, but this control plane
	// runs no garbage collector, and the controller may see the CRD terminating before the object's deletion, in
	// which case it leaves the MachineConfigs alone, as it must for a kind it cannot read: on a cluster, garbage
	// collection takes them through their owner reference. So the object goes first, then the CRD.)
	cp.RunKubectl(t, "delete", "criocredentialproviderconfig", "cluster", "--wait=true")
	waitForCredentialFiles(t, "the MachineConfigs of the deleted object gone", func(f map[string]string) bool { return f == nil })

	// The CRD removed: /readyz names it, the registries MachineConfigs are still written, and a credential providers
	// MachineConfig written meanwhile by another build is left alone until the CRD is back.
	crd := "criocredentialproviderconfigs.config.openshift.io"
	cp.RunKubectl(t, "delete", "crd", crd, "--wait=true")
	t.Cleanup(func() {
		root, err := framework.RepoRoot()
		if err != nil {
			t.Fatal(err)
		}
		cp.RunKubectl(t, "apply", "-f", filepath.Join(root, "pkg", "crds", "0000_10_config-operator_01_criocredentialproviderconfigs-SelfManagedHA.crd.yaml"))
		cp.RunKubectl(t, "wait", "--for=condition=Established", "crd/"+crd)
	})
	framework.Eventually(t, 60*time.Second, "/readyz naming the missing CRD", func() (bool, string) {
		ready, why := ctrl.health.Ready()
		return !ready && strings.Contains(why, "CRIOCredentialProviderConfig (criocredentialproviderconfigs.config.openshift.io/v1), which counts because its feature gate CRIOCredentialProviderConfig is on"), why
	})
	kubectlApply(t, `apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfig
metadata:
  name: 97-worker-generated-credentialproviderconfig
  labels: {machineconfiguration.openshift.io/role: worker}
  annotations: {machineconfiguration.openshift.io/generated-by-controller-version: other-build}
spec:
  config: {ignition: {version: 3.5.0}}
`)
	apply(t, fixtures.IDMS("b", fixtures.Mirror("quay.io/b", "m.local/b")))
	waitForEntry(t, "quay.io/b", "a registries change while the CRD is missing", func(e *sysregistriesv2.Registry) bool { return e != nil })
	framework.Quiet(t, 2*time.Second, "the deletion of a credential providers MachineConfig while the CRD is missing", ctrl.pokedSync(t), func() (bool, string) {
		return credentialFiles(t, workerCredsMC) == nil, workerCredsMC + " is gone"
	})
	if f := credentialFiles(t, workerCredsMC); f == nil {
		t.Errorf("%s was deleted while the CRD was missing: nothing says whether the object exists", workerCredsMC)
	}
}

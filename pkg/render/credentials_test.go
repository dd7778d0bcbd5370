package render_test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	"k8s.io/utils/ptr"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/test/fixtures"
)

// goldenNode reads a node file MCO writes, hand-written from its outputs in pkg/credentialprovider's golden cases.
func goldenNode(t *testing.T, dir, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "credentialprovider", "testdata", "golden", dir, "node", filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func credentialInputs(platform configv1.PlatformType, images ...string) *inputs.Inputs {
	in := exampleInputs()
	in.Infrastructure = fixtures.Infrastructure(platform)
	in.CRIOCredentialProviderConfig = fixtures.CRIOCredentialProviderConfig(images...)
	return in
}

// TestTheCredentialProvidersMachineConfigIsMCOs checks 97-<pool>-generated-credentialproviderconfig against MCO's
// raw config, byte for byte (docs/semantics.md §10.4): the generic file then the drop-in on platform None, an
// owner reference to the CRIOCredentialProviderConfig, the role label; and the registries MachineConfigs beside it.
func TestTheCredentialProvidersMachineConfigIsMCOs(t *testing.T) {
	out, err := render.Render(credentialInputs(configv1.NonePlatformType, "example.com"), opts)
	if err != nil {
		t.Fatal(err)
	}
	const dir = "on_platform_none_the_generic_file_and_the_kubelet_drop_in_are_written"
	provider := goldenNode(t, dir, "/etc/kubernetes/credential-providers/generic-credential-provider.yaml")
	dropIn := goldenNode(t, dir, "/etc/systemd/system/kubelet.service.d/40-kubelet-crio-image-credential-provider.conf")
	wantRaw := `{"ignition":{"version":"3.5.0"},"storage":{"files":[` +
		`{"overwrite":true,"path":"/etc/kubernetes/credential-providers/generic-credential-provider.yaml","contents":{"compression":"","source":"data:text/plain;charset=utf-8;base64,` + base64.StdEncoding.EncodeToString(provider) + `"},"mode":420},` +
		`{"overwrite":true,"path":"/etc/systemd/system/kubelet.service.d/40-kubelet-crio-image-credential-provider.conf","contents":{"compression":"","source":"data:text/plain;charset=utf-8;base64,` + base64.StdEncoding.EncodeToString(dropIn) + `"},"mode":420}]}}`
	var names []string
	for _, d := range out.MachineConfigs {
		names = append(names, d.Object.Name)
		if d.Key.Output != machineconfigs.CredentialProviders {
			continue
		}
		mc := d.Object
		if string(mc.Spec.Config.Raw) != wantRaw {
			t.Errorf("%s:\n got %s\nwant %s", mc.Name, mc.Spec.Config.Raw, wantRaw)
		}
		if mc.Labels["machineconfiguration.openshift.io/role"] != d.Key.Pool || len(mc.Labels) != 1 {
			t.Errorf("%s: labels %v", mc.Name, mc.Labels)
		}
		if len(mc.Annotations) != 0 {
			t.Errorf("%s: annotations %v, want none (MCO's render controller refuses another build's version)", mc.Name, mc.Annotations)
		}
		if o := mc.OwnerReferences; len(o) != 1 || o[0].Kind != "CRIOCredentialProviderConfig" || o[0].Name != "cluster" ||
			o[0].APIVersion != "config.openshift.io/v1" || o[0].UID != "uid-cluster" || !ptr.Deref(o[0].Controller, false) || o[0].BlockOwnerDeletion != nil {
			t.Errorf("%s: owner references %+v, want the object as controller, blocking nothing", mc.Name, o)
		}
	}
	want := "99-master-generated-registries 99-worker-generated-registries 97-master-generated-credentialproviderconfig 97-worker-generated-credentialproviderconfig"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("MachineConfigs %s, want %s", got, want)
	}
	if r := out.StateOf(machineconfigs.CredentialProviders); r.State != machineconfigs.Written || len(out.PoolFiles("worker")) != len(out.OutputFiles("worker", machineconfigs.Registries))+2 {
		t.Errorf("credentials output %s with %d files", r.State, len(out.OutputFiles("worker", machineconfigs.CredentialProviders)))
	}
}

func TestTheCredentialProvidersOutputFollowsTheObjectTheGateAndTheCRD(t *testing.T) {
	disabled := &configv1.FeatureGate{}
	disabled.Name = "cluster"
	disabled.Status.FeatureGates = []configv1.FeatureGateDetails{{Disabled: []configv1.FeatureGateAttributes{{Name: inputs.GateCRIOCredentialProviderConfig}}}}
	for _, tc := range []struct {
		name    string
		edit    func(*inputs.Inputs)
		state   machineconfigs.State
		raw     string // of the worker's MachineConfig, "" when none
		warning string
	}{
		{"an empty spec writes a MachineConfig without files, as MCO", func(in *inputs.Inputs) {
			in.CRIOCredentialProviderConfig = fixtures.CRIOCredentialProviderConfig()
		}, machineconfigs.Written, `{"ignition":{"version":"3.5.0"}}`, ""},
		{"every entry overlapping the cloud provider's writes no file either", func(in *inputs.Inputs) {
			in.Infrastructure = fixtures.Infrastructure(configv1.GCPPlatformType)
			in.CRIOCredentialProviderConfig = fixtures.CRIOCredentialProviderConfig("gcr.io", "*.gcr.io")
		}, machineconfigs.Written, `{"ignition":{"version":"3.5.0"}}`, `CRIOCredentialProviderConfig "cluster": spec.matchImages[1]: "*.gcr.io": overlaps`},
		{"without the object its MachineConfigs are removed", func(in *inputs.Inputs) { in.CRIOCredentialProviderConfig = nil }, machineconfigs.Removed, "", ""},
		{"with the gate off they are left alone", func(in *inputs.Inputs) { in.FeatureGate = disabled }, machineconfigs.Unmanaged, "", ""},
		{"without the CRD they are left alone, and a warning says why", func(in *inputs.Inputs) {
			in.CRIOCredentialProviderConfig = nil
			in.Unwatched = map[string]string{inputs.KindCRIOCredentialProvider: "the API server does not serve it (its CRD is missing)"}
		}, machineconfigs.Unmanaged, "", "the feature gate CRIOCredentialProviderConfig is on, but the API server does not serve it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := credentialInputs(configv1.AWSPlatformType, "example.com")
			tc.edit(in)
			out, err := render.Render(in, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := out.StateOf(machineconfigs.CredentialProviders).State; got != tc.state {
				t.Errorf("state %s, want %s", got, tc.state)
			}
			d := out.Desired(machineconfigs.Key{Pool: "worker", Output: machineconfigs.CredentialProviders})
			switch {
			case tc.raw == "" && d != nil:
				t.Errorf("a MachineConfig %s", d.Object.Spec.Config.Raw)
			case tc.raw != "" && (d == nil || string(d.Object.Spec.Config.Raw) != tc.raw):
				t.Errorf("MachineConfig %+v, want %s", d, tc.raw)
			}
			var warnings []string
			for _, w := range out.Report.Warnings {
				warnings = append(warnings, w.String())
			}
			if got := strings.Join(warnings, "\n"); tc.warning != "" && !strings.Contains(got, tc.warning) || tc.warning == "" && strings.Contains(got, "CRIOCredentialProviderConfig") {
				t.Errorf("warnings %q, want one containing %q", got, tc.warning)
			}
		})
	}
}

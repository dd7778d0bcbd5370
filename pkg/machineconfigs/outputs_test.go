package machineconfigs_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/test/fixtures"
)

func TestEveryOutputNamesItsMachineConfigsAsMCODoes(t *testing.T) {
	for _, tc := range []struct {
		key  machineconfigs.Key
		name string
	}{
		{machineconfigs.Key{Pool: "worker", Output: machineconfigs.Registries}, "99-worker-generated-registries"},
		{machineconfigs.Key{Pool: "master", Output: machineconfigs.Registries}, "99-master-generated-registries"},
		{machineconfigs.Key{Pool: "my-pool-1", Output: machineconfigs.Registries}, "99-my-pool-1-generated-registries"},
		{machineconfigs.Key{Pool: "worker", Output: machineconfigs.CredentialProviders}, "97-worker-generated-credentialproviderconfig"},
		{machineconfigs.Key{Pool: "arbiter", Output: machineconfigs.CredentialProviders}, "97-arbiter-generated-credentialproviderconfig"},
	} {
		if got := tc.key.Name(); got != tc.name {
			t.Errorf("%s: name %q, want %q", tc.key, got, tc.name)
		}
		back, ok := machineconfigs.ParseName(tc.name)
		if !ok || back != tc.key {
			t.Errorf("ParseName(%q) = %v, %v; want %v", tc.name, back, ok, tc.key)
		}
	}
	for _, name := range []string{"99-generated-registries", "98-worker-generated-registries", "99-worker-generated-registriesx",
		"99-worker-generated-credentialproviderconfig", "97-worker-generated-registries",
		"rendered-worker-1234", "00-worker", "99-worker-generated-registries-old", ""} {
		if k, ok := machineconfigs.ParseName(name); ok {
			t.Errorf("ParseName(%q) = %v: not a generated MachineConfig", name, k)
		}
		if machineconfigs.IsGenerated(&mcfgv1.MachineConfig{}) {
			t.Errorf("a MachineConfig without a name is not generated")
		}
	}
}

func TestEveryManagedPathHasOneOwner(t *testing.T) {
	for _, tc := range []struct {
		path  string
		owner *machineconfigs.Output
	}{
		{"/etc/containers/registries.conf", machineconfigs.Registries},
		{"/etc/containers/policy.json", machineconfigs.Registries},
		{"/etc/containers/registries.conf.d/01-image-searchRegistries.conf", machineconfigs.Registries},
		{"/etc/containers/registries.d/sigstore-registries.yaml", machineconfigs.Registries},
		{"/etc/crio/policies/team-a.json", machineconfigs.Registries},
		{"/etc/crio/policies", nil},
		{"/etc/crio/policies-old/x.json", nil},
		{"/etc/containers/registries.d/other.yaml", nil},
		{"/etc/containers/registries.conf.d/99-other.conf", nil},
		{"/etc/kubernetes/kubelet.conf", nil},
		{"/etc/kubernetes/credential-providers/ecr-credential-provider.yaml", machineconfigs.CredentialProviders},
		{"/etc/kubernetes/credential-providers/generic-credential-provider.yaml", machineconfigs.CredentialProviders},
		{"/etc/systemd/system/kubelet.service.d/40-kubelet-crio-image-credential-provider.conf", machineconfigs.CredentialProviders},
		{"/etc/systemd/system/kubelet.service.d/20-logging.conf", nil},
	} {
		got, ok := machineconfigs.OwnerOf(tc.path)
		if got != tc.owner || ok != (tc.owner != nil) || machineconfigs.Managed(tc.path) != ok {
			t.Errorf("OwnerOf(%s) = %v, %v; want %v", tc.path, got, ok, tc.owner)
		}
	}
	for _, a := range machineconfigs.Outputs {
		for _, b := range machineconfigs.Outputs {
			if a == b {
				continue
			}
			for _, p := range a.Paths {
				if b.Owns(p.Path) || b.Owns(p.Path+"/x") && p.Dir {
					t.Errorf("%s is owned by %s and %s", p.Path, a, b)
				}
			}
		}
	}
}

func TestBuiltInPools(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pools []*mcfgv1.MachineConfigPool
		want  []string
	}{
		{"no pools means master and worker, as at install time", nil, []string{"master", "worker"}},
		{"only built-in pools count, sorted", []*mcfgv1.MachineConfigPool{fixtures.Pool("worker", true), fixtures.Pool("infra", false), fixtures.Pool("arbiter", true)}, []string{"arbiter", "worker"}},
		{"custom pools alone get none", []*mcfgv1.MachineConfigPool{fixtures.Pool("infra", false)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := machineconfigs.BuiltInPools(tc.pools); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// perObject is an output of the shape ContainerRuntimeConfig's takes: one MachineConfig per object and pool it
// selects, suffixed after the first, controlled by its object.
var perObject = &machineconfigs.Output{
	ID: "containerruntime", Prefix: "99", PerObject: true, Pools: machineconfigs.OnSelectedPools,
	Paths: []machineconfigs.Path{{Path: "/etc/containers/storage.conf"}, {Path: "/etc/crio/crio.conf.d", Dir: true}},
	Owner: machineconfigs.OwnerKind{APIVersion: "machineconfiguration.openshift.io/v1", Kind: "ContainerRuntimeConfig", BlockOwnerDeletion: true},
}

func TestAPerObjectOutputNamesEachObjectsMachineConfigWithItsSuffix(t *testing.T) {
	for _, tc := range []struct {
		key  machineconfigs.Key
		name string
	}{
		{machineconfigs.Key{Pool: "worker", Output: perObject}, "99-worker-generated-containerruntime"},
		{machineconfigs.Key{Pool: "worker", Output: perObject, Suffix: 1}, "99-worker-generated-containerruntime-1"},
		{machineconfigs.Key{Pool: "my-pool-2", Output: perObject, Suffix: 9}, "99-my-pool-2-generated-containerruntime-9"},
	} {
		if got := tc.key.Name(); got != tc.name {
			t.Errorf("%s: name %q, want %q", tc.key, got, tc.name)
		}
		back, ok := perObject.ParseName(tc.name)
		if !ok || back != tc.key {
			t.Errorf("ParseName(%q) = %v, %v; want %v", tc.name, back, ok, tc.key)
		}
	}
	for _, name := range []string{"99-worker-generated-containerruntime-0", "99-worker-generated-containerruntime-10",
		"99-worker-generated-containerruntime-01", "99-worker-generated-containerruntime-x", "99-worker-generated-containerruntime-",
		"50-worker-generated-containerruntime-mine", "99-generated-containerruntime-1"} {
		if k, ok := perObject.ParseName(name); ok {
			t.Errorf("ParseName(%q) = %v: not a MachineConfig of the output", name, k)
		}
	}
	if k, ok := machineconfigs.Registries.ParseName("99-worker-generated-registries-1"); ok {
		t.Errorf("a per-pool output takes no suffix: %v", k)
	}
}

func TestKeysOrderByOutputThenPoolThenSuffix(t *testing.T) {
	keys := []machineconfigs.Key{
		{Pool: "worker", Output: machineconfigs.CredentialProviders},
		{Pool: "worker", Output: machineconfigs.Registries},
		{Pool: "master", Output: machineconfigs.Registries},
	}
	slices.SortFunc(keys, machineconfigs.Key.Compare)
	var got []string
	for _, k := range keys {
		got = append(got, k.String())
	}
	if want := "master/registries worker/registries worker/credentialproviderconfig"; strings.Join(got, " ") != want {
		t.Errorf("sorted %s, want %s", strings.Join(got, " "), want)
	}
	a, b := machineconfigs.Key{Pool: "w", Output: perObject, Suffix: 2}, machineconfigs.Key{Pool: "w", Output: perObject, Suffix: 1}
	if !b.Less(a) || a.Less(b) || a.String() != "w/containerruntime-2" {
		t.Errorf("suffix order: %s < %s", b, a)
	}
}

package controller

import (
	"reflect"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// MCO's registries MachineConfig (its build in the version annotation, a plain reference to the Image) is taken over
// by a metadata-only update: the annotation dropped, the reference made a controller reference, every other writer's
// label, annotation and owner reference kept, the config as it was.
func TestAnUpdateTakesOverAMachineConfigMCOWrote(t *testing.T) {
	key := machineconfigs.Key{Pool: "worker", Output: machineconfigs.Registries}
	files := nodefiles.Files{{Path: nodefiles.RegistriesConf, Data: []byte("[[registry]]\n  location = \"quay.io/a\"\n")}}
	raw, err := machineconfigs.Encode(files)
	if err != nil {
		t.Fatal(err)
	}
	want := machineconfigs.NewDesired(key, files, raw, machineconfigs.Registries.Owner.Reference("cluster", "uid-cluster"))
	other := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "c", UID: "uid-c"}
	have := &mcfgv1.MachineConfig{
		ObjectMeta: metav1.ObjectMeta{
			Name:        key.Name(),
			Labels:      map[string]string{mcfgv1.MachineConfigRoleLabelKey: "worker", "team": "a"},
			Annotations: map[string]string{machineconfigs.VersionAnnotation: "f1a2b3c", "note": "kept"},
			OwnerReferences: []metav1.OwnerReference{
				{APIVersion: "config.openshift.io/v1", Kind: "Image", Name: "cluster", UID: "uid-cluster"}, other,
			},
			ResourceVersion: "7",
		},
		Spec: mcfgv1.MachineConfigSpec{Config: want.Object.Spec.Config},
	}
	if d := machineconfigs.DifferencesOf(have, machineconfigs.NewDecoder(1), want); len(d) != 2 || !d[0].Build || !d[1].Build {
		t.Fatalf("differences %+v, want the annotation and the controller flag, of the build", d)
	}
	got := merged(have, want)
	if !reflect.DeepEqual(got.Annotations, map[string]string{"note": "kept"}) {
		t.Errorf("annotations %v, want the other writer's alone", got.Annotations)
	}
	if got.Labels["team"] != "a" || got.Labels[mcfgv1.MachineConfigRoleLabelKey] != "worker" {
		t.Errorf("labels %v", got.Labels)
	}
	if refs := got.OwnerReferences; len(refs) != 2 || !reflect.DeepEqual(refs[0], other) || refs[1].Kind != "Image" ||
		refs[1].UID != "uid-cluster" || !ptr.Deref(refs[1].Controller, false) {
		t.Errorf("owner references %+v, want the ConfigMap's kept and the Image's a controller reference", refs)
	}
	if string(got.Spec.Config.Raw) != string(raw) || got.ResourceVersion != "7" {
		t.Errorf("config or resourceVersion changed: %s, %s", got.Spec.Config.Raw, got.ResourceVersion)
	}
	if d := machineconfigs.DifferencesOf(got, machineconfigs.NewDecoder(1), want); len(d) != 0 {
		t.Errorf("after the update: %q", machineconfigs.Strings(d))
	}
}

package operatorstatus

import (
	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift/registries-controller/pkg/inputs"
)

// groupMachineConfig is the API group of the generated MachineConfigs.
const groupMachineConfig = "machineconfiguration.openshift.io"

// inputKinds returns the kinds of the configuration an admin writes (inputs.Kind.Configures), in the kinds table's
// order, as related objects: an empty name stands for every object of the kind, a singleton's name for the one
// that counts (the Image "cluster").
func inputKinds() []configv1.ObjectReference {
	var out []configv1.ObjectReference
	for _, k := range inputs.Kinds {
		if k.Configures != nil {
			out = append(out, configv1.ObjectReference{Group: k.GroupVersion.Group, Resource: k.Resource, Name: k.Singleton})
		}
	}
	return out
}

// relatedObjects returns what must-gather and `oc adm inspect clusteroperator/registries-controller` collect: the
// controller's namespace, the kinds it renders, and the MachineConfigs it generates (by name, in order), e.g.
//
//   - {group: "", resource: namespaces, name: openshift-registries-controller}
//   - {group: config.openshift.io, resource: images, name: cluster}
//   - {group: config.openshift.io, resource: imagedigestmirrorsets, name: ""}
//     ...
//   - {group: machineconfiguration.openshift.io, resource: machineconfigs, name: 99-master-generated-registries}
//
// manifests/0000_80_registries-controller_06_clusteroperator.yaml lists the same for the two built-in pools.
func relatedObjects(namespace string, machineConfigs []string) []configv1.ObjectReference {
	out := []configv1.ObjectReference{{Resource: "namespaces", Name: namespace}}
	out = append(out, inputKinds()...)
	for _, name := range machineConfigs {
		out = append(out, configv1.ObjectReference{Group: groupMachineConfig, Resource: "machineconfigs", Name: name})
	}
	return out
}

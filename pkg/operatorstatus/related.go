package operatorstatus

import configv1 "github.com/openshift/api/config/v1"

// API groups of the related objects.
const (
	groupConfig        = "config.openshift.io"
	groupOperator      = "operator.openshift.io"
	groupMachineConfig = "machineconfiguration.openshift.io"
)

// inputKinds are the kinds whose objects the controller renders, as related objects: an empty name stands for
// every object of the kind, the Image "cluster" is the one that counts.
var inputKinds = []configv1.ObjectReference{
	{Group: groupConfig, Resource: "images", Name: "cluster"},
	{Group: groupConfig, Resource: "imagedigestmirrorsets"},
	{Group: groupConfig, Resource: "imagetagmirrorsets"},
	{Group: groupOperator, Resource: "imagecontentsourcepolicies"},
	{Group: groupConfig, Resource: "clusterimagepolicies"},
	{Group: groupConfig, Resource: "imagepolicies"},
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
	out = append(out, inputKinds...)
	for _, name := range machineConfigs {
		out = append(out, configv1.ObjectReference{Group: groupMachineConfig, Resource: "machineconfigs", Name: name})
	}
	return out
}

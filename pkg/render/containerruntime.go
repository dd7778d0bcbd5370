package render

import (
	"fmt"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/pkg/containerruntime"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
)

// ContainerRuntime is the render of the ContainerRuntimeConfigs (docs/semantics.md §11): what each object gets.
type ContainerRuntime struct {
	// Pools maps each object's name to the pools it selects, sorted (none: MCO's "could not find any
	// MachineConfigPool" Failure).
	Pools map[string][]string
	// Assignment is each object's MachineConfig suffix, and the suffix annotations still to write.
	Assignment containerruntime.Assignment
	// Stores is the feature gate AdditionalStorageConfig: off, the store lists are not rendered.
	Stores bool
}

// containerRuntime renders the ContainerRuntimeConfig output: Unmanaged while the kind is not watched, Written
// otherwise, one MachineConfig per object and pool it selects, named with the object's suffix, owned by it (a
// controller reference once it has a UID), writing containerruntime.Files. An object selecting no pool renders
// nothing. pools are every pool, custom ones included; installTime gives no suffixes and refuses a second
// object on a pool, as MCO's bootstrap. It returns the problems of every object (Problems, and those of the
// suffixes), and warnings.
func containerRuntime(in *inputs.Inputs, pools []*mcfgv1.MachineConfigPool, installTime bool) (outputRender, *ContainerRuntime, []inputs.Problem, []inputs.Problem) {
	out := outputRender{state: machineconfigs.OutputState{Output: machineconfigs.ContainerRuntime, State: machineconfigs.Written}}
	if why, unwatched := in.Unwatched[inputs.KindContainerRuntimeConfig]; unwatched {
		out.state.State, out.state.Why = machineconfigs.Unmanaged, why
		return out, nil, nil, nil
	}
	stores, gateWarning := in.FeatureGateEnabled(inputs.GateAdditionalStorageConfig)
	var warnings, problems []inputs.Problem
	res := &ContainerRuntime{Pools: map[string][]string{}, Stores: stores}
	var live []*mcfgv1.ContainerRuntimeConfig
	for _, crc := range in.ContainerRuntimeConfigs {
		if crc.DeletionTimestamp == nil { // an object being deleted renders nothing: its MachineConfigs go first
			live = append(live, crc)
		}
	}
	for _, crc := range live {
		problems = append(problems, containerruntime.Problems(crc)...)
		res.Pools[crc.Name] = containerruntime.SelectedPools(crc, pools)
		if len(res.Pools[crc.Name]) == 0 {
			warnings = append(warnings, inputs.Problem{
				At:      inputs.FieldRef{Object: inputs.ObjectRef{Kind: inputs.KindContainerRuntimeConfig, Name: crc.Name}, Field: "spec.machineConfigPoolSelector"},
				Message: containerruntime.NoPoolMessage(crc.Name),
				Fix:     "select pools by their labels, e.g. matchLabels: {pools.operator.machineconfiguration.openshift.io/worker: \"\"}",
			})
		}
		if gateWarning != nil && hasStores(crc) {
			warnings = append(warnings, *gateWarning)
		}
	}
	res.Assignment = containerruntime.AssignSuffixes(live, res.Pools, installTime)
	problems = append(problems, res.Assignment.Problems...)
	if len(problems) > 0 {
		return out, res, problems, warnings
	}
	for _, crc := range live {
		n, ok := res.Assignment.Suffix[crc.Name]
		if !ok {
			continue
		}
		var keys []machineconfigs.Key
		for _, pool := range res.Pools[crc.Name] {
			keys = append(keys, machineconfigs.Key{Pool: pool, Output: machineconfigs.ContainerRuntime, Suffix: n})
		}
		out.groups = append(out.groups, sameFiles{keys: keys, files: containerruntime.Files(crc.Spec.ContainerRuntimeConfig, stores),
			owner: containerRuntimeOwner(crc)})
	}
	return out, res, nil, warnings
}

// containerRuntimeOwner is the controller reference to crc: garbage collection removes its MachineConfigs with it,
// and MCO's controller would take them for its own. Without a UID (read from a file at install time) it names the
// object only, for Desired.Owner: the MachineConfig gets no reference.
func containerRuntimeOwner(crc *mcfgv1.ContainerRuntimeConfig) *metav1.OwnerReference {
	return machineconfigs.ContainerRuntime.Owner.Reference(crc.Name, crc.UID)
}

func hasStores(crc *mcfgv1.ContainerRuntimeConfig) bool {
	s := crc.Spec.ContainerRuntimeConfig
	return s != nil && (len(s.AdditionalLayerStores) > 0 || len(s.AdditionalImageStores) > 0 || len(s.AdditionalArtifactStores) > 0)
}

// installTimePools returns the pools of in, or, when it has none (install manifests rarely hold them), master and
// worker with the labels MCO gives them, which ContainerRuntimeConfigs select.
func installTimePools(in *inputs.Inputs) []*mcfgv1.MachineConfigPool {
	if len(in.Pools) > 0 {
		return in.Pools
	}
	var out []*mcfgv1.MachineConfigPool
	for _, name := range machineconfigs.BuiltInPools(nil) {
		out = append(out, &mcfgv1.MachineConfigPool{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			machineconfigs.BuiltInPoolLabel:                                          "",
			fmt.Sprintf("pools.operator.machineconfiguration.openshift.io/%s", name): "",
		}}})
	}
	return out
}

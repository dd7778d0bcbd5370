package render

import (
	"fmt"
	"slices"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// State is what a render wants of an output's MachineConfigs.
type State string

const (
	// Written: every built-in pool's MachineConfig of the output holds Files.
	Written State = "written"
	// Removed: the output's MachineConfigs must not exist (the object they are rendered from is gone); the
	// controller deletes those it generated, so that nodes lose the files at once instead of whenever garbage
	// collection comes by.
	Removed State = "removed"
	// Unmanaged: the output is not rendered (its feature gate is off); its MachineConfigs, if any, are left alone.
	Unmanaged State = "unmanaged"
)

// Rendered is what a render wants of one output.
type Rendered struct {
	Output *machineconfigs.Output
	State  State
	// Files are the node files every pool's MachineConfig of the output writes, in MachineConfig order (Written).
	Files nodefiles.Files
	// Why says why the output is Removed or Unmanaged, e.g. "there is no CRIOCredentialProviderConfig \"cluster\"".
	Why string
	// owner is the object the MachineConfigs are owned by, nil when it has no UID (read from a file).
	owner *metav1.OwnerReference
}

// machineConfigs returns the output's MachineConfig for every pool (none unless Written): raw, the Ignition config
// of the files, is encoded once for all pools.
func (r *Rendered) machineConfigs(pools []string, version string) ([]*machineconfigs.Desired, error) {
	if r.State != Written {
		return nil, nil
	}
	raw, err := machineconfigs.Encode(r.Files)
	if err != nil {
		return nil, fmt.Errorf("output %s: %w", r.Output, err)
	}
	out := make([]*machineconfigs.Desired, 0, len(pools))
	for _, pool := range pools {
		out = append(out, machineconfigs.NewDesired(machineconfigs.Key{Pool: pool, Output: r.Output}, r.Files, raw, r.owner, version))
	}
	return out, nil
}

// Rendered returns what the render wants of output o.
func (out *Output) Rendered(o *machineconfigs.Output) *Rendered {
	for i := range out.Outputs {
		if out.Outputs[i].Output == o {
			return &out.Outputs[i]
		}
	}
	return &Rendered{Output: o, State: Unmanaged, Why: "not rendered"}
}

// Files returns the node files output o's MachineConfigs write, the same for every pool (none unless Written).
func (out *Output) Files(o *machineconfigs.Output) nodefiles.Files { return out.Rendered(o).Files }

// AllFiles returns the node files of every written output, in output order: what a built-in pool's nodes get.
func (out *Output) AllFiles() nodefiles.Files {
	var all nodefiles.Files
	for _, r := range out.Outputs {
		all = append(all, r.Files...)
	}
	return all
}

// Desired returns the MachineConfig the render wants for key, nil when there is none.
func (out *Output) Desired(key machineconfigs.Key) *machineconfigs.Desired {
	i := slices.IndexFunc(out.MachineConfigs, func(d *machineconfigs.Desired) bool { return d.Key == key })
	if i < 0 {
		return nil
	}
	return out.MachineConfigs[i]
}

// imageOwnerReference points at the Image "cluster", so that the registries MachineConfigs go away with it; nil
// without an Image or when it has no UID (read from a file at install time: the controller adds the reference
// once the cluster exists, a metadata-only update).
func imageOwnerReference(image *configv1.Image) *metav1.OwnerReference {
	if image == nil || image.UID == "" {
		return nil
	}
	return &metav1.OwnerReference{APIVersion: configv1.GroupVersion.String(), Kind: "Image", Name: image.Name, UID: image.UID}
}

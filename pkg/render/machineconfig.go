package render

import (
	"fmt"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// outputRender is what the render of one output gives: what it wants of the output and, when Written, the
// MachineConfigs it wants, grouped by the files they write (each group is encoded once).
type outputRender struct {
	state  machineconfigs.OutputState
	groups []sameFiles
}

// sameFiles are MachineConfigs of one output that write the same files: one per pool of a per-pool output, one per
// pool an object selects of a per-object output.
type sameFiles struct {
	keys  []machineconfigs.Key
	files nodefiles.Files
	// owner is the object they are rendered from, nil when there is none.
	owner *metav1.OwnerReference
}

// written returns the render of an output whose MachineConfigs are one per pool of pools, each writing files.
func written(o *machineconfigs.Output, pools []string, files nodefiles.Files, owner *metav1.OwnerReference) outputRender {
	keys := make([]machineconfigs.Key, len(pools))
	for i, pool := range pools {
		keys[i] = machineconfigs.Key{Pool: pool, Output: o}
	}
	return outputRender{state: machineconfigs.OutputState{Output: o, State: machineconfigs.Written},
		groups: []sameFiles{{keys: keys, files: files, owner: owner}}}
}

// machineConfigs returns the output's desired MachineConfigs (none unless Written): the Ignition config of each
// group's files is encoded once for all its keys.
func (r *outputRender) machineConfigs() ([]*machineconfigs.Desired, error) {
	if r.state.State != machineconfigs.Written {
		return nil, nil
	}
	var out []*machineconfigs.Desired
	for _, g := range r.groups {
		parsed := machineconfigs.Parsed(g.files)
		raw, err := machineconfigs.EncodeParsed(parsed)
		if err != nil {
			return nil, fmt.Errorf("output %s: %w", r.state.Output, err)
		}
		for _, key := range g.keys {
			d := machineconfigs.NewDesired(key, g.files, raw, g.owner)
			d.Parsed = parsed
			out = append(out, d)
		}
	}
	return out, nil
}

// imageOwnerReference points at the Image "cluster", so that the registries MachineConfigs go away with it; nil
// without an Image or when it has no UID (read from a file at install time: the controller adds the reference
// once the cluster exists, a metadata-only update).
func imageOwnerReference(image *configv1.Image) *metav1.OwnerReference {
	if image == nil || image.UID == "" {
		return nil
	}
	return machineconfigs.Registries.Owner.Reference(image.Name, image.UID)
}

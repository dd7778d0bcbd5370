package preview

import (
	"fmt"
	"slices"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/render"
)

// Outcome is what the controller would do to a pool's generated MachineConfig.
type Outcome string

const (
	// Unchanged: it would not write; the MachineConfig says the same.
	Unchanged Outcome = "unchanged"
	// Created: the pool has no generated MachineConfig yet.
	Created Outcome = "created"
	// Updated: it differs in meaning (render.Differences).
	Updated Outcome = "updated"
	// Deleted: the pool would no longer be a built-in pool, or no longer exist.
	Deleted Outcome = "deleted"
)

// Pool is what a render with the edits does to one pool's generated MachineConfig.
type Pool struct {
	// Name is the pool's, e.g. "worker".
	Name string
	// MachineConfig is the name of its generated MachineConfig, e.g. "99-worker-generated-registries".
	MachineConfig string
	// Existing is that MachineConfig as the cluster holds it now, nil when there is none; Desired is the one
	// rendered with the edits, nil when the pool would have none.
	Existing, Desired *mcfgv1.MachineConfig
	// Old and New are the files each writes, in its order (none for a missing one).
	Old, New nodefiles.Files
	// Differences are what render.Differences, the controller's reason to write, finds between Existing and
	// Desired, e.g. "file /etc/containers/registries.conf: contents differ". The version annotation, which says
	// which build wrote a MachineConfig and not what it says, is left out.
	Differences []string
}

// Outcome says whether, and how, the controller would write the pool's MachineConfig.
func (p *Pool) Outcome() Outcome {
	switch {
	case p.Existing == nil && p.Desired != nil:
		return Created
	case p.Existing != nil && p.Desired == nil:
		return Deleted
	case len(p.Differences) > 0:
		return Updated
	}
	return Unchanged
}

// Compare returns, for every pool in before (the built-in pools of the cluster now, render.PoolNames) or in
// out (the render with the edits), sorted by name, its generated MachineConfig now (looked up with get, a
// MachineConfig lister's Get) and after the edits.
func Compare(before []string, out *render.Output, get func(name string) (*mcfgv1.MachineConfig, error)) ([]Pool, error) {
	desired := map[string]*mcfgv1.MachineConfig{}
	names := slices.Clone(before)
	for _, mc := range out.MachineConfigs {
		pool := mc.Labels[mcfgv1.MachineConfigRoleLabelKey]
		desired[pool] = mc
		names = append(names, pool)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	pools := make([]Pool, 0, len(names))
	for _, name := range names {
		p := Pool{Name: name, MachineConfig: render.MachineConfigName(name), Desired: desired[name]}
		existing, err := get(p.MachineConfig)
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return nil, fmt.Errorf("reading MachineConfig %s: %w", p.MachineConfig, err)
		default:
			p.Existing = existing
			if p.Old, err = render.Files(existing); err != nil {
				return nil, err
			}
		}
		if p.Desired != nil {
			p.New = out.Files
		}
		if p.Existing != nil && p.Desired != nil {
			p.Differences = render.Differences(p.Existing, sameVersion(p.Desired, p.Existing))
		}
		pools = append(pools, p)
	}
	return pools, nil
}

// sameVersion returns desired with existing's version annotation.
func sameVersion(desired, existing *mcfgv1.MachineConfig) *mcfgv1.MachineConfig {
	d := desired.DeepCopy()
	if v, ok := existing.Annotations[render.VersionAnnotation]; ok {
		d.Annotations[render.VersionAnnotation] = v
	} else {
		delete(d.Annotations, render.VersionAnnotation)
	}
	return d
}

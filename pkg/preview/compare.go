package preview

import (
	"fmt"
	"slices"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/render"
)

// Change is what the controller would do to a generated MachineConfig.
type Change string

const (
	// Unchanged: it would not write; the MachineConfig says the same.
	Unchanged Change = "unchanged"
	// Created: the MachineConfig does not exist yet.
	Created Change = "created"
	// Updated: it differs in meaning (machineconfigs.Differences).
	Updated Change = "updated"
	// Deleted: the pool would no longer be a built-in pool, or no longer exist, or the output is removed (its
	// object is deleted).
	Deleted Change = "deleted"
)

// MachineConfig is what a render with the edits does to one generated MachineConfig.
type MachineConfig struct {
	// Key names it: pool and output, e.g. 99-worker-generated-registries.
	Key machineconfigs.Key
	// Existing is the MachineConfig as the cluster holds it now, nil when there is none; Desired is the one rendered
	// with the edits, nil when there would be none.
	Existing *mcfgv1.MachineConfig
	Desired  *machineconfigs.Desired
	// Old and New are the files each writes, in its order (none for a missing one).
	Old, New nodefiles.Files
	// Reasons are what machineconfigs.Differences, the controller's reasons to write, finds between Existing and
	// Desired, e.g. "file /etc/containers/registries.conf: contents differ". The version annotation, which says
	// which build wrote a MachineConfig and not what it says, is left out.
	Reasons []machineconfigs.Difference
}

// Change says whether, and how, the controller would write the MachineConfig.
func (m *MachineConfig) Change() Change {
	switch {
	case m.Existing == nil && m.Desired != nil:
		return Created
	case m.Existing != nil && m.Desired == nil:
		return Deleted
	case len(m.Reasons) > 0:
		return Updated
	}
	return Unchanged
}

// Pool is what a render with the edits does to one pool: to each of its generated MachineConfigs.
type Pool struct {
	// Name is the pool's, e.g. "worker".
	Name string
	// MachineConfigs are its generated MachineConfigs of every output the render manages, in output order.
	MachineConfigs []MachineConfig
}

// Old returns the files the pool's generated MachineConfigs write now, in output order.
func (p *Pool) Old() nodefiles.Files {
	var out nodefiles.Files
	for _, m := range p.MachineConfigs {
		out = append(out, m.Old...)
	}
	return out
}

// New returns the files the pool's generated MachineConfigs would write, in output order.
func (p *Pool) New() nodefiles.Files {
	var out nodefiles.Files
	for _, m := range p.MachineConfigs {
		out = append(out, m.New...)
	}
	return out
}

// Changed reports whether the controller would write any of the pool's MachineConfigs.
func (p *Pool) Changed() bool {
	return slices.ContainsFunc(p.MachineConfigs, func(m MachineConfig) bool { return m.Change() != Unchanged })
}

// Compare returns, for every pool in before (the built-in pools of the cluster now, machineconfigs.BuiltInPools) or in
// out (the render with the edits), sorted by name, each generated MachineConfig of the outputs out manages
// (render.Written or render.Removed) now (looked up with get, a MachineConfig lister's Get, decoded with dec) and
// after the edits.
func Compare(before []string, out *render.Output, get func(name string) (*mcfgv1.MachineConfig, error), dec *machineconfigs.Decoder) ([]Pool, error) {
	names := slices.Concat(before, out.Pools)
	slices.Sort(names)
	names = slices.Compact(names)
	pools := make([]Pool, 0, len(names))
	for _, name := range names {
		pool := Pool{Name: name}
		for _, r := range out.Outputs {
			if r.State == render.Unmanaged {
				continue
			}
			m, err := compareOne(machineconfigs.Key{Pool: name, Output: r.Output}, out, get, dec)
			if err != nil {
				return nil, err
			}
			if m.Existing != nil || m.Desired != nil {
				pool.MachineConfigs = append(pool.MachineConfigs, m)
			}
		}
		pools = append(pools, pool)
	}
	return pools, nil
}

func compareOne(key machineconfigs.Key, out *render.Output, get func(name string) (*mcfgv1.MachineConfig, error), dec *machineconfigs.Decoder) (MachineConfig, error) {
	m := MachineConfig{Key: key, Desired: out.Desired(key)}
	existing, err := get(key.Name())
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return m, fmt.Errorf("reading MachineConfig %s: %w", key.Name(), err)
	default:
		m.Existing = existing
	}
	var have *machineconfigs.Config
	if m.Existing != nil {
		if have, err = dec.Decode(m.Existing); err != nil {
			return m, err
		}
		m.Old = have.Files
	}
	if m.Desired != nil {
		m.New = m.Desired.Files
	}
	if m.Existing != nil && m.Desired != nil {
		m.Reasons = machineconfigs.Differences(m.Existing, have, m.Desired.WithVersion(m.Existing.Annotations[machineconfigs.VersionAnnotation]))
	}
	return m, nil
}

package preview

import (
	"slices"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"

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
	// object is deleted), or no object renders it any more.
	Deleted Change = "deleted"
)

// changes maps each operation of a plan to what it does to a MachineConfig.
var changes = map[machineconfigs.Op]Change{
	machineconfigs.Create: Created,
	machineconfigs.Update: Updated,
	machineconfigs.Delete: Deleted,
}

// MachineConfig is what a render with the edits does to one generated MachineConfig.
type MachineConfig struct {
	// Key names it: pool, output and suffix, e.g. 99-worker-generated-registries.
	Key machineconfigs.Key
	// Op is what the controller would do to it (machineconfigs.Plan), "" when nothing.
	Op machineconfigs.Op
	// Existing is the MachineConfig as the cluster holds it now, nil when there is none; Desired is the one rendered
	// with the edits, nil when there would be none.
	Existing *mcfgv1.MachineConfig
	Desired  *machineconfigs.Desired
	// Old and New are the files each writes, in its order (none for a missing one).
	Old, New nodefiles.Files
	// Reasons are what machineconfigs.Differences, the controller's reasons to update, finds between Existing and
	// Desired, e.g. "file /etc/containers/registries.conf: contents differ". The version annotation, which says
	// which build wrote a MachineConfig and not what it says, is left out.
	Reasons []machineconfigs.Difference
}

// Change says whether, and how, the controller would write the MachineConfig.
func (m *MachineConfig) Change() Change {
	if c, ok := changes[m.Op]; ok {
		return c
	}
	return Unchanged
}

// Pool is what a render with the edits does to one pool: to each of its generated MachineConfigs.
type Pool struct {
	// Name is the pool's, e.g. "worker".
	Name string
	// MachineConfigs are its generated MachineConfigs of every output the render manages, in key order (output,
	// then suffix).
	MachineConfigs []MachineConfig
}

// Old returns the files the pool's generated MachineConfigs write now, merged as its nodes get them (a later
// MachineConfig of an output replacing an earlier one's file), in output order.
func (p *Pool) Old() nodefiles.Files {
	files := make([]nodefiles.Files, len(p.MachineConfigs))
	for i, m := range p.MachineConfigs {
		files[i] = m.Old
	}
	return machineconfigs.MergeFiles(files...)
}

// New returns the files the pool's generated MachineConfigs would write, merged as Old.
func (p *Pool) New() nodefiles.Files {
	files := make([]nodefiles.Files, len(p.MachineConfigs))
	for i, m := range p.MachineConfigs {
		files[i] = m.New
	}
	return machineconfigs.MergeFiles(files...)
}

// Changed reports whether the controller would write any of the pool's MachineConfigs.
func (p *Pool) Changed() bool {
	return slices.ContainsFunc(p.MachineConfigs, func(m MachineConfig) bool { return m.Change() != Unchanged })
}

// Compare returns, for every pool in before (the built-in pools of the cluster now, machineconfigs.BuiltInPools),
// in out (the render with the edits) or touched by the plan, sorted by name, each generated MachineConfig of the
// outputs out manages (Written or Removed) now and after the edits: what machineconfigs.Plan, the controller's own
// plan, would do with existing (the cluster's MachineConfigs, decoded with configs; nil decodes each), leaving out
// what only says which build wrote them (machineconfigs.PlanOptions.AnyBuild: the controller running may be
// another build than this command).
func Compare(before []string, out *render.Output, existing []*mcfgv1.MachineConfig, configs machineconfigs.Configs) ([]Pool, error) {
	if configs == nil {
		configs = (*machineconfigs.Decoder)(nil)
	}
	actions := machineconfigs.Plan(existing, configs, &out.Set, machineconfigs.PlanOptions{AnyBuild: true})
	byName := make(map[string]*mcfgv1.MachineConfig, len(existing))
	for _, mc := range existing {
		byName[mc.Name] = mc
	}
	byKey := map[machineconfigs.Key]MachineConfig{}
	for _, d := range out.MachineConfigs {
		byKey[d.Key] = MachineConfig{Key: d.Key, Existing: byName[d.Object.Name], Desired: d}
	}
	names := slices.Concat(before, out.AllPools())
	for _, a := range actions {
		m := byKey[a.Key]
		m.Key, m.Op, m.Existing = a.Key, a.Op, a.Have
		if a.Op == machineconfigs.Update {
			m.Reasons = a.Reasons
		}
		byKey[a.Key] = m
		names = append(names, a.Key.Pool)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	keys := make([]machineconfigs.Key, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, machineconfigs.Key.Compare)
	pools := make([]Pool, 0, len(names))
	for _, name := range names {
		pool := Pool{Name: name}
		for _, k := range keys {
			if k.Pool != name {
				continue
			}
			m, err := withFiles(byKey[k], configs)
			if err != nil {
				return nil, err
			}
			pool.MachineConfigs = append(pool.MachineConfigs, m)
		}
		pools = append(pools, pool)
	}
	return pools, nil
}

// withFiles returns m with the files its existing and desired MachineConfigs write.
func withFiles(m MachineConfig, configs machineconfigs.Configs) (MachineConfig, error) {
	if m.Existing != nil {
		have, err := configs.Decode(m.Existing)
		if err != nil {
			return m, err
		}
		m.Old = have.Files
	}
	if m.Desired != nil {
		m.New = m.Desired.Files
	}
	return m, nil
}

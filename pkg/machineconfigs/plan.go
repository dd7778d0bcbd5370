package machineconfigs

import (
	"fmt"
	"slices"
	"strings"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
)

// Op is what an Action does to a MachineConfig.
type Op string

const (
	// Create: the desired MachineConfig does not exist.
	Create Op = "create"
	// Update: it exists and differs in meaning (Differences).
	Update Op = "update"
	// Delete: it is ours (Ours) and no longer desired: its output is Removed, its pool is gone or no longer built
	// in, or no object renders it any more.
	Delete Op = "delete"
)

// Action is one write that brings the cluster to the desired set.
type Action struct {
	Op  Op
	Key Key
	// Have is the MachineConfig as the cluster holds it (nil for Create); Want the desired one (nil for Delete).
	Have *mcfgv1.MachineConfig
	Want *Desired
	// Reasons say why: "missing" for Create, what Differences finds for Update, why it is no longer wanted for
	// Delete (e.g. "pool is gone", or the output's OutputState.Why).
	Reasons []Difference
}

// Reason returns the reasons in one line, "; " between them.
func (a Action) Reason() string { return strings.Join(Strings(a.Reasons), "; ") }

// PlanOptions change how Plan compares.
type PlanOptions struct {
	// AnyBuild leaves out the differences that only say which build or controller wrote a MachineConfig
	// (Difference.Build: a version annotation, an owner reference that is no controller reference): `preview` runs
	// another build than the controller, which may still write them, and they change nothing on a node.
	AnyBuild bool
}

// missingReason is the reason of every Create.
const missingReason = "missing"

// Plan returns the writes that make the cluster, which holds existing (any MachineConfigs: those not named as one of
// the set's outputs are never touched), hold exactly the desired set, decoding existing ones with configs:
//   - Create each desired MachineConfig that does not exist;
//   - Update each that exists and differs in meaning (Differences), never one that only differs in bytes;
//   - Delete each MachineConfig of a Written or Removed output that is ours (Ours: name, role label and a controller
//     reference to an object of the output's owner kind, or an older build's version annotation) and not desired,
//     at once: garbage collection would not, while its owner (e.g. the Image "cluster") stays. An Unmanaged
//     output's are left alone, and so is every MachineConfig another writer named alike.
//
// Creates and updates come in the set's order (Key order), then deletes by name. The plan is pure: the controller
// carries it out, `preview` prints it and `migrate-icsp` proves a migration neutral by its being empty.
func Plan(existing []*mcfgv1.MachineConfig, configs Configs, desired *Set, opts PlanOptions) []Action {
	byName := make(map[string]*mcfgv1.MachineConfig, len(existing))
	for _, mc := range existing {
		byName[mc.Name] = mc
	}
	var actions []Action
	wanted := make(map[string]bool, len(desired.MachineConfigs))
	for _, want := range desired.MachineConfigs {
		wanted[want.Object.Name] = true
		have := byName[want.Object.Name]
		if have == nil {
			actions = append(actions, Action{Op: Create, Key: want.Key, Want: want, Reasons: []Difference{{Text: missingReason}}})
			continue
		}
		diffs := DifferencesOf(have, configs, want)
		if opts.AnyBuild {
			diffs = slices.DeleteFunc(diffs, func(d Difference) bool { return d.Build })
		}
		if len(diffs) > 0 {
			actions = append(actions, Action{Op: Update, Key: want.Key, Have: have, Want: want, Reasons: diffs})
		}
	}
	outputs := make([]*Output, len(desired.Outputs))
	for i, r := range desired.Outputs {
		outputs[i] = r.Output
	}
	names := make([]string, 0, len(byName))
	for name := range byName {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		mc := byName[name]
		key, ok := parseName(name, outputs)
		if wanted[name] || !ok || !Ours(key, mc) {
			continue
		}
		st := desired.StateOf(key.Output)
		if st.State == Unmanaged {
			continue
		}
		actions = append(actions, Action{Op: Delete, Key: key, Have: mc, Reasons: []Difference{{Text: notWanted(key, st, desired)}}})
	}
	return actions
}

// notWanted says why a MachineConfig of key, ours and not desired, is deleted.
func notWanted(key Key, st OutputState, desired *Set) string {
	switch {
	case st.State == Removed:
		return st.Why
	case key.Output.Pools == OnBuiltInPools:
		return "pool is gone"
	case slices.Contains(desired.PoolsOf(key.Output), key.Pool):
		return fmt.Sprintf("no %s renders %s any more", key.Output.Owner.Kind, key.Name())
	default:
		return fmt.Sprintf("no %s selects pool %s any more, or the pool is gone", key.Output.Owner.Kind, key.Pool)
	}
}

package machineconfigs

import (
	"slices"
	"strings"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"

	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// State is what a render wants of an output's MachineConfigs.
type State string

const (
	// Written: the output's desired MachineConfigs (Set.MachineConfigs) must exist and say what they say; any
	// other of its MachineConfigs that is ours (Ours) must not.
	Written State = "written"
	// Removed: the output's MachineConfigs must not exist (the object they are rendered from is gone); the
	// controller deletes those it wrote, so that nodes lose the files at once instead of whenever garbage
	// collection comes by.
	Removed State = "removed"
	// Unmanaged: the output is not rendered (its feature gate is off); its MachineConfigs, if any, are left alone.
	Unmanaged State = "unmanaged"
)

// OutputState is what a render wants of one output.
type OutputState struct {
	Output *Output
	State  State
	// Why says why the output is Removed or Unmanaged, e.g. "there is no CRIOCredentialProviderConfig \"cluster\"".
	Why string
}

// Set is the desired set a render produces: what it wants of every output, and every MachineConfig it wants, each
// holding the files it writes. It is the one place rendered files live: what a pool's nodes get (PoolFiles) is
// computed from it.
type Set struct {
	// Pools are the built-in pools rendered for, sorted (BuiltInPools).
	Pools []string
	// Outputs are what the render wants of each output, in Outputs order. An output not listed is left alone, as
	// an Unmanaged one.
	Outputs []OutputState
	// MachineConfigs are the desired MachineConfigs of the Written outputs, in Key order.
	MachineConfigs []*Desired
}

// StateOf returns what the render wants of output o: Unmanaged, "not rendered", when the set does not list it.
func (s *Set) StateOf(o *Output) OutputState {
	for _, r := range s.Outputs {
		if r.Output == o {
			return r
		}
	}
	return OutputState{Output: o, State: Unmanaged, Why: "not rendered"}
}

// Managed returns the outputs the set decides on (Written or Removed), in its order.
func (s *Set) Managed() []*Output {
	var out []*Output
	for _, r := range s.Outputs {
		if r.State != Unmanaged {
			out = append(out, r.Output)
		}
	}
	return out
}

// Desired returns the desired MachineConfig of key, nil when there is none.
func (s *Set) Desired(key Key) *Desired {
	i := slices.IndexFunc(s.MachineConfigs, func(d *Desired) bool { return d.Key == key })
	if i < 0 {
		return nil
	}
	return s.MachineConfigs[i]
}

// Of returns the desired MachineConfigs of output o, every pool's, in Key order.
func (s *Set) Of(o *Output) []*Desired {
	var out []*Desired
	for _, d := range s.MachineConfigs {
		if d.Key.Output == o {
			out = append(out, d)
		}
	}
	return out
}

// PoolsOf returns the pools whose MachineConfigs of output o the set decides on, sorted: every built-in pool for an
// output of BuiltInPools (also when Removed: their MachineConfigs go), the pools of its desired MachineConfigs
// otherwise.
func (s *Set) PoolsOf(o *Output) []string {
	if o.Pools == OnBuiltInPools {
		return slices.Clone(s.Pools)
	}
	var pools []string
	for _, d := range s.Of(o) {
		pools = append(pools, d.Key.Pool)
	}
	slices.Sort(pools)
	return slices.Compact(pools)
}

// AllPools returns every pool with a desired MachineConfig, and the built-in pools, sorted.
func (s *Set) AllPools() []string {
	pools := slices.Clone(s.Pools)
	for _, d := range s.MachineConfigs {
		pools = append(pools, d.Key.Pool)
	}
	slices.Sort(pools)
	return slices.Compact(pools)
}

// PoolFiles returns the files the desired MachineConfigs of pool (those labelled with its role) write, merged as
// MCO merges a pool's MachineConfigs (SortForMerge: a later one replaces an earlier one's file at the same path),
// in the order the merge leaves them: what the pool's nodes get from this project at the paths it writes.
func (s *Set) PoolFiles(pool string) nodefiles.Files {
	return MergeFiles(filesOf(s.poolConfigs(pool, nil))...)
}

// OutputFiles returns the files the desired MachineConfigs of output o for pool write, merged as PoolFiles merges
// them.
func (s *Set) OutputFiles(pool string, o *Output) nodefiles.Files {
	return MergeFiles(filesOf(s.poolConfigs(pool, o))...)
}

func filesOf(ds []*Desired) []nodefiles.Files {
	out := make([]nodefiles.Files, len(ds))
	for i, d := range ds {
		out[i] = d.Files
	}
	return out
}

// poolConfigs returns the desired MachineConfigs of pool, of output o (every output when nil), in merge order.
func (s *Set) poolConfigs(pool string, o *Output) []*Desired {
	var out []*Desired
	for _, d := range s.MachineConfigs {
		if d.Key.Pool == pool && (o == nil || d.Key.Output == o) {
			out = append(out, d)
		}
	}
	SortForMerge(out, (*Desired).mergeName)
	return out
}

// SameFiles reports whether s and o want the same MachineConfigs writing the same files.
func (s *Set) SameFiles(o *Set) bool {
	return slices.EqualFunc(s.MachineConfigs, o.MachineConfigs, func(a, b *Desired) bool {
		return a.Key == b.Key && slices.EqualFunc(a.Files, b.Files, nodefiles.File.Equal)
	})
}

// MergeFiles returns the files of MachineConfigs, given in merge order (SortForMerge), merged as MCO merges a pool's
// MachineConfigs into its rendered config: each file in the place its path first took, with the contents of the
// last MachineConfig writing it.
func MergeFiles(configs ...nodefiles.Files) nodefiles.Files {
	var out nodefiles.Files
	index := map[string]int{}
	for _, files := range configs {
		for _, f := range files {
			if i, ok := index[f.Path]; ok {
				out[i] = f
				continue
			}
			index[f.Path] = len(out)
			out = append(out, f)
		}
	}
	return out
}

// mergeName returns what SortForMerge orders d by: its name and role label.
func (d *Desired) mergeName() (string, string) {
	return d.Object.Name, d.Object.Labels[mcfgv1.MachineConfigRoleLabelKey]
}

// workerRole is the role whose MachineConfigs MCO merges first, so that a custom pool's own ones replace them.
const workerRole = "worker"

// SortForMerge sorts configs in the order MCO merges a pool's MachineConfigs into its rendered config
// (MergeMachineConfigs): those labelled with the worker role first, by name, then all others by name; a later
// file replaces an earlier one at the same path. So on a custom pool that also selects the worker role,
// 99-infra-generated-containerruntime replaces 99-worker-generated-containerruntime, although it sorts before it
// by name (docs/semantics.md §3.5). nameRole returns a config's name and role label.
func SortForMerge[T any](configs []T, nameRole func(T) (name, role string)) {
	slices.SortStableFunc(configs, func(a, b T) int {
		an, ar := nameRole(a)
		bn, br := nameRole(b)
		if aw, bw := ar == workerRole, br == workerRole; aw != bw {
			if aw {
				return -1
			}
			return 1
		}
		return strings.Compare(an, bn)
	})
}

// ObjectNameRole returns a MachineConfig's name and role label, for SortForMerge.
func ObjectNameRole(mc *mcfgv1.MachineConfig) (string, string) {
	return mc.Name, mc.Labels[mcfgv1.MachineConfigRoleLabelKey]
}

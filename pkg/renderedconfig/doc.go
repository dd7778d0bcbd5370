// Package renderedconfig measures what the machine-config-operator's render controller will make of a pool's
// MachineConfigs: it merges every MachineConfig a pool selects into one rendered MachineConfig and refuses the
// result when its JSON is over MaxBytes (the pool is then RenderDegraded and no configuration reaches its nodes).
// This project's MachineConfigs are a part of that merge, so their budget is the pool's rendered MachineConfig, not
// their own size (docs/semantics.md §3.6).
//
// The merge is Ignition's own (config/v3_5.Merge of the pinned coreos/ignition module) over every selected
// MachineConfig parsed and translated to Ignition 3.5 (config/v3_5.ParseCompatibleVersion), in the render
// controller's order: the worker role's MachineConfigs first, then the others, each by name, so that later names
// win for the same path. A measurement is the rendered MachineConfig's JSON: the pool's current rendered
// MachineConfig (status.configuration.name) with its spec.config replaced by the merge.
//
// Everything here is pure: the caller gathers the pool, its rendered MachineConfig and every MachineConfig, and a
// Cache keeps each parsed config by its content, so that a burst of syncs parses only what changed, and pools
// measured together parse a config they share once.
package renderedconfig

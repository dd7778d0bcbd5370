// Package nodeaction predicts what a node does when the files this project renders change, as today's
// machine-config daemon does it (MCO 4.13 and later, at 7ff337a; docs/semantics.md §8): which files change,
// what the cluster's node disruption policies ask for each, and whether the node drains or reboots. It is
// pure: Classify reads the old and new nodefiles.Files of one pool and returns an Action with one Reason per
// finding; Diff lists the same changes by meaning, for people. A path not written is the node's base file
// there (nodefiles.Base), or no file.
//
// A prediction must say exactly what the node does: saying less is a defect, and so is saying more.
//
// # Which files change (docs/semantics.md §8.1)
//
// The daemon compares each file by bytes. A reformatted file counts; so do added and removed files (a file
// the MachineConfig stops writing is deleted, or reverts to the node's base file).
//
// # The node disruption policies (docs/semantics.md §8.2)
//
// Each changed path is looked up in the cluster's node disruption policies (Policy): the path's own entry,
// or else the entry of its closest enclosing directory (a partial directory name is no match); a path no
// entry covers reboots the node. DefaultPolicy is MCO's defaults: registries.conf Special; policy.json, the
// directories /etc/containers/registries.d and /etc/crio/policies, and the release GPG key reload
// crio.service; nothing covers /etc/containers/registries.conf.d, so the search drop-in, added, changed or
// removed, drains and reboots. PolicyFromMachineConfiguration and ParsePolicy read a cluster's
// MachineConfiguration `cluster` instead: status.nodeDisruptionPolicyStatus.clusterPolicies, or its
// spec.nodeDisruptionPolicy merged over the defaults.
//
// The node takes the actions of every changed file together (Action): a Reboot anywhere reboots, and
// replaces everything else; a Drain anywhere drains; the Reload, Restart and DaemonReload steps run in
// order, each once; None asks for nothing. Special reloads CRI-O, and drains first unless every
// registries.conf change is safe. A reboot always drains first, except on a single-node cluster, which never
// drains (Options.SingleNode, docs/semantics.md §8.4). Action.Level orders actions for comparisons: none,
// services, drain, reboot. With the default policies the actions are named none, reload-crio,
// drain-and-reload-crio and reboot.
//
// # The Special rule for registries.conf (docs/semantics.md §8.3)
//
// Both files are decoded with BurntSushi/toml into containers/image's V2RegistriesConf, without the
// library's normalization, and the [[registry]] tables are keyed by scope (the prefix, or the location when
// the prefix is empty; a later table with the same scope replaces an earlier one). One table,
// registriesConfTable, lists every setting compared, and each of its rows says both how to describe a
// difference (Diff) and how the daemon judges it (Classify); the rows are the rules named in Reason.Rule:
//
//	search-list-appended           the old search list is a prefix of the new one: safe
//	search-list-reordered          an item moved or was replaced: drain
//	search-list-shrunk             the list is shorter: drain
//	other-settings-changed         short-name-mode, aliases, credential helpers: not looked at, safe
//	registry-removed               a scope disappears: drain
//	registry-added                 a new scope with mirrors: safe when every mirror has pull-from-mirror =
//	                               "digest-only" (the legacy mirror-by-digest-only is ignored once an entry
//	                               has mirrors); without mirrors: safe only when mirror-by-digest-only is set,
//	                               so a newly blocked or insecure scope without mirrors drains
//	prefix-changed                 drain
//	location-changed               drain
//	blocked-changed                drain
//	insecure-changed               drain
//	mirror-by-digest-only-changed  a kept entry's legacy flag is not compared: safe
//	mirror-removed                 a kept entry's mirror location disappears: drain
//	pull-from-mirror-changed       a kept mirror keeps its pull-from-mirror or changes it to "digest-only";
//	                               any other change drains ("" and "all" are compared as written)
//	mirror-insecure-changed        a mirror's own insecure flag is not looked at: safe
//	mirror-added                   safe when its pull-from-mirror is "digest-only" or the entry's new
//	                               mirror-by-digest-only is set
//	mirrors-reordered              mirror order is not looked at: safe
//
// Daemons up to 4.12 compared a kept entry's mirror-by-digest-only (a change drained) and judged a new entry
// by that flag alone; the rules here are 4.13's and later's, and the output says so (Daemon). A mirror is
// looked up by location, the first with that location; every mirror of the new file is compared, repeats
// included. When describing a mirror, which references it serves follows containers/image's
// PullSourcesFromReference: the registry-level mirror-by-digest-only wins over the mirror's pull-from-mirror
// (containers/image refuses a file that sets both, but the daemon's rule reads the raw values, as the rows do).
// MCO's daemon code also has an escape hatch that skips this drain, the ConfigMap
// image-registry-override-drain in MCO's namespace; the prediction does not read it.
//
// # The rule chain
//
// Classify runs an ordered chain of small pure rules, each returning one Reason per finding: the file-level
// rules registries-conf-changed, policy-json-changed, registries-d-changed, namespace-policy-changed,
// search-drop-in-changed, container-runtime-file-changed (storage.conf and a ContainerRuntimeConfig's CRI-O drop-ins:
// no default policy, so a reboot; minimal: drain and restart CRI-O, docs/semantics.md §11.6) and other-file-changed
// (each file's policy action), and between the first and the
// others one rule per row of registriesConfTable (a finding's action is what registries.conf's policy does
// with the daemon's judgement of it). The node's action is every finding's action combined.
//
// # The minimal safe action (docs/semantics.md §8.6)
//
// The daemon is needlessly disruptive in some cases. Each Reason also carries Minimal, the smallest action
// that is enough for that finding, and, when its level is below the action's, Safe: why it is enough.
// Result.Minimal combines them. It is advisory, never above Action's level (when a custom policy asks for
// less than a finding needs, the finding's minimal is the policy's action), and never what a node does
// unless the daemon changes. The cases:
//
//   - The search drop-in. CRI-O's reload re-reads registries.conf together with registries.conf.d, so a new
//     search list takes effect without a reboot. When the drop-in changes nothing but the search list, the
//     effective list (the drop-in's when it sets one, registries.conf's otherwise) is judged with the
//     search-list rules: identical needs nothing, appended a reload, anything else a drain.
//   - A search-list change in registries.conf while a drop-in sets the list on either side is judged on the
//     effective list the same way, at least a reload.
//   - A file whose decoded contents are identical (formatting, comments, key order) needs nothing.
//   - insecure turned on, or blocked turned off, for a kept entry only allows pulls that were refused or
//     failed before, so a reload is enough.
//   - pull-from-mirror changing between "" and "all", which mean the same, needs a reload.
//   - Under a custom policy that does more than the defaults (a reboot for registries.conf, say), the
//     defaults' own judgement: a CRI-O reload for a file CRI-O re-reads, a drain and a reload for an unsafe
//     registries.conf change.
package nodeaction

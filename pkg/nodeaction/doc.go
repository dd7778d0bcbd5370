// Package nodeaction predicts what a node does when the files this project renders change: nothing,
// reload CRI-O, drain the node and reload CRI-O, or drain and reboot. It is pure: it reads the old and
// new contents of the three files as bytes and returns a typed Action with one Reason per finding.
//
// # The reference
//
// Action is what a node running the machine-config daemon does today (docs/semantics.md §8). The daemon
// compares the old and new contents of every file in the rendered MachineConfig and, for the files this
// project writes:
//
//	/etc/containers/policy.json                     changed: reload CRI-O, no drain
//	/etc/containers/registries.conf                 changed: reload CRI-O; drain too unless every change is safe
//	/etc/containers/registries.conf.d/01-image-searchRegistries.conf
//	                                                changed (added, removed, edited): drain and reboot, since the
//	                                                daemon has no rule for this path
//
// A registries.conf change is safe, and skips the drain, when all of these hold. The daemon decodes both
// files with BurntSushi/toml into containers/image's V2RegistriesConf (no normalization) and keys the
// [[registry]] tables by scope: the prefix, or the location when the prefix is empty (a later table with
// the same scope replaces an earlier one). Each condition is one rule below, named as in Reason.Rule:
//
//	search-list-appended      the old unqualified-search-registries is a prefix of the new one (safe)
//	search-list-reordered     an item kept its count but moved or was replaced: drain
//	search-list-shrunk        the new list is shorter: drain
//	registry-removed          a scope disappears: drain
//	registry-added            a new scope is safe only when all its mirrors are digest-only
//	                          (pull-from-mirror = "digest-only", or the legacy registry-level
//	                          mirror-by-digest-only = true); a tag-only or "all" mirror drains, and so
//	                          does a new scope with no mirror unless it sets the legacy flag
//	prefix-changed            drain
//	location-changed          drain
//	blocked-changed           drain
//	insecure-changed          drain
//	mirror-by-digest-only-changed
//	                          the legacy registry-level flag turned on or off: drain
//	mirror-removed            a mirror location of a kept scope disappears: drain
//	mirror-added              a new mirror of a kept scope is safe only when it is digest-only: otherwise drain
//	pull-from-mirror-changed  a kept mirror's pull-from-mirror changes: safe only when it becomes
//	                          "digest-only", otherwise drain
//
// Two more findings explain a reload without ever causing a drain: mirrors-reordered and
// mirror-insecure-changed (the daemon does not look at mirror order nor at a mirror's own insecure
// flag). Other keys (short-name-mode, aliases, credential helpers) are not looked at either: changing
// them only reloads CRI-O.
//
// Where the versions of the daemon differ (the oldest ones judge a new entry only by the legacy flag, so
// a new entry without mirrors, e.g. a newly blocked or insecure scope, drains; the newer ones by each
// mirror's pull-from-mirror), the rules take the larger action, so Action never claims less than a node
// does. A missing registries.conf or policy.json means the node's base file
// (semantics §3), which the rendered one replaces; a missing search drop-in means no drop-in.
//
// # The minimal safe action
//
// The reference is needlessly disruptive in some cases. Each Reason also carries Minimal, the smallest
// action that is enough for that finding, and, when it is smaller than Action, Safe: why it is enough.
// Result.Minimal is advisory, never larger than Result.Action, and never what a node actually does
// unless the daemon changes. The cases:
//
//   - The search drop-in. CRI-O's reload re-reads registries.conf together with registries.conf.d (the
//     same containers/image call), so a new search list takes effect without a reboot. The effective list
//     (the drop-in's when it sets one, registries.conf's otherwise) is judged with the search-list rules:
//     appended or unchanged needs a reload (or nothing when identical), anything else a drain. A drop-in
//     that changes more than the search list gets no smaller action.
//   - A search-list change in registries.conf that a drop-in overrides on both sides: containers/image
//     never reads that list, so a reload is enough.
//   - A file whose decoded contents are identical (formatting, comments, key order): nothing is needed.
//   - insecure turned on, or blocked turned off, for a scope: both only allow pulls that were refused or
//     failed before; every pull that works keeps working the same way, so a reload is enough.
//   - pull-from-mirror changing between "" and "all", which mean the same.
package nodeaction

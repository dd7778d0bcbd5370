package registries

import "github.com/openshift/registries-controller/pkg/inputs"

// Report explains a merge: where every mirror came from, and what was applied differently from what the
// objects say (with the reason). It is meant for people (events, `render` output, `explain`), never parsed
// to drive behaviour.
type Report struct {
	// Inherited lists nested entries that received the mirrors of an enclosing source.
	Inherited []InheritedReport
	// Warnings are parts of the input that were not applied as written, e.g. a blocked registry left out
	// because it would block the release payload. Each names the object and field concerned.
	Warnings []inputs.Problem
	// Ignored are entries that configure nothing, e.g. a source without mirrors.
	Ignored []inputs.Problem

	// sources builds SourceReports' answer on first use.
	sources func() []SourceReport
}

// SourceReports lists every mirrored source, digest group first, each sorted by source, with the entries that
// configure it and those that list each mirror. It is built on first use (explain, preview, the contributors to a
// MachineConfig over the size limit), since a field reference per mirror of every entry is a large share of the
// merge's allocations at the scale of a disconnected cluster and a sync never reads it; safe for concurrent use.
func (r *Report) SourceReports() []SourceReport {
	if r == nil || r.sources == nil {
		return nil
	}
	return r.sources()
}

// SourceReport describes the merged mirrors of one source in one group.
type SourceReport struct {
	// Source is the scope as written, e.g. "quay.io/openshift-release-dev".
	Source string
	// Group is DigestGroup or TagGroup.
	Group Group
	// NeverContactSource is true when some entry for the source forbids falling back to it.
	NeverContactSource bool
	// Mirrors are the merged mirrors, in the order pulls try them.
	Mirrors []MirrorReport
	// Entries are the object entries that configure this source.
	Entries []inputs.FieldRef
}

// MirrorReport names one merged mirror and the entries that listed it.
type MirrorReport struct {
	Location string
	Origins  []inputs.FieldRef
}

// InheritedReport records that Scope, which has no mirrors of its own, uses the mirrors of From.
type InheritedReport struct {
	Scope string
	From  string
}

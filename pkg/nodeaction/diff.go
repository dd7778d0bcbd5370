package nodeaction

import (
	"fmt"
	"slices"
	"strings"

	"github.com/openshift/registries-controller/pkg/linediff"
	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// ChangeKind says whether something was added, removed or changed.
type ChangeKind string

const (
	// Added: an entry, a mirror, a policy scope, a registries.d key or a file appears.
	Added ChangeKind = "added"
	// Removed: it disappears.
	Removed ChangeKind = "removed"
	// Changed: it is on both sides, with a different value.
	Changed ChangeKind = "changed"
)

// Change is one difference in meaning between two sides, e.g. mirror "m.local" added to the entry
// "quay.io" with pull-from-mirror "digest-only". It is for people; the classification is Classify's.
type Change struct {
	// File is the node path concerned.
	File string
	// Entry is the scope of the [[registry]] entry concerned, "" when not about one.
	Entry string
	// Mirror is the mirror location concerned, "" when not about one mirror.
	Mirror string
	// Kind says whether it was added, removed or changed.
	Kind ChangeKind
	// Detail says what, e.g. `blocked false -> true`, `digest-only` for an added mirror, or
	// `transports.docker "quay.io": [reject]` for a policy scope.
	Detail string
}

// Where names the file, and in it the [[registry]] entry and mirror when given:
// `registries.conf [[registry]] "quay.io" mirror "m.local"`.
func (c Change) Where() string { return place(c.File, c.Entry, c.Mirror) }

// String renders the change on one line, e.g. `registries.conf [[registry]] "quay.io" mirror "m.local": added: digest-only`.
func (c Change) String() string {
	return fmt.Sprintf("%s: %s: %s", c.Where(), c.Kind, c.Detail)
}

// Diff lists what changes in meaning between the old and new node files (read as Classify reads them), file
// by file in the MachineConfig's order: registries.conf by the rows of the same table Classify judges
// (search list, entries and mirrors added, removed or changed); policy.json and namespace policies by
// transport and scope; registries.d files by docker key; the search drop-in; any other file by size. A
// file whose bytes change but whose decoded contents do not gives one "formatting only" change. It fails
// like Classify on files that do not parse.
func Diff(old, new nodefiles.Files) ([]Change, error) {
	in, err := newInput(old, new)
	if err != nil {
		return nil, err
	}
	var out []Change
	for _, p := range in.Changed {
		var cs []Change
		switch kindOf(p) {
		case registriesConfFile:
			cs = diffRegistriesConf(in)
		case policyJSONFile:
			cs = diffPolicy(p, in.Old.Policies[p], in.New.Policies[p])
		case namespacePolicyFile:
			cs = diffNamespacePolicy(in, p)
		case registriesDFile:
			cs = diffRegistriesD(p, in.Old.RegistriesD[p], in.New.RegistriesD[p])
		case searchDropInFile:
			cs = diffDropIn(in)
		default:
			cs = diffOther(in, p)
		}
		if len(cs) == 0 {
			cs = []Change{{File: p, Kind: Changed, Detail: "formatting only: the decoded contents are identical"}}
		}
		out = append(out, cs...)
	}
	return out, nil
}

func diffRegistriesConf(in *input) []Change {
	var out []Change
	for _, f := range registriesConfTable {
		for _, d := range f.changes(in) {
			out = append(out, Change{File: nodefiles.RegistriesConf, Entry: d.entry, Mirror: d.mirror, Kind: d.kind, Detail: d.detail})
		}
	}
	return out
}

func diffDropIn(in *input) []Change {
	file := nodefiles.SearchRegistries
	o, n := in.Old.DropIn, in.New.DropIn
	switch {
	case o == nil:
		return []Change{{File: file, Kind: Added, Detail: "unqualified-search-registries [" + strings.Join(n.UnqualifiedSearchRegistries, ", ") + "]"}}
	case n == nil:
		return []Change{{File: file, Kind: Removed, Detail: "unqualified-search-registries [" + strings.Join(o.UnqualifiedSearchRegistries, ", ") + "]"}}
	}
	var out []Change
	if !slices.Equal(o.UnqualifiedSearchRegistries, n.UnqualifiedSearchRegistries) {
		out = append(out, Change{File: file, Kind: Changed, Detail: "unqualified-search-registries " + list(o.UnqualifiedSearchRegistries, n.UnqualifiedSearchRegistries)})
	}
	if !sameApartFromSearch(in) {
		out = append(out, Change{File: file, Kind: Changed, Detail: "settings other than the search list"})
	}
	return out
}

// maxOtherLines bounds the changed lines described of one file no rule reads.
const maxOtherLines = 20

// diffOther describes a file no rule reads (a credential provider file, a kubelet drop-in) by its size, and a
// changed one by its changed lines (linediff), at most maxOtherLines of them.
func diffOther(in *input, p string) []Change {
	o, inOld := in.Old.content(p)
	n, inNew := in.New.content(p)
	switch {
	case !inOld:
		return []Change{{File: p, Kind: Added, Detail: fmt.Sprintf("%d bytes", len(n))}}
	case !inNew:
		return []Change{{File: p, Kind: Removed, Detail: fmt.Sprintf("%d bytes", len(o))}}
	}
	out := []Change{{File: p, Kind: Changed, Detail: fmt.Sprintf("contents changed (%d -> %d bytes)", len(o), len(n))}}
	lines := linediff.Text(o, n)
	for i, l := range lines {
		if i == maxOtherLines {
			out = append(out, Change{File: p, Kind: Changed, Detail: fmt.Sprintf("... and %d more changed lines", len(lines)-i)})
			break
		}
		out = append(out, Change{File: p, Kind: Changed, Detail: "line " + l})
	}
	return out
}

package nodeaction

import (
	"fmt"
)

// rule is one step of the chain: a name and a pure check that returns one Reason per finding (an entry,
// a mirror, or a whole file), or none when the rule does not apply. Classify fills in Reason.Rule.
type rule struct {
	Name  string
	Check func(*input) []Reason
}

// chain is the ordered list of rules; the documentation of the package describes each. Every rule runs;
// the action of a change is the largest action any finding asks for.
var chain = []rule{
	// registries.conf, file level (semantics §8).
	{"registries-conf-changed", registriesConfChanged},
	{"search-list-appended", searchListAppended},
	{"search-list-reordered", searchListReordered},
	{"search-list-shrunk", searchListShrunk},
	// registries.conf, per [[registry]] scope.
	{"registry-removed", registryRemoved},
	{"registry-added", registryAdded},
	{"prefix-changed", prefixChanged},
	{"location-changed", locationChanged},
	{"blocked-changed", blockedChanged},
	{"insecure-changed", insecureChanged},
	{"mirror-by-digest-only-changed", mirrorByDigestOnlyChanged},
	// registries.conf, per mirror of a kept scope.
	{"mirror-removed", mirrorRemoved},
	{"mirror-added", mirrorAdded},
	{"pull-from-mirror-changed", pullFromMirrorChanged},
	{"mirrors-reordered", mirrorsReordered},
	{"mirror-insecure-changed", mirrorInsecureChanged},
	// The other files.
	{"policy-json-changed", policyJSONChanged},
	{"search-drop-in-changed", searchDropInChanged},
}

// finding starts a Reason whose minimal action is the reference's.
func finding(file string, a Action, format string, args ...any) Reason {
	return Reason{File: file, Action: a, Minimal: a, Message: fmt.Sprintf(format, args...)}
}

func (r Reason) about(entry string) Reason { r.Entry = entry; return r }

func (r Reason) ofMirror(location string) Reason { r.Mirror = location; return r }

// safe lowers the minimal action, saying why that is enough. It never raises it.
func (r Reason) safe(minimal Action, why string) Reason {
	if minimal < r.Minimal {
		r.Minimal, r.Safe = minimal, why
	}
	return r
}

func reasons(rs ...Reason) []Reason { return rs }

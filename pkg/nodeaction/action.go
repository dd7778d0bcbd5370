package nodeaction

import (
	"fmt"
	"strings"
)

// Action is what a node does to apply a change, ordered by cost: each action includes the ones before
// it (a reboot drains first and starts CRI-O with the new files).
type Action int

const (
	// None: the files did not change.
	None Action = iota
	// ReloadCRIO: the files are written and CRI-O is reloaded; running pods are untouched.
	ReloadCRIO
	// DrainAndReloadCRIO: the node is cordoned and drained, the files written, CRI-O reloaded, and the
	// node uncordoned.
	DrainAndReloadCRIO
	// Reboot: the node is drained and rebooted.
	Reboot
)

var actionNames = [...]string{None: "none", ReloadCRIO: "reload-crio", DrainAndReloadCRIO: "drain-and-reload-crio", Reboot: "reboot"}

// String returns the action's name, e.g. "drain-and-reload-crio".
func (a Action) String() string {
	if a < None || int(a) >= len(actionNames) {
		return fmt.Sprintf("Action(%d)", int(a))
	}
	return actionNames[a]
}

// Describe says in a few words what a node does, e.g. "drain the node and reload CRI-O".
func (a Action) Describe() string {
	switch a {
	case None:
		return "nothing"
	case ReloadCRIO:
		return "reload CRI-O, no drain"
	case DrainAndReloadCRIO:
		return "drain the node and reload CRI-O"
	case Reboot:
		return "drain and reboot the node"
	}
	return a.String()
}

// Node paths of the files the classifier reads.
const (
	RegistriesConfPath   = "/etc/containers/registries.conf"
	PolicyJSONPath       = "/etc/containers/policy.json"
	SearchRegistriesPath = "/etc/containers/registries.conf.d/01-image-searchRegistries.conf"
)

// Files holds the contents of the rendered files on one side of a change. A nil slice means the file is
// not written: registries.conf and policy.json are then the node's base files, and the search drop-in
// does not exist.
type Files struct {
	RegistriesConf   []byte
	PolicyJSON       []byte
	SearchRegistries []byte
}

// Reason is one finding of one rule, e.g. "registry-removed" for entry "docker.io".
type Reason struct {
	// Rule names the rule that fired, e.g. "mirror-added" (see the package documentation).
	Rule string
	// File is the node path concerned, e.g. RegistriesConfPath.
	File string
	// Entry is the scope of the [[registry]] entry concerned (its prefix, or its location when the
	// prefix is empty), "" for a finding about the whole file.
	Entry string
	// Mirror is the mirror location concerned, "" when the finding is not about one mirror.
	Mirror string
	// Message says what changed, e.g. `mirror "m.local" added with pull-from-mirror "tag-only"`.
	Message string
	// Action is what the reference does because of this finding.
	Action Action
	// Minimal is the smallest action that is enough for this finding; never larger than Action.
	Minimal Action
	// Safe says why Minimal is enough, when it is smaller than Action.
	Safe string
}

// String renders the reason on one line: `registries.conf [[registry]] "docker.io": removed (registry-removed: drain-and-reload-crio)`.
func (r Reason) String() string {
	return fmt.Sprintf("%s: %s (%s: %s)", place(r.File, r.Entry, r.Mirror), r.Message, r.Rule, r.Action)
}

// place names a file, and in it a [[registry]] entry and one of its mirrors when given:
// `registries.conf [[registry]] "quay.io" mirror "m.local"`.
func place(file, entry, mirror string) string {
	var b strings.Builder
	b.WriteString(shortPath(file))
	if entry != "" {
		fmt.Fprintf(&b, " [[registry]] %q", entry)
	}
	if mirror != "" {
		fmt.Fprintf(&b, " mirror %q", mirror)
	}
	return b.String()
}

// shortPath returns the path below /etc/containers/, as people name these files.
func shortPath(p string) string { return strings.TrimPrefix(p, "/etc/containers/") }

// Result is the classification of one change.
type Result struct {
	// Action is what a node running the machine-config daemon does: the largest Action of the reasons,
	// None when no file changed.
	Action Action
	// Minimal is the smallest safe action, advisory: the largest Minimal of the reasons. It is never
	// larger than Action.
	Minimal Action
	// Reasons lists every finding, in rule order.
	Reasons []Reason
}

// Classify compares the old and new files and returns what a node does to apply the change. It fails
// when a file present on either side does not parse (as TOML or JSON), naming the file and side.
func Classify(old, new Files) (*Result, error) {
	in, err := newInput(old, new)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	for _, rule := range chain {
		for _, r := range rule.Check(in) {
			r.Rule = rule.Name
			if r.Minimal > r.Action {
				r.Minimal = r.Action
			}
			res.Reasons = append(res.Reasons, r)
			res.Action = max(res.Action, r.Action)
			res.Minimal = max(res.Minimal, r.Minimal)
		}
	}
	return res, nil
}

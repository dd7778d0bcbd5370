package nodeaction

import (
	"fmt"
	"strings"

	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// Options say what Classify knows of the cluster besides its node disruption policies.
type Options struct {
	// SingleNode is true for a single-node cluster (Infrastructure status.controlPlaneTopology
	// SingleReplica). Its daemon never drains (docs/semantics.md §8.4): a change that drains elsewhere only
	// runs its service steps, and a reboot happens without a drain. The default, false, is a cluster of
	// several nodes.
	SingleNode bool
}

// Reason is one finding of one rule, e.g. "registry-removed" for entry "docker.io".
type Reason struct {
	// Rule names the rule that fired, e.g. "mirror-added" (see the package documentation).
	Rule string
	// File is the node path concerned, e.g. "/etc/containers/registries.conf".
	File string
	// Entry is the scope of the [[registry]] entry concerned (its prefix, or its location when the
	// prefix is empty), "" for a finding about the whole file.
	Entry string
	// Mirror is the mirror location concerned, "" when the finding is not about one mirror.
	Mirror string
	// Message says what changed and how the daemon judges it, e.g. `added: tag-only; an added mirror needs
	// pull-from-mirror "digest-only", or the entry's mirror-by-digest-only`.
	Message string
	// Action is what the node does because of this finding.
	Action Action
	// Minimal is the smallest action that is enough for this finding; its Level is never above Action's.
	Minimal Action
	// Safe says why Minimal is enough, when its Level is below Action's.
	Safe string
}

// Where names the file, and in it the [[registry]] entry and mirror when given:
// `registries.conf [[registry]] "quay.io" mirror "m.local"`.
func (r Reason) Where() string { return place(r.File, r.Entry, r.Mirror) }

// String renders the reason on one line: `registries.conf [[registry]] "docker.io": removed: ... (registry-removed: drain-and-reload-crio)`.
func (r Reason) String() string {
	return fmt.Sprintf("%s: %s (%s: %s)", r.Where(), r.Message, r.Rule, r.Action)
}

// place names a file, and in it a [[registry]] entry and one of its mirrors when given.
func place(file, entry, mirror string) string {
	var b strings.Builder
	b.WriteString(strings.TrimPrefix(file, "/etc/containers/"))
	if entry != "" {
		fmt.Fprintf(&b, " [[registry]] %q", entry)
	}
	if mirror != "" {
		fmt.Fprintf(&b, " mirror %q", mirror)
	}
	return b.String()
}

// Result is the classification of one change.
type Result struct {
	// Changed lists the node paths whose contents change (written, rewritten, back to the base file, or
	// removed), in the MachineConfig's order; empty when nothing changes.
	Changed []string
	// Action is what a node running the daemon does: the actions of every reason combined as the daemon
	// combines them (see Action). It is the zero Action, "none", when nothing changes, and also when the
	// policies ask for nothing for the changed files (the node then only writes them).
	Action Action
	// Minimal is the smallest safe action, advisory: the reasons' minimal actions combined. Its Level is
	// never above Action's.
	Minimal Action
	// Reasons lists every finding, in rule order.
	Reasons []Reason
}

// Classify compares the old and new node files of one pool (a path not written is the node's base file
// there, or no file) and predicts what a node does to apply the change: which files change, what the
// policy asks for each, and for registries.conf under the Special action, which changes are safe. It fails
// when a file the rules read does not parse (registries.conf and the search drop-in as TOML, policy.json
// and namespace policies as JSON, registries.d files as YAML), naming the file and the side.
func Classify(old, new nodefiles.Files, policy Policy, opts Options) (*Result, error) {
	in, err := newInput(old, new)
	if err != nil {
		return nil, err
	}
	c := &classification{input: in, policy: policy, registriesSafe: registriesSafe(in)}
	res := &Result{Changed: in.Changed}
	for _, rule := range chain {
		for _, r := range rule.check(c) {
			r.Rule = rule.name
			if opts.SingleNode {
				r.Action, r.Minimal = r.Action.withoutDrain(), r.Minimal.withoutDrain()
			}
			if r.Minimal.Level() > r.Action.Level() {
				r.Minimal = r.Action
			}
			if r.Minimal.Level() == r.Action.Level() {
				r.Safe = ""
			}
			res.Reasons = append(res.Reasons, r)
			res.Action = merge(res.Action, r.Action)
			res.Minimal = merge(res.Minimal, r.Minimal)
		}
	}
	if opts.SingleNode {
		res.Action, res.Minimal = res.Action.withoutDrain(), res.Minimal.withoutDrain()
	}
	return res, nil
}

// registriesSafe reports whether the daemon's Special rule finds every registries.conf change safe (true
// when registries.conf does not change).
func registriesSafe(in *input) bool {
	if !in.changed(nodefiles.RegistriesConf) {
		return true
	}
	for _, f := range registriesConfTable {
		for _, d := range f.changes(in) {
			if !f.judge(in, d).safe {
				return false
			}
		}
	}
	return true
}

// classification is what the rules read: the files, the policy, and the daemon's judgement of registries.conf.
type classification struct {
	*input
	policy Policy
	// registriesSafe is true when every registries.conf change is safe: the Special action then does not drain.
	registriesSafe bool
}

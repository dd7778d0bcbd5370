package nodeaction

import (
	"fmt"

	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// rule is one step of the chain: a name and a pure check that returns one Reason per finding (a file, an
// entry, a mirror), or none when the rule does not apply. Classify fills in Reason.Rule.
type rule struct {
	name  string
	check func(*classification) []Reason
}

// chain is the ordered list of rules; the package documentation describes each. Every rule runs; the
// node's action is every finding's action combined.
var chain = buildChain()

func buildChain() []rule {
	rules := []rule{{"registries-conf-changed", registriesConfChanged}}
	for _, f := range registriesConfTable {
		rules = append(rules, rule{f.rule, tableRule(f)})
	}
	return append(rules,
		rule{"policy-json-changed", policyJSONChanged},
		rule{"registries-d-changed", registriesDChanged},
		rule{"namespace-policy-changed", namespacePolicyChanged},
		rule{"search-drop-in-changed", searchDropInChanged},
		rule{"container-runtime-file-changed", containerRuntimeFileChanged},
		rule{"other-file-changed", otherFileChanged},
	)
}

// tableRule makes a rule of a row of registriesConfTable: one reason per difference, its action what the
// policy for registries.conf does with the daemon's judgement of it. The daemon looks inside registries.conf
// only when its bytes change.
func tableRule(f field) func(*classification) []Reason {
	return func(c *classification) []Reason {
		if !c.changed(nodefiles.RegistriesConf) {
			return nil
		}
		var out []Reason
		for _, d := range f.changes(c.input) {
			v := f.judge(c.input, d)
			action, _ := c.policy.actionFor(nodefiles.RegistriesConf, v.safe)
			msg := d.detail
			if d.kind != Changed {
				msg = fmt.Sprintf("%s: %s", d.kind, d.detail)
			}
			if v.note != "" {
				msg += "; " + v.note
			}
			out = append(out, Reason{
				File: nodefiles.RegistriesConf, Entry: d.entry, Mirror: d.mirror, Message: msg,
				Action: action, Minimal: v.minimal, Safe: v.why,
			})
		}
		return out
	}
}

// fileFinding starts the Reason for a changed file: what the policy does with it, the message saying how the
// file changes and which policy entry applies. Its minimal action is the action until lowered.
func (c *classification) fileFinding(p string) Reason {
	action, policy := c.policy.actionFor(p, c.registriesSafe)
	return Reason{File: p, Message: c.howWritten(p) + "; " + policy, Action: action, Minimal: action}
}

// safe sets the minimal action, saying why it is enough, unless that would raise its level.
func (r Reason) safe(minimal Action, why string) Reason {
	if minimal.Level() <= r.Minimal.Level() {
		r.Minimal, r.Safe = minimal, why
	}
	return r
}

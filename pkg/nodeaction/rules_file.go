package nodeaction

import (
	"fmt"
	"reflect"

	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// registriesConfChanged: a changed registries.conf gets its policy's action (by default Special: reload
// CRI-O; the rows of registriesConfTable say whether it drains too). When the decoded configuration is
// identical, nothing is needed.
func registriesConfChanged(c *classification) []Reason {
	if !c.changed(nodefiles.RegistriesConf) {
		return nil
	}
	action, policy := c.policy.actionFor(nodefiles.RegistriesConf, true)
	r := Reason{File: nodefiles.RegistriesConf, Message: c.howWritten(nodefiles.RegistriesConf) + "; " + policy,
		Action: action, Minimal: reloadCRIO, Safe: "CRI-O's reload re-reads registries.conf"}
	if reflect.DeepEqual(c.Old.Conf.V2RegistriesConf, c.New.Conf.V2RegistriesConf) {
		r = r.safe(none, "the decoded configuration is identical (formatting only), so containers/image reads the same thing")
	}
	return []Reason{r}
}

// policyJSONChanged: a changed policy.json gets its policy's action (by default: reload CRI-O). Identical
// JSON needs nothing; otherwise a reload is enough, since CRI-O reads the policy again when reloaded.
func policyJSONChanged(c *classification) []Reason {
	if !c.changed(nodefiles.PolicyJSON) {
		return nil
	}
	return []Reason{reloadFinding(c, nodefiles.PolicyJSON, c.Old.Policies, c.New.Policies, "CRI-O reads policy.json again when reloaded")}
}

// namespacePolicyChanged: a namespace policy added, changed or removed (the node deletes it) gets its
// policy's action (by default, of the /etc/crio/policies directory: reload CRI-O).
func namespacePolicyChanged(c *classification) []Reason {
	var out []Reason
	for _, p := range c.changedOf(namespacePolicyFile) {
		out = append(out, reloadFinding(c, p, c.Old.Policies, c.New.Policies, "CRI-O reads the namespace policies again when reloaded"))
	}
	return out
}

// registriesDChanged: a registries.d file added, changed or removed gets its policy's action (by default, of
// the /etc/containers/registries.d directory: reload CRI-O).
func registriesDChanged(c *classification) []Reason {
	var out []Reason
	for _, p := range c.changedOf(registriesDFile) {
		out = append(out, reloadFinding(c, p, c.Old.RegistriesD, c.New.RegistriesD, "CRI-O reads registries.d again when reloaded"))
	}
	return out
}

// reloadFinding judges a changed file that CRI-O reads again when reloaded: a reload is enough, and nothing
// is when the file is on both sides with the same decoded contents (old and new hold each side's decoded
// files by path).
func reloadFinding[T any](c *classification, p string, old, new map[string]T, why string) Reason {
	r := c.fileFinding(p).safe(reloadCRIO, why)
	o, inOld := old[p]
	n, inNew := new[p]
	if inOld && inNew && reflect.DeepEqual(o, n) {
		r = r.safe(none, "the decoded contents are identical (formatting only)")
	}
	return r
}

// searchDropInChanged: no default policy covers registries.conf.d, so any change of the search drop-in
// (added, removed, edited) drains and reboots. The minimal action judges the effective search list instead,
// when the drop-in changes nothing else.
func searchDropInChanged(c *classification) []Reason {
	if !c.changed(nodefiles.SearchRegistries) {
		return nil
	}
	r := c.fileFinding(nodefiles.SearchRegistries)
	if !sameApartFromSearch(c.input) {
		return []Reason{r}
	}
	min, how := effectiveSearchVerdict(c.input)
	return []Reason{r.safe(min, fmt.Sprintf("CRI-O's reload re-reads registries.conf.d together with registries.conf, so no reboot is needed; the drop-in changes only the search list, and the effective list is %s", how))}
}

// sameApartFromSearch reports whether the drop-ins of both sides say the same thing once their search
// lists are set aside (a missing drop-in says nothing).
func sameApartFromSearch(in *input) bool {
	rest := func(s *side) any {
		if s.DropIn == nil {
			return nil
		}
		c := *s.DropIn
		c.UnqualifiedSearchRegistries = nil
		if reflect.ValueOf(c).IsZero() {
			return nil
		}
		return c
	}
	return reflect.DeepEqual(rest(&in.Old), rest(&in.New))
}

// otherFileChanged: any other path the MachineConfig writes or stops writing gets its policy's action (by
// default, for a path no entry covers, a reboot). No smaller action is claimed.
func otherFileChanged(c *classification) []Reason {
	var out []Reason
	for _, p := range c.changedOf(otherFile) {
		out = append(out, c.fileFinding(p))
	}
	return out
}

// drainAndRestartCRIO is the minimal action for the files of a ContainerRuntimeConfig.
var drainAndRestartCRIO = Action{Drain: true, Steps: []Step{{Kind: StepRestart, Service: crioService}}}

// containerRuntimeFileChanged: storage.conf or a ContainerRuntimeConfig's CRI-O drop-in added, changed or removed
// (docs/semantics.md §11.6). No default policy covers them: the daemon drains and reboots. CRI-O reads both only
// when it starts, so a drain and a restart of CRI-O applies them (advisory: not measured against CRI-O here).
func containerRuntimeFileChanged(c *classification) []Reason {
	var out []Reason
	for _, p := range c.changedOf(containerRuntimeFile) {
		out = append(out, c.fileFinding(p).safe(drainAndRestartCRIO,
			"CRI-O reads storage.conf and its drop-ins when it starts; draining first, as containers started with the old storage settings keep them"))
	}
	return out
}

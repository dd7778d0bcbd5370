package nodeaction

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// fileChanged reports whether the node would see a different file: different bytes, or a file written on
// one side only whose contents differ from the base the node has otherwise.
func fileChanged(old, new, base []byte) bool {
	if old == nil {
		old = base
	}
	if new == nil {
		new = base
	}
	return !bytes.Equal(old, new)
}

// registriesConfChanged: any change to registries.conf reloads CRI-O; when the decoded configuration is
// identical, nothing is needed.
func registriesConfChanged(in *input) []Reason {
	if !fileChanged(in.Old.Files.RegistriesConf, in.New.Files.RegistriesConf, BaseRegistriesConf) {
		return nil
	}
	r := finding(RegistriesConfPath, ReloadCRIO, "%s", describeWrite(in.Old.Files.RegistriesConf, in.New.Files.RegistriesConf))
	if reflect.DeepEqual(in.Old.Conf.V2RegistriesConf, in.New.Conf.V2RegistriesConf) {
		r = r.safe(None, "the decoded configuration is identical (formatting only), so containers/image reads the same thing")
	}
	return reasons(r)
}

func describeWrite(old, new []byte) string {
	switch {
	case old == nil:
		return "written (the node's base file before)"
	case new == nil:
		return "no longer written (back to the node's base file)"
	}
	return "contents changed"
}

// searchListAppended: items appended to unqualified-search-registries are safe.
func searchListAppended(in *input) []Reason {
	o, n := in.Old.Conf.UnqualifiedSearchRegistries, in.New.Conf.UnqualifiedSearchRegistries
	if len(n) <= len(o) || !slices.Equal(o, n[:len(o)]) {
		return nil
	}
	return reasons(finding(RegistriesConfPath, ReloadCRIO, "unqualified-search-registries %s: %s appended", list(o, n), strings.Join(n[len(o):], ", ")))
}

// searchListReordered: an item moved or was replaced (the list is not shorter) drains, since short
// names resolve in list order.
func searchListReordered(in *input) []Reason {
	o, n := in.Old.Conf.UnqualifiedSearchRegistries, in.New.Conf.UnqualifiedSearchRegistries
	if len(n) < len(o) || slices.Equal(o, n[:len(o)]) {
		return nil
	}
	r := finding(RegistriesConfPath, DrainAndReloadCRIO, "unqualified-search-registries %s: reordered or replaced", list(o, n))
	return reasons(overriddenSearch(in, r))
}

// searchListShrunk: a shorter list drains.
func searchListShrunk(in *input) []Reason {
	o, n := in.Old.Conf.UnqualifiedSearchRegistries, in.New.Conf.UnqualifiedSearchRegistries
	if len(n) >= len(o) {
		return nil
	}
	r := finding(RegistriesConfPath, DrainAndReloadCRIO, "unqualified-search-registries %s: shrunk", list(o, n))
	return reasons(overriddenSearch(in, r))
}

// overriddenSearch lowers a registries.conf search-list finding to what the effective list needs when a
// drop-in sets the list on either side: registries.conf's own list is then not (or not only) what
// containers/image reads.
func overriddenSearch(in *input, r Reason) Reason {
	if !in.Old.dropInSetsSearch() && !in.New.dropInSetsSearch() {
		return r
	}
	min, how := effectiveSearchVerdict(in)
	return r.safe(max(min, ReloadCRIO), fmt.Sprintf("the search drop-in sets the list containers/image reads, and that effective list is %s", how))
}

// effectiveSearchVerdict judges the change of the effective search list with the reference's rule.
func effectiveSearchVerdict(in *input) (Action, string) {
	o, n := in.Old.effectiveSearch(), in.New.effectiveSearch()
	switch {
	case slices.Equal(o, n):
		return None, fmt.Sprintf("unchanged %s", list(o, n))
	case len(n) > len(o) && slices.Equal(o, n[:len(o)]):
		return ReloadCRIO, fmt.Sprintf("only appended to %s", list(o, n))
	case len(n) < len(o):
		return DrainAndReloadCRIO, fmt.Sprintf("shrunk %s, which drains like the same change in registries.conf", list(o, n))
	}
	return DrainAndReloadCRIO, fmt.Sprintf("reordered or replaced %s, which drains like the same change in registries.conf", list(o, n))
}

func list(o, n []string) string {
	return fmt.Sprintf("[%s] -> [%s]", strings.Join(o, ", "), strings.Join(n, ", "))
}

// policyJSONChanged: any change to policy.json reloads CRI-O; identical JSON needs nothing.
func policyJSONChanged(in *input) []Reason {
	if !fileChanged(in.Old.Files.PolicyJSON, in.New.Files.PolicyJSON, BasePolicyJSON) {
		return nil
	}
	r := finding(PolicyJSONPath, ReloadCRIO, "%s", describeWrite(in.Old.Files.PolicyJSON, in.New.Files.PolicyJSON))
	if reflect.DeepEqual(in.Old.Policy, in.New.Policy) {
		r = r.safe(None, "the decoded JSON is identical (formatting only)")
	}
	return reasons(r)
}

// searchDropInChanged: the daemon has no rule for the drop-in, so any change drains and reboots. The
// minimal action judges the effective search list instead, when the drop-in changes nothing else.
func searchDropInChanged(in *input) []Reason {
	o, n := in.Old.Files.SearchRegistries, in.New.Files.SearchRegistries
	if o == nil && n == nil || o != nil && n != nil && bytes.Equal(o, n) {
		return nil
	}
	what := "contents changed"
	switch {
	case o == nil:
		what = "added"
	case n == nil:
		what = "removed"
	}
	r := finding(SearchRegistriesPath, Reboot, "%s; the machine-config daemon has no rule for this file", what)
	if !sameApartFromSearch(in) {
		return reasons(r)
	}
	min, how := effectiveSearchVerdict(in)
	return reasons(r.safe(min, fmt.Sprintf("CRI-O's reload re-reads registries.conf.d together with registries.conf, so no reboot is needed; the drop-in changes only the search list, and the effective list is %s", how)))
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

package nodeaction

import (
	"fmt"
	"strings"

	"github.com/containers/image/v5/pkg/sysregistriesv2"
)

// pair is one scope present on both sides.
type pair struct {
	scope    string
	old, new sysregistriesv2.Registry
}

// kept returns the scopes present on both sides, sorted.
func (in *input) kept() []pair {
	var out []pair
	for _, s := range in.New.Conf.Scopes {
		if o, ok := in.Old.Conf.ByScope[s]; ok {
			out = append(out, pair{scope: s, old: o, new: in.New.Conf.ByScope[s]})
		}
	}
	return out
}

// mode returns how a mirror is used: "digest-only", "tag-only" or "all", counting the legacy
// registry-level mirror-by-digest-only.
func mode(reg *sysregistriesv2.Registry, m *sysregistriesv2.Endpoint) string {
	switch {
	case m.PullFromMirror != "":
		return m.PullFromMirror
	case reg.MirrorByDigestOnly:
		return sysregistriesv2.MirrorByDigestOnly
	}
	return sysregistriesv2.MirrorAll
}

func digestOnly(reg *sysregistriesv2.Registry, m *sysregistriesv2.Endpoint) bool {
	return mode(reg, m) == sysregistriesv2.MirrorByDigestOnly
}

// registryRemoved: a scope that disappears drains.
func registryRemoved(in *input) []Reason {
	var out []Reason
	for _, s := range in.Old.Conf.Scopes {
		if _, ok := in.New.Conf.ByScope[s]; !ok {
			out = append(out, finding(RegistriesConfPath, DrainAndReloadCRIO, "removed").about(s))
		}
	}
	return out
}

// registryAdded: a new scope reloads only when it has mirrors and every one is digest-only (a digest
// pull gets the same bytes wherever it comes from). A new scope without mirrors, or with a tag-only or
// "all" mirror, drains.
func registryAdded(in *input) []Reason {
	var out []Reason
	for _, s := range in.New.Conf.Scopes {
		if _, ok := in.Old.Conf.ByScope[s]; ok {
			continue
		}
		reg := in.New.Conf.ByScope[s]
		var notDigest []string
		for _, m := range reg.Mirrors {
			if !digestOnly(&reg, &m) {
				notDigest = append(notDigest, fmt.Sprintf("%q (%s)", m.Location, mode(&reg, &m)))
			}
		}
		switch {
		case len(notDigest) > 0:
			out = append(out, finding(RegistriesConfPath, DrainAndReloadCRIO, "added with mirrors that are not digest-only: %s", strings.Join(notDigest, ", ")).about(s))
		case len(reg.Mirrors) == 0 && !reg.MirrorByDigestOnly:
			out = append(out, finding(RegistriesConfPath, DrainAndReloadCRIO, "added without mirrors%s", entryFlags(&reg)).about(s))
		default:
			out = append(out, finding(RegistriesConfPath, ReloadCRIO, "added with %d digest-only mirror(s)%s", len(reg.Mirrors), entryFlags(&reg)).about(s))
		}
	}
	return out
}

func entryFlags(reg *sysregistriesv2.Registry) string {
	var flags []string
	if reg.Blocked {
		flags = append(flags, "blocked")
	}
	if reg.Insecure {
		flags = append(flags, "insecure")
	}
	if len(flags) == 0 {
		return ""
	}
	return " (" + strings.Join(flags, ", ") + ")"
}

// prefixChanged: a different prefix for the same scope drains.
func prefixChanged(in *input) []Reason {
	var out []Reason
	for _, p := range in.kept() {
		if p.old.Prefix != p.new.Prefix {
			out = append(out, finding(RegistriesConfPath, DrainAndReloadCRIO, "prefix %q -> %q", p.old.Prefix, p.new.Prefix).about(p.scope))
		}
	}
	return out
}

// locationChanged: a different location for the same scope drains.
func locationChanged(in *input) []Reason {
	var out []Reason
	for _, p := range in.kept() {
		if p.old.Location != p.new.Location {
			out = append(out, finding(RegistriesConfPath, DrainAndReloadCRIO, "location %q -> %q", p.old.Location, p.new.Location).about(p.scope))
		}
	}
	return out
}

// blockedChanged: blocking or unblocking a scope drains. Unblocking only allows pulls that were refused.
func blockedChanged(in *input) []Reason {
	var out []Reason
	for _, p := range in.kept() {
		if p.old.Blocked == p.new.Blocked {
			continue
		}
		r := finding(RegistriesConfPath, DrainAndReloadCRIO, "blocked %t -> %t", p.old.Blocked, p.new.Blocked).about(p.scope)
		if !p.new.Blocked {
			r = r.safe(ReloadCRIO, "unblocking only allows pulls that were refused; every pull that works is tried in the same order and keeps working")
		}
		out = append(out, r)
	}
	return out
}

// insecureChanged: turning insecure on or off drains. Turning it on only relaxes TLS verification.
func insecureChanged(in *input) []Reason {
	var out []Reason
	for _, p := range in.kept() {
		if p.old.Insecure == p.new.Insecure {
			continue
		}
		r := finding(RegistriesConfPath, DrainAndReloadCRIO, "insecure %t -> %t", p.old.Insecure, p.new.Insecure).about(p.scope)
		if p.new.Insecure {
			r = r.safe(ReloadCRIO, "insecure only skips TLS verification and allows plain HTTP after HTTPS fails; every pull that works keeps working")
		}
		out = append(out, r)
	}
	return out
}

// mirrorByDigestOnlyChanged: the legacy registry-level flag turned on or off drains.
func mirrorByDigestOnlyChanged(in *input) []Reason {
	var out []Reason
	for _, p := range in.kept() {
		if p.old.MirrorByDigestOnly != p.new.MirrorByDigestOnly {
			out = append(out, finding(RegistriesConfPath, DrainAndReloadCRIO, "mirror-by-digest-only %t -> %t", p.old.MirrorByDigestOnly, p.new.MirrorByDigestOnly).about(p.scope))
		}
	}
	return out
}

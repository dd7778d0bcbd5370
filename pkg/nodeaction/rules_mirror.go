package nodeaction

import (
	"slices"
	"strings"

	"github.com/containers/image/v5/pkg/sysregistriesv2"
)

// mirrorIndex returns the first mirror with the given location, as the daemon looks mirrors up.
func mirrorIndex(ms []sysregistriesv2.Endpoint, location string) int {
	return slices.IndexFunc(ms, func(m sysregistriesv2.Endpoint) bool { return m.Location == location })
}

// mirrorRemoved: a mirror location of a kept scope that disappears drains.
func mirrorRemoved(in *input) []Reason {
	var out []Reason
	for _, p := range in.kept() {
		for _, m := range p.old.Mirrors {
			if mirrorIndex(p.new.Mirrors, m.Location) < 0 {
				out = append(out, finding(RegistriesConfPath, DrainAndReloadCRIO, "mirror removed (it was %s)", mode(&p.old, &m)).about(p.scope).ofMirror(m.Location))
			}
		}
	}
	return out
}

// mirrorAdded: a new mirror of a kept scope reloads when it is digest-only, and drains otherwise.
func mirrorAdded(in *input) []Reason {
	var out []Reason
	for _, p := range in.kept() {
		for _, m := range p.new.Mirrors {
			if mirrorIndex(p.old.Mirrors, m.Location) >= 0 {
				continue
			}
			a := DrainAndReloadCRIO
			if digestOnly(&p.new, &m) {
				a = ReloadCRIO
			}
			out = append(out, finding(RegistriesConfPath, a, "mirror added, %s", mode(&p.new, &m)).about(p.scope).ofMirror(m.Location))
		}
	}
	return out
}

// pullFromMirrorChanged: a kept mirror whose pull-from-mirror changes reloads when it becomes
// "digest-only", and drains otherwise; "" and "all" mean the same.
func pullFromMirrorChanged(in *input) []Reason {
	var out []Reason
	for _, p := range in.kept() {
		for _, o := range p.old.Mirrors {
			i := mirrorIndex(p.new.Mirrors, o.Location)
			if i < 0 {
				continue
			}
			n := p.new.Mirrors[i]
			if o.PullFromMirror == n.PullFromMirror {
				continue
			}
			a := DrainAndReloadCRIO
			if n.PullFromMirror == sysregistriesv2.MirrorByDigestOnly {
				a = ReloadCRIO
			}
			r := finding(RegistriesConfPath, a, "pull-from-mirror %q -> %q", o.PullFromMirror, n.PullFromMirror).about(p.scope).ofMirror(o.Location)
			if mode(&p.old, &o) == mode(&p.new, &n) {
				r = r.safe(ReloadCRIO, `"" and "all" mean the same: the mirror serves the same pulls`)
			}
			out = append(out, r)
		}
	}
	return out
}

// mirrorsReordered: kept mirrors tried in a different order only reload (the daemon does not look at
// the order).
func mirrorsReordered(in *input) []Reason {
	var out []Reason
	for _, p := range in.kept() {
		o, n := keptLocations(p.old.Mirrors, p.new.Mirrors), keptLocations(p.new.Mirrors, p.old.Mirrors)
		if !slices.Equal(o, n) {
			out = append(out, finding(RegistriesConfPath, ReloadCRIO, "mirrors tried in a new order: [%s] -> [%s]", strings.Join(o, ", "), strings.Join(n, ", ")).about(p.scope))
		}
	}
	return out
}

// keptLocations returns the locations of ms that other also has, in the order of ms.
func keptLocations(ms, other []sysregistriesv2.Endpoint) []string {
	var out []string
	for _, m := range ms {
		if mirrorIndex(other, m.Location) >= 0 && !slices.Contains(out, m.Location) {
			out = append(out, m.Location)
		}
	}
	return out
}

// mirrorInsecureChanged: a kept mirror's own insecure flag only reloads (the daemon does not look at it).
func mirrorInsecureChanged(in *input) []Reason {
	var out []Reason
	for _, p := range in.kept() {
		for _, o := range p.old.Mirrors {
			i := mirrorIndex(p.new.Mirrors, o.Location)
			if i >= 0 && p.new.Mirrors[i].Insecure != o.Insecure {
				out = append(out, finding(RegistriesConfPath, ReloadCRIO, "mirror insecure %t -> %t", o.Insecure, p.new.Mirrors[i].Insecure).about(p.scope).ofMirror(o.Location))
			}
		}
	}
	return out
}

package nodeaction

import (
	"reflect"

	"github.com/BurntSushi/toml"
	"github.com/containers/image/v5/pkg/sysregistriesv2"
)

// daemonDrainsForRegistriesConf is an independent statement, for tests, of today's daemon's Special rule
// (docs/semantics.md §8.3), written from the spec's text rather than from the classifier: it reports
// whether changing registries.conf from old to new drains. It is deliberately one plain function, with no
// table, so that a test comparing the two checks the table against the spec.
func daemonDrainsForRegistriesConf(old, new []byte) (bool, error) {
	var o, n sysregistriesv2.V2RegistriesConf
	if _, err := toml.Decode(string(old), &o); err != nil {
		return false, err
	}
	if _, err := toml.Decode(string(new), &n); err != nil {
		return false, err
	}
	// Only appending to the search list is safe.
	if len(n.UnqualifiedSearchRegistries) < len(o.UnqualifiedSearchRegistries) {
		return true, nil
	}
	for i := range o.UnqualifiedSearchRegistries {
		if o.UnqualifiedSearchRegistries[i] != n.UnqualifiedSearchRegistries[i] {
			return true, nil
		}
	}
	byScope := func(c *sysregistriesv2.V2RegistriesConf) map[string]sysregistriesv2.Registry {
		m := map[string]sysregistriesv2.Registry{}
		for _, r := range c.Registries {
			key := r.Location
			if r.Prefix != "" {
				key = r.Prefix
			}
			m[key] = r
		}
		return m
	}
	oldRegs, newRegs := byScope(&o), byScope(&n)
	for scope := range oldRegs {
		if _, ok := newRegs[scope]; !ok {
			return true, nil // an entry disappears
		}
	}
	find := func(ms []sysregistriesv2.Endpoint, location string) (sysregistriesv2.Endpoint, bool) {
		for _, m := range ms {
			if m.Location == location {
				return m, true
			}
		}
		return sysregistriesv2.Endpoint{}, false
	}
	for scope, nr := range newRegs {
		or, kept := oldRegs[scope]
		if !kept {
			if len(nr.Mirrors) == 0 && !nr.MirrorByDigestOnly {
				return true, nil
			}
			for _, m := range nr.Mirrors {
				if m.PullFromMirror != "digest-only" {
					return true, nil
				}
			}
			continue
		}
		if reflect.DeepEqual(or, nr) {
			continue // an entry identical on both sides is not examined
		}
		if or.Prefix != nr.Prefix || or.Location != nr.Location || or.Blocked != nr.Blocked || or.Insecure != nr.Insecure {
			return true, nil
		}
		for _, m := range or.Mirrors {
			if _, ok := find(nr.Mirrors, m.Location); !ok {
				return true, nil // a mirror disappears
			}
		}
		for _, m := range nr.Mirrors {
			before, ok := find(or.Mirrors, m.Location)
			switch {
			case ok && m.PullFromMirror != before.PullFromMirror && m.PullFromMirror != "digest-only":
				return true, nil
			case !ok && m.PullFromMirror != "digest-only" && !nr.MirrorByDigestOnly:
				return true, nil
			}
		}
	}
	return false, nil
}

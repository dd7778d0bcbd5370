package nodeaction

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/containers/image/v5/pkg/sysregistriesv2"
)

// ChangeKind says whether something was added, removed or changed.
type ChangeKind string

const (
	// Added: an entry, a mirror, a policy scope or the drop-in appears.
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
	// Entry is the scope of the [[registry]] entry concerned, "" for the file itself.
	Entry string
	// Mirror is the mirror location concerned, "" when not about one mirror.
	Mirror string
	// Kind says whether it was added, removed or changed.
	Kind ChangeKind
	// Detail says what, e.g. `blocked false -> true` or `location "m.local", digest-only`.
	Detail string
}

// Diff lists what changed in meaning between the old and new files: search list, entries and mirrors
// added, removed or changed, policy.json scopes, the search drop-in. A file whose bytes changed but whose
// decoded contents did not gives one "formatting only" change. It fails like Classify on files that do
// not parse.
func Diff(old, new Files) ([]Change, error) {
	in, err := newInput(old, new)
	if err != nil {
		return nil, err
	}
	var out []Change
	out = append(out, diffRegistriesConf(in)...)
	out = append(out, diffPolicy(in)...)
	out = append(out, diffDropIn(in)...)
	return out, nil
}

func diffRegistriesConf(in *input) []Change {
	if !fileChanged(in.Old.Files.RegistriesConf, in.New.Files.RegistriesConf, BaseRegistriesConf) {
		return nil
	}
	file := RegistriesConfPath
	o, n := in.Old.Conf, in.New.Conf
	var out []Change
	if !slices.Equal(o.UnqualifiedSearchRegistries, n.UnqualifiedSearchRegistries) {
		out = append(out, Change{File: file, Kind: Changed, Detail: "unqualified-search-registries " + list(o.UnqualifiedSearchRegistries, n.UnqualifiedSearchRegistries)})
	}
	oTop, nTop := o.V2RegistriesConf, n.V2RegistriesConf
	oTop.Registries, nTop.Registries, oTop.UnqualifiedSearchRegistries, nTop.UnqualifiedSearchRegistries = nil, nil, nil, nil
	if !reflect.DeepEqual(oTop, nTop) {
		out = append(out, Change{File: file, Kind: Changed, Detail: "other top-level settings (short-name-mode, aliases, credential-helpers, additional-layer-store-auth-helper)"})
	}
	for _, s := range o.Scopes {
		if _, ok := n.ByScope[s]; !ok {
			reg := o.ByScope[s]
			out = append(out, Change{File: file, Entry: s, Kind: Removed, Detail: describeEntry(&reg)})
		}
	}
	for _, s := range n.Scopes {
		reg := n.ByScope[s]
		if _, ok := o.ByScope[s]; !ok {
			out = append(out, Change{File: file, Entry: s, Kind: Added, Detail: describeEntry(&reg)})
			for _, m := range reg.Mirrors {
				out = append(out, Change{File: file, Entry: s, Mirror: m.Location, Kind: Added, Detail: describeMirror(&reg, &m)})
			}
		}
	}
	for _, p := range in.kept() {
		out = append(out, diffEntry(file, p)...)
	}
	if len(out) == 0 {
		out = append(out, Change{File: file, Kind: Changed, Detail: "formatting only: the decoded configuration is identical"})
	}
	return out
}

func describeEntry(reg *sysregistriesv2.Registry) string {
	parts := []string{fmt.Sprintf("prefix %q, location %q", reg.Prefix, reg.Location)}
	for _, f := range []struct {
		on   bool
		name string
	}{{reg.Blocked, "blocked"}, {reg.Insecure, "insecure"}, {reg.MirrorByDigestOnly, "mirror-by-digest-only"}} {
		if f.on {
			parts = append(parts, f.name)
		}
	}
	parts = append(parts, fmt.Sprintf("%d mirror(s)", len(reg.Mirrors)))
	return strings.Join(parts, ", ")
}

func describeMirror(reg *sysregistriesv2.Registry, m *sysregistriesv2.Endpoint) string {
	s := mode(reg, m)
	if m.Insecure {
		s += ", insecure"
	}
	return s
}

func diffEntry(file string, p pair) []Change {
	var out []Change
	change := func(format string, args ...any) {
		out = append(out, Change{File: file, Entry: p.scope, Kind: Changed, Detail: fmt.Sprintf(format, args...)})
	}
	if p.old.Prefix != p.new.Prefix {
		change("prefix %q -> %q", p.old.Prefix, p.new.Prefix)
	}
	if p.old.Location != p.new.Location {
		change("location %q -> %q", p.old.Location, p.new.Location)
	}
	if p.old.Blocked != p.new.Blocked {
		change("blocked %t -> %t", p.old.Blocked, p.new.Blocked)
	}
	if p.old.Insecure != p.new.Insecure {
		change("insecure %t -> %t", p.old.Insecure, p.new.Insecure)
	}
	if p.old.MirrorByDigestOnly != p.new.MirrorByDigestOnly {
		change("mirror-by-digest-only %t -> %t", p.old.MirrorByDigestOnly, p.new.MirrorByDigestOnly)
	}
	for _, m := range p.old.Mirrors {
		if mirrorIndex(p.new.Mirrors, m.Location) < 0 {
			out = append(out, Change{File: file, Entry: p.scope, Mirror: m.Location, Kind: Removed, Detail: describeMirror(&p.old, &m)})
		}
	}
	for _, m := range p.new.Mirrors {
		i := mirrorIndex(p.old.Mirrors, m.Location)
		if i < 0 {
			out = append(out, Change{File: file, Entry: p.scope, Mirror: m.Location, Kind: Added, Detail: describeMirror(&p.new, &m)})
			continue
		}
		if o := p.old.Mirrors[i]; o != m {
			out = append(out, Change{File: file, Entry: p.scope, Mirror: m.Location, Kind: Changed, Detail: describeMirror(&p.old, &o) + " -> " + describeMirror(&p.new, &m)})
		}
	}
	if o, n := keptLocations(p.old.Mirrors, p.new.Mirrors), keptLocations(p.new.Mirrors, p.old.Mirrors); !slices.Equal(o, n) {
		change("mirror order [%s] -> [%s]", strings.Join(o, ", "), strings.Join(n, ", "))
	}
	return out
}

// policyScopes flattens a decoded policy.json into "default" and "transports.<t> <scope>" keys, each with
// its requirements as compact JSON.
func policyScopes(v any) map[string]string {
	out := map[string]string{}
	m, _ := v.(map[string]any)
	enc := func(x any) string { b, _ := json.Marshal(x); return string(b) }
	for k, x := range m {
		if k != "transports" {
			out[k] = enc(x)
			continue
		}
		ts, _ := x.(map[string]any)
		for t, scopes := range ts {
			sm, ok := scopes.(map[string]any)
			if !ok {
				out["transports."+t] = enc(scopes)
				continue
			}
			for s, req := range sm {
				out[fmt.Sprintf("transports.%s %q", t, s)] = enc(req)
			}
		}
	}
	return out
}

func diffPolicy(in *input) []Change {
	if !fileChanged(in.Old.Files.PolicyJSON, in.New.Files.PolicyJSON, BasePolicyJSON) {
		return nil
	}
	o, n := policyScopes(in.Old.Policy), policyScopes(in.New.Policy)
	keys := make([]string, 0, len(o)+len(n))
	for k := range o {
		keys = append(keys, k)
	}
	for k := range n {
		if _, ok := o[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []Change
	for _, k := range keys {
		ov, inOld := o[k]
		nv, inNew := n[k]
		switch {
		case !inOld:
			out = append(out, Change{File: PolicyJSONPath, Kind: Added, Detail: k + " " + nv})
		case !inNew:
			out = append(out, Change{File: PolicyJSONPath, Kind: Removed, Detail: k + " " + ov})
		case ov != nv:
			out = append(out, Change{File: PolicyJSONPath, Kind: Changed, Detail: k + " " + ov + " -> " + nv})
		}
	}
	if len(out) == 0 {
		out = append(out, Change{File: PolicyJSONPath, Kind: Changed, Detail: "formatting only: the decoded JSON is identical"})
	}
	return out
}

func diffDropIn(in *input) []Change {
	o, n := in.Old.DropIn, in.New.DropIn
	ob, nb := in.Old.Files.SearchRegistries, in.New.Files.SearchRegistries
	switch {
	case ob == nil && nb == nil, ob != nil && nb != nil && string(ob) == string(nb):
		return nil
	case o == nil:
		return []Change{{File: SearchRegistriesPath, Kind: Added, Detail: "unqualified-search-registries [" + strings.Join(n.UnqualifiedSearchRegistries, ", ") + "]"}}
	case n == nil:
		return []Change{{File: SearchRegistriesPath, Kind: Removed, Detail: "unqualified-search-registries [" + strings.Join(o.UnqualifiedSearchRegistries, ", ") + "]"}}
	}
	var out []Change
	if !slices.Equal(o.UnqualifiedSearchRegistries, n.UnqualifiedSearchRegistries) {
		out = append(out, Change{File: SearchRegistriesPath, Kind: Changed, Detail: "unqualified-search-registries " + list(o.UnqualifiedSearchRegistries, n.UnqualifiedSearchRegistries)})
	}
	if !sameApartFromSearch(in) {
		out = append(out, Change{File: SearchRegistriesPath, Kind: Changed, Detail: "settings other than the search list"})
	}
	if len(out) == 0 {
		out = append(out, Change{File: SearchRegistriesPath, Kind: Changed, Detail: "formatting only: the decoded configuration is identical"})
	}
	return out
}

// String renders the change on one line, e.g. `registries.conf [[registry]] "quay.io" mirror "m.local": added: digest-only`.
func (c Change) String() string {
	return fmt.Sprintf("%s: %s: %s", place(c.File, c.Entry, c.Mirror), c.Kind, c.Detail)
}

package nodeaction

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/containers/image/v5/pkg/sysregistriesv2"
)

// registriesConfTable is the one list of what differs in registries.conf: the file's settings, its
// [[registry]] entries, and their mirrors. Each row says how to describe a difference (Diff prints it) and
// how today's daemon judges it under the Special rule (Classify's reasons); the package documentation lists
// the rows with the daemon's judgement of each (docs/semantics.md §8.3). Comparing another setting means
// adding a row, and both Diff and Classify follow. Rows run in order, each over every entry sorted by scope.
var registriesConfTable = []field{
	{rule: "search-list-appended", changes: searchChanges(searchAppended), judge: safeBecause("only appended")},
	{rule: "search-list-reordered", changes: searchChanges(searchReordered), judge: judgeSearchDrains("reordered or replaced")},
	{rule: "search-list-shrunk", changes: searchChanges(searchShrunk), judge: judgeSearchDrains("shrunk")},
	{rule: "other-settings-changed", changes: otherSettingsChanges, judge: safeBecause("the daemon does not look at settings other than the search list and the entries")},
	{rule: "registry-removed", changes: registryRemovedChanges, judge: drainsBecause("a removed entry drains")},
	{rule: "registry-added", changes: registryAddedChanges, judge: judgeRegistryAdded},
	{rule: "prefix-changed", changes: keptEntry(func(o, n *sysregistriesv2.Registry) (string, bool) {
		return fmt.Sprintf("prefix %q -> %q", o.Prefix, n.Prefix), o.Prefix != n.Prefix
	}), judge: drainsBecause("")},
	{rule: "location-changed", changes: keptEntry(func(o, n *sysregistriesv2.Registry) (string, bool) {
		return fmt.Sprintf("location %q -> %q", o.Location, n.Location), o.Location != n.Location
	}), judge: drainsBecause("")},
	{rule: "blocked-changed", changes: keptEntry(func(o, n *sysregistriesv2.Registry) (string, bool) {
		return fmt.Sprintf("blocked %t -> %t", o.Blocked, n.Blocked), o.Blocked != n.Blocked
	}), judge: judgeBlocked},
	{rule: "insecure-changed", changes: keptEntry(func(o, n *sysregistriesv2.Registry) (string, bool) {
		return fmt.Sprintf("insecure %t -> %t", o.Insecure, n.Insecure), o.Insecure != n.Insecure
	}), judge: judgeInsecure},
	{rule: "mirror-by-digest-only-changed", changes: keptEntry(func(o, n *sysregistriesv2.Registry) (string, bool) {
		return fmt.Sprintf("mirror-by-digest-only %t -> %t", o.MirrorByDigestOnly, n.MirrorByDigestOnly), o.MirrorByDigestOnly != n.MirrorByDigestOnly
	}), judge: safeBecause("the daemon does not compare a kept entry's mirror-by-digest-only (it did up to 4.12)")},
	{rule: "mirror-removed", changes: mirrorRemovedChanges, judge: drainsBecause("")},
	{rule: "pull-from-mirror-changed", changes: keptMirror(func(o, n *sysregistriesv2.Endpoint) (string, bool) {
		return fmt.Sprintf("pull-from-mirror %q -> %q", o.PullFromMirror, n.PullFromMirror), o.PullFromMirror != n.PullFromMirror
	}), judge: judgePullFromMirror},
	{rule: "mirror-insecure-changed", changes: keptMirror(func(o, n *sysregistriesv2.Endpoint) (string, bool) {
		return fmt.Sprintf("insecure %t -> %t", o.Insecure, n.Insecure), o.Insecure != n.Insecure
	}), judge: safeBecause("the daemon does not look at a mirror's own insecure flag")},
	{rule: "mirror-added", changes: mirrorAddedChanges, judge: judgeMirrorAdded},
	{rule: "mirrors-reordered", changes: mirrorsReorderedChanges, judge: safeBecause("the daemon does not look at mirror order")},
}

// field is one row of registriesConfTable.
type field struct {
	// rule names the row, e.g. "mirror-added"; Classify's reasons carry it.
	rule string
	// changes lists the row's differences between the two sides; Diff prints each one.
	changes func(in *input) []delta
	// judge says how today's daemon judges one difference, and the smallest action that is enough for it.
	judge func(in *input, d delta) verdict
}

// delta is one difference in registries.conf: of a top-level setting, of a [[registry]] entry, or of one of
// its mirrors.
type delta struct {
	// entry is the entry's scope, "" for a top-level setting; mirror the mirror's location, or "".
	entry, mirror string
	kind          ChangeKind
	// detail says what, e.g. `blocked false -> true`, or `digest-only` for an added mirror.
	detail string
	// old and new are the entry on each side (nil where it does not exist); oldMirror and newMirror the
	// mirror, when the difference is about one.
	old, new             *sysregistriesv2.Registry
	oldMirror, newMirror *sysregistriesv2.Endpoint
}

// verdict is how today's daemon judges one delta, and the advisory minimal action.
type verdict struct {
	// safe is the daemon's judgement: no drain for this difference.
	safe bool
	// note says why, when the row name does not say it all ("" otherwise).
	note string
	// minimal is the smallest action that is enough for the difference, and why the smallest is enough.
	minimal Action
	why     string
}

// safeVerdict and drainVerdict are the daemon's two judgements, each with the minimal action of a node that
// only needs CRI-O to re-read registries.conf (and, for a drain, its running pods restarted under the new rules).
func safeVerdict(note string) verdict {
	return verdict{safe: true, note: note, minimal: reloadCRIO, why: "CRI-O's reload re-reads registries.conf"}
}

func drainVerdict(note string) verdict {
	return verdict{note: note, minimal: drainAndReloadCRIO, why: "CRI-O's reload re-reads registries.conf; the drain restarts the pods that pulled under the old rules"}
}

// lower makes the minimal action smaller, saying why that is enough. It never raises it.
func (v verdict) lower(minimal Action, why string) verdict {
	if minimal.Level() < v.minimal.Level() {
		v.minimal, v.why = minimal, why
	}
	return v
}

func safeBecause(note string) func(*input, delta) verdict {
	return func(*input, delta) verdict { return safeVerdict(note) }
}

func drainsBecause(note string) func(*input, delta) verdict {
	return func(*input, delta) verdict { return drainVerdict(note) }
}

// The search list (the daemon compares registries.conf's own list, whatever a drop-in sets).

func searchAppended(o, n []string) bool { return len(n) > len(o) && slices.Equal(o, n[:len(o)]) }
func searchReordered(o, n []string) bool {
	return len(n) >= len(o) && !slices.Equal(o, n[:len(o)])
}
func searchShrunk(o, n []string) bool { return len(n) < len(o) }

func searchChanges(applies func(o, n []string) bool) func(*input) []delta {
	return func(in *input) []delta {
		o, n := in.Old.Conf.UnqualifiedSearchRegistries, in.New.Conf.UnqualifiedSearchRegistries
		if !applies(o, n) {
			return nil
		}
		return []delta{{kind: Changed, detail: "unqualified-search-registries " + list(o, n)}}
	}
}

func judgeSearchDrains(how string) func(*input, delta) verdict {
	return func(in *input, _ delta) verdict { return overriddenSearch(in, drainVerdict(how)) }
}

// overriddenSearch judges the minimal action of a registries.conf search-list change on the effective list
// when a drop-in sets the list on either side: registries.conf's own list is then not (or not only) what
// containers/image reads.
func overriddenSearch(in *input, v verdict) verdict {
	if !in.Old.dropInSetsSearch() && !in.New.dropInSetsSearch() {
		return v
	}
	min, how := effectiveSearchVerdict(in)
	return v.lower(merge(min, reloadCRIO), fmt.Sprintf("the search drop-in sets the list containers/image reads, and that effective list is %s", how))
}

// effectiveSearchVerdict judges the change of the effective search list with the daemon's search-list rule.
func effectiveSearchVerdict(in *input) (Action, string) {
	o, n := in.Old.effectiveSearch(), in.New.effectiveSearch()
	switch {
	case slices.Equal(o, n):
		return none, fmt.Sprintf("unchanged %s", list(o, n))
	case searchAppended(o, n):
		return reloadCRIO, fmt.Sprintf("only appended to %s", list(o, n))
	case searchShrunk(o, n):
		return drainAndReloadCRIO, fmt.Sprintf("shrunk %s, which drains like the same change in registries.conf", list(o, n))
	}
	return drainAndReloadCRIO, fmt.Sprintf("reordered or replaced %s, which drains like the same change in registries.conf", list(o, n))
}

func otherSettingsChanges(in *input) []delta {
	o, n := in.Old.Conf.V2RegistriesConf, in.New.Conf.V2RegistriesConf
	o.Registries, n.Registries, o.UnqualifiedSearchRegistries, n.UnqualifiedSearchRegistries = nil, nil, nil, nil
	if reflect.DeepEqual(o, n) {
		return nil
	}
	return []delta{{kind: Changed, detail: "other top-level settings (short-name-mode, aliases, credential-helpers, additional-layer-store-auth-helper)"}}
}

// Entries.

func registryRemovedChanges(in *input) []delta {
	var out []delta
	for _, s := range in.Old.Conf.Scopes {
		if _, ok := in.New.Conf.ByScope[s]; !ok {
			o := in.Old.Conf.ByScope[s]
			out = append(out, delta{entry: s, kind: Removed, detail: describeEntry(&o), old: &o})
		}
	}
	return out
}

// registryAddedChanges lists each new entry, then each of its mirrors.
func registryAddedChanges(in *input) []delta {
	var out []delta
	for _, s := range in.New.Conf.Scopes {
		if _, ok := in.Old.Conf.ByScope[s]; ok {
			continue
		}
		n := in.New.Conf.ByScope[s]
		out = append(out, delta{entry: s, kind: Added, detail: describeEntry(&n), new: &n})
		for i := range n.Mirrors {
			out = append(out, delta{entry: s, mirror: n.Mirrors[i].Location, kind: Added, detail: describeMirror(&n, &n.Mirrors[i]), new: &n, newMirror: &n.Mirrors[i]})
		}
	}
	return out
}

// judgeRegistryAdded: a new entry is judged by its mirrors' pull-from-mirror alone; without mirrors, by its
// legacy mirror-by-digest-only.
func judgeRegistryAdded(_ *input, d delta) verdict {
	switch {
	case d.newMirror != nil && d.newMirror.PullFromMirror == sysregistriesv2.MirrorByDigestOnly:
		return safeVerdict("")
	case d.newMirror != nil && d.new.MirrorByDigestOnly:
		return drainVerdict(`a new entry's mirror needs pull-from-mirror "digest-only"; the daemon ignores the entry's mirror-by-digest-only once it has mirrors`)
	case d.newMirror != nil:
		return drainVerdict(`a new entry's mirror needs pull-from-mirror "digest-only"`)
	case len(d.new.Mirrors) > 0:
		return safeVerdict("judged by its mirrors")
	case d.new.MirrorByDigestOnly:
		return safeVerdict("without mirrors, and mirror-by-digest-only is set")
	}
	return drainVerdict("a new entry without mirrors drains unless its mirror-by-digest-only is set")
}

// keptEntry makes the changes of one setting of the entries on both sides; differs returns the detail and
// whether the setting differs.
func keptEntry(differs func(o, n *sysregistriesv2.Registry) (string, bool)) func(*input) []delta {
	return func(in *input) []delta {
		var out []delta
		for _, p := range in.kept() {
			if detail, ok := differs(p.old, p.new); ok {
				out = append(out, delta{entry: p.scope, kind: Changed, detail: detail, old: p.old, new: p.new})
			}
		}
		return out
	}
}

func judgeBlocked(_ *input, d delta) verdict {
	v := drainVerdict("")
	if !d.new.Blocked {
		v = v.lower(reloadCRIO, "unblocking only allows pulls that were refused; every pull that works is tried in the same order and keeps working")
	}
	return v
}

func judgeInsecure(_ *input, d delta) verdict {
	v := drainVerdict("")
	if d.new.Insecure {
		v = v.lower(reloadCRIO, "insecure only skips TLS verification and allows plain HTTP after HTTPS fails; every pull that works keeps working")
	}
	return v
}

// Mirrors of kept entries. A mirror is looked up by location, the first with that location, as the daemon
// does.

func mirrorIndex(ms []sysregistriesv2.Endpoint, location string) int {
	return slices.IndexFunc(ms, func(m sysregistriesv2.Endpoint) bool { return m.Location == location })
}

func mirrorRemovedChanges(in *input) []delta {
	var out []delta
	for _, p := range in.kept() {
		for i := range p.old.Mirrors {
			m := &p.old.Mirrors[i]
			if mirrorIndex(p.new.Mirrors, m.Location) < 0 {
				out = append(out, delta{entry: p.scope, mirror: m.Location, kind: Removed, detail: describeMirror(p.old, m), old: p.old, new: p.new, oldMirror: m})
			}
		}
	}
	return out
}

// keptMirror makes the changes of one setting of the mirrors on both sides: each new mirror against the
// first old mirror with its location, as the daemon compares them.
func keptMirror(differs func(o, n *sysregistriesv2.Endpoint) (string, bool)) func(*input) []delta {
	return func(in *input) []delta {
		var out []delta
		for _, p := range in.kept() {
			for i := range p.new.Mirrors {
				n := &p.new.Mirrors[i]
				j := mirrorIndex(p.old.Mirrors, n.Location)
				if j < 0 {
					continue
				}
				if detail, ok := differs(&p.old.Mirrors[j], n); ok {
					out = append(out, delta{entry: p.scope, mirror: n.Location, kind: Changed, detail: detail, old: p.old, new: p.new, oldMirror: &p.old.Mirrors[j], newMirror: n})
				}
			}
		}
		return out
	}
}

// judgePullFromMirror: a kept mirror may only become "digest-only"; "" and "all" mean the same.
func judgePullFromMirror(_ *input, d delta) verdict {
	if d.newMirror.PullFromMirror == sysregistriesv2.MirrorByDigestOnly {
		return safeVerdict("")
	}
	v := drainVerdict(`a kept mirror may only change its pull-from-mirror to "digest-only"`)
	if mode(d.old, d.oldMirror) == mode(d.new, d.newMirror) {
		v = v.lower(reloadCRIO, `"" and "all" mean the same: the mirror serves the same pulls`)
	}
	return v
}

func mirrorAddedChanges(in *input) []delta {
	var out []delta
	for _, p := range in.kept() {
		for i := range p.new.Mirrors {
			n := &p.new.Mirrors[i]
			if mirrorIndex(p.old.Mirrors, n.Location) < 0 {
				out = append(out, delta{entry: p.scope, mirror: n.Location, kind: Added, detail: describeMirror(p.new, n), old: p.old, new: p.new, newMirror: n})
			}
		}
	}
	return out
}

// judgeMirrorAdded: a mirror added to a kept entry is safe when it is digest-only, by its own pull-from-mirror
// or by the entry's new mirror-by-digest-only.
func judgeMirrorAdded(_ *input, d delta) verdict {
	switch {
	case d.newMirror.PullFromMirror == sysregistriesv2.MirrorByDigestOnly:
		return safeVerdict("")
	case d.new.MirrorByDigestOnly:
		return safeVerdict("the entry's mirror-by-digest-only is set")
	}
	return drainVerdict(`an added mirror needs pull-from-mirror "digest-only", or the entry's mirror-by-digest-only`)
}

func mirrorsReorderedChanges(in *input) []delta {
	var out []delta
	for _, p := range in.kept() {
		o, n := keptLocations(p.old.Mirrors, p.new.Mirrors), keptLocations(p.new.Mirrors, p.old.Mirrors)
		if !slices.Equal(o, n) {
			out = append(out, delta{entry: p.scope, kind: Changed, detail: fmt.Sprintf("mirror order [%s] -> [%s]", strings.Join(o, ", "), strings.Join(n, ", ")), old: p.old, new: p.new})
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

// pair is one scope present on both sides.
type pair struct {
	scope    string
	old, new *sysregistriesv2.Registry
}

// kept returns the scopes present on both sides whose entries differ, sorted. The daemon does not examine
// an entry identical on both sides; this matters when an entry repeats a mirror location, since mirrors are
// looked up by location, the first match.
func (in *input) kept() []pair {
	var out []pair
	for _, s := range in.New.Conf.Scopes {
		if o, ok := in.Old.Conf.ByScope[s]; ok {
			n := in.New.Conf.ByScope[s]
			if !reflect.DeepEqual(o, n) {
				out = append(out, pair{scope: s, old: &o, new: &n})
			}
		}
	}
	return out
}

// mode returns which references a mirror serves: "digest-only", "tag-only" or "all". It follows
// containers/image's PullSourcesFromReference: the registry-level mirror-by-digest-only wins (every mirror
// then serves digest references only, whatever its own pull-from-mirror), then the mirror's pull-from-mirror,
// "" meaning "all". (containers/image refuses to load a file that sets both, so on a node the precedence only
// matters for files the library rejects; the daemon's own rule reads the raw values, see the rows.)
func mode(reg *sysregistriesv2.Registry, m *sysregistriesv2.Endpoint) string {
	switch {
	case reg.MirrorByDigestOnly:
		return sysregistriesv2.MirrorByDigestOnly
	case m.PullFromMirror != "":
		return m.PullFromMirror
	}
	return sysregistriesv2.MirrorAll
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

package registries

import (
	"github.com/openshift/registries-controller/pkg/inputs"

	"fmt"
	"slices"

	"github.com/containers/image/v5/pkg/sysregistriesv2"
)

// scopeItem is one item of an Image registrySources list.
type scopeItem struct {
	scope  Scope
	origin inputs.FieldRef
}

// regEntry is one [[registry]] table under construction.
type regEntry struct {
	scope Scope
	reg   sysregistriesv2.Registry
	// own is true for mirrored sources: their mirrors come from mirror sets, not from an enclosing scope.
	own     bool
	origins []inputs.FieldRef
	// from is the enclosing source whose mirrors the entry inherited, if any.
	from *regEntry
}

// registryBuilder holds the entries in output order, indexed by scope, so that every lookup of an
// enclosing scope is one map access (docs/semantics.md §7.7: MCO scans all entries for each).
type registryBuilder struct {
	list    []*regEntry
	byScope map[Scope]*regEntry
}

// entry returns the entry for scope, appending a new one when there is none. Wildcard scopes go into
// prefix with an empty location, every other scope into location with prefix "".
func (b *registryBuilder) entry(scope Scope) *regEntry {
	e := b.byScope[scope]
	if e == nil {
		e = &regEntry{scope: scope}
		if scope.IsWildcard() {
			e.reg.Prefix = string(scope)
		} else {
			e.reg.Location = string(scope)
		}
		b.byScope[scope] = e
		b.list = append(b.list, e)
	}
	return e
}

// scopeSet is a set of insecure or blocked scopes. It notes whether any is a wildcard, so that lookups
// skip the wildcard ancestors, which cost an allocation each, when none can match (the common case).
type scopeSet struct {
	scopes    map[Scope]bool
	wildcards bool
}

func newScopeSet(items []scopeItem) *scopeSet {
	set := &scopeSet{scopes: make(map[Scope]bool, len(items))}
	for _, item := range items {
		set.scopes[item.scope] = true
		set.wildcards = set.wildcards || item.scope.IsWildcard()
	}
	return set
}

// covered reports whether s or one of its ancestors is in set.
func covered(s Scope, set *scopeSet) bool {
	if len(set.scopes) == 0 {
		return false
	}
	if set.scopes[s] {
		return true
	}
	for a := range s.namespaceAncestors {
		if set.scopes[a] {
			return true
		}
	}
	if set.wildcards {
		for a := range s.wildcardAncestors {
			if set.scopes[a] {
				return true
			}
		}
	}
	return false
}

// buildRegistries computes the [[registry]] entries (docs/semantics.md §2, steps 3-7) in MCO's order:
// digest sources, tag-only sources, then new blocked scopes and new insecure scopes in list order.
// It returns the problems that make the input impossible to render faithfully.
func buildRegistries(digest, tag []*mirrorSet, insecure, blocked []scopeItem) ([]sysregistriesv2.Registry, []InheritedReport, []inputs.Problem) {
	b := &registryBuilder{byScope: make(map[Scope]*regEntry, len(digest)+len(tag)+len(insecure)+len(blocked))}
	addSets := func(sets []*mirrorSet, pullFrom string) {
		for _, s := range sets {
			e := b.entry(Scope(s.source))
			e.origins = append(e.origins, s.entries...)
			e.own = true
			e.reg.Blocked = e.reg.Blocked || s.never
			e.reg.Mirrors = slices.Grow(e.reg.Mirrors, len(s.mirrors))
			for _, m := range s.mirrors {
				e.reg.Mirrors = append(e.reg.Mirrors, sysregistriesv2.Endpoint{Location: m, PullFromMirror: pullFrom})
			}
		}
	}
	addSets(digest, sysregistriesv2.MirrorByDigestOnly)
	addSets(tag, sysregistriesv2.MirrorByTagOnly)

	insecureSet, blockedSet := newScopeSet(insecure), newScopeSet(blocked)
	for _, item := range blocked {
		e := b.entry(item.scope)
		e.origins = append(e.origins, item.origin)
	}
	for _, item := range insecure {
		e := b.entry(item.scope)
		e.origins = append(e.origins, item.origin)
	}

	var inherited []InheritedReport
	for _, e := range b.list {
		e.reg.Insecure = covered(e.scope, insecureSet)
		e.reg.Blocked = e.reg.Blocked || covered(e.scope, blockedSet)
		if len(e.reg.Mirrors) == 0 {
			if from := b.nearestMirrored(e.scope); from != nil {
				e.inherit(from)
				inherited = append(inherited, InheritedReport{Scope: string(e.scope), From: string(from.scope)})
			}
		}
	}
	var problems []inputs.Problem
	out := make([]sysregistriesv2.Registry, len(b.list))
	for i, e := range b.list {
		for j := range e.reg.Mirrors {
			m := &e.reg.Mirrors[j]
			m.Insecure = covered(Scope(m.Location), insecureSet)
		}
		problems = append(problems, e.checkInherited()...)
		problems = append(problems, b.checkShadowed(e)...)
		out[i] = e.reg
	}
	return out, inherited, problems
}

// nearestMirrored returns the nearest strictly enclosing mirrored source of s (docs/semantics.md §7.2: the
// reference takes the farthest one), or nil.
func (b *registryBuilder) nearestMirrored(s Scope) *regEntry {
	for a := range s.ancestors {
		if e := b.byScope[a]; e != nil && e.own {
			return e
		}
	}
	return nil
}

// inherit gives e the mirrors of the enclosing source from, rebased so that every reference under e is
// rewritten as from would rewrite it (docs/semantics.md §2.7). A source that must never be contacted stays
// never contacted below it too (docs/semantics.md §7.3: MCO lets nested entries fall back to it).
func (e *regEntry) inherit(from *regEntry) {
	e.from = from
	for _, m := range from.reg.Mirrors {
		m.Location = rebase(m.Location, from.scope, e.scope)
		e.reg.Mirrors = append(e.reg.Mirrors, m)
	}
	e.reg.Blocked = e.reg.Blocked || from.reg.Blocked
}

// checkInherited reports inherited mirror locations that are not valid locations. This happens only
// below a wildcard source whose mirror has a port while the nested scope has one too
// ("m.local:443" + ":5000/team"): containers/image would fail every pull under the nested scope.
func (e *regEntry) checkInherited() []inputs.Problem {
	if e.from == nil {
		return nil
	}
	var ps []inputs.Problem
	for _, m := range e.reg.Mirrors {
		if mirrorPattern.MatchString(m.Location) {
			continue
		}
		for _, o := range e.from.origins {
			ps = append(ps, inputs.Problem{At: inputs.FieldRef{Object: o.Object, Field: o.Field + ".source"}, Value: string(e.from.scope),
				Message: fmt.Sprintf("the nested scope %q (from %s) would inherit the mirror location %q, which is not a valid location", e.scope, originList(e.origins), m.Location),
				Fix:     "configure mirrors for the nested scope explicitly, or use mirrors without a port for the wildcard source"})
		}
		break
	}
	return ps
}

// checkShadowed reports an exact host that containers/image would never use: a wildcard of the same
// length ("*.b.com" and "a.b.com") wins the tie at pull time because "*" sorts first (docs/semantics.md §7.6).
// It is a problem only when the two entries say different things.
func (b *registryBuilder) checkShadowed(e *regEntry) []inputs.Problem {
	s := string(e.scope)
	if e.scope.IsWildcard() || e.scope.Host() != s || len(s) < 3 || s[1] != '.' {
		return nil
	}
	w := b.byScope[Scope("*"+s[1:])]
	if w == nil || sameMeaning(&e.reg, &w.reg) {
		return nil
	}
	var ps []inputs.Problem
	for _, o := range e.origins {
		field := o.Field
		if o.Object.Kind != inputs.KindImage {
			field += ".source"
		}
		ps = append(ps, inputs.Problem{At: inputs.FieldRef{Object: o.Object, Field: field}, Value: s,
			Message: fmt.Sprintf("containers/image resolves %q to the wildcard entry %q (from %s), which has the same length and always wins the tie, so this setting would be silently ignored", s, w.scope, originList(w.origins)),
			Fix:     fmt.Sprintf("configure namespaces below %q (e.g. %q) instead, or give %q the same mirrors, insecure and blocked settings", s, s+"/ns", w.scope)})
	}
	return ps
}

func sameMeaning(a, b *sysregistriesv2.Registry) bool {
	if a.Blocked != b.Blocked || a.Insecure != b.Insecure || len(a.Mirrors) != len(b.Mirrors) {
		return false
	}
	for i := range a.Mirrors {
		if a.Mirrors[i] != b.Mirrors[i] {
			return false
		}
	}
	return true
}

func originList(os []inputs.FieldRef) string {
	if len(os) == 0 {
		return "nothing"
	}
	s := os[0].String()
	if len(os) > 1 {
		s += fmt.Sprintf(" and %d more", len(os)-1)
	}
	return s
}

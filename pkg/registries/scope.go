package registries

import "strings"

// Scope is the part of an image reference a registries.conf entry applies to, as written in
// ImageDigestMirrorSet sources, Image registrySources lists and registries.conf prefixes.
//
// Three shapes exist:
//
//	quay.io                      a whole registry (host, optionally with :port)
//	quay.io/openshift/release    a namespace or repository on that registry
//	*.example.com                every subdomain of example.com, at any depth (never example.com itself)
//
// A scope never carries a scheme, a tag, a digest or a trailing "/"; Validate rejects those before a
// Scope is built.
type Scope string

// IsWildcard reports whether s has the form "*.domain".
func (s Scope) IsWildcard() bool { return strings.HasPrefix(string(s), "*.") }

// Host returns the host name of s without port or path: "quay.io" for "quay.io:443/ns/repo".
// For a wildcard scope it returns s itself.
func (s Scope) Host() string {
	if s.IsWildcard() {
		return string(s)
	}
	str := string(s)
	if i := strings.IndexAny(str, ":/"); i >= 0 {
		return str[:i]
	}
	return str
}

// Contains reports whether sub is nested in s, with the meaning MCO gives it (docs/semantics.md §2):
// sub equals s; or sub starts with s followed by "/"; or s is "*.d" and the host of sub ends with ".d".
// "quay.io:443" is not nested in "quay.io", and "example.com" is not nested in "*.example.com".
func (s Scope) Contains(sub Scope) bool {
	switch {
	case sub == s:
		return true
	case s.IsWildcard():
		return strings.HasSuffix(sub.Host(), string(s)[1:])
	default:
		return len(sub) > len(s) && strings.HasPrefix(string(sub), string(s)) && sub[len(s)] == '/'
	}
}

// Ancestors returns the scopes that strictly contain s, nearest first: the enclosing namespaces
// ("quay.io/a/b" gives "quay.io/a", then "quay.io"), then the wildcards covering the host, longest first
// ("*.b.example.com", "*.example.com", "*.com"). It lets callers find enclosing entries with one map lookup
// per level instead of comparing every pair of entries.
func (s Scope) Ancestors() []Scope {
	var out []Scope
	for a := range s.ancestors {
		out = append(out, a)
	}
	return out
}

// ancestors yields what Ancestors returns, in the same order, without building a slice: the merge
// walks the ancestors of every entry and mirror.
func (s Scope) ancestors(yield func(Scope) bool) {
	for a := range s.namespaceAncestors {
		if !yield(a) {
			return
		}
	}
	s.wildcardAncestors(yield)
}

// namespaceAncestors yields the enclosing namespaces of s, nearest first ("quay.io/a/b" gives "quay.io/a",
// then "quay.io"); none for a wildcard.
func (s Scope) namespaceAncestors(yield func(Scope) bool) {
	if s.IsWildcard() {
		return
	}
	str := string(s)
	for i := strings.LastIndexByte(str, '/'); i > 0; i = strings.LastIndexByte(str[:i], '/') {
		if !yield(Scope(str[:i])) {
			return
		}
	}
}

// wildcardAncestors yields the wildcards covering the host of s, longest first ("*.b.example.com",
// "*.example.com", "*.com"); each costs an allocation.
func (s Scope) wildcardAncestors(yield func(Scope) bool) {
	host := s.Host()
	if s.IsWildcard() {
		host = host[2:] // the labels below the "*"
	}
	for i := strings.IndexByte(host, '.'); i >= 0; {
		if !yield(Scope("*" + host[i:])) {
			return
		}
		next := strings.IndexByte(host[i+1:], '.')
		if next < 0 {
			break
		}
		i += 1 + next
	}
}

// rebase returns the location a mirror of an enclosing scope must have when it is configured on the nested
// scope sub, so that every reference under sub is rewritten exactly as the enclosing entry would rewrite it.
// For a namespace ancestor the extra path is appended ("m.local" for "quay.io" becomes "m.local/team" for
// "quay.io/team"); below a wildcard, containers/image replaces only the host, so the rest of sub (port and
// path) is appended, and a nested wildcard keeps the mirror unchanged.
func rebase(mirror string, ancestor, sub Scope) string {
	switch {
	case sub.IsWildcard():
		return mirror
	case ancestor.IsWildcard():
		return mirror + string(sub)[len(sub.Host()):]
	default:
		return mirror + string(sub)[len(ancestor):]
	}
}

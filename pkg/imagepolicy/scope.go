package imagepolicy

import "strings"

// Nested reports whether the signature scope sub is nested in super (docs/semantics.md §9.2): they are
// equal; or super has no tag or digest and the repository of sub (sub without its ":tag" or "@digest") equals
// super or continues it with "/"; or super is "*.d" and the host of sub (before the first "/", without
// ":port") ends with ".d".
//
//	Nested("quay.io/a/b:v1", "quay.io/a/b")            true (MCO says false, docs/semantics.md §9.9 D5)
//	Nested("a.example.com/x:v1", "*.example.com")      true (MCO says false, docs/semantics.md §9.9 D5)
//	Nested("a.example.com:5000/x", "*.example.com")    true
//	Nested("example.com", "*.example.com")             false
//	Nested("quay.io/ab", "quay.io/a")                  false
//	Nested("quay.io:5000", "quay.io")                  false
func Nested(sub, super string) bool {
	switch {
	case sub == super:
		return true
	case strings.HasPrefix(super, "*."):
		return strings.HasSuffix(host(sub), super[1:])
	case repository(super) != super:
		return false
	}
	repo := repository(sub)
	return repo == super || strings.HasPrefix(repo, super+"/")
}

// repository returns s without a "@digest" or a ":tag" after its last "/": "quay.io/a/b" for
// "quay.io/a/b:v1"; "quay.io:5000" stays as it is (a port, not a tag).
func repository(s string) string {
	if i := strings.IndexByte(s, '@'); i >= 0 {
		s = s[:i]
	}
	if slash := strings.LastIndexByte(s, '/'); slash >= 0 {
		if colon := strings.LastIndexByte(s, ':'); colon > slash {
			s = s[:colon]
		}
	}
	return s
}

// host returns the host of s without port: "a.example.com" for "a.example.com:5000/x", and a wildcard as it is.
func host(s string) string {
	if i := strings.IndexByte(s, '/'); i >= 0 {
		s = s[:i]
	}
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	return s
}

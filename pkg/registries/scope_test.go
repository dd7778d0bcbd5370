package registries

import (
	"reflect"
	"testing"
)

func TestScopeContains(t *testing.T) {
	for _, tc := range []struct {
		super, sub string
		want       bool
	}{
		{"quay.io", "quay.io", true},
		{"quay.io", "quay.io/ns", true},
		{"quay.io/ns", "quay.io/ns/repo", true},
		{"quay.io/ns", "quay.io/nsx", false},
		{"quay.io", "quay.io:443", false},
		{"quay.io", "quay.io:443/ns", false},
		{"quay.io/ns", "quay.io", false},
		{"*.example.com", "a.example.com", true},
		{"*.example.com", "a.b.example.com/ns", true},
		{"*.example.com", "a.example.com:5000/ns", true},
		{"*.example.com", "*.b.example.com", true},
		{"*.example.com", "example.com", false},
		{"*.example.com", "aexample.com", false},
		{"*.b.example.com", "*.example.com", false},
		{"*.com", "quay.io/ns.com", false},
	} {
		if got := Scope(tc.super).Contains(Scope(tc.sub)); got != tc.want {
			t.Errorf("%q contains %q: %v, want %v", tc.super, tc.sub, got, tc.want)
		}
	}
}

func TestScopeAncestorsAreTheEnclosingScopesNearestFirst(t *testing.T) {
	for _, tc := range []struct {
		scope string
		want  []Scope
	}{
		{"quay.io/a/b", []Scope{"quay.io/a", "quay.io", "*.io"}},
		{"reg.lab.example.com:5000/ns", []Scope{"reg.lab.example.com:5000", "*.lab.example.com", "*.example.com", "*.com"}},
		{"*.b.example.com", []Scope{"*.example.com", "*.com"}},
		{"localhost/ns", []Scope{"localhost"}},
		{"localhost", nil},
	} {
		got := Scope(tc.scope).Ancestors()
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %v, want %v", tc.scope, got, tc.want)
		}
		for _, a := range got {
			if !a.Contains(Scope(tc.scope)) {
				t.Errorf("%q: ancestor %q does not contain it", tc.scope, a)
			}
		}
	}
}

func TestRebaseRewritesAsContainersImageWould(t *testing.T) {
	for _, tc := range []struct {
		mirror, ancestor, sub, want string
	}{
		{"m.local", "quay.io", "quay.io/team", "m.local/team"},
		{"m.local/q", "quay.io/a", "quay.io/a/b/c", "m.local/q/b/c"},
		{"m.local/ex", "*.example.com", "a.example.com/team", "m.local/ex/team"},
		{"m.local/ex", "*.example.com", "a.example.com:5000/team", "m.local/ex:5000/team"},
		{"m.local/ex", "*.example.com", "*.b.example.com", "m.local/ex"},
	} {
		if got := rebase(tc.mirror, Scope(tc.ancestor), Scope(tc.sub)); got != tc.want {
			t.Errorf("rebase(%q, %q, %q) = %q, want %q", tc.mirror, tc.ancestor, tc.sub, got, tc.want)
		}
	}
}

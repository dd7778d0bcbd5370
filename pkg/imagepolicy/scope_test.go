package imagepolicy_test

import (
	"testing"

	"github.com/openshift/registries-controller/pkg/imagepolicy"
)

// TestNested pins the nesting of signature scopes of docs/semantics.md §9.2, including the tag and digest forms
// MCO gets wrong (docs/semantics.md §9.9 D5).
func TestNested(t *testing.T) {
	for _, tc := range []struct {
		sub, super string
		want       bool
	}{
		{"quay.io/a", "quay.io/a", true},
		{"quay.io/a/b", "quay.io/a", true},
		{"quay.io/ab", "quay.io/a", false},
		{"quay.io", "quay.io/a", false},
		{"quay.io:5000", "quay.io", false},
		{"quay.io:5000/a", "quay.io", false},
		{"quay.io/a/b:v1", "quay.io/a/b", true},
		{"quay.io/a/b@sha256:0000000000000000000000000000000000000000000000000000000000000000", "quay.io/a/b", true},
		{"quay.io/a/b:v1", "quay.io/a", true},
		{"quay.io/a/b", "quay.io/a/b:v1", false},
		{"quay.io/a/b:v2", "quay.io/a/b:v1", false},
		{"a.b.example.com", "*.example.com", true},
		{"*.a.example.com", "*.example.com", true},
		{"a.example.com:5000/x", "*.example.com", true},
		{"a.example.com/x:v1", "*.example.com", true},
		{"example.com", "*.example.com", false},
		{"*.example.com", "*.a.example.com", false},
		{"localhost:5000/x:v1", "localhost:5000/x", true},
	} {
		if got := imagepolicy.Nested(tc.sub, tc.super); got != tc.want {
			t.Errorf("Nested(%q, %q) = %t, want %t", tc.sub, tc.super, got, tc.want)
		}
	}
}
